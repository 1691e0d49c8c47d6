"""The never-guess pass: a parsed line against the vocabulary (spec 5 rules 2-4, D4).

Theory of operation
-------------------
:func:`check_line` takes a line, parses it (:mod:`rogerwilco.core.syntax`), picks
the vocabulary (``p=`` must name a profile the receiver holds; without it,
the core alone), then walks the per-type slot table once, in written order:

* a key of the type decodes with its slot type; a value that does not decode
  (an unknown enum code, ``pri=9``, ``due=20261301``) is refused;
* a known slot the type does not list decodes the same way (an unknown code
  is still refused) and is noted as not of this type;
* ``x_`` keys are kept as strings, silently; any other unknown key is kept as
  a string and noted, unless a held profile *requires* that slot, in which
  case using it without its ``p=`` is refused;
* then the required slots, the conditional rules (core and the profile's
  translation rules, all data), the closed answer vocabulary when the profile
  defines ``ans``, the tail's length, and the profile's agent list (a note).

Every finding is collected; the first ``fail`` is the refusal. Its ``why`` is
``VER`` for an unknown version token and ``UNK`` for everything else, and its
token is the offending text exactly as written (``ask=PAYY``, ``HX``,
``RW2``; for a missing slot, its key).

:func:`refusal` turns that into the ``UN`` reply line, or None where the line
is valid or too broken to address.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Callable, Iterable, NamedTuple


import attrs

from . import suggest
from .codec import encode, same
from .errors import EncodeError, RefusedError, RW1Error, RW1SyntaxError, printable
from .findings import Finding, fail, note
from .iregexp import MAX_MATCH_STEPS
from .message import JSON_KEYS, Message, Source
from .slottypes import AGENT_RE, KEY_RE, MSGID_RE
from .syntax import RawLine, parse_raw, wording as syntax_wording
from .vocab import Profiles, Receiver, ProfileRule, TypeTable, Vocabulary, as_receiver, core_vocabulary

VERSION = "RW1"
_NUMBER_RE = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")
_DATE_RE = re.compile(r"[0-9]{8}")
_VERSION_TOKEN = re.compile(r"RW[0-9]+")


class LineResult(NamedTuple):
    """What the never-guess pass found for one line (a named tuple: one per line)."""

    text: str
    message: Message | None
    findings: tuple[Finding, ...]
    raw: RawLine | None = None
    line_number: int | None = None

    @property
    def valid(self) -> bool:
        return not any(f.failed for f in self.findings)

    @property
    def refusal(self) -> Finding | None:
        return next((f for f in self.findings if f.failed), None)

    def column_of(self, finding: Finding) -> int | None:
        """The 1-based column a refusal is shown at: its own, else, for one about something absent (a missing
        slot, a rule over slots), where a slot would go, after the last slot and before any tail; the line's
        start when the line did not split. A note keeps its own (a blank line, a line end have none)."""
        if finding.column or not finding.failed or not self.text:
            return finding.column
        return self.raw.slot_column(len(self.raw.tokens)) if self.raw is not None else 1


def check_line(
    text: str,
    profiles: Profiles = None,
    *,
    line_number: int | None = None,
    file: str | None = None,
    hints: bool = True,
) -> LineResult:
    """Parse and validate one line; every finding, never an exception.

    ``hints=False`` leaves out the "did you mean" hints and fixes (the same
    findings otherwise): a caller that shows no finding does not pay for them.
    """
    receiver = as_receiver(profiles)
    try:
        raw = parse_raw(text, line_number=line_number)
    except RW1SyntaxError as exc:
        return _unparsed(text, exc, line_number)
    return check_raw(raw, receiver, line_number=line_number, file=file, hints=hints)


def _other_version(text: str) -> str | None:
    """The version token of a line that starts with another version than this package speaks, else None."""
    version = text.split(" ", 1)[0]
    return version if version != VERSION and _VERSION_TOKEN.fullmatch(version) else None


def _unparsed(text: str, exc: RW1SyntaxError, line_number: int | None) -> LineResult:
    """The result of a line the grammar refuses: a version this package does not speak, else the syntax error."""
    version = _other_version(text)
    if version is not None:
        finding = fail(kind="version", token=version, message="unsupported protocol version", why="VER", column=1)
    else:
        finding = fail(kind="syntax", token=exc.token, message=exc.message, column=exc.column, why="UNK")
    return LineResult(text=text, message=None, findings=(finding,), line_number=line_number)


def check_raw(
    raw: RawLine,
    receiver: Receiver,
    *,
    line_number: int | None = None,
    file: str | None = None,
    hints: bool = True,
    verdict: bool = False,
) -> LineResult:
    """Every finding of a parsed line; with ``verdict``, a refused line's result holds its first refusal and
    what came before it only (what ``strict_message`` raises; the rest is worked out when read)."""
    findings: list[Finding] = []
    if raw.version != VERSION:
        findings.append(fail(kind="version", token=raw.version, message="unsupported protocol version", why="VER", column=1))
        return LineResult(text=raw.text, message=None, findings=tuple(findings), raw=raw, line_number=line_number)

    tokens = raw.tokens
    vocab = core_vocabulary()
    profile_name = None
    if " p=" in raw.text:  # cheap test first: most lines carry no profile
        profile_name = next((t[2:] for t in tokens if t.startswith("p=")), None)
    if profile_name is not None:
        if receiver.holds(profile_name):
            vocab = receiver.vocabulary(profile_name)
        else:
            findings.append(fail(kind="profile", token=f"p={profile_name}", message="names a profile the receiver does not hold",
                                 column=raw.slot_column(next(i for i, t in enumerate(tokens) if t.startswith("p="))), key="p", why="UNK"))

    table = vocab.types.get(raw.type)
    if table is None:
        hint, fix = suggest.for_type(vocab, raw.type) if hints else (None, None)
        findings.append(fail(kind="type", token=raw.type, message="unknown message type", column=len(raw.version) + 2,
                             why="UNK", hint=hint, fix=fix))
        decoders: Mapping[str, Any] = {key: slot.type.decode for key, slot in vocab.slots.items()}
    else:
        decoders = table.decoders

    # The hot loop: one dict lookup and at most one decode per slot. Everything
    # it does per slot is constant time (the column runs along with the slots,
    # a repeat is counted, not searched for), so a line is checked in time
    # linear in its length however many slots or repeats it holds.
    values: dict[str, Any] = {}
    repeated: list[Finding] = []  # reported first: a repeated key makes the rest of the line ambiguous
    column = len(raw.version) + len(raw.type) + len(raw.id) + 4  # where the first slot starts
    for i, token in enumerate(tokens):
        if i:
            column += len(tokens[i - 1]) + 1
        key, _, rawval = token.partition("=")
        if key in values:
            repeated.append(repeated_key(key, rawval, column))
            if verdict:  # the first repeat is reported first: nothing after it can come before it
                return LineResult(text=raw.text, message=None, findings=(repeated[0],), raw=raw, line_number=line_number)
            continue
        decode = decoders.get(key, _ABSENT)
        if decode is None or (decode.__class__ is frozenset and rawval in decode):
            values[key] = rawval
            continue
        if decode is _ABSENT:
            values[key] = rawval
            findings.extend(_other_key(raw, column, key, rawval, vocab, receiver, values, hints))
            continue
        try:
            values[key] = vocab.slots[key].type.decode(rawval) if decode.__class__ is frozenset else decode(rawval)
        except ValueError as exc:
            values[key] = rawval
            slot = vocab.slots[key]
            finding = refused_value(vocab, key, rawval, exc, column)
            if hints and slot.type.enum and not slot.type.is_list:
                hint, fix = suggest.for_code(vocab, key, slot.type.enum, rawval)
                finding = attrs.evolve(finding, hint=hint, fix=fix)
            findings.append(finding)

    if verdict and not repeated and any(f.failed for f in findings):
        # No repeat: the first refusal found so far is the first of all (what follows is appended after it).
        return LineResult(text=raw.text, message=None, findings=tuple(findings), raw=raw, line_number=line_number)
    if vocab.agents is not None:
        findings.extend(_unnamed_agents(raw, vocab, values))
    if repeated:
        findings[:0] = repeated
    sender = values.get("from")
    if isinstance(sender, str) and raw.id.rpartition("-")[0] != sender:
        findings.append(not_from_sender(raw.version, raw.type, raw.id, sender))
    if table is not None:
        if not values.keys() >= table.required_set:
            findings.extend(missing_slot(raw.type, key) for key in table.required if key not in values)
        if table.rules or (raw.type in _ANSWER_TYPES and "ans" in vocab.enums):
            findings.extend(_check_rules(raw, vocab, values, table.rules))
    if raw.tail is not None and len(raw.tail) > vocab.tail_max:
        findings.append(fail(kind="tail", token="//", message=f"tail is {len(raw.tail)} characters, over {vocab.tail_max}",
                             column=raw.tail_column() - 3, why="UNK"))

    message = None
    if not findings or not any(f.failed for f in findings):
        pop = values.pop
        message = Message(
            type=raw.type,
            id=raw.id,
            re=pop("re", None),
            from_=pop("from", None),
            to=pop("to", None),
            item=pop("item", None),
            slots=MappingProxyType(values),
            tail=raw.tail,
            v=raw.version,
            source=Source(text=raw.text, line=line_number, file=file),
        )
    return LineResult(text=raw.text, message=message, findings=tuple(findings), raw=raw, line_number=line_number)


REPEATED = "repeats a key already given"


def refused_value(vocab: Vocabulary, key: str, rawval: str, exc: ValueError, column: int) -> Finding:
    """The refusal of a slot's value its type's decoder refused with ``exc`` (no hint: the caller adds it)."""
    kind = "enum" if vocab.slots[key].type.enum else "value"
    return fail(kind=kind, token=f"{key}={rawval}", message=str(exc), column=column, key=key, why="UNK")


NOT_FROM_SENDER = "is not <from>-<n> for from={}"
MISSING = "required on {}, missing"


def not_from_sender(version: str, type_name: str, msgid: str, sender: str) -> Finding:
    """The refusal of an id that is not ``<from>-<n>`` for the line's ``from``."""
    return fail(kind="id", token=msgid, message=NOT_FROM_SENDER.format(sender),
                column=len(version) + len(type_name) + 3, why="UNK")


def missing_slot(type_name: str, key: str) -> Finding:
    """The refusal of a line of ``type_name`` that lacks the required slot ``key``."""
    return fail(kind="missing", token=key, message=MISSING.format(type_name), key=key, why="UNK")


def repeated_key(key: str, rawval: str, column: int) -> Finding:
    """The refusal of a slot whose key an earlier slot of the line already gave."""
    return fail(kind="repeated", token=f"{key}={rawval}", message=REPEATED, column=column, key=key, why="UNK")


_ABSENT = object()
_ANSWER_TYPES = ("AQ", "AN")  # the types a closed answer vocabulary governs (spec 7)


def _other_key(raw: RawLine, column: int, key: str, rawval: str, vocab: Vocabulary, receiver: Receiver,
               values: dict[str, Any], hints: bool) -> list[Finding]:
    """A key the type does not list: another type's slot, an extension, or unknown."""
    slot = vocab.slots.get(key)
    if slot is not None:
        found = [note(kind="off-type", message=f"{key} is not a slot of {raw.type}; ignored by receivers", key=key,
                      token=f"{key}={rawval}", column=column)]
        try:
            values[key] = slot.type.decode(rawval)
        except ValueError as exc:
            found.append(refused_value(vocab, key, rawval, exc, column))
        return found
    if key.startswith("x_"):
        return []
    # D4: a slot a held profile requires, on a line that names no profile, is that profile's line missing its p=.
    # A line that names another profile has chosen its vocabulary (spec 7), where the key is unknown: kept, not refused.
    owner = requiring_profile(receiver, key) if vocab.profile is None else None
    if owner is not None:
        return [fail(kind="profile", token=f"{key}={rawval}", why="UNK", column=column,
                        key=key, message=f"is a required slot of profile {owner}, used without p={owner}",
                        hint=f"add p={owner}", fix=f"p={owner} {key}={rawval}")]
    hint, fix = suggest.for_key(vocab, raw.type, key, rawval) if hints else (None, None)
    return [note(kind="unknown-key", message=f"unknown key {key} kept as text", key=key,
                    token=f"{key}={rawval}", column=column, hint=hint, fix=fix)]


def _unnamed_agents(raw: RawLine, vocab: Vocabulary, values: Mapping[str, Any]) -> list[Finding]:
    """A profile that names its agents closes them as an enum closes its codes: every agent-typed value (``from to alt
    keep`` and the profile's own) is one of them or ``human``, else it is refused like an unknown code."""
    found = []
    for key in vocab.agent_keys:
        if key not in values:
            continue
        value = values[key]
        for agent in value if isinstance(value, tuple) else (value,):
            if isinstance(agent, str) and agent not in vocab.agents and agent not in vocab.reserved_agents:  # type: ignore[operator]
                written = next((t for t in raw.tokens if t.startswith(key + "=")), f"{key}={agent}")
                found.append(fail(kind="agent", token=written, key=key, why="UNK",
                                  message=f"{agent} is not an agent of profile {vocab.profile}",
                                  column=_slot_column(raw, key)))
                break
    return found


def _slot_column(raw: RawLine, key: str) -> int | None:
    prefix = key + "="
    for i, token in enumerate(raw.tokens):
        if token.startswith(prefix):
            return raw.slot_column(i)
    return None


def requiring_profile(receiver: Receiver, key: str) -> str | None:
    for name in receiver.names:
        vocab = receiver.vocabulary(name)
        slot = vocab.slots.get(key)
        if slot is not None and slot.profile == name:
            if any(key in table.required for table in vocab.types.values()):
                return name
    return None


def condition_holds(cond: Any, value: Any) -> bool:
    if value is None:
        return False
    if isinstance(cond, Mapping):
        if "prefix" in cond:
            return isinstance(value, str) and value.startswith(cond["prefix"])
        if "in" in cond:
            return bool(value in cond["in"])
        return False
    return bool(value == cond)


def _rule_faults(rule: ProfileRule, value: Callable[[str], Any], present: Callable[[str], bool],
                written_as: Callable[[str], str | None], tailless: bool) -> list[tuple[str, str, str | None]]:
    """(token, message, key) of each way ``rule`` fails on a line it is on, in the order the full pass reports
    them: a required slot absent, the tail absent, a value of the wrong shape, a sum that does not add up.

    ``value(key)``: the key's decoded value, or None; ``present(key)``: whether the line holds the key with a
    value its type takes; ``written_as(key)``: its value as first written, or None; ``tailless``: the line has
    no tail. A refusal's ``why`` is UNK.
    """
    if not all(condition_holds(cond, value(key)) for key, cond in rule.when.items()):
        return []
    faults: list[tuple[str, str, str | None]] = []
    why = rule.desc or rule.id
    for key in rule.require:
        if not present(key):
            faults.append((key, f"required: {why}", key))
    if rule.require_tail and tailless:
        # D12: the token is the slot whose value asks for the tail (val=tail), else the mark
        asked = next((f"{k}={written_as(k)}" for k in rule.when if written_as(k) is not None), "//")
        faults.append((asked, f"tail required: {why}", None))
    for key, pattern in rule.match.items():
        written = written_as(key)
        matched = None if written is None else pattern.matches(written)
        if matched is False:
            faults.append((f"{key}={written}", f"does not have the required shape: {why}", key))
        elif written is not None and matched is None:  # past the work a value may cost (docs/profiles.md)
            faults.append((f"{key}={written}", f"too long ({len(written)} characters) to match against the pattern "
                                               f"{pattern.pattern!r} within {MAX_MATCH_STEPS:,} steps: {why}", key))
    if rule.sum is not None:
        parts, total = rule.sum["parts"], rule.sum["total"]
        if all(present(k) for k in (*parts, total)):
            from decimal import Decimal, InvalidOperation  # here: only a line the sum rule applies to needs it

            try:
                got = sum((Decimal(written_as(k)) for k in parts), Decimal(0))  # type: ignore[arg-type]
                want = Decimal(written_as(total))  # type: ignore[arg-type]
            except InvalidOperation:
                return faults  # a value that is not a number is already refused by its type
            if got != want:
                faults.append((f"{total}={written_as(total)}", f"is not {' + '.join(parts)} = {got}: {why}", total))
    return faults


def _check_rules(raw: RawLine, vocab: Vocabulary, values: Mapping[str, Any], rules: Iterable[ProfileRule] | None = None) -> list[Finding]:
    findings: list[Finding] = []
    first: dict[str, str] = {}  # each key's value as first written: one pass, however many rules ask
    for token in raw.tokens:
        key, _, rawval = token.partition("=")
        first.setdefault(key, rawval)
    written_as, tailless = first.get, raw.tail is None
    for rule in vocab.rules if rules is None else rules:
        if raw.type not in rule.on:
            continue
        for written, message, concerned in _rule_faults(rule, values.get, values.__contains__, written_as, tailless):
            findings.append(fail(kind="rule", token=written, message=message, key=concerned, why="UNK"))
    ans = vocab.enums.get("ans")
    if ans:
        if raw.type == "AQ" and values.get("need") == "ENUM":
            for opt in values.get("opts", ()):
                if opt not in ans:
                    findings.append(fail(kind="answer", token=f"opts={written_as('opts')}",
                                         message=f"option {opt} is not in the profile's answer vocabulary (ans)", key="opts", why="UNK"))
                    break
        if raw.type == "AN":
            val = values.get("val")
            if isinstance(val, str) and not (
                val in ("tail", "Y", "N") or _NUMBER_RE.fullmatch(val) or val in ans
            ):
                findings.append(fail(kind="answer", token=f"val={val}", message="is not in the profile's answer vocabulary (ans)", key="val", why="UNK"))
    return findings


# --------------------------------------------------------------------------
# strict constructors


def strict_message(text: str, profiles: Profiles = None, *, line_number: int | None = None) -> Message:
    """The line's Message, or the error its first refusal words.

    The verdict comes first, without hints; the error's ``findings`` (each
    with its "did you mean" hint) are worked out when a caller reads them.
    """
    receiver = as_receiver(profiles)
    try:
        raw = parse_raw(text, line_number=line_number)
    except RW1SyntaxError as exc:
        if _other_version(text) is None:
            # the grammar's own error: its line, column, token and message
            raise exc.diagnosed_by(_diagnosis(text, receiver, line_number))
        result = _unparsed(text, exc, line_number)
    else:  # the verdict alone: the checks stop at the first refusal
        result = check_raw(raw, receiver, line_number=line_number, hints=False, verdict=True)
    if result.message is not None:
        return result.message
    first = result.refusal
    assert first is not None
    raise _refusal_error(text, first, receiver, line_number)


def _diagnosis(text: str, receiver: Receiver, line_number: int | None) -> Callable[[], tuple[Finding, ...]]:
    """A refused line's full diagnosis (every finding, with its hints), to be worked out when first read."""

    def diagnose() -> tuple[Finding, ...]:
        return check_line(text, receiver, line_number=line_number).findings

    return diagnose


def _refusal_error(text: str, first: Finding, receiver: Receiver, line_number: int | None) -> RW1Error:
    """The error ``strict_message`` raises for a line whose first refusal is ``first``."""
    diagnose = _diagnosis(text, receiver, line_number)
    if first.kind == "syntax":
        return RW1SyntaxError.of(first.message, first.token or "", first.column, line_number, text, diagnose)
    message = first.message
    if first.kind == "profile" and first.key == "p":
        message = profile_not_held(first.token[2:] if first.token else "")
    return RefusedError.of(message, first.token or "", first.column, line_number, text, diagnose, first.why or "UNK")


def repeat_refusal(text: str, token: str, column: int, receiver: Receiver, line_number: int | None) -> RefusedError:
    """The error ``strict_message`` raises for a well-formed line whose first repeated key is the slot ``token`` at
    ``column`` (the first refusal of all: :func:`check_raw` reports a repeat first)."""
    return _refused(REPEATED, token, column, text, receiver, line_number)


def _refused(message: str, token: str, column: int | None, text: str, receiver: Receiver,
             line_number: int | None) -> RefusedError:
    """A refusal by the checks, its diagnosis worked out when first read."""
    return RefusedError.of(message, token, column, line_number, text, _diagnosis(text, receiver, line_number))


def _id_refusal(msgid: str, sender: str, column: int, text: str, receiver: Receiver,
                line_number: int | None) -> RefusedError | None:
    """The refusal of an id that is not ``<sender>-<n>``, or None where it is."""
    if msgid.rpartition("-")[0] == sender:
        return None
    return _refused(NOT_FROM_SENDER.format(sender), msgid, column, text, receiver, line_number)


def _scanned_head(text: str, receiver: Receiver) -> tuple[int, str, int, int, str, str, Vocabulary]:
    """(where the tail mark is or -1, the head, where the type and the id end, the head's slots each after a
    space, the type's name, the line's vocabulary) of a line the scanner read: its first ``p=``'s profile
    (which the receiver holds: the scanner read the line with it), or the core."""
    mark = text.find(" // ")
    head = text if mark < 0 else text[:mark]
    type_end = head.find(" ", 4)
    id_end = head.find(" ", type_end + 1) % (len(head) + 1)  # a line of no slots: the id ends the head
    slots = head[id_end:]
    at = slots.find(" p=")
    if at < 0:
        vocab = core_vocabulary()
    else:
        stop = slots.find(" ", at + 3)
        vocab = receiver.vocabulary(slots[at + 3:stop if stop >= 0 else len(slots)])
    return mark, head, type_end, id_end, slots, head[4:type_end], vocab


def _decoded(vocab: Vocabulary, table: TypeTable, key: str, rawval: str) -> Any:
    """A slot's value as the full pass decodes it on a line of ``table``'s type (kept as written where its type
    keeps it, or where no slot has the key); a ValueError where its type refuses it."""
    slot = vocab.slots.get(key)
    decode = table.decoders.get(key, None if slot is None else slot.type.decode)
    if decode is None or (decode.__class__ is frozenset and rawval in decode):
        return rawval
    return vocab.slots[key].type.decode(rawval) if decode.__class__ is frozenset else decode(rawval)


def scanned_refusal(text: str, kind: str, column: int, end: int, receiver: Receiver,
                    line_number: int | None, reason: str | None = None) -> RefusedError | None:
    """The error ``strict_message`` raises for a grammatical line with no repeated key whose first refusal the
    scanner saw (``kind``: ``"value"``, the slot at ``column`` ending at ``end``; ``"id"``; ``"missing"``), every
    check before it in D10's order passed; or None where Python does not find that refusal (the full pass decides).

    Python words the refusal from the line alone: the slot's decoder once, the id against ``from=``, the
    type's required keys against the keys written; no Finding is built (the diagnosis, read later, has them).
    ``reason``, for a value: what the ValueError the slot's decoder raised when the scanner called it on this
    value says, which words the refusal without decoding the value again; for an id: the sender the scanner
    read (``from=``), which the id is checked against again; for a missing slot: the first of the type's
    required keys (in its order) the scanner found absent. The scanner's plans close a profile's
    agent slots to the agents it names (a decoder of their own, whose words it does not give), so for those the
    value is decoded here; and the scanner faults an id or a missing slot only past every value, an agent's
    among them. Where the scanner gives no words, the line is read here as the full pass reads it.
    A value holds no space, so `` key=`` in the head's slots is where the slot of that key starts.
    """
    if reason is not None:  # what the scanner saw, of a key and a type it read in the line's vocabulary
        if kind == "value":  # the slot's decoder's words (none for a slot the plan closes to a profile's agents)
            return _refused(reason, text[column - 1:end], column, text, receiver, line_number)
        if kind == "missing":  # the first of the type's required keys absent
            return _refused(MISSING.format(text[4:text.find(" ", 4)]), reason, None, text, receiver, line_number)
        return _id_refusal(text[column - 1:end], reason, column, text, receiver, line_number)  # the sender
    mark, head, type_end, id_end, slots, type_name, vocab = _scanned_head(text, receiver)
    table = vocab.types.get(type_name)
    if table is None:
        return None
    if kind == "value":
        token = text[column - 1:end]
        key, _, rawval = token.partition("=")
        if key not in vocab.slots:
            return None
        try:
            _decoded(vocab, table, key, rawval)
        except ValueError as exc:
            return _refused(str(exc), token, column, text, receiver, line_number)
        return None
    if kind == "id":
        at = slots.find(" from=")  # the first from= slot
        if at < 0:
            return None
        stop = slots.find(" ", at + 6)
        sender = slots[at + 6:stop if stop >= 0 else len(slots)]
        return _id_refusal(head[type_end + 1:id_end], sender, type_end + 2, text, receiver, line_number)
    for absent in table.required:
        if f" {absent}=" not in slots:
            return _refused(MISSING.format(type_name), absent, None, text, receiver, line_number)
    return None


def rule_refusal(text: str, receiver: Receiver, line_number: int | None, index: int | None = None) -> RW1Error | None:
    """The error ``strict_message`` raises for a grammatical line with no repeated key where the scanner saw every
    check before the type's rules pass and a rule fail (``_scan.fault``'s ``FAULT_RULE``, with the index of the
    first rule that fails in the type's rules), its wording worked out when first read, as a syntax fault's is; or
    None where the line's type has no such rule (the full pass decides).

    The verdict is the scanner's, which checks a rule as the full pass does (its conditions, required slots,
    tail and sum natively, any other rule by the accept path's own check); Python words it
    (:func:`_rule_wording`). Every check before the rules passed, a profile's agents among them (the scanner's
    plans close its agent slots), so the rule's first refusal is the line's first.
    """
    mark, head, type_end, id_end, slots, type_name, vocab = _scanned_head(text, receiver)
    table = vocab.types.get(type_name)
    if table is None:
        return None
    rules = table.rules if index is None else table.rules[index:index + 1]
    for rule in rules:
        if type_name in rule.on:
            break
    else:
        return None

    def word() -> tuple[str, str, int | None]:
        worded = _rule_wording(type_name, slots, mark < 0, vocab, table, rules)
        if worded is not None:
            return worded
        try:  # not reached while the scanner checks rules as Python does (tests/test_scanner.py holds it to that)
            strict_message(text, receiver, line_number=line_number)
        except RW1Error as error:
            return error.message, error.token, error.column
        return f"refused on a rule the checks find holding: {rules[0].desc or rules[0].id}", "", None

    return RefusedError.worded_later(word, line=line_number, text=text, diagnose=_diagnosis(text, receiver, line_number))


def _rule_wording(type_name: str, slots: str, tailless: bool, vocab: Vocabulary, table: TypeTable,
                  rules: tuple[ProfileRule, ...]) -> tuple[str, str, int | None] | None:
    """(message, token, column) of the first refusal of ``rules`` on a line of type ``type_name`` whose head's
    slots, each after a space, are ``slots``, as the full pass words it; or None: the rules hold.

    The rules run as the full pass runs them, on the values as the full pass decodes them for the keys a rule's
    conditions read; any other key need only be written (a rule asks whether it is there, or for its value as
    written; the scanner decoded every value). No Finding is built (the diagnosis, read later, has them).
    """

    def written_as(key: str) -> str | None:  # a value holds no space: " key=" starts the key's first slot
        at = slots.find(f" {key}=")
        if at < 0:
            return None
        start = at + len(key) + 2
        stop = slots.find(" ", start)
        return slots[start:stop if stop >= 0 else len(slots)]

    def present(key: str) -> bool:
        return f" {key}=" in slots

    values: dict[str, Any] = {}
    for rule in rules:
        for key in rule.when:
            rawval = None if key in values else written_as(key)
            if rawval is None:
                continue
            try:
                values[key] = _decoded(vocab, table, key, rawval)
            except ValueError:
                return None  # a value refused: not a rule's refusal
    for rule in rules:
        if type_name not in rule.on:
            continue
        faults = _rule_faults(rule, values.get, present, written_as, tailless)
        if faults:
            token, message, _ = faults[0]
            return message, token, None
    return None


def syntax_refusal(text: str, column: int, expected: list[str], receiver: Receiver,
                   line_number: int | None) -> RW1SyntaxError:
    """The error ``strict_message`` raises for a line the grammar stops reading at ``column`` (``syntax.diagnose``),
    its wording worked out when first read."""
    return RW1SyntaxError.worded_later(lambda: syntax_wording(text, column, expected), line=line_number, text=text,
                                      diagnose=_diagnosis(text, receiver, line_number))


def profile_not_held(name: str) -> str:
    """What a person reads when a line names a profile the receiver does not hold: the name and the fix."""
    from .vocab import BUNDLED_PROFILES

    how = (f"profiles=[{name!r}] (the CLI: --profile {name})" if name in BUNDLED_PROFILES
           else f"profiles=['path/to/{name}.json'] or the profile object (the CLI: --profile FILE)")
    return (f"p={name} names a profile the receiver does not hold; hold it with {how}; "
            f"bundled profiles: {', '.join(BUNDLED_PROFILES)}")


def message_from_json(obj: Mapping[str, Any] | str, profiles: Profiles = None) -> Message:
    """Validate a JSON form and build the message it describes (D1, D3)."""
    return _from_json(obj, profiles)[0].replace(source=None)


def line_from_json(obj: Mapping[str, Any] | str, profiles: Profiles = None) -> str:
    """The line of a JSON form, checked as :func:`message_from_json` checks it (what its message's
    ``to_line()`` gives, without writing and reading the line a second time)."""
    return _from_json(obj, profiles)[1]


def _from_json(obj: Mapping[str, Any] | str, profiles: Profiles) -> tuple[Message, str]:
    """(the message a JSON form describes, its line): the line is written from the form and read back, and
    every value must read back as the form holds it, so the line is the one the message writes."""
    if isinstance(obj, str):
        try:
            obj = json.loads(obj)
        except json.JSONDecodeError as exc:
            raise EncodeError(f"not JSON: {exc.msg}", token="json") from None
        except (ValueError, RecursionError) as exc:  # numbers past the digit limit, nesting past the stack
            raise EncodeError(f"not a usable JSON value: {type(exc).__name__}", token="json") from None
    if obj.__class__ is not dict and not isinstance(obj, Mapping):  # (a dict, the commonest, without the ABC's check)
        raise EncodeError("a JSON form is an object", token="json")
    _refuse_unwritable(obj)
    if obj.keys() != _JSON_KEY_SET:
        missing = [k for k in JSON_KEYS if k not in obj]
        extra = [k for k in obj if k not in JSON_KEYS]
        which = missing[0] if missing else extra[0]
        raise EncodeError(f"a JSON form has exactly the keys {' '.join(JSON_KEYS)}", token=str(which))
    if not isinstance(obj["v"], str):
        raise EncodeError("v is a string", token="v")  # no language's rendering of another value is the token
    if obj["v"] != VERSION:
        raise RefusedError(f"unknown version token {obj['v']}", why="VER", token=str(obj["v"]))
    for key in ("type", "id", "from", "to"):
        if not isinstance(obj[key], str):
            raise EncodeError(f"{key} is a string", token=key)
    for key in ("re", "item", "tail"):
        if obj[key] is not None and not isinstance(obj[key], str):
            raise EncodeError(f"{key} is a string or null", token=key)
    slots = obj["slots"]
    if slots.__class__ is not dict and not isinstance(slots, Mapping):
        raise EncodeError("slots is an object", token="slots")
    parts = [obj["v"], obj["type"], obj["id"]]
    for key in ("re", "from", "to", "item"):
        if obj[key] is not None:
            parts.append(f"{key}={obj[key]}")
    for key, value in slots.items():
        if not isinstance(key, str) or KEY_RE.fullmatch(key) is None:
            raise EncodeError(f"slot key {key!r} is not [a-z][a-z0-9_]*", token=str(key))
        if key in ("re", "from", "to", "item"):
            raise EncodeError(f"{key} belongs at the top level, not in slots", token=key)
        parts.append(f"{key}={value if value.__class__ is str and value else encode(key, value)}")  # (text: itself)
    line = " ".join(parts)
    if obj["tail"] is not None:
        line += " // " + obj["tail"]
    receiver = as_receiver(profiles)
    # the line read as loads reads it (the accept path first: the same Message the full pass builds, a note
    # or not, since a message is all this keeps); a refused line by the full pass, which words the refusal
    try:
        message: Message | None = _loads_line()(line, receiver)
    except RW1Error:
        message = None
    if message is None:
        result = check_line(line, receiver)
        if result.message is None:
            first = result.refusal
            assert first is not None
            if first.kind == "syntax":
                token = ("tail" if obj["tail"] is not None and (first.column or 0) > len(line) - len(obj["tail"])
                         else first.token)
                raise EncodeError(f"cannot write: {first.message}", token=token or "", findings=result.findings)
            raise RefusedError(first.message, why=first.why or "UNK", token=first.token or "", findings=result.findings)
        message = result.message
    read = (message.type, message.id, message.re, message.from_, message.to, message.item, message.tail)
    if read != (obj["type"], obj["id"], obj["re"], obj["from"], obj["to"], obj["item"], obj["tail"]):
        for key, got in zip(("type", "id", "re", "from", "to", "item", "tail"), read):
            # A space or mark in an envelope value would read back as other slots or a tail (D3).
            if got != obj[key]:
                raise EncodeError(f"{key}: {json.dumps(obj[key])} does not read back as written", token=key)
    decoded = message.slots  # a list read back is a tuple: same() takes the two alike
    for key, value in slots.items():
        got = decoded.get(key)
        if not (got == value if got.__class__ is str and value.__class__ is str else same(got, value)):
            raise EncodeError(f"{key}: the JSON value {json.dumps(value)} is not of the slot's type", token=key)
    return message, line


_JSON_KEY_SET = frozenset(JSON_KEYS)
_SURROGATE = re.compile("[\ud800-\udfff]")
_LONE_SURROGATE = "holds a lone surrogate, which no UTF-8 text can carry"
_LOADS_LINE: list[Callable[[str, Receiver], Message]] = []


def _loads_line() -> Callable[[str, Receiver], Message]:
    """:data:`rogerwilco.core.speedups.loads_line` (the C scanner's first where it is built), imported on first
    use (speedups imports this module)."""
    if not _LOADS_LINE:
        from .speedups import loads_line

        _LOADS_LINE.append(loads_line)
    return _LOADS_LINE[0]


def _unwritable(value: Any) -> str | None:
    """Why a JSON value has no canonical form in RW1 (D9), or None."""
    kind = value.__class__
    if kind is str:  # the commonest value first: ASCII text (a flag read in place) holds no surrogate
        return None if value.isascii() or _SURROGATE.search(value) is None else _LONE_SURROGATE
    if kind is int or kind is bool or value is None:
        return None
    if isinstance(value, float):
        return f"{value!r} is not an integer: a number in a JSON form has no canonical form unless it is one"
    if isinstance(value, str) and _SURROGATE.search(value):
        return _LONE_SURROGATE
    if isinstance(value, (list, tuple)):
        # one level: a list holds scalars, and a nested list is refused by its type, not here
        return next((why for why in map(_unwritable, (v for v in value if not isinstance(v, (list, tuple)))) if why),
                    None)
    return None


def _refuse_unwritable(obj: Mapping[str, Any]) -> None:
    """D9: refused in every implementation, token the key: ``pri: 2.0``, ``1e0``, a lone surrogate."""
    for key, value in obj.items():
        kind = value.__class__
        if (kind is str and value.isascii()) or kind is int or value is None:  # the commonest values: writable
            continue
        if key == "slots" and (kind is dict or isinstance(value, Mapping)):
            for slot, item in value.items():
                if isinstance(slot, str) and not slot.isascii() and _SURROGATE.search(slot):
                    raise RefusedError("a slot key holds a lone surrogate", why="UNK", token="slots")
                kind = item.__class__
                if (kind is str and item.isascii()) or kind is int:
                    continue
                why = _unwritable(item)
                if why:
                    raise RefusedError(f"{slot}: {why}", why="UNK", token=str(slot))
            continue
        why = _unwritable(value)
        if why:
            raise RefusedError(f"{key}: {why}", why="UNK", token=str(key))


# --------------------------------------------------------------------------
# refusal replies


def address_of(text: str, raw: RawLine | None = None) -> tuple[str, str] | None:
    """(their id, their from) where the line is whole enough to reply to."""
    if raw is not None:
        tokens = [raw.id, *raw.tokens]
    else:
        tokens = text.split(" ")[2:]
    if not tokens or MSGID_RE.fullmatch(tokens[0]) is None:
        return None
    senders = [t[5:] for t in tokens[1:] if t.startswith("from=")]
    if len(senders) != 1 or AGENT_RE.fullmatch(senders[0]) is None:
        return None
    return tokens[0], senders[0]


def refusal_for(result: LineResult, me: str, n: int) -> str | None:
    first = result.refusal
    if first is None:
        return None
    address = address_of(result.text, result.raw)
    if address is None:
        return None
    their_id, their_from = address
    if AGENT_RE.fullmatch(me) is None or n < 0:
        raise ValueError(f"cannot reply as {me!r} with number {n}")
    token = printable(first.token or "")
    # Words only: a reason may come from a profile's text, which must not be
    # able to put two spaces, a trailing space or a control character in a line.
    detail = " ".join(printable(first.message).split())
    tail = f"{token} {detail}" if token and detail else (token or detail or "refused")
    if len(tail) > 300:
        tail = tail[:297].rstrip(" ") + "..."
    line = f"RW1 UN {me}-{n} re={their_id} from={me} to={their_from} why={first.why or 'UNK'} // {tail}"
    try:
        parse_raw(line)
    except RW1SyntaxError:
        return None  # an id or name that cannot be written back: no reply can be addressed
    return line


def refusal(text: str, me: str, n: int, profiles: Profiles = None) -> str | None:
    """The ``UN`` reply a receiver named ``me`` sends for ``text``, or None.

    None where the line is valid, or too broken to find its id and from.
    """
    return refusal_for(check_line(text, profiles), me, n)
