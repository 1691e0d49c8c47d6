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
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping

import attrs

from ._resources import data_dir, profile_path
from .errors import ProfileError
from .slottypes import AGENT_RE, KEY_RE, PROFILE_TYPES, SlotType, compile_type

BUNDLED_PROFILES = ("pay", "clin", "pform")
PROFILE_KEYS = frozenset({
    "profile", "version", "extends", "enums", "asks", "why", "slots", "agents", "asks_used",
    "exec", "constraint_keys", "aliases", "translation", "desc", "$schema",
})
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
    rules: tuple["Rule", ...] = ()
    required_set: frozenset[str] = attrs.field(init=False, repr=False, eq=False)

    @required_set.default
    def _required_set(self) -> frozenset[str]:
        return frozenset(self.required)


@attrs.frozen
class Rule:
    """A conditional requirement, from the core or a profile's translation."""

    id: str
    on: frozenset[str]
    when: Mapping[str, Any]
    require: tuple[str, ...] = ()
    require_tail: bool = False
    match: Mapping[str, re.Pattern[str]] = attrs.Factory(dict)
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
    rules: tuple[Rule, ...]
    exec_slots: Mapping[str, tuple[str, ...]]
    agents: frozenset[str] | None
    reserved_agents: frozenset[str]
    asks_used: tuple[str, ...] | None
    tail_max: int
    source: Mapping[str, Any]  # the profile document, as loaded (empty for the core)
    core: Mapping[str, Any]

    def enum_codes(self, name: str) -> Mapping[str, str]:
        return self.enums.get(name, {})


# --------------------------------------------------------------------------
# loading


def _read_json(path: Path) -> dict:
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except FileNotFoundError:
        raise ProfileError(f"profile file not found: {path}") from None
    except json.JSONDecodeError as exc:
        raise ProfileError(f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(doc, dict):
        raise ProfileError("a profile is a JSON object")
    return doc


# Files under profiles/ that are not profiles.
NOT_PROFILES = ("rw1", "compare")


@lru_cache(maxsize=1)
def compare_document() -> Mapping[str, Any]:
    """The comparison data (``profiles/compare.json``), as written."""
    return _read_json(profile_path("compare"))


@lru_cache(maxsize=1)
def core_document() -> Mapping[str, Any]:
    """The core vocabulary with the comparison data's keys and aliases merged in."""
    core = dict(_read_json(profile_path("rw1")))
    compare = compare_document()
    core["enums"] = {**core["enums"], "ckey": dict(compare["constraint_keys"])}
    core["set_valued_keys"] = list(compare["set_valued_keys"])
    core["aliases"] = {canonical: list(spellings) for canonical, spellings in compare["aliases"].items()}
    return core


def load_profile(source: str | Path | Mapping[str, Any]) -> dict:
    """A profile document from a bundled name, a file path, or an object.

    The document is checked against the core (see :func:`profile_problems`);
    the first problem raises ProfileError naming its JSON path.
    """
    if isinstance(source, Mapping):
        doc = dict(source)
    else:
        text = str(source)
        if text in BUNDLED_PROFILES or (_NAME_RE.fullmatch(text) and profile_path(text).is_file()):
            doc = _read_json(profile_path(text))
        else:
            doc = _read_json(Path(text))
    problems = profile_problems(doc)
    if problems:
        path, message = problems[0]
        raise ProfileError(message, path=path)
    return doc


def _codes(value: Any, path: str, problems: list) -> dict[str, str]:
    """An enum given as {code: desc} or [code, ...]."""
    if isinstance(value, list):
        value = {code: "" for code in value}
    if not isinstance(value, dict):
        problems.append((path, "expected an object of code: description"))
        return {}
    out = {}
    for code, desc in value.items():
        if not isinstance(code, str) or _CODE_RE.fullmatch(code) is None or "+" in code:
            problems.append((f"{path}.{code}", "a code is visible ASCII with no '+'"))
        elif not isinstance(desc, str):
            problems.append((f"{path}.{code}", "a code's description is a string"))
        else:
            out[code] = desc
    return out


def profile_problems(doc: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every problem of a profile document, as (JSON path, message) pairs."""
    core = core_document()
    problems: list[tuple[str, str]] = []
    for key in doc:
        if key not in PROFILE_KEYS:
            problems.append((f"$.{key}", f"unknown profile key {key!r}"))
    name = doc.get("profile")
    if not isinstance(name, str) or _NAME_RE.fullmatch(name) is None:
        problems.append(("$.profile", "a profile names itself with a lowercase name"))
    elif name.upper() == "RW1":
        problems.append(("$.profile", "the core's own name cannot be a profile"))
    if not isinstance(doc.get("version"), str):
        problems.append(("$.version", "a profile has a version string"))
    if doc.get("extends") != "RW1":
        problems.append(("$.extends", "a profile extends \"RW1\""))

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
            problems.append((f"$.enums.{enum}", "an enum name matches [a-z][a-z0-9_]*"))
            continue
        extend(enum, _codes(codes, f"$.enums.{enum}", problems), f"$.enums.{enum}")
    extend("ask", _codes(doc.get("asks", {}), "$.asks", problems), "$.asks")
    extend("why", _codes(doc.get("why", {}), "$.why", problems), "$.why")
    ckeys = _codes(doc.get("constraint_keys", {}), "$.constraint_keys", problems)
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
        if key in core["slots"] or key in core["envelope"]:
            problems.append((f"{path}.key", f"redefines core slot {key!r}"))
        if key.startswith("x_"):
            problems.append((f"{path}.key", "x_ keys are extensions, not profile slots"))
        if key in slot_names - set(core["slots"]):
            problems.append((f"{path}.key", f"slot {key!r} defined twice"))
        slot_names.add(key)
        for extra in slot:
            if extra not in ("key", "type", "on", "required", "desc"):
                problems.append((f"{path}.{extra}", f"unknown slot field {extra!r}"))
        type_name = str(slot.get("type"))
        try:
            compile_type(type_name, enums)
        except ValueError as exc:
            problems.append((f"{path}.type", str(exc)))
        else:
            if not _profile_type(type_name):
                problems.append((f"{path}.type", f"unknown slot type {type_name!r}: a profile uses the slot types "
                                 "of spec section 7"))
        on = slot.get("on", sorted(types))
        if not isinstance(on, list) or not all(t in types for t in on):
            problems.append((f"{path}.on", f"'on' lists message types from {sorted(types)}"))
        if not isinstance(slot.get("required", False), bool):
            problems.append((f"{path}.required", "'required' is true or false"))
        if "desc" in slot and not isinstance(slot["desc"], str):
            problems.append((f"{path}.desc", "'desc' is a string"))

    agents = doc.get("agents", [])
    if not isinstance(agents, list) or not all(isinstance(a, str) and AGENT_RE.fullmatch(a) for a in agents):
        problems.append(("$.agents", "agents is a list of agent names [A-Za-z0-9._-]+"))
    asks_used = doc.get("asks_used", [])
    if not isinstance(asks_used, list):
        problems.append(("$.asks_used", "asks_used is a list of core asks"))
    else:
        for i, ask in enumerate(asks_used):
            if ask not in core_enums["ask"]:
                problems.append((f"$.asks_used[{i}]", f"{ask!r} is not a core ask"))
    exec_map = doc.get("exec", {})
    if not isinstance(exec_map, dict):
        problems.append(("$.exec", "exec maps an ask to its execution slots"))
        exec_map = {}
    for ask, slots in exec_map.items():
        if ask not in enums["ask"]:
            problems.append((f"$.exec.{ask}", f"{ask!r} is not an ask"))
        if not isinstance(slots, list):
            problems.append((f"$.exec.{ask}", "execution slots are a list"))
            continue
        for i, key in enumerate(slots):
            if key not in slot_names:
                problems.append((f"$.exec.{ask}[{i}]", f"execution slot {key!r} is not a slot"))
    aliases = doc.get("aliases", {})
    if not isinstance(aliases, dict) or not all(
        isinstance(v, list) and all(isinstance(s, str) for s in v) for v in aliases.values()
    ):
        problems.append(("$.aliases", "aliases map a canonical value to a list of spellings"))
    rules = doc.get("translation", [])
    if isinstance(rules, dict):
        rules = rules.get("rules", [])
    if not isinstance(rules, list):
        problems.append(("$.translation", "translation is a list of rules"))
        rules = []
    for i, rule in enumerate(rules):
        problems.extend(_rule_problems(rule, f"$.translation[{i}]", slot_names | {"item", "re", "from", "to"}, types))
    return problems


def _rule_problems(rule: Any, path: str, slot_names: set[str], types: set[str]) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    if not isinstance(rule, dict):
        return [(path, "a rule is an object")]
    allowed = {"id", "on", "when", "require", "require_tail", "match", "sum", "evidence", "desc"}
    for key in rule:
        if key not in allowed:
            problems.append((f"{path}.{key}", f"unknown rule field {key!r}"))
    if not isinstance(rule.get("id"), str):
        problems.append((f"{path}.id", "a rule has an id"))
    on = rule.get("on", [])
    if not isinstance(on, list) or not all(t in types for t in on):
        problems.append((f"{path}.on", "'on' lists message types"))
    when = rule.get("when", {})
    if not isinstance(when, dict):
        problems.append((f"{path}.when", "'when' maps a slot to a value or {\"prefix\": ...}"))
        when = {}
    named: list[tuple[str, str]] = [(f"{path}.when.{k}", k) for k in when]
    for i, key in enumerate(rule.get("require", [])):
        named.append((f"{path}.require[{i}]", key))
    match = rule.get("match", {})
    if not isinstance(match, dict):
        problems.append((f"{path}.match", "'match' maps a slot to a regex"))
        match = {}
    for key, pattern in match.items():
        named.append((f"{path}.match.{key}", key))
        try:
            re.compile(pattern)
        except (re.error, TypeError):
            problems.append((f"{path}.match.{key}", f"bad pattern {pattern!r}"))
            continue
        risky = _risky_pattern(pattern)
        if risky:
            problems.append((f"{path}.match.{key}", f"pattern {pattern!r} {risky}"))
    total = rule.get("sum")
    if total is not None:
        if not isinstance(total, dict) or not isinstance(total.get("parts"), list) or not isinstance(total.get("total"), str):
            problems.append((f"{path}.sum", "'sum' is {\"parts\": [slots], \"total\": slot}"))
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
        if key not in slot_names:
            problems.append((where, f"rule names unknown slot {key!r}"))
    return problems


def _profile_type(name: str) -> bool:
    """Whether a type name is one of spec section 7's slot types."""
    while name.startswith("list:"):
        name = name[5:]
    return name in PROFILE_TYPES or name.startswith(("enum:", "int:"))


def _risky_pattern(pattern: str) -> str | None:
    """Why a rule's pattern could take exponential time on a hostile value, or None.

    A profile may arrive inline from whoever sends a request, so its patterns
    must run in time linear-ish in the value: no quantifier nested inside
    another, no backreference.
    """
    try:
        import re._parser as sre_parse  # type: ignore[import-not-found]
    except ImportError:  # Python 3.10
        import sre_parse  # type: ignore[no-redef]

    repeats = {sre_parse.MAX_REPEAT, sre_parse.MIN_REPEAT}
    if hasattr(sre_parse, "POSSESSIVE_REPEAT"):
        repeats.add(sre_parse.POSSESSIVE_REPEAT)

    def walk(items, inside_repeat: bool) -> str | None:
        for op, arg in items:
            if op in repeats:
                low, high, sub = arg
                if inside_repeat and high != 1:
                    return "nests a quantifier inside another (exponential on a hostile value)"
                found = walk(sub, inside_repeat or high != 1)
            elif op == sre_parse.GROUPREF or op == sre_parse.GROUPREF_EXISTS:
                return "uses a backreference"
            elif op == sre_parse.SUBPATTERN:
                found = walk(arg[-1], inside_repeat)
            elif op == sre_parse.BRANCH:
                found = next((r for r in (walk(b, inside_repeat) for b in arg[1]) if r), None)
            elif op in (sre_parse.ASSERT, sre_parse.ASSERT_NOT):
                found = walk(arg[1], inside_repeat)
            else:
                found = None
            if found:
                return found
        return None

    return walk(sre_parse.parse(pattern), False)


# --------------------------------------------------------------------------
# compiling


def _compile_rule(raw: Mapping[str, Any], profile: str | None, all_types: Iterable[str]) -> Rule:
    return Rule(
        id=raw["id"],
        on=frozenset(raw.get("on") or all_types),
        when=dict(raw.get("when", {})),
        require=tuple(raw.get("require", ())),
        require_tail=bool(raw.get("require_tail", False)),
        match={k: re.compile(v) for k, v in raw.get("match", {}).items()},
        sum=raw.get("sum"),
        evidence=raw.get("evidence"),
        desc=raw.get("desc", ""),
        profile=profile,
    )


def compile_vocabulary(profile: Mapping[str, Any] | None = None) -> Vocabulary:
    """Merge the core with one profile document and compile the slot tables."""
    core = core_document()
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
    if isinstance(translation, dict):
        translation = translation.get("rules", [])
    rules += [_compile_rule(r, pname, core["types"]) for r in translation]
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
    """The profiles a receiver holds, compiled once each.

    ``Receiver(["pay"])`` holds the bundled pay profile; entries may also be
    file paths or profile objects. ``Receiver.all_bundled()`` holds every
    bundled profile. ``vocabulary(None)`` is the core alone.
    """

    def __init__(self, profiles: Iterable[str | Path | Mapping[str, Any]] = ()) -> None:
        self._vocabs: dict[str, Vocabulary] = {}
        for entry in profiles:
            if isinstance(entry, str) and entry in BUNDLED_PROFILES:
                vocab = bundled_vocabulary(entry)
            else:
                vocab = compile_vocabulary(load_profile(entry))
            self._vocabs[vocab.profile] = vocab  # type: ignore[index]

    @classmethod
    def all_bundled(cls) -> "Receiver":
        return cls(BUNDLED_PROFILES)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._vocabs)

    def holds(self, name: str) -> bool:
        return name in self._vocabs

    def vocabulary(self, name: str | None = None) -> Vocabulary:
        if name is None:
            return core_vocabulary()
        return self._vocabs[name]


def as_receiver(profiles: "Receiver | Iterable[str | Path | Mapping[str, Any]] | None") -> Receiver:
    if isinstance(profiles, Receiver):
        return profiles
    return Receiver(profiles or ())


def bundled_profile_names() -> tuple[str, ...]:
    return tuple(sorted(p.stem for p in data_dir("profiles").glob("*.json") if p.stem not in NOT_PROFILES and not p.stem.endswith("schema")))
