"""A small JSON Schema (2020-12) checker for the schemas this package ships.

Theory of operation
-------------------
The harness must refuse a case file or a report that does not match its
schema, naming the file and the JSON path of the fault, without asking a
port author to install a JSON Schema library. The shipped schemas
(``conformance/schema.json``, ``conformance/report.schema.json``,
``profiles/*.schema.json``) use a small set of keywords; this module checks
exactly those, and refuses a schema that uses any other (so a schema can
never silently check less than it says):

``type enum const pattern minLength maxLength minimum maximum minItems
maxItems minProperties required properties additionalProperties
propertyNames patternProperties items prefixItems uniqueItems allOf anyOf
oneOf not if then else $ref`` (local ``#/...`` references only), plus the
annotations ``$schema $id $comment title description default examples
$defs``.

:func:`errors` yields ``(json_path, message)`` pairs; the path is written
like ``$.cases[3].request.op`` (a missing member is named at its own path,
``$.cases[3].request.op: missing required member 'op'``); :func:`faults`
yields the same with the path as a tuple of keys and indexes.

Integers have two readings, chosen per checker. By default an ``integer`` is
a JSON integer only: ``2.0`` is not one (as in RW1's JSON forms, decision
D9). With ``integral_floats=True`` it is JSON Schema 2020-12's own reading
(Validation 6.1.1: "integer" matches "any number with a zero fractional
part"), for values that come from clients whose numbers may be doubles: the
tool arguments of :mod:`rogerwilco.front.tools`. ``true`` is never a number
in either.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from functools import reduce
from typing import Any, Iterator, Mapping

ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "title", "description", "default", "examples", "$defs",
                         "deprecated", "readOnly", "writeOnly"})
ASSERTIONS = frozenset({
    "type", "enum", "const", "pattern", "minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems",
    "minProperties", "required", "properties", "additionalProperties", "propertyNames", "patternProperties",
    "items", "prefixItems", "uniqueItems", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref",
})


class SchemaError(ValueError):
    """The schema itself uses something this checker does not cover."""


def _type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float) or type(value).__name__ == "RawNumber":
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def _is_type(value: Any, name: str, integral_floats: bool = False) -> bool:
    kind = _type_of(value)
    if name == "integer" and integral_floats and isinstance(value, float):
        return value.is_integer()
    return kind == name or (name == "number" and kind == "integer")


def _shown(value: Any) -> str:
    """A value for a message: its JSON text, or its repr when it is not JSON."""
    try:
        return json.dumps(value, ensure_ascii=False)[:60]
    except (TypeError, ValueError):
        return repr(value)[:60]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


@lru_cache(maxsize=512)
def _pattern(source: str) -> re.Pattern[str]:
    return re.compile(source)


Path = tuple[Any, ...]


def _child(path: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
        return f"{path}.{key}"
    return f"{path}[{json.dumps(key, ensure_ascii=False)}]"


class Checker:
    """Checks instances against one schema document."""

    def __init__(self, schema: Mapping[str, Any], *, integral_floats: bool = False) -> None:
        self.root = schema
        #: Whether ``2.0`` is an ``integer`` (JSON Schema 2020-12) or not (RW1's JSON forms, D9).
        self.integral_floats = integral_floats
        self._audit(schema, "#")

    def _audit(self, schema: Any, where: str) -> None:
        if isinstance(schema, bool):
            return
        if not isinstance(schema, Mapping):
            raise SchemaError(f"{where}: a schema is an object or a boolean")
        for key, value in schema.items():
            if key not in ANNOTATIONS and key not in ASSERTIONS:
                raise SchemaError(f"{where}: keyword {key!r} is not supported by this checker")
            if key == "$ref" and not str(value).startswith("#"):
                raise SchemaError(f"{where}: only local $ref is supported")
        for key in ("properties", "patternProperties", "$defs"):
            for name, sub in schema.get(key, {}).items():
                self._audit(sub, f"{where}/{key}/{name}")
        for key in ("allOf", "anyOf", "oneOf", "prefixItems"):
            for i, sub in enumerate(schema.get(key, [])):
                self._audit(sub, f"{where}/{key}/{i}")
        for key in ("not", "if", "then", "else", "items", "additionalProperties", "propertyNames"):
            if key in schema:
                self._audit(schema[key], f"{where}/{key}")

    def resolve(self, ref: str) -> Any:
        node: Any = self.root
        for part in ref.lstrip("#").split("/")[1:]:
            part = part.replace("~1", "/").replace("~0", "~")
            node = node[int(part)] if isinstance(node, list) else node[part]
        return node

    def errors(self, value: Any, schema: Any = None, path: str = "$") -> Iterator[tuple[str, str]]:
        """Each way ``value`` breaks ``schema`` (the root by default), as ``(json_path, message)``."""
        for at, message in self.faults(value, schema):
            yield reduce(_child, at, path), message

    def faults(self, value: Any, schema: Any = None, path: Path = ()) -> Iterator[tuple[Path, str]]:
        """Each way ``value`` breaks ``schema``, as ``(path as a tuple of keys and indexes, message)``."""
        schema = self.root if schema is None else schema
        if schema is True:
            return
        if schema is False:
            yield path, "no value is allowed here"
            return
        if "$ref" in schema:
            yield from self.faults(value, self.resolve(schema["$ref"]), path)
        if "type" in schema:
            names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            if not any(_is_type(value, n, self.integral_floats) for n in names):
                yield path, f"expected {' or '.join(names)}, got {_type_of(value)}"
                return
        if "const" in schema and not _same(value, schema["const"]):
            yield path, f"expected {json.dumps(schema['const'])}"
        if "enum" in schema and not any(_same(value, v) for v in schema["enum"]):
            shown = ", ".join(json.dumps(v) for v in schema["enum"][:12])
            yield path, f"{_shown(value)} is not one of {shown}"
        if isinstance(value, str):
            if len(value) < schema.get("minLength", 0):
                yield path, f"shorter than {schema['minLength']} characters"
            if "maxLength" in schema and len(value) > schema["maxLength"]:
                yield path, f"longer than {schema['maxLength']} characters"
            if "pattern" in schema and _pattern(schema["pattern"]).search(value) is None:
                yield path, f"{json.dumps(value, ensure_ascii=False)[:60]} does not match {schema['pattern']}"
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if "minimum" in schema and value < schema["minimum"]:
                yield path, f"{value} is below {schema['minimum']}"
            if "maximum" in schema and value > schema["maximum"]:
                yield path, f"{value} is above {schema['maximum']}"
        if isinstance(value, list):
            yield from self._array(value, schema, path)
        if isinstance(value, Mapping):
            yield from self._object(value, schema, path)
        for sub in schema.get("allOf", []):
            yield from self.faults(value, sub, path)
        for keyword in ("anyOf", "oneOf"):
            if keyword not in schema:
                continue
            found = [list(self.faults(value, sub, path)) for sub in schema[keyword]]
            passing = sum(1 for f in found if not f)
            if passing == 0:
                yield _best(found, path)
            elif passing > 1 and keyword == "oneOf":
                yield path, "matches more than one alternative (oneOf)"
        if "not" in schema and not any(True for _ in self.faults(value, schema["not"], path)):
            yield path, "matches a form that is not allowed here"
        if "if" in schema:
            if not any(True for _ in self.faults(value, schema["if"], path)):
                if "then" in schema:
                    yield from self.faults(value, schema["then"], path)
            elif "else" in schema:
                yield from self.faults(value, schema["else"], path)

    def _array(self, value: list[Any], schema: Mapping[str, Any], path: Path) -> Iterator[tuple[Path, str]]:
        if len(value) < schema.get("minItems", 0):
            yield path, f"fewer than {schema['minItems']} items"
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            yield path, f"more than {schema['maxItems']} items"
        if schema.get("uniqueItems"):
            for i, item in enumerate(value):
                if any(_same(item, other) for other in value[:i]):
                    yield path + (i,), "repeats an earlier item"
        prefix = schema.get("prefixItems", [])
        for i, item in enumerate(value):
            if i < len(prefix):
                yield from self.faults(item, prefix[i], path + (i,))
            elif "items" in schema:
                yield from self.faults(item, schema["items"], path + (i,))

    def _object(self, value: Mapping[str, Any], schema: Mapping[str, Any], path: Path) -> Iterator[tuple[Path, str]]:
        for key in schema.get("required", []):
            if key not in value:
                yield path + (key,), f"missing required member {key!r}"
        if len(value) < schema.get("minProperties", 0):
            yield path, f"fewer than {schema['minProperties']} members"
        props = schema.get("properties", {})
        patterns = schema.get("patternProperties", {})
        for key, item in value.items():
            where = path + (key,)
            if "propertyNames" in schema:
                for _, message in self.faults(key, schema["propertyNames"], where):
                    yield where, f"member name: {message}"
            matched = False
            if key in props:
                matched = True
                yield from self.faults(item, props[key], where)
            for source, sub in patterns.items():
                if _pattern(source).search(key):
                    matched = True
                    yield from self.faults(item, sub, where)
            if not matched and "additionalProperties" in schema:
                extra = schema["additionalProperties"]
                if extra is False:
                    yield where, f"member {key!r} is not allowed here"
                else:
                    yield from self.faults(item, extra, where)


def _best(found: list[list[tuple[Path, str]]], path: Path) -> tuple[Path, str]:
    """The error to show when no alternative matches: the one that got furthest in."""
    deepest = max((e for f in found for e in f), key=lambda e: len(e[0]))
    if deepest[0] != path:
        return deepest
    return path, "matches none of the alternatives: " + "; ".join(f[0][1] for f in found)


# ---------------------------------------------------------------- strict form

_BY_TYPE = {
    "string": ("pattern", "minLength", "maxLength"),
    "integer": ("minimum", "maximum"),
    "array": ("items", "minItems", "maxItems", "prefixItems", "uniqueItems"),
    "object": ("properties", "required", "additionalProperties", "propertyNames", "minProperties",
               "patternProperties"),
}
_VALUES = ("enum", "const", "required", "examples", "default")
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "dependentSchemas")


def strict_form(schema: Any) -> Any:
    """The same schema, written so that ajv's strict mode compiles it without a warning.

    Three rewrites, none of which changes what validates: a union type
    (``"type": ["string", "null"]``) becomes an ``anyOf`` of single types,
    each with the keywords that apply to it; a keyword that applies to one
    type (``required``, ``pattern``...) gets that ``type`` beside it; and a
    ``required`` member is declared in ``properties`` (as ``true`` when the
    schema says nothing more about it).
    """
    if isinstance(schema, list):
        return [strict_form(item) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    node = {}
    for key, value in schema.items():
        if key in _VALUES:
            node[key] = value
        elif key in _SCHEMA_MAPS and isinstance(value, Mapping):
            node[key] = {name: strict_form(sub) for name, sub in value.items()}
        else:
            node[key] = strict_form(value)
    if isinstance(node.get("type"), list):
        types = node.pop("type")
        branches = []
        for name in types:
            branch: dict[str, Any] = {"type": name}
            for key in _BY_TYPE.get("integer" if name == "number" else name, ()):
                if key in node:
                    branch[key] = node[key]
            branches.append(branch)
        for name in types:
            for key in _BY_TYPE.get("integer" if name == "number" else name, ()):
                node.pop(key, None)
        if "anyOf" in node:
            node["allOf"] = [*node.get("allOf", []), {"anyOf": branches}]
        else:
            node["anyOf"] = branches
    if isinstance(node.get("required"), list):
        props = dict(node.get("properties", {}))
        for name in node["required"]:
            props.setdefault(name, True)
        node["properties"] = props
    if "type" not in node and "$ref" not in node:
        for name, keys in _BY_TYPE.items():
            if any(key in node for key in keys):
                node["type"] = name
                break
    return node


def first_error(schema: Mapping[str, Any], value: Any) -> tuple[str, str] | None:
    return next(iter(Checker(schema).errors(value)), None)
