"""Vocabulary: the core and the profiles, compiled into per-type slot tables.

Theory of operation
-------------------
The core vocabulary is data (``profiles/rw1.json``): the nine types with their
required and optional slots, every slot's type, the enums, the readback
levels and the conditional rules. The comparison data of the comprehension
check (``profiles/compare.json``: the core constraint keys, the set-valued
keys, the aliases and the word lists) is merged into it as enum ``ckey``,
``set_valued_keys`` and ``aliases``. A profile
(spec section 7, decisions D5) is a JSON file that *extends* it: new asks and
reasons, new enums, new slots (with the types they apply to and whether they
are required), agents, execution slots per ask, constraint keys, aliases and
translation rules. It may not redefine anything of the core.

:func:`compile_vocabulary` merges the core with at most one profile and
compiles the result once into a :class:`Vocabulary`: for every message type a
:class:`TypeTable` mapping each slot key allowed on it to its compiled
:class:`SlotDef`, plus the required keys. The semantic pass walks these
tables; nothing in the Python code names a type's slots or a profile.

:class:`Receiver` says which profiles a receiver holds (``p=`` may only name
one of those) and caches one compiled vocabulary per profile.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Iterable, Mapping, TypeAlias

import attrs

from . import _deprecated
from ._resources import data_dir, profile_file
from . import iregexp
from .errors import ProfileError
from .files import PROFILE_MAX_BYTES, read_limited
from .slottypes import AGENT_RE, AGENT_TYPES, CONSTRAINT_KEY_RE, KEY_RE, PROFILE_TYPES, SlotType, compile_type

if TYPE_CHECKING:
    from os import PathLike
    from pathlib import Path

BUNDLED_PROFILES = ("pay", "clin", "pform", "deploy")
_PROFILE_KEYS = frozenset({
    "profile", "version", "extends", "enums", "asks", "why", "slots", "agents", "asks_used",
    "exec", "constraint_keys", "aliases", "translation", "desc", "$schema",
    # kept as notes, as the published reference profiles write them: read by people and the legend, never checked
    "description", "item_namespace", "item_examples", "item_kinds",
})
_EXTENDS = ("RW1", "core")  # the published reference profiles say "core"
_NAME_RE = re.compile(r"[a-z][a-z0-9_-]*")
_CODE_RE = re.compile(r"[!-~]+")


@attrs.frozen
class SlotDef:
    key: str
    type: SlotType
    desc: str = ""
    profile: str | None = None


@attrs.frozen
class TypeTable:
    name: str
    desc: str
    required: tuple[str, ...]
    slots: Mapping[str, SlotDef]  # every key allowed on this type
    # key -> decode function, None where the type keeps the text as written;
    # the never-guess pass reads this on every slot of every line.
    decoders: Mapping[str, Any] = attrs.Factory(dict)
    rules: tuple["ProfileRule", ...] = ()
    required_set: frozenset[str] = attrs.field(init=False, repr=False, eq=False)

    @required_set.default
    def _required_set(self) -> frozenset[str]:
        return frozenset(self.required)


@attrs.frozen
class ProfileRule:
    """A conditional requirement, from the core or a profile's translation."""

    id: str
    on: frozenset[str]
    when: Mapping[str, Any]
    require: tuple[str, ...] = ()
    require_tail: bool = False
    match: Mapping[str, iregexp.IRegexp] = attrs.Factory(dict)  # whole-value, linear-time (D11)
    sum: Mapping[str, Any] | None = None
    evidence: str | None = None  # the slot pointing at the evidence the tail quotes verbatim
    desc: str = ""
    profile: str | None = None


@attrs.frozen(eq=False)
class Vocabulary:
    """The core plus at most one profile, compiled."""

    profile: str | None
    envelope: tuple[str, ...]
    types: Mapping[str, TypeTable]
    slots: Mapping[str, SlotDef]
    enums: Mapping[str, Mapping[str, str]]
    rb_levels: Mapping[str, str]
    constraint_keys: Mapping[str, str]
    set_valued_keys: frozenset[str]
    aliases: Mapping[str, str]  # every spelling -> canonical value
    rules: tuple[ProfileRule, ...]
    exec_slots: Mapping[str, tuple[str, ...]]
    agents: frozenset[str] | None
    reserved_agents: frozenset[str]
    asks_used: tuple[str, ...] | None
    tail_max: int
    source: Mapping[str, Any]  # the profile document, as loaded (empty for the core)
    core: Mapping[str, Any]
    # The keys of the agent-typed slots (an agent, a list of agents): the ones a profile that names its agents closes.
    agent_keys: tuple[str, ...] = attrs.field(init=False, repr=False)

    @agent_keys.default
    def _agent_keys(self) -> tuple[str, ...]:
        return tuple(key for key, slot in self.slots.items() if slot.type.name in AGENT_TYPES)

    def enum_codes(self, name: str) -> Mapping[str, str]:
        return self.enums.get(name, {})


# --------------------------------------------------------------------------
# loading


def read_json(path: str | PathLike[str]) -> dict[str, Any]:
    try:
        doc = json.loads(read_limited(path, what="profile", limit=PROFILE_MAX_BYTES, error=ProfileError).decode("utf-8"))
    except ProfileError:  # not a regular file, or past the cap: already says which and why
        raise
    except FileNotFoundError:
        raise ProfileError(f"{path} is neither a bundled profile ({', '.join(BUNDLED_PROFILES)}) "
                           "nor a profile file that exists") from None
    except UnicodeDecodeError:
        raise ProfileError(f"{path} is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise ProfileError(f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except (ValueError, RecursionError) as exc:  # an integer past the digit limit, nesting past the stack
        raise ProfileError(f"not a usable JSON document: {type(exc).__name__}") from None
    except OSError as exc:
        raise ProfileError(f"cannot read the profile: {exc.strerror or exc}") from None
    if not isinstance(doc, dict):
        raise ProfileError("a profile is a JSON object")
    return doc


# Files under profiles/ that are not profiles.
_NOT_PROFILES = ("rw1", "compare", "additions")


@lru_cache(maxsize=1)
def compare_document() -> Mapping[str, Any]:
    """The comparison data (``profiles/compare.json``), as written."""
    return read_json(profile_file("compare"))


@lru_cache(maxsize=1)
def _core_document() -> Mapping[str, Any]:
    """The core vocabulary with the comparison data's keys and aliases merged in."""
    core = dict(read_json(profile_file("rw1")))
    compare = compare_document()
    core["enums"] = {**core["enums"], "ckey": dict(compare["constraint_keys"])}
    core["set_valued_keys"] = list(compare["set_valued_keys"])
    core["aliases"] = {canonical: list(spellings) for canonical, spellings in compare["aliases"].items()}
    return core


def load_profile(source: str | Path | Mapping[str, Any]) -> dict[str, Any]:
    """A profile document from a bundled name, a file path, or an object.

    The document is checked against the core (see :func:`profile_problems`);
    the first problem raises ProfileError naming its JSON path.
    """
    if isinstance(source, Mapping):
        doc = dict(source)
    else:
        text = str(source)
        if text in BUNDLED_PROFILES or (_NAME_RE.fullmatch(text) and os.path.isfile(profile_file(text))):
            doc = read_json(profile_file(text))
        else:
            doc = read_json(text)
    problems = profile_problems(doc)
    if problems:
        path, message = problems[0]
        raise ProfileError(message, path=path)
    return doc


def _shown(value: Any) -> str:
    """A value quoted in a problem: a short repr of a string, else only its JSON type (never a deep repr)."""
    if isinstance(value, str):
        return repr(value if len(value) <= 60 else value[:60] + "...")
    return f"a {type(value).__name__}"


def _key_path(path: str, key: Any) -> str:
    return f"{path}.{key}"


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _codes(value: Any, path: str, problems: list[tuple[str, str]]) -> dict[str, str]:
    """An enum given as {code: desc} or [code, ...]."""
    if isinstance(value, list):
        listed: dict[str, str] = {}
        for i, code in enumerate(value):
            if not isinstance(code, str) or _CODE_RE.fullmatch(code) is None or "+" in code:
                problems.append((f"{path}[{i}]", "a code is visible ASCII with no '+'"))
            elif code in listed:
                problems.append((f"{path}[{i}]", f"code {code!r} listed twice"))
            else:
                listed[code] = ""
        return listed
    if not isinstance(value, dict):
        problems.append((path, "expected an object of code: description, or a list of codes"))
        return {}
    out = {}
    for code, desc in value.items():
        if not isinstance(code, str) or _CODE_RE.fullmatch(code) is None or "+" in code:
            problems.append((_key_path(path, code), "a code is visible ASCII with no '+'"))
        elif not isinstance(desc, str):
            problems.append((_key_path(path, code), "a code's description is a string"))
        else:
            out[code] = desc
    return out


def _message_types(value: Any, path: str, types: set[str], problems: list[tuple[str, str]], what: str) -> None:
    """An 'on' list: a non-empty list of distinct message types."""
    if not isinstance(value, list) or not value:
        problems.append((path, f"'on' is a non-empty list of message types from {sorted(types)}"))
        return
    seen: set[str] = set()
    for i, t in enumerate(value):
        if not isinstance(t, str) or t not in types:
            problems.append((f"{path}[{i}]", f"{what} {_shown(t)} is not a message type of {sorted(types)}"))
        elif t in seen:
            problems.append((f"{path}[{i}]", f"message type {t!r} listed twice"))
        else:
            seen.add(t)


def profile_problems(doc: Any) -> list[tuple[str, str]]:
    """Every problem of a profile document, as (JSON path, message) pairs.

    This is the one check of a profile: :func:`load_profile` refuses a
    document with any problem (naming the first), ``rogerwilco profile
    check`` lists them all. A document with none compiles, and every line
    checked against it gives findings, never an exception: every value the
    compiled vocabulary or a rule will touch is type-checked here.
    """
    if not isinstance(doc, Mapping):
        return [("$", "a profile is a JSON object")]
    core = _core_document()
    problems: list[tuple[str, str]] = []
    for key in doc:
        if key not in _PROFILE_KEYS:
            problems.append((f"$.{key}", f"unknown profile key {key!r}"))
    name = doc.get("profile")
    if not isinstance(name, str) or _NAME_RE.fullmatch(name) is None:
        problems.append(("$.profile", "a profile names itself with a lowercase name [a-z][a-z0-9_-]*"))
    elif name.upper() == "RW1":
        problems.append(("$.profile", "the core's own name cannot be a profile"))
    if not isinstance(doc.get("version"), str) or not doc["version"]:
        problems.append(("$.version", "a profile has a non-empty version string"))
    if doc.get("extends") not in _EXTENDS:
        problems.append(("$.extends", "a profile extends \"RW1\" (the core, also written \"core\")"))
    for key in ("desc", "$schema", "description", "item_namespace"):
        if key in doc and not isinstance(doc[key], str):
            problems.append((f"$.{key}", f"'{key}' is a string"))
    if "item_examples" in doc and not _is_str_list(doc["item_examples"]):
        problems.append(("$.item_examples", "'item_examples' is a list of strings"))
    if "item_kinds" in doc and (not isinstance(doc["item_kinds"], dict)
                                or not all(isinstance(v, str) for v in doc["item_kinds"].values())):
        problems.append(("$.item_kinds", "'item_kinds' maps an item kind to its description"))

    core_enums = core["enums"]
    enums: dict[str, dict[str, str]] = {k: dict(v) for k, v in core_enums.items()}

    def extend(enum: str, codes: dict[str, str], path: str) -> None:
        have = enums.setdefault(enum, {})
        for code, desc in codes.items():
            if code in core_enums.get(enum, {}):
                problems.append((f"{path}.{code}", f"redefines core {enum} code {code!r}"))
            have[code] = desc

    raw_enums = doc.get("enums", {})
    if not isinstance(raw_enums, dict):
        problems.append(("$.enums", "expected an object of enum name: codes"))
        raw_enums = {}
    for enum, codes in raw_enums.items():
        if not isinstance(enum, str) or KEY_RE.fullmatch(enum) is None:
            problems.append((_key_path("$.enums", enum), "an enum name matches [a-z][a-z0-9_]*"))
            continue
        extend(enum, _codes(codes, f"$.enums.{enum}", problems), f"$.enums.{enum}")
    extend("ask", _codes(doc.get("asks", {}), "$.asks", problems), "$.asks")
    extend("why", _codes(doc.get("why", {}), "$.why", problems), "$.why")
    ckeys = _codes(doc.get("constraint_keys", {}), "$.constraint_keys", problems)
    for code in ckeys:
        if CONSTRAINT_KEY_RE.fullmatch(code) is None or code != code.lower():
            problems.append((f"$.constraint_keys.{code}", "a constraint key is lowercase with no ':' "
                             "(the key of an acc= item, compared case-insensitively)"))
    extend("ckey", ckeys, "$.constraint_keys")
    if "ans" in enums:
        for code in enums["ans"]:
            for core_enum in ("ask", "why", "out", "need", "conf"):
                if code in core_enums[core_enum]:
                    problems.append((f"$.enums.ans.{code}", f"answer {code!r} collides with core {core_enum} code"))
            if code in ("Y", "N", "tail"):
                problems.append((f"$.enums.ans.{code}", f"answer {code!r} collides with a reserved value"))

    types = set(core["types"])
    slot_names = set(core["slots"])
    raw_slots = doc.get("slots", [])
    if not isinstance(raw_slots, list):
        problems.append(("$.slots", "expected a list of slot definitions"))
        raw_slots = []
    for i, slot in enumerate(raw_slots):
        path = f"$.slots[{i}]"
        if not isinstance(slot, dict):
            problems.append((path, "a slot definition is an object"))
            continue
        key = slot.get("key")
        if not isinstance(key, str) or KEY_RE.fullmatch(key) is None:
            problems.append((f"{path}.key", "a slot key matches [a-z][a-z0-9_]*"))
            continue
        if key in core["slots"] or key in core["envelope"] or key == "p":
            problems.append((f"{path}.key", f"redefines core slot {key!r}"))
        if key.startswith("x_"):
            problems.append((f"{path}.key", "x_ keys are extensions, not profile slots"))
        if key in slot_names - set(core["slots"]):
            problems.append((f"{path}.key", f"slot {key!r} defined twice"))
        slot_names.add(key)
        for extra in slot:
            if extra not in ("key", "type", "on", "required", "desc"):
                problems.append((_key_path(path, extra), f"unknown slot field {extra!r}"))
        type_name = slot.get("type")
        if not isinstance(type_name, str):
            problems.append((f"{path}.type", "a slot has a type, a string such as \"token\" or \"enum:<name>\""))
        else:
            try:
                compile_type(type_name, enums)
            except ValueError as exc:
                problems.append((f"{path}.type", str(exc)))
            else:
                if not _profile_type(type_name):
                    problems.append((f"{path}.type", f"unknown slot type {type_name!r}: a profile uses the slot "
                                     "types of spec section 7"))
        if "on" in slot:
            _message_types(slot["on"], f"{path}.on", types, problems, "'on' entry")
        if not isinstance(slot.get("required", False), bool):
            problems.append((f"{path}.required", "'required' is true or false"))
        if "desc" in slot and not isinstance(slot["desc"], str):
            problems.append((f"{path}.desc", "'desc' is a string"))

    agents = doc.get("agents", [])
    if not isinstance(agents, list):
        problems.append(("$.agents", "agents is a list of agent names [A-Za-z0-9._-]+"))
    else:
        for i, agent in enumerate(agents):
            if not isinstance(agent, str) or AGENT_RE.fullmatch(agent) is None:
                problems.append((f"$.agents[{i}]", "an agent name matches [A-Za-z0-9._-]+"))
            elif agents.index(agent) != i:
                problems.append((f"$.agents[{i}]", f"agent {agent!r} listed twice"))
    asks_used = doc.get("asks_used", [])
    if not isinstance(asks_used, list):
        problems.append(("$.asks_used", "asks_used is a list of core asks"))
    else:
        for i, ask in enumerate(asks_used):
            if not isinstance(ask, str) or ask not in enums["ask"]:
                problems.append((f"$.asks_used[{i}]", f"{_shown(ask)} is not an ask of the core or this profile"))
            elif asks_used.index(ask) != i:
                problems.append((f"$.asks_used[{i}]", f"ask {ask!r} listed twice"))
    exec_map = doc.get("exec", {})
    if not isinstance(exec_map, dict):
        problems.append(("$.exec", "exec maps an ask to its execution slots"))
        exec_map = {}
    for ask, slots in exec_map.items():
        where = _key_path("$.exec", ask)
        if not isinstance(ask, str) or ask not in enums["ask"]:
            problems.append((where, f"{_shown(ask)} is not an ask"))
        if not isinstance(slots, list) or not slots:
            problems.append((where, "execution slots are a non-empty list of slot keys"))
            continue
        for i, key in enumerate(slots):
            if not isinstance(key, str) or key not in slot_names:
                problems.append((f"{where}[{i}]", f"execution slot {_shown(key)} is not a slot"))
    aliases = doc.get("aliases", {})
    if not isinstance(aliases, dict):
        problems.append(("$.aliases", "aliases map a canonical value to a list of spellings"))
    else:
        for canonical, spellings in aliases.items():
            if not isinstance(canonical, str) or not canonical:
                problems.append((_key_path("$.aliases", canonical), "an alias's canonical value is a non-empty string"))
            elif not _is_str_list(spellings) or not all(spellings):
                problems.append((_key_path("$.aliases", canonical), "aliases map a canonical value to a list of "
                                 "non-empty spellings"))
    rules = doc.get("translation", [])
    if isinstance(rules, dict):  # the published profiles' {"note": text}: a note for people, no rules
        if set(rules) != {"note"} or not isinstance(rules["note"], str):
            problems.append(("$.translation", "translation is a list of rules, or {\"note\": text}"))
        rules = []
    elif not isinstance(rules, list):
        problems.append(("$.translation", "translation is a list of rules, or {\"note\": text}"))
        rules = []
    for i, rule in enumerate(rules):
        problems.extend(_rule_problems(rule, f"$.translation[{i}]", slot_names | {"item", "re", "from", "to"}, types))
    return problems


_SCALAR_CONDITION = (str, int, float, bool)


def _condition_problem(cond: Any) -> str | None:
    """Why a 'when' condition cannot be evaluated, or None."""
    if isinstance(cond, _SCALAR_CONDITION):
        return None
    if isinstance(cond, dict):
        if len(cond) != 1 or next(iter(cond)) not in ("prefix", "in"):
            return "a condition is a value, {\"prefix\": text} or {\"in\": [values]}"
        if "prefix" in cond:
            return None if isinstance(cond["prefix"], str) else "'prefix' is a string"
        values = cond["in"]
        if not isinstance(values, list) or not all(isinstance(v, _SCALAR_CONDITION) for v in values):
            return "'in' is a list of values (strings, numbers, booleans)"
        return None
    return "a condition is a value, {\"prefix\": text} or {\"in\": [values]}"


def _rule_problems(rule: Any, path: str, slot_names: set[str], types: set[str]) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    if not isinstance(rule, dict):
        return [(path, "a rule is an object")]
    allowed = {"id", "on", "when", "require", "require_tail", "match", "sum", "evidence", "desc"}
    for key in rule:
        if key not in allowed:
            problems.append((_key_path(path, key), f"unknown rule field {key!r}"))
    if not isinstance(rule.get("id"), str) or not rule["id"]:
        problems.append((f"{path}.id", "a rule has an id, a non-empty string"))
    if "desc" in rule and not isinstance(rule["desc"], str):
        problems.append((f"{path}.desc", "'desc' is a string"))
    if "on" in rule:
        _message_types(rule["on"], f"{path}.on", types, problems, "'on' entry")
    when = rule.get("when", {})
    if not isinstance(when, dict):
        problems.append((f"{path}.when", "'when' maps a slot to a value or {\"prefix\": ...}"))
        when = {}
    named: list[tuple[str, Any]] = []
    for key, cond in when.items():
        named.append((_key_path(f"{path}.when", key), key))
        why = _condition_problem(cond)
        if why:
            problems.append((_key_path(f"{path}.when", key), why))
    require = rule.get("require", [])
    if not isinstance(require, list):
        problems.append((f"{path}.require", "'require' is a list of slot keys"))
        require = []
    for i, key in enumerate(require):
        named.append((f"{path}.require[{i}]", key))
    if not isinstance(rule.get("require_tail", False), bool):
        problems.append((f"{path}.require_tail", "'require_tail' is true or false"))
    match = rule.get("match", {})
    if not isinstance(match, dict):
        problems.append((f"{path}.match", "'match' maps a slot to a pattern"))
        match = {}
    for key, pattern in match.items():
        where = _key_path(f"{path}.match", key)
        named.append((where, key))
        try:
            iregexp.check(pattern)
        except iregexp.PatternError as exc:
            shown = pattern if isinstance(pattern, str) else type(pattern).__name__
            problems.append((where, f"pattern {shown!r}: {exc}"))
    if "sum" in rule:
        total = rule["sum"]
        if (not isinstance(total, dict) or set(total) != {"parts", "total"} or not _is_str_list(total["parts"])
                or not total["parts"] or not isinstance(total["total"], str)):
            problems.append((f"{path}.sum", "'sum' is {\"parts\": [slot keys], \"total\": slot key}"))
        else:
            for i, key in enumerate(total["parts"]):
                named.append((f"{path}.sum.parts[{i}]", key))
            named.append((f"{path}.sum.total", total["total"]))
    if "evidence" in rule:
        if not isinstance(rule["evidence"], str):
            problems.append((f"{path}.evidence", "'evidence' names the slot that points at the evidence"))
        else:
            named.append((f"{path}.evidence", rule["evidence"]))
    for where, key in named:
        if not isinstance(key, str) or key not in slot_names:
            problems.append((where, f"rule names unknown slot {_shown(key)}"))
    return problems


def _profile_type(name: str) -> bool:
    """Whether a type name is one of spec section 7's slot types."""
    while name.startswith("list:"):
        name = name[5:]
    return name in PROFILE_TYPES or name.startswith(("enum:", "int:"))


# --------------------------------------------------------------------------
# compiling


def _compile_rule(raw: Mapping[str, Any], profile: str | None, all_types: Iterable[str]) -> ProfileRule:
    return ProfileRule(
        id=raw["id"],
        on=frozenset(raw.get("on") or all_types),
        when=dict(raw.get("when", {})),
        require=tuple(raw.get("require", ())),
        require_tail=bool(raw.get("require_tail", False)),
        match={k: iregexp.compile(v) for k, v in raw.get("match", {}).items()},
        sum=raw.get("sum"),
        evidence=raw.get("evidence"),
        desc=raw.get("desc", ""),
        profile=profile,
    )


def compile_vocabulary(profile: Mapping[str, Any] | None = None) -> Vocabulary:
    """Merge the core with one profile document and compile the slot tables.

    A document with a problem (see :func:`profile_problems`) is refused with
    ProfileError here too, so no path compiles a profile the loader would refuse.
    """
    if profile is not None:
        problems = profile_problems(profile)
        if problems:
            raise ProfileError(problems[0][1], path=problems[0][0])
    core = _core_document()
    pname = profile["profile"] if profile else None
    enums = {name: dict(codes) for name, codes in core["enums"].items()}
    if profile:
        for name, codes in profile.get("enums", {}).items():
            codes = {c: "" for c in codes} if isinstance(codes, list) else codes
            enums.setdefault(name, {}).update(codes)
        enums["ask"].update(_as_codes(profile.get("asks", {})))
        enums["why"].update(_as_codes(profile.get("why", {})))
        enums["ckey"].update(_as_codes(profile.get("constraint_keys", {})))

    slot_specs: dict[str, tuple[str, str, str | None]] = {
        key: (spec["type"], spec.get("desc", ""), None) for key, spec in core["slots"].items()
    }
    profile_slots = list(profile.get("slots", [])) if profile else []
    for spec in profile_slots:
        slot_specs[spec["key"]] = (spec["type"], spec.get("desc", ""), pname)
    rb_codes = frozenset(core["rb_levels"]) | frozenset(slot_specs)
    slots = {
        key: SlotDef(key, compile_type(type_name, enums, rb_codes), desc, owner)
        for key, (type_name, desc, owner) in slot_specs.items()
    }

    allowed: dict[str, list[str]] = {}
    required: dict[str, list[str]] = {}
    for tname, spec in core["types"].items():
        allowed[tname] = list(spec["required"]) + list(spec["optional"]) + ["p"]
        required[tname] = list(spec["required"])
    for spec in profile_slots:
        for tname in spec.get("on") or core["types"]:
            allowed[tname].append(spec["key"])
            if spec.get("required"):
                required[tname].append(spec["key"])
    for tname, spec in core["types"].items():
        echoed = spec.get("echoes")
        if echoed:
            allowed[tname].extend(allowed[echoed])
    types = {
        tname: TypeTable(
            name=tname,
            desc=spec.get("desc", ""),
            required=tuple(required[tname]),
            slots={key: slots[key] for key in dict.fromkeys(allowed[tname])},
            decoders={key: _decoder(slots[key]) for key in dict.fromkeys(allowed[tname])},
        )
        for tname, spec in core["types"].items()
    }

    aliases: dict[str, str] = {}
    for source in (core.get("aliases", {}), (profile or {}).get("aliases", {})):
        for canonical, spellings in source.items():
            aliases[canonical.lower()] = canonical.lower()
            for spelling in spellings:
                aliases[spelling.lower()] = canonical.lower()

    rules = [_compile_rule(r, None, core["types"]) for r in core.get("rules", [])]
    translation = (profile or {}).get("translation", [])
    rules += [_compile_rule(r, pname, core["types"]) for r in translation if isinstance(r, Mapping)]
    types = {
        tname: attrs.evolve(table, rules=tuple(r for r in rules if tname in r.on))
        for tname, table in types.items()
    }

    return Vocabulary(
        profile=pname,
        envelope=tuple(core["envelope"]),
        types=types,
        slots=slots,
        enums=enums,
        rb_levels=dict(core["rb_levels"]),
        constraint_keys=dict(enums["ckey"]),
        set_valued_keys=frozenset(core.get("set_valued_keys", ())),
        aliases=aliases,
        rules=tuple(rules),
        exec_slots={ask: tuple(keys) for ask, keys in (profile or {}).get("exec", {}).items()},
        agents=frozenset(profile["agents"]) if profile and profile.get("agents") else None,
        reserved_agents=frozenset(core.get("reserved_agents", ())),
        asks_used=tuple(profile["asks_used"]) if profile and "asks_used" in profile else None,
        tail_max=int(core.get("tail_max", 300)),
        source=dict(profile or {}),
        core=core,
    )


def _decoder(slot: SlotDef) -> Any:
    """None: kept as written; a frozenset: enum codes; else the decode function."""
    if slot.type.name in ("token", "ref", "text"):
        return None
    if slot.type.enum and not slot.type.is_list:
        return frozenset(slot.type.codes)
    return slot.type.decode


def _as_codes(value: Any) -> dict[str, str]:
    return {c: "" for c in value} if isinstance(value, list) else dict(value)


@lru_cache(maxsize=None)
def core_vocabulary() -> Vocabulary:
    return compile_vocabulary(None)


@lru_cache(maxsize=None)
def bundled_vocabulary(name: str) -> Vocabulary:
    return compile_vocabulary(load_profile(name))


class Receiver:
    """The profiles a receiver holds, each compiled once.

    ``Receiver.load(["pay"])`` reads and compiles the bundled pay profile;
    entries may also be file paths or profile objects.
    ``Receiver.all_bundled()`` holds every bundled profile. The constructor
    does no I/O: it takes compiled vocabularies (``Receiver()`` holds the
    core alone). ``vocabulary(None)`` is the core.
    """

    def __init__(self, vocabularies: Iterable[Vocabulary | str | Path | Mapping[str, Any]] = ()) -> None:
        # A bundled profile is compiled on first use (None until then): a
        # process that reads only core lines never compiles one. A file or an
        # object is loaded and checked when it is held, so a bad one fails at once.
        self._vocabs: dict[str, Vocabulary | None] = {}
        warned = False
        for entry in vocabularies:
            if isinstance(entry, Vocabulary):
                if entry.profile is None:
                    raise ProfileError("a receiver holds profiles; the core vocabulary is always held")
                self._vocabs[entry.profile] = entry
                continue
            if not warned:
                warnings.warn("Receiver(profiles) reading profiles is deprecated and goes in the next release; "
                              "use Receiver.load(profiles)", DeprecationWarning, stacklevel=2)
                warned = True
            self._hold(entry)

    @classmethod
    def load(cls, profiles: Iterable[str | Path | Mapping[str, Any]] = ()) -> "Receiver":
        """Read and compile each profile: a bundled name, a file path or a profile object."""
        receiver = cls()
        for entry in profiles:
            receiver._hold(entry)
        return receiver

    def _hold(self, entry: str | Path | Mapping[str, Any]) -> None:
        if isinstance(entry, str) and entry in BUNDLED_PROFILES:
            self._vocabs[entry] = None
            return
        vocab = compile_vocabulary(load_profile(entry))
        if vocab.profile is None:
            raise ProfileError("a receiver holds profiles; the core vocabulary is always held")
        self._vocabs[vocab.profile] = vocab

    @classmethod
    def all_bundled(cls) -> "Receiver":
        return cls.load(BUNDLED_PROFILES)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._vocabs)

    def holds(self, name: str) -> bool:
        return name in self._vocabs

    def vocabulary(self, name: str | None = None) -> Vocabulary:
        if name is None:
            return core_vocabulary()
        vocab = self._vocabs[name]
        if vocab is None:
            vocab = self._vocabs[name] = bundled_vocabulary(name)
        return vocab


# What an API call may be given as its receiver's profiles: a Receiver, or what
# Receiver.load reads (bundled names, file paths, profile objects), or None.
Profiles: TypeAlias = "Receiver | Iterable[str | Path | Mapping[str, Any]] | None"


def as_receiver(profiles: Profiles) -> Receiver:
    """The receiver an API call describes.

    ``None`` (not said) holds the bundled profiles, as the CLI does; a
    receiver that wants fewer says so: ``()`` holds the core vocabulary only,
    ``["pay"]`` the core and pay.
    """
    if isinstance(profiles, Receiver):
        return profiles
    if profiles is None:
        return _default_receiver()
    return Receiver.load(profiles)


@lru_cache(maxsize=1)
def _default_receiver() -> Receiver:
    """The bundled profiles, compiled once: what the API and the CLI hold when not told otherwise."""
    return Receiver.load(BUNDLED_PROFILES)


def bundled_profile_names() -> tuple[str, ...]:
    return tuple(sorted(p.stem for p in data_dir("profiles").glob("*.json") if p.stem not in _NOT_PROFILES and not p.stem.endswith("schema")))


__getattr__ = _deprecated.renamed(__name__, {"Rule": ("ProfileRule", ProfileRule)})


__all__ = [
    "BUNDLED_PROFILES",
    "ProfileRule",
    "Profiles",
    "Receiver",
    "SlotDef",
    "TypeTable",
    "Vocabulary",
    "as_receiver",
    "bundled_profile_names",
    "bundled_vocabulary",
    "compare_document",
    "compile_vocabulary",
    "core_vocabulary",
    "load_profile",
    "profile_problems",
    "read_json",
]
