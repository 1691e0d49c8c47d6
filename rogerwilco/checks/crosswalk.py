"""Crosswalks: reading back across two profiles (spec 5.2, last paragraphs).

Theory of operation
-------------------
"Translation between profiles is the same check in a different vocabulary. A
receiver on another profile reads back in its own codes; the sender maps them
through a crosswalk and diffs. Where a mapping exists the check is exact;
where none exists the diff names what the translation lost."

A crosswalk is a JSON file (``profiles/crosswalks/<from>-<to>.json``)::

    {"crosswalk": "pform-kanban", "version": "0.1", "from": "pform", "to": "kanban",
     "codes": {"ask": {"SCORE4": "RANK", "PRUNE": null}},
     "slots": {"stg": {"to": "col", "codes": {"DIA": "TODO", "OPT": null}}}}

``codes`` maps the sender profile's own codes of a shared enum (``ask``,
``why``: a core code is the same in every profile and passes unchanged);
``slots`` maps each of the sender profile's slots to a receiver slot (``to``),
with a code table when the slot is an enum. ``null``, or no entry at all,
says there is no equivalent. A crosswalk is directional: it maps what the
sender wrote into what the receiver reads.

:func:`translate` rewrites a message slot by slot: core slots pass through
(their sender-profile codes mapped), ``p=`` becomes the receiver's profile,
profile slots are renamed and their codes mapped, and every slot or code with
no mapping is *lost*: left out of the translation and reported.
:func:`check_rb_across` then runs the ordinary readback check of
:mod:`rogerwilco.checks.readback` on the translated handoff and the receiver's
readback, so a mapped value is compared exactly, and adds one ``lost`` finding
per loss: a ``fail`` at tier 3 where the lost slot is one the readback had to
echo (the readback cannot confirm it), otherwise a ``note``. Tier 2 is
checked against the handoff as sent, since that is what the receiver holds.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterable, Mapping

import attrs

from ..core._resources import data_dir
from ..core import _deprecated
from ..core.errors import ProfileError
from ..core.files import DATA_MAX_BYTES, read_limited
from ..core.findings import fail, note
from ..core.message import Message
from ..core.vocab import Receiver, Vocabulary, as_receiver

_NAME_RE = re.compile(r"[a-z][a-z0-9_-]*")
CROSSWALK_KEYS = frozenset({"crosswalk", "version", "from", "to", "desc", "codes", "slots", "$schema"})


class CrosswalkError(ProfileError):
    """A crosswalk file that cannot be used: malformed, or naming codes the profiles lack."""


@attrs.frozen
class Crosswalk:
    name: str
    source: str  # the sender's profile
    target: str  # the receiver's profile
    codes: Mapping[str, Mapping[str, str | None]]
    slots: Mapping[str, Mapping[str, Any] | None]
    doc: Mapping[str, Any]


@attrs.frozen
class Translation:
    """A message rewritten into the receiver's profile, and what could not be."""

    message: Message
    lost: tuple[tuple[str, str], ...]  # (sender slot, what was lost: "stg=OPT", "stg")
    renamed: Mapping[str, str]  # sender slot -> receiver slot


def crosswalk_path(name: str) -> Path:
    return data_dir("profiles") / "crosswalks" / f"{name}.json"


def load_crosswalk(source: str | Path | Mapping[str, Any], receiver: Receiver | None = None) -> Crosswalk:
    """A crosswalk from a bundled name (``pform-kanban``), a path or an object, checked."""
    if isinstance(source, Mapping):
        doc = dict(source)
    else:
        text = str(source)
        path = crosswalk_path(text) if _NAME_RE.fullmatch(text) and crosswalk_path(text).is_file() else Path(text)
        try:
            doc = json.loads(read_limited(path, what="crosswalk", limit=DATA_MAX_BYTES, error=CrosswalkError).decode("utf-8"))
        except CrosswalkError:  # not a regular file, or past the cap: already says which and why
            raise
        except FileNotFoundError:
            raise CrosswalkError(f"crosswalk file not found: {path}") from None
        except OSError as exc:
            raise CrosswalkError(f"cannot read crosswalk {path}: {exc.strerror or exc}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise CrosswalkError(f"crosswalk {path} is not JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise CrosswalkError("a crosswalk is a JSON object")
    problems = crosswalk_problems(doc, receiver)
    if problems:
        where, message = problems[0]
        raise CrosswalkError(message, path=where)
    return Crosswalk(name=doc["crosswalk"], source=doc["from"], target=doc["to"],
                     codes=doc.get("codes", {}), slots=doc.get("slots", {}), doc=doc)


def _vocabs(doc: Mapping[str, Any], receiver: Receiver | None) -> tuple[Vocabulary, Vocabulary]:
    receiver = receiver if receiver is not None else Receiver.load([doc["from"], doc["to"]])
    for name in (doc["from"], doc["to"]):
        if not receiver.holds(name):
            receiver = Receiver.load([*(receiver.vocabulary(n).source for n in receiver.names), name])
    return receiver.vocabulary(doc["from"]), receiver.vocabulary(doc["to"])


def crosswalk_problems(doc: Mapping[str, Any], receiver: Receiver | None = None) -> list[tuple[str, str]]:
    """Every problem of a crosswalk document, as (JSON path, message)."""
    problems: list[tuple[str, str]] = []
    for key in doc:
        if key not in CROSSWALK_KEYS:
            problems.append((f"$.{key}", f"unknown crosswalk key {key!r}"))
    for key in ("crosswalk", "from", "to"):
        if not isinstance(doc.get(key), str) or not _NAME_RE.fullmatch(doc[key]):
            problems.append((f"$.{key}", f"{key} is a lowercase name"))
    if not isinstance(doc.get("version"), str):
        problems.append(("$.version", "a crosswalk has a version string"))
    if problems:
        return problems
    try:
        src, dst = _vocabs(doc, receiver)
    except ProfileError as exc:
        return [("$.from" if doc["from"] in str(exc) else "$.to", f"profile not available: {exc}")]
    codes = doc.get("codes", {})
    if not isinstance(codes, dict):
        return problems + [("$.codes", "codes maps an enum to {code: code or null}")]
    for enum, table in codes.items():
        path = f"$.codes.{enum}"
        if enum not in src.enums or enum not in dst.enums:
            problems.append((path, f"enum {enum!r} is not in both profiles"))
            continue
        problems += _code_table_problems(table, path, src.enums[enum], dst.enums[enum])
    slots = doc.get("slots", {})
    if not isinstance(slots, dict):
        return problems + [("$.slots", "slots maps a sender slot to {\"to\": slot, \"codes\": {...}} or null")]
    for key, spec in slots.items():
        path = f"$.slots.{key}"
        if key not in src.slots or src.slots[key].profile is None:
            problems.append((path, f"{key!r} is not a slot of profile {src.profile}"))
            continue
        if spec is None:
            continue
        if not isinstance(spec, dict) or set(spec) - {"to", "codes"}:
            problems.append((path, "a slot mapping is {\"to\": slot, \"codes\": {...}}"))
            continue
        target = spec.get("to")
        if target is None:
            continue
        if target not in dst.slots:
            problems.append((f"{path}.to", f"{target!r} is not a slot of profile {dst.profile}"))
            continue
        src_enum, dst_enum = src.slots[key].type.enum, dst.slots[target].type.enum
        if "codes" in spec:
            if src_enum is None or dst_enum is None:
                problems.append((f"{path}.codes", "codes map only between enum slots"))
            else:
                problems += _code_table_problems(spec["codes"], f"{path}.codes", src.enums[src_enum], dst.enums[dst_enum])
        elif src_enum is not None and src_enum != dst_enum:
            problems.append((path, f"{key} is enum {src_enum} and {target} enum {dst_enum}: give codes"))
    return problems


def _code_table_problems(table: Any, path: str, src_codes: Mapping[str, str], dst_codes: Mapping[str, str]) -> list:
    if not isinstance(table, dict):
        return [(path, "a code table maps a code to a code or null")]
    problems = []
    for code, mapped in table.items():
        if code not in src_codes:
            problems.append((f"{path}.{code}", f"{code!r} is not a code of the sender's profile"))
        if mapped is not None and mapped not in dst_codes:
            problems.append((f"{path}.{code}", f"{mapped!r} is not a code of the receiver's profile"))
    return problems


def _map_codes(value: Any, table: Mapping[str, str | None], core: Mapping[str, str] | None) -> tuple[Any, list[str]]:
    """Map a code or a list of codes; core codes pass; unmapped ones are returned as lost."""
    items = value if isinstance(value, tuple) else (value,)
    out, lost = [], []
    for code in items:
        if core is not None and code in core:
            out.append(code)
        elif table.get(code) is not None:
            out.append(table[code])
        else:
            lost.append(code)
    if isinstance(value, tuple):
        return tuple(out), lost
    return (out[0] if out else None), lost


def translate(message: Message, crosswalk: Crosswalk, profiles: Receiver | Iterable | None = None) -> Translation:
    """The message rewritten into the crosswalk's receiver profile (see the module doc)."""
    receiver = as_receiver(profiles) if profiles is not None else Receiver.load([crosswalk.source, crosswalk.target])
    if message.profile != crosswalk.source:
        raise CrosswalkError(f"the message uses p={message.profile}, the crosswalk maps from {crosswalk.source}",
                             path="$.from")
    src = receiver.vocabulary(crosswalk.source)
    core_enums = src.core["enums"]
    slots: dict[str, Any] = {}
    lost: list[tuple[str, str]] = []
    renamed: dict[str, str] = {}
    for key, value in message.slots.items():
        slot = src.slots.get(key)
        if key == "p":
            slots["p"] = crosswalk.target
        elif slot is None or key.startswith("x_"):
            slots[key] = value  # unknown and extension keys travel as text
        elif slot.profile is None:
            if key == "rb":
                value, gone = _map_rb(value, crosswalk, src)
                lost += [(key, f"rb={g}") for g in gone]
            elif slot.type.enum is not None and slot.type.enum in crosswalk.codes:
                value, gone = _map_codes(value, crosswalk.codes[slot.type.enum], core_enums.get(slot.type.enum))
                lost += [(key, f"{key}={g}") for g in gone]
            elif slot.type.enum is not None and slot.type.enum in core_enums:
                value, gone = _map_codes(value, {}, core_enums[slot.type.enum])
                lost += [(key, f"{key}={g}") for g in gone]
            if value not in (None, ()):
                slots[key] = value
        else:
            spec = crosswalk.slots.get(key)
            target = spec.get("to") if spec else None
            if spec is None or target is None:
                lost.append((key, key))
                continue
            if "codes" in spec:
                value, gone = _map_codes(value, spec["codes"], None)
                lost += [(key, f"{key}={g}") for g in gone]
            if value not in (None, ()):
                slots[target] = value
                renamed[key] = target
    translated = message.replace(slots=slots)
    return Translation(message=translated, lost=tuple(lost), renamed=renamed)


def _map_rb(value: tuple, crosswalk: Crosswalk, src: Vocabulary) -> tuple[tuple, list[str]]:
    """rb= levels pass; a profile slot it names is renamed, or lost."""
    out, lost = [], []
    for token in value:
        slot = src.slots.get(token)
        if token in src.rb_levels or slot is None or slot.profile is None:
            out.append(token)
            continue
        spec = crosswalk.slots.get(token)
        if spec and spec.get("to"):
            out.append(spec["to"])
        else:
            lost.append(token)
    return tuple(out), lost


def check_rb_across(
    ho: Message | str,
    rb: Message | str,
    crosswalk: Crosswalk | str | Path | Mapping[str, Any],
    *,
    profiles: Receiver | Iterable | None = None,
    expect_acc: Any = None,
    record: Mapping[str, Any] | None = None,
    now: Any = None,
):
    """check-rb across profiles: the HO in the sender's profile, the RB in the receiver's (``now`` as check_rb takes it)."""
    from . import readback

    receiver = as_receiver(profiles)
    if not isinstance(crosswalk, Crosswalk):
        crosswalk = load_crosswalk(crosswalk, receiver if receiver.names else None)
    for name in (crosswalk.source, crosswalk.target):
        if not receiver.holds(name):
            receiver = Receiver.load([*(receiver.vocabulary(n).source for n in receiver.names), name])
    ho_msg, problem = readback.coerce(ho, receiver, "HO", "handoff")
    if ho_msg is None:
        return readback.check_rb(ho, rb, profiles=receiver, expect_acc=expect_acc, record=record, now=now)
    translation = translate(ho_msg, crosswalk, receiver)
    report = readback.check_rb(translation.message, rb, profiles=receiver, expect_acc=expect_acc, record=record, now=now)
    rb_msg = report.other
    if rb_msg is None:
        return report
    digest = readback.tier_digest(ho_msg, rb_msg)
    findings = ([f for f in report.findings if f.tier == 1] + digest
                + [f for f in report.findings if f.tier not in (1, 2)])
    must_echo = set(readback.echo_set(ho_msg))
    if "exec" in readback.levels_of(ho_msg):
        must_echo |= set(readback.exec_slots(ho_msg, receiver.vocabulary(crosswalk.source)))
    for key, what in translation.lost:
        text = f"{what} has no {crosswalk.target} equivalent in crosswalk {crosswalk.name}: lost in translation"
        if key in must_echo:
            findings.append(fail(kind="lost", tier=3, key=key, sender_value=what,
                                    message=text + "; the readback cannot confirm it"))
        else:
            findings.append(note(kind="lost", key=key, sender_value=what, message=text))
    tiers = dict(report.tiers)
    tiers[2] = readback._status(digest, 2, checked="h" in rb_msg.slots)
    if any(f.kind == "lost" and f.failed for f in findings):
        tiers[3] = readback.FAILED
    return attrs.evolve(report, passed=not any(f.failed for f in findings), findings=tuple(findings), tiers=tiers,
                        ho=ho_msg)


__getattr__ = _deprecated.renamed(__name__, {"check_rb": ("check_rb_across", check_rb_across)})
