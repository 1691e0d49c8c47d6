"""A JSON Schema (2020-12) of the JSON form, generated from the vocabulary data.

Theory of operation
-------------------
The JSON form (spec section 6, decisions D1 and D2) is fully determined by
the vocabulary: the message types, each type's required slots, every slot's
type, the enums. :func:`schema_for` walks a compiled
:class:`~rogerwilco.vocab.Vocabulary` (the core alone, or the core plus one
profile) and writes:

* the nine top-level keys, all required, nothing else; ``v`` is ``RW1``,
  ``type`` one of the types, ``id`` ``<agent>-<n>``; ``re``, ``item`` and
  ``tail`` may be null;
* ``slots``: one property per slot with the JSON value its type decodes to
  (integers with their range, booleans, non-empty arrays, enum codes,
  strings with the shape their type demands); unknown and ``x_`` keys are
  strings (D2); envelope keys may not appear there;
* per message type, an ``if`` on ``type`` whose ``then`` requires that
  type's slots (an envelope slot as a non-null string, the others in
  ``slots``);
* the core's and the profile's conditional rules where they are data a
  schema can say (``when`` a slot equals a value or starts with a prefix,
  ``require`` slots, a tail, a ``match`` shape), and a closed answer
  vocabulary (``enums.ans``);
* under a profile, ``slots.p`` is required and names it: the schema of a
  profile describes the messages that use it. A message without ``p=``
  is a core message and follows the core schema.

What a schema cannot say is left to the never-guess pass and named in the
schema's ``$comment``: that the id's name equals ``from``, calendar validity
of dates, sums such as ``net + vat = amt``, which profiles a receiver holds.

Strings are "visible": the grammar's VCHAR class, read from
``grammar/rw1.lark``. Patterns exclude the code points VCHAR leaves out of
the Basic Multilingual Plane, and lone surrogates, with a negated class, and
admit a surrogate pair as a second alternative, so they mean the same in a
UTF-16 regex engine (ECMA-262 without ``u``) and a code point one.

The schema is written in the form ajv's strict mode compiles without a
warning (:func:`rogerwilco.core.schemacheck.strict_form`). JSON Schema's data
model cannot tell ``2.0`` from ``2``, so a number written with a fraction or
an exponent (refused by decision D9) is left to the package.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Mapping

from ._lark import grammar_file_tree
from .abnf import RegexReader
from .schemacheck import strict_form
from .syntax import grammar_text
from .vocab import BUNDLED_PROFILES, Vocabulary, bundled_vocabulary, compile_vocabulary, core_vocabulary, load_profile

DIALECT = "https://json-schema.org/draft/2020-12/schema"


# ---------------------------------------------------------------- characters

@lru_cache(maxsize=None)
def _terminal_ranges(name: str) -> tuple[tuple[int, int], ...]:
    """The code point ranges of a grammar terminal that is one character class."""
    for item in grammar_file_tree(grammar_text()).children:
        if item.data == "term" and str(item.children[0]) == name:
            token = next(item.scan_values(lambda v: getattr(v, "type", None) == "REGEXP"))
            return tuple(RegexReader(str(token)[1:].rpartition("/")[0]).char_class())
    raise LookupError(f"grammar/rw1.lark defines no {name} terminal")


@lru_cache(maxsize=None)
def _invisible_class(terminals: tuple[str, ...] = ("VCHAR",)) -> str:
    """A regex class body of the BMP code points the named class terminals exclude (space included)."""
    visible = [span for name in terminals for span in _terminal_ranges(name)]
    # Surrogates are excluded here; a well-formed pair (an astral character,
    # which VCHAR admits) is matched by its own alternative in _visible.
    allowed = sorted(visible)
    excluded: list[tuple[int, int]] = []
    nxt = 0
    for lo, hi in allowed:
        if lo > nxt:
            excluded.append((nxt, lo - 1))
        nxt = max(nxt, hi + 1)
    if nxt <= 0xFFFF:
        excluded.append((nxt, 0xFFFF))
    return _class_body([(lo, min(hi, 0xFFFF)) for lo, hi in excluded if lo <= 0xFFFF])


def _class_body(ranges: list[tuple[int, int]] | tuple[tuple[int, int], ...]) -> str:
    return "".join(f"\\u{lo:04x}" if lo == hi else f"\\u{lo:04x}-\\u{hi:04x}" for lo, hi in ranges)


def _utf16_pairs(ranges: list[tuple[int, int]]) -> str:
    """The astral part of ``ranges`` as surrogate pairs: a regex a UTF-16 engine reads as those characters."""
    out: list[str] = []
    for lo, hi in ranges:
        lo = max(lo, 0x10000)
        if lo > hi:
            continue
        (hi_lo, lo_lo), (hi_hi, lo_hi) = (divmod(code - 0x10000, 0x400) for code in (lo, hi))
        if hi_lo == hi_hi:
            out.append(f"\\u{0xD800 + hi_lo:04x}[\\u{0xDC00 + lo_lo:04x}-\\u{0xDC00 + lo_hi:04x}]")
            continue
        out.append(f"\\u{0xD800 + hi_lo:04x}[\\u{0xDC00 + lo_lo:04x}-\\udfff]")
        if hi_hi - hi_lo > 1:
            out.append(f"[\\u{0xD800 + hi_lo + 1:04x}-\\u{0xD800 + hi_hi - 1:04x}][\\udc00-\\udfff]")
        out.append(f"\\u{0xD800 + hi_hi:04x}[\\udc00-\\u{0xDC00 + lo_hi:04x}]")
    return "|".join(out)


@lru_cache(maxsize=None)
def _pairs(terminals: tuple[str, ...]) -> str:
    return _utf16_pairs(sorted(span for name in terminals for span in _terminal_ranges(name)))


def _visible(extra_excluded: str = "", terminals: tuple[str, ...] = ("VCHAR",)) -> str:
    """One visible character: a BMP character the class admits, or a surrogate pair of one it admits.

    In a code point engine (Python, ECMA-262 with ``u``, as ajv compiles) an
    astral character is one code point outside the excluded set and a lone
    surrogate is inside it; in a UTF-16 engine (ECMA-262 without ``u``) the
    pair is matched by an alternative of its own and a lone half by none.
    Either way a lone surrogate is refused (decision D9). The invisible
    characters outside the BMP (tag characters and the like, D16) are refused
    by the pairs in a UTF-16 engine only: a class both kinds of engine read
    alike cannot name a range of them, so in a code point engine the schema
    admits them and the package's grammar refuses them.
    """
    return f"(?:[^{_invisible_class(terminals)}{extra_excluded}]|{_pairs(terminals)})"


def visible_pattern() -> str:
    return f"^{_visible()}+$"


def tail_pattern() -> str:
    """The grammar's TAIL: words of TCHAR, each joiner between two of them, each selector after one (D16)."""
    char = _visible(terminals=("VCHAR", "USPACE"))  # the grammar's TCHAR
    selector = f"[{_class_body(_terminal_ranges('TSEL'))}]"  # both classes lie in the BMP
    joiner = f"[{_class_body(_terminal_ranges('TJOIN'))}]"
    word = f"{char}+(?:(?:{selector}{joiner}?|{joiner}){char}+)*{selector}?"
    return f"^{word}(?: {word})*$"


# ---------------------------------------------------------------- slot types

_AGENT = "^[A-Za-z0-9._-]+$"
_MSGID = "^[A-Za-z0-9._-]+-[0-9]+$"
_DATE = "^[0-9]{4}(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])$"
_TIME = "^[0-9]{4}(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])T(?:[01][0-9]|2[0-3])[0-5][0-9]Z$"
_MONEY = r"^-?[0-9]+\.[0-9]{2}$"
_NUM = r"^-?[0-9]+(?:\.[0-9]+)?(?:/-?[0-9]+(?:\.[0-9]+)?)?$"
_DIGEST = "^[0-9a-f]{12}$"
_INT_TYPE = re.compile(r"int:(-?[0-9]+)-(-?[0-9]+)")


def value_schema(type_name: str, vocab: Vocabulary, *, in_list: bool = False) -> dict[str, Any]:
    """The JSON value a slot of this type holds in the JSON form (D1, D2)."""
    if type_name.startswith("list:"):
        return {"type": "array", "minItems": 1, "items": value_schema(type_name[5:], vocab, in_list=True)}
    if type_name.startswith("enum:"):
        return {"type": "string", "enum": sorted(vocab.enums[type_name[5:]])}
    if type_name == "rb":
        return {"type": "string", "enum": sorted(set(vocab.rb_levels) | set(vocab.slots))}
    m = _INT_TYPE.fullmatch(type_name)
    if m:
        return {"type": "integer", "minimum": int(m.group(1)), "maximum": int(m.group(2))}
    if type_name == "days":
        return {"type": "integer", "minimum": 0}
    if type_name == "bool":
        return {"type": "boolean"}
    shapes = {
        "agent": _AGENT, "msgid": _MSGID, "date": _DATE, "time": _TIME, "money": _MONEY, "num": _NUM,
        "digest": _DIGEST,
    }
    if type_name in shapes:
        return {"type": "string", "pattern": shapes[type_name]}
    if type_name == "constraint":
        char = _visible("+" if in_list else "")
        return {"type": "string", "pattern": f"^[a-z][a-z0-9_]*:{char}+$"}
    if type_name in ("token", "ref", "text"):
        return {"type": "string", "pattern": f"^{_visible('+' if in_list else '')}+$"}
    raise ValueError(f"no JSON Schema for slot type {type_name!r}")


# ---------------------------------------------------------------- the document

def _envelope_required(key: str) -> dict[str, Any]:
    return {"properties": {key: {"type": "string"}}, "required": [key]}


def _slot_condition(key: str, cond: Any, envelope: tuple[str, ...]) -> dict[str, Any]:
    if isinstance(cond, Mapping) and "prefix" in cond:
        test: dict[str, Any] = {"type": "string", "pattern": "^" + re.escape(cond["prefix"])}
    elif isinstance(cond, Mapping) and "in" in cond:
        test = {"enum": list(cond["in"])}
    else:
        test = {"const": cond}
    if key in envelope:
        return {"properties": {key: test}, "required": [key]}
    return {"properties": {"slots": {"properties": {key: test}, "required": [key]}}}


def _requirement(keys: list[str], envelope: tuple[str, ...]) -> list[dict[str, Any]]:
    inside = [k for k in keys if k not in envelope]
    out = [_envelope_required(k) for k in keys if k in envelope]
    if inside:
        out.append({"properties": {"slots": {"required": inside}}})
    return out


def _rule_schemas(vocab: Vocabulary) -> list[dict[str, Any]]:
    out = []
    for rule in vocab.rules:
        if not (rule.require or rule.require_tail or rule.match):
            continue  # a sum, say: not a schema's business
        conditions = [{"properties": {"type": {"enum": sorted(rule.on)}}}]
        conditions += [_slot_condition(k, c, vocab.envelope) for k, c in rule.when.items()]
        then: list[dict[str, Any]] = _requirement(list(rule.require), vocab.envelope)
        if rule.require_tail:
            then.append({"properties": {"tail": {"type": "string"}}})
        for key, pattern in rule.match.items():
            # A profile pattern matches the whole value (D11); a schema pattern searches.
            shape = {"type": "string", "pattern": f"^(?:{pattern.pattern})$"}
            if key in vocab.envelope:
                then.append({"properties": {key: {"anyOf": [{"type": "null"}, shape]}}})
            else:
                then.append({"properties": {"slots": {"properties": {key: shape}}}})
        item: dict[str, Any] = {"$comment": f"rule {rule.id}: {rule.desc}".rstrip(": "),
                                "if": {"allOf": conditions}, "then": {"allOf": then}}
        out.append(item)
    ans = vocab.enums.get("ans")
    if ans:
        codes = sorted(ans)
        out.append({
            "$comment": "closed answer vocabulary (enums.ans): AQ need=ENUM options",
            "if": {"properties": {"type": {"const": "AQ"},
                                  "slots": {"properties": {"need": {"const": "ENUM"}}, "required": ["need"]}}},
            "then": {"properties": {"slots": {"properties": {"opts": {"items": {"enum": codes}}}}}},
        })
        out.append({
            "$comment": "closed answer vocabulary (enums.ans): AN val is a code, tail, Y, N or a number",
            "if": {"properties": {"type": {"const": "AN"}}},
            "then": {"properties": {"slots": {"properties": {"val": {"anyOf": [
                {"enum": codes + ["tail", "Y", "N"]},
                {"type": "string", "pattern": r"^-?[0-9]+(?:\.[0-9]+)?$"},
            ]}}}}},
        })
    return out


def schema_for(vocab: Vocabulary) -> dict[str, Any]:
    """The JSON Schema of the JSON form under ``vocab`` (core, or core plus a profile)."""
    envelope = vocab.envelope
    visible = {"type": "string", "pattern": visible_pattern()}
    slot_props = {
        key: {**value_schema(slot.type.name, vocab), **({"description": slot.desc} if slot.desc else {})}
        for key, slot in vocab.slots.items()
    }
    if vocab.profile is not None:
        slot_props["p"] = {"const": vocab.profile, "description": "the profile the message uses"}
    slots: dict[str, Any] = {
        "type": "object",
        "propertyNames": {"pattern": "^[a-z][a-z0-9_]*$", "not": {"enum": list(envelope)}},
        "properties": slot_props,
        "additionalProperties": visible,
    }
    if vocab.profile is not None:
        slots["required"] = ["p"]
    per_type = []
    for name, table in vocab.types.items():
        then = _requirement(list(table.required), envelope)
        per_type.append({
            "$comment": f"{name}: {table.desc}",
            "if": {"properties": {"type": {"const": name}}},
            "then": {"allOf": then} if len(then) != 1 else then[0],
        })
    title = "RW1 JSON form" + (f" under profile {vocab.profile}" if vocab.profile else " (core)")
    schema: dict[str, Any] = strict_form({
        "$schema": DIALECT,
        "$id": f"urn:rogerwilco:rw1:jsonform:{vocab.profile or 'core'}",
        "title": title,
        "$comment": ("Generated from profiles/rw1.json"
                     + (f" and profile {vocab.profile}" if vocab.profile else "")
                     + " by `rogerwilco schema`. Not expressed here, checked by the never-guess pass: the id's name"
                       " equals from, dates are calendar dates, sums such as net + vat = amt, which profiles"
                       " a receiver holds, and that a number is written without a fraction or exponent (D9)."),
        "type": "object",
        "required": ["v", "type", "id", "re", "from", "to", "item", "slots", "tail"],
        "additionalProperties": False,
        "properties": {
            "v": {"const": "RW1"},
            "type": {"enum": list(vocab.types)},
            "id": {"type": "string", "pattern": _MSGID},
            "re": {"anyOf": [{"type": "null"}, value_schema(vocab.slots["re"].type.name, vocab)]},
            "from": value_schema(vocab.slots["from"].type.name, vocab),
            "to": value_schema(vocab.slots["to"].type.name, vocab),
            "item": {"anyOf": [{"type": "null"}, value_schema(vocab.slots["item"].type.name, vocab)]},
            "slots": slots,
            "tail": {"anyOf": [{"type": "null"},
                               {"type": "string", "maxLength": vocab.tail_max, "pattern": tail_pattern()}]},
        },
        "allOf": per_type + _rule_schemas(vocab),
    })
    return schema


def schema(profile: str | Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The schema for the core (None), a bundled profile name, a path, or a profile object."""
    if profile is None:
        return schema_for(core_vocabulary())
    if isinstance(profile, str) and profile in BUNDLED_PROFILES:
        return schema_for(bundled_vocabulary(profile))
    return schema_for(compile_vocabulary(load_profile(profile)))
