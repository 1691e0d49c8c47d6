"""Readback: the five tiers of check-rb, check-ho, check-dn and make-rb (spec 5.1-5.3, D6, D7).

Theory of operation
-------------------
A handoff (HO) transfers ownership only when its readback (RB) passes every
tier the sender asked for with ``rb=`` (default ``echo``). Each tier is a
function from the two decoded messages to findings; the tiers walk data:

=====  ==============  ======================================================
tier   asked           checked
=====  ==============  ======================================================
1      always          ``re`` is the HO's id, ``from`` the HO's ``to``, ``to``
                       the HO's ``from`` (kind ``receipt``)
2      always          ``h=`` against the HO's digest; absent is a note
                       (``digest``, tier not checked), wrong is a fail
3      always          the echo set (:func:`echo_set`, D7) by decoded value:
                       ``missing`` or ``mismatch``; any other HO slot the RB
                       chose to repeat must also be equal; an RB ``exp``
                       later than the HO's is ``expiry``
4      ``acc``/``plan``  :mod:`rogerwilco.checks.comprehension`, with ``keys=`` as
       or criteria     required keys; ``plan`` also needs ``do=`` (``plan``)
5      ``exec``        every execution slot of the ask (the profile's
                       ``exec`` map): equal to the HO's value, or, where the
                       HO leaves it to the receiver, present and not
                       contradicted by the sender's record (``record``); an
                       ask with none gets a ``no-exec`` note
=====  ==============  ======================================================

Values are compared decoded, type and all (``pri=02`` is ``pri=2``; a list
keeps its order), never as strings; a value an RB without ``p=`` kept as text
is decoded with the HO's slot type first. A tier with a ``fail`` finding is
failed; tier 2 without ``h=`` and tier 4 without sender criteria are "not
checked"; a tier the HO did not ask for is "not asked". The verdict passes
only when no finding fails. Nothing in a value or a tail is interpreted, so
a receiver can only make a check pass by reading back what was sent.

:func:`check_ho` compares an HO with the approval record before it is sent
(or, for a relay, with the HO it received, tail included, plus only what its role
adds); :func:`check_dn` compares a done report with the plan;
:func:`make_rb` composes the readback by code from the HO as delivered.
"""

from __future__ import annotations

import datetime as _dt
from types import MappingProxyType
from typing import Any, Iterable, Mapping

import attrs

from .comprehension import Comparator, parse_criteria
from ..core.codec import decode, reread, same, shown
from ..core.errors import RW1Error
from ..core.findings import FAIL, Finding, fail, note
from ..core.message import Message
from ..core.semantics import check_line
from ..core.slottypes import parse_time
from ..core.vocab import Receiver, Vocabulary, as_receiver

PASSED = "passed"
FAILED = "failed"
NOT_CHECKED = "not checked"
NOT_ASKED = "not asked"

TIERS = {1: "receipt", 2: "integrity", 3: "echo", 4: "comprehension", 5: "execution"}
_DEFAULT_LEVEL = "echo"
# D7: the echo set of each level, as data. "*" is every slot the HO carries.
_LEVEL_ECHO = {
    "echo": ("item", "ask", "due"),
    "all": ("item", "*"),
    "acc": ("item", "ask", "due"),
    "plan": ("item", "ask", "due"),
    "exec": ("item", "ask", "due"),
}
_NEVER_ECHOED = frozenset({"rb", "keys", "exp", "acc"})
_HOP_ENVELOPE = frozenset({"re", "from", "to"})  # each message's own: an RB reverses them, never echoes them
_RB_OWN_SLOTS = frozenset({"h", "eta", "not", "asm", "exp", "acc", "do"})
_TAIL = "tail"  # in relay mode: the received tail, and the name a relay's role gives it among what it adds
_COMPREHENSION_LEVELS = frozenset({"acc", "plan"})
_RECEIPT = (("re", "id"), ("from", "to"), ("to", "from"))  # (RB field, HO field it must equal)
_DN_RECEIPT = _RECEIPT + (("item", "item"),)


class ReadbackInputError(RW1Error, ValueError):
    """An argument to make_rb or a check that cannot be used at all."""


@attrs.frozen(kw_only=True)
class ReadbackReport:
    """The outcome of a check: the verdict, every finding, and per-tier status."""

    passed: bool
    findings: tuple[Finding, ...]
    tiers: Mapping[int, str] = attrs.field(factory=dict, converter=lambda d: MappingProxyType(dict(d)))
    check: str = "check-rb"
    ho: Message | None = None
    other: Message | None = None  # the RB or DN checked

    resolved_unchecked: tuple[str, ...] = ()  # tier 5: slots the receiver resolved with no record to check

    @property
    def unchecked(self) -> tuple[int, ...]:
        """The tiers the HO asked for that could not be checked (D12): tier 4
        with no criteria to compare, tier 5 with a value the receiver resolved
        and no record to check it against. The verdict can pass; it says so."""
        out = [t for t in (4, 5) if self.tiers.get(t) == NOT_CHECKED and self.ho is not None and self.other is not None]
        if 5 not in out and self.resolved_unchecked:
            out.append(5)
        return tuple(sorted(out))

    def to_json(self) -> dict[str, Any]:
        """The verdict, the findings and, for a readback, each tier's status by name."""
        out: dict[str, Any] = {"passed": self.passed, "findings": [f.to_json() for f in self.findings]}
        if self.tiers:
            out["tiers"] = [{"tier": t, "name": TIERS[t], "status": self.tiers.get(t, NOT_CHECKED)} for t in sorted(TIERS)]
        return out

    def failures(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == FAIL)


# --------------------------------------------------------------------------
# inputs


def coerce(value: Message | str, receiver: Receiver, want: str, name: str) -> tuple[Message | None, Finding | None]:
    """A Message of type ``want`` from a Message or a line, or a ``form`` finding."""
    if isinstance(value, Message):
        message = value
    elif isinstance(value, str):
        result = check_line(value, receiver)
        if result.message is None:
            first = result.refusal
            detail = f"{first.token}: {first.message}" if first and first.token else (first.message if first else "unreadable")
            return None, fail(kind="form", message=f"the {name} does not parse: {detail}")
        message = result.message
    else:
        return None, fail(kind="form", message=f"the {name} is neither a line nor a message")
    if message.type != want:
        return None, fail(kind="form", message=f"the {name} is a {message.type}, not a {want}")
    return message, None


def vocabulary_of(message: Message, receiver: Receiver) -> Vocabulary:
    return receiver.vocabulary(message.profile) if message.profile and receiver.holds(message.profile) else receiver.vocabulary(None)


_TYPE_WORDS = {
    "money": 'an amount as a string, like "5400.00"',
    "date": 'a date as a string, like "20261002"',
    "time": 'a UTC time as a string, like "20261002T0900Z"',
    "days": "a number of days, as an integer",
    "bool": "true or false",
    "digest": "12 lowercase hex digits, as a string",
}


def _expected_json(type_name: str) -> str:
    """In words, the JSON a record gives for a slot of this type (D1)."""
    if type_name.startswith("list:"):
        return "an array of strings (a one-element list is still an array)"
    if type_name.startswith("int:"):
        return f"an integer ({type_name[4:]})"
    if type_name.startswith("enum:"):
        return f"one of the {type_name[5:]} codes, as a string"
    return _TYPE_WORDS.get(type_name, "a string")


def _json_type_ok(type_name: str, value: Any) -> bool:
    """Whether a record's JSON value has the type D1 gives the slot (or is the text a line would write)."""
    if isinstance(value, str):
        return True
    if type_name.startswith("list:"):
        return isinstance(value, (list, tuple)) and all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in value)
    if type_name.startswith("int:") or type_name == "days":
        return isinstance(value, int) and not isinstance(value, bool)
    if type_name == "bool":
        return isinstance(value, bool)
    return False


def record_type_problems(record: Mapping[str, Any], vocab: Vocabulary) -> list[Finding]:
    """A record's values that are not the JSON D1 gives their slot, each said in words.

    The CLI checks a record file with it before any check runs (a record is
    the sender's own input: one it cannot use is exit 2, said in words)."""
    problems = []
    for key, value in record.items():
        slot = vocab.slots.get(key)
        type_name = slot.type.name if slot is not None else "text"
        if key == "item" or _json_type_ok(type_name, value):
            if key != "item" or isinstance(value, str):
                continue
        if value is None:
            what = "null"
        elif isinstance(value, bool):
            what = "a boolean"
        elif isinstance(value, (int, float)):
            what = f"the number {shown(None, value)}"
        elif isinstance(value, (list, tuple)):
            what = "an array"
        elif isinstance(value, Mapping):
            what = "an object"
        else:
            what = shown(None, value)
        want = "a string" if key == "item" else _expected_json(type_name)
        problems.append(fail(kind="record", message=f"{key}: the record gives {what}; {key} is {want}"
                             + (" (leave the key out if the record holds no value)" if value is None else ""),
                             key=key, sender_value=shown(None, value)))
    return problems


def levels_of(ho: Message) -> tuple[str, ...]:
    """The readback levels the HO asks for (``echo`` when it names none)."""
    rb = ho.slots.get("rb") or ()
    levels = tuple(t for t in rb if t in _LEVEL_ECHO)
    return levels or (_DEFAULT_LEVEL,)


def echo_set(ho: Message) -> tuple[str, ...]:
    """D7: the slots the RB must echo, in the HO's order of interest."""
    keys: list[str] = []
    for level in levels_of(ho):
        for key in _LEVEL_ECHO[level]:
            if key == "*":
                keys.extend(k for k in ho.slots if k not in _NEVER_ECHOED)
            elif ho.get(key) is not None:
                keys.append(key)
    keys.extend(t for t in (ho.slots.get("rb") or ()) 
                if t not in _LEVEL_ECHO and t not in _NEVER_ECHOED and t not in _HOP_ENVELOPE and ho.get(t) is not None)
    return tuple(dict.fromkeys(keys))


def exec_slots(ho: Message, vocab: Vocabulary) -> tuple[str, ...]:
    return vocab.exec_slots.get(ho.slots.get("ask", ""), ())


# --------------------------------------------------------------------------
# the tiers


def tier_receipt(ho: Message, rb: Message, tier: int | None = 1, pairs=_RECEIPT) -> list[Finding]:
    findings = []
    for rb_field, ho_field in pairs:
        want = ho.id if ho_field == "id" else ho.get(ho_field)
        got = rb.get(rb_field)
        if got != want:
            findings.append(fail(kind="receipt", message=f"{rb_field}={got} where the {ho.type} gives {want}", tier=tier,
                                 key=rb_field, sender_value=want, receiver_value=got))
    return findings


def tier_digest(ho: Message, rb: Message, *, notes: bool = True) -> list[Finding]:
    h = rb.slots.get("h")
    if h is None and not notes:
        return []  # the note alone would name the digest: a verdict does without it (and its SHA-256)
    want = ho.digest()
    if h is None:
        return [note(kind="digest", message="no h=: integrity not checked", tier=2, key="h", sender_value=want)]
    if h != want:
        return [fail(kind="digest", message=f"h={h} is not the digest of the HO ({want})", tier=2, key="h", sender_value=want, receiver_value=h)]
    return []


def compare_slot(key: str, ho_value: Any, rb: Message, vocab: Vocabulary, tier: int, *, require: bool) -> list[Finding]:
    got = rb.get(key)
    if got is None:
        if require:
            return [fail(kind="missing", message=f"{key} not read back", tier=tier, key=key, sender_value=shown(key, ho_value))]
        return []
    differs = _differs(key, ho_value, got, vocab)
    if differs is not None:
        want, got = differs
        return [fail(kind="mismatch", message=f"{key}: read back {shown(key, got)}, sent {shown(key, want)}", tier=tier, key=key,
                     sender_value=shown(key, want), receiver_value=shown(key, got))]
    return []


def _differs(key: str, ho_value: Any, got: Any, vocab: Vocabulary) -> tuple[Any, Any] | None:
    """The two values decoded, where the value read back (not None) is another than the HO's; None where the same."""
    if got == ho_value and type(got) is type(ho_value) and type(got) in _PLAIN:
        return None  # the same text or number: decoded alike, so the same value (decoding is a function of the text)
    want = decode(vocab, key, ho_value)
    got = decode(vocab, key, got)
    return None if same(want, got) else (want, got)


#: values compare_slot takes as equal without decoding them, when equal and of one type
_PLAIN = (str, int, bool)


def _tier_echo(ho: Message, rb: Message, vocab: Vocabulary) -> list[Finding]:
    findings: list[Finding] = []
    required = echo_set(ho)
    tier5 = set(exec_slots(ho, vocab)) if "exec" in levels_of(ho) else set()
    for key in required:
        if key in tier5:
            continue
        findings.extend(compare_slot(key, ho.get(key), rb, vocab, 3, require=True))
    for key, value in ho.slots.items():
        if key in required or key in tier5 or key in _NEVER_ECHOED or key in _RB_OWN_SLOTS:
            continue
        findings.extend(compare_slot(key, value, rb, vocab, 3, require=False))
    # A slot of the handoff's vocabulary that the HO never carried, read back
    # with a value, is a misread too (an invented due=, a keep= the sender
    # never wrote). The receiver's own slots and the execution values it
    # resolves for itself (tier 5) are its to add.
    handoff_slots = vocab.types["HO"].slots
    resolved = set(exec_slots(ho, vocab))
    for key, value in rb.slots.items():
        if (key in ho.slots or key in _RB_OWN_SLOTS or key in resolved or key == "p" or key.startswith("x_")
                or key not in handoff_slots):
            continue
        findings.append(fail(kind="mismatch", message=f"{key}: read back {shown(key, value)}, which the handoff does not carry",
                             tier=3, key=key, sender_value=None, receiver_value=shown(key, value)))
    ho_exp, rb_exp = ho.slots.get("exp"), rb.slots.get("exp")
    if ho_exp is not None and rb_exp is not None:
        try:
            late = parse_time(rb_exp) > parse_time(ho_exp)
        except (TypeError, ValueError):
            late = True
        if late:
            findings.append(fail(kind="expiry", message=f"the readback's exp={rb_exp} outlives the handoff's exp={ho_exp}", tier=3,
                                 key="exp", sender_value=ho_exp, receiver_value=rb_exp))
    return findings


def _sender_criteria(ho: Message, expect_acc: Any) -> tuple | None:
    """The sender's criteria: those passed to the check, else the HO's ``acc=``."""
    if expect_acc is not None:
        try:
            return parse_criteria(expect_acc)
        except ValueError as exc:
            raise ReadbackInputError(f"expected criteria: {exc}") from None
    if ho.slots.get("acc"):
        return parse_criteria(ho.slots["acc"])
    return None


def _tier_comprehension(ho: Message, rb: Message, vocab: Vocabulary, expect_acc: Any) -> tuple[list[Finding], bool]:
    """Tier-4 findings, and whether anything was compared against sender criteria."""
    findings: list[Finding] = []
    theirs = _sender_criteria(ho, expect_acc)
    raw_mine = rb.slots.get("acc")
    if raw_mine is None:
        findings.append(fail(kind="missing", message="the HO asks for acceptance criteria; the readback carries no acc=", tier=4, key="acc"))
    try:
        mine = parse_criteria(raw_mine or ())
    except ValueError:
        mine = ()
    not_tokens = [t for t in (rb.slots.get("not") or ()) if isinstance(t, str)]
    comparator = Comparator.for_vocabulary(vocab)
    findings.extend(comparator.compare(theirs, mine, not_tokens=not_tokens, required_keys=ho.slots.get("keys") or ()))
    if "plan" in levels_of(ho) and rb.slots.get("do") is None:
        findings.append(fail(kind="plan", message="rb=plan: the readback does not say what it will produce (do=)", tier=4, key="do"))
    return findings, theirs is not None


def _tier_execution(ho: Message, rb: Message, vocab: Vocabulary, record: Mapping[str, Any] | None) -> list[Finding]:
    slots = exec_slots(ho, vocab)
    if not slots:
        return [note(kind="no-exec", message=f"the profile names no execution slots for ask={ho.slots.get('ask')}: tier 5 not checked",
                     tier=5, key="ask")]
    findings: list[Finding] = []
    for key in slots:
        ho_value = ho.get(key)
        if ho_value is not None:
            findings.extend(compare_slot(key, ho_value, rb, vocab, 5, require=True))
            continue
        got = rb.get(key)
        if got is None:
            findings.append(fail(kind="missing", message=f"{key}: the value the receiver will use is not read back", tier=5, key=key))
            continue
        if record is None or key not in record:
            # D12: a note of kind unchecked, tier 5, naming the slot
            findings.append(note(kind="unchecked", message=f"{key}: the receiver resolved {shown(key, got)}; no record of the "
                                 "sender's to check it against", tier=5, key=key, receiver_value=shown(key, got)))
            continue
        want = decode(vocab, key, record[key])
        got = decode(vocab, key, got)
        if not same(want, got):
            findings.append(fail(kind="record", message=f"{key}: the receiver resolved {shown(key, got)}; the record holds "
                                 f"{shown(key, want)}", tier=5, key=key,
                                 sender_value=shown(key, want), receiver_value=shown(key, got)))
    return findings


def _status(findings: Iterable[Finding], tier: int, *, checked: bool = True) -> str:
    mine = [f for f in findings if f.tier == tier]
    if any(f.severity == FAIL for f in mine):
        return FAILED
    return PASSED if checked else NOT_CHECKED


def _at(now: str | _dt.datetime | None) -> _dt.datetime:
    """``now`` as an aware UTC datetime (a ``YYYYMMDDTHHMMZ`` string, a datetime, or the clock), read as check-thread reads it."""
    from .thread import parse_now  # thread imports this module (through the endpoint): imported at call time

    try:
        return parse_now(now)
    except ValueError as exc:
        raise ReadbackInputError(str(exc)) from None


def _expired(message: Message, what: str, at: _dt.datetime) -> list[Finding]:
    """A ``fail`` when ``at`` is past the message's own ``exp`` (spec 3.1: nothing is done on an HO, and no statement
    is confirmed, after its ``exp``). ``exp`` is the latest moment, so its own minute is still in time, as for
    check-thread's ``open-past-exp``."""
    exp = message.slots.get("exp")
    if not isinstance(exp, str):
        return []
    try:
        limit = parse_time(exp)
    except ValueError:
        return []  # an exp that is not a real time never parsed: the line itself was refused
    if at <= limit:
        return []
    stamp = at.strftime("%Y%m%dT%H%MZ")
    return [fail(kind="expired", message=f"the {what} expired at {exp} (now {stamp}); {_AFTER_EXPIRY[what]}", key="exp",
                 sender_value=exp, receiver_value=stamp)]


_AFTER_EXPIRY = {
    "handoff": "nothing may be done on it: send a new HO from the record",
    "readback": "its statement cannot be confirmed: read back again",
}


# --------------------------------------------------------------------------
# check-rb


def check_rb(
    ho: Message | str,
    rb: Message | str,
    *,
    profiles: Receiver | Iterable | None = None,
    expect_acc: str | Iterable[str] | None = None,
    record: Mapping[str, Any] | None = None,
    now: str | _dt.datetime | None = None,
) -> ReadbackReport:
    """Check a readback against its handoff, tier by tier (spec 5.1).

    ``expect_acc`` holds the sender's own criteria (``"len:120w+tone:plain"``
    or a list); without it, the HO's ``acc=`` is the sender's. ``record``
    maps execution slots to the values the sender's record holds, for the
    slots the HO leaves the receiver to resolve. ``now`` is when the check
    runs (``YYYYMMDDTHHMMZ`` or a datetime; default the clock, UTC): a
    handoff or a readback whose ``exp`` it has reached fails (``expired``).
    """
    at = _at(now)
    return _check_rb(ho, rb, as_receiver(profiles), expect_acc=expect_acc, record=record, at=at, notes=True)


def readback_passes(ho: Message, rb: Message, *, receiver: Receiver, now: _dt.datetime,
                    expect_acc: str | Iterable[str] | None = None, record: Mapping[str, Any] | None = None) -> bool:
    """Whether :func:`check_rb` of the same arguments passes: the same tiers, without the findings that can only
    be notes and cost work of their own (the digest of an HO whose readback carries no ``h=``). For a check
    that reads the verdict alone (a replay of a conversation)."""
    if expect_acc is None and record is None:
        if _echoed_verbatim(ho, rb):
            return True
        if _misread(ho, rb, receiver):
            return False
    return _check_rb(ho, rb, receiver, expect_acc=expect_acc, record=record, at=now, notes=False).passed


#: the levels whose tiers read more than the echo (the sender's criteria, the execution values)
_BEYOND_ECHO = _COMPREHENSION_LEVELS | {"exec"}
#: an RB's own slots that no tier compares when the HO asks for the echo alone (``h`` and ``exp`` are compared)
_RB_OWN_UNCOMPARED = _RB_OWN_SLOTS - {"h", "exp"}


def _echoed_verbatim(ho: Message, rb: Message) -> bool:
    """Whether ``rb`` passes every tier against ``ho`` for want of anything that could fail (no sender's
    criteria or record given): the receipt right, the item and every slot of the HO read back as the same
    text, number or flag, nothing read back that the HO lacks but the RB's own notes, and none of the slots
    whose tiers read more (``h``, ``exp``, ``rb=acc``, ``plan`` or ``exec``). Sufficient, not necessary:
    where it is false, the tiers decide (:func:`_check_rb`). A replay's readbacks are mostly such echoes."""
    if not (isinstance(ho, Message) and isinstance(rb, Message) and ho.type == "HO" and rb.type == "RB"):
        return False
    if rb.re != ho.id or rb.from_ != ho.to or rb.to != ho.from_ or rb.item != ho.item:
        return False
    ho_slots, rb_slots = ho.slots, rb.slots
    if not _BEYOND_ECHO.isdisjoint(levels_of(ho)):
        return False
    for key, value in ho_slots.items():
        if key in _RB_OWN_SLOTS:  # h, exp, acc and the rest: the tiers read them
            return False
        if key == "rb":
            continue  # the levels, read above; never echoed
        got = rb_slots.get(key)
        if got != value or type(got) is not type(value) or type(value) not in _PLAIN:
            return False
    for key in rb_slots:
        if key not in ho_slots and key not in _RB_OWN_UNCOMPARED:
            return False
    return True


#: the HO's slots that no readback echoes verbatim, for :func:`verbatim_types`: those the tiers read beyond the
#: echo, and the readback levels
VERBATIM_BLOCKERS = _RB_OWN_SLOTS | {"rb"}


def verbatim_types(ho: Message) -> tuple[tuple[str, type], ...] | None:
    """What a readback with ``ho``'s item and slots, equal as a mapping, needs beyond that to pass every tier at
    once (:func:`_echoed_verbatim`'s case, read in one comparison): each slot of the HO that is not text, with
    its type, which the RB's value must have too (``1`` equals ``True``). None where equal slots are not
    enough: the HO carries a slot the tiers read beyond the echo (``h``, ``exp``, ``acc``...), readback
    levels, or a value that is not text, a number or a flag. The receipt (``re``, ``from``, ``to``) is the
    caller's to check."""
    slots = ho.slots
    if not VERBATIM_BLOCKERS.isdisjoint(slots):
        return None
    typed = tuple((k, type(v)) for k, v in slots.items() if type(v) is not str)
    if any(kind is not int and kind is not bool for _, kind in typed):
        return None
    return typed


def _misread(ho: Message, rb: Message, receiver: Receiver) -> bool:
    """Whether a slot the HO asks to have echoed is missing from ``rb`` or read back as another value: the
    echo tier's failing finding, found without the rest of the report (:func:`_check_rb` would give it, so
    the readback fails). Sufficient, not necessary, as :func:`_echoed_verbatim`; False where the HO's
    execution slots are read by tier 5 instead."""
    if not (isinstance(ho, Message) and isinstance(rb, Message) and ho.type == "HO" and rb.type == "RB"):
        return False
    if "rb" not in ho.slots:  # the echo level alone: echo_set's keys, read at once
        keys: Iterable[str] = (k for k in _LEVEL_ECHO[_DEFAULT_LEVEL] if ho.get(k) is not None)
    elif "exec" in levels_of(ho):
        return False
    else:
        keys = echo_set(ho)
    vocab = vocabulary_of(ho, receiver)
    for key in keys:  # compare_slot(..., require=True) failing, without its finding made
        got = rb.get(key)
        if got is None or _differs(key, ho.get(key), got, vocab) is not None:
            return True
    return False


def _check_rb(ho: Message | str, rb: Message | str, receiver: Receiver, *, expect_acc: str | Iterable[str] | None,
              record: Mapping[str, Any] | None, at: _dt.datetime, notes: bool) -> ReadbackReport:
    """:func:`check_rb`; without ``notes``, the digest's note is left out (:func:`readback_passes`)."""
    ho_msg, ho_problem = coerce(ho, receiver, "HO", "handoff")
    rb_msg, rb_problem = coerce(rb, receiver, "RB", "readback")
    problems = [p for p in (ho_problem, rb_problem) if p is not None]
    if ho_msg is None or rb_msg is None:
        return ReadbackReport(passed=False, findings=tuple(problems), tiers={t: NOT_CHECKED for t in TIERS},
                              ho=ho_msg, other=rb_msg)
    vocab = vocabulary_of(ho_msg, receiver)
    levels = levels_of(ho_msg)
    findings: list[Finding] = _expired(ho_msg, "handoff", at) + _expired(rb_msg, "readback", at)
    findings += tier_receipt(ho_msg, rb_msg)
    findings += tier_digest(ho_msg, rb_msg, notes=notes)
    findings += _tier_echo(ho_msg, rb_msg, vocab)
    tiers = {
        1: _status(findings, 1),
        2: _status(findings, 2, checked="h" in rb_msg.slots),
        3: _status(findings, 3),
        4: NOT_ASKED,
        5: NOT_ASKED,
    }
    if _COMPREHENSION_LEVELS & set(levels) or expect_acc is not None:
        comp, compared = _tier_comprehension(ho_msg, rb_msg, vocab, expect_acc)
        findings += comp
        tiers[4] = _status(comp, 4, checked=compared)
    resolved: tuple[str, ...] = ()
    if "exec" in levels:
        execution = _tier_execution(ho_msg, rb_msg, vocab, record)
        findings += execution
        resolved = tuple(k for k in exec_slots(ho_msg, vocab) if ho_msg.get(k) is None and rb_msg.get(k) is not None
                         and (record is None or k not in record))
        # D12: a value the receiver resolved with no record to check it against leaves tier 5 not checked
        tiers[5] = _status(execution, 5, checked=bool(exec_slots(ho_msg, vocab)) and not resolved)
    return ReadbackReport(passed=not any(f.failed for f in findings), findings=tuple(findings), tiers=tiers,
                          ho=ho_msg, other=rb_msg, resolved_unchecked=resolved)


# --------------------------------------------------------------------------
# check-ho


def _record_of(record: Mapping[str, Any] | Message | str, receiver: Receiver) -> tuple[dict[str, Any] | None, Finding | None]:
    """A record as slot values: a mapping, or an HO (its ``item`` and slots)."""
    if isinstance(record, Mapping):
        return dict(record), None
    message, problem = coerce(record, receiver, "HO", "record")
    if message is None:
        return None, problem
    out: dict[str, Any] = {"item": message.item} if message.item is not None else {}
    out.update(message.slots)
    return out, None


def check_ho(
    line: Message | str,
    record: Mapping[str, Any] | Message | str,
    *,
    profiles: Receiver | Iterable | None = None,
    relay_adds: Iterable[str] | None = None,
) -> ReadbackReport:
    """Check an HO against the record before it is sent (spec 5.3).

    Every value the record holds must be in the line, equal; the line must
    ask ``rb=exec`` where the profile names execution slots for the ask; and
    it may carry no execution value the record does not hold. In relay mode
    (``relay_adds`` given) the record is the HO the relay received, and the
    forwarded line may carry nothing beyond it but the slots in ``relay_adds``;
    its tail must equal the received tail unless ``relay_adds`` names
    ``tail`` (D15: the brief lives in the tail). The received tail is the
    received line's, or, for a record given as slot values, the value of its
    ``tail`` key (absent: the received HO had none).
    """
    receiver = as_receiver(profiles)
    ho, problem = coerce(line, receiver, "HO", "handoff")
    received_tail: Any = None
    if relay_adds is not None and isinstance(record, Mapping):
        record = dict(record)
        received_tail = record.pop(_TAIL, None)
    held, record_problem = _record_of(record, receiver)
    problems = [p for p in (problem, record_problem) if p is not None]
    if ho is None or held is None:
        return ReadbackReport(passed=False, findings=tuple(problems), check="check-ho", ho=ho)
    if relay_adds is not None and not isinstance(record, Mapping):
        restated = coerce(record, receiver, "HO", "record")[0]
        received_tail = restated.tail if restated is not None else None
    vocab = vocabulary_of(ho, receiver)
    findings: list[Finding] = []
    for key, value in held.items():
        if key in ("re", "from", "to") and relay_adds is not None:
            continue  # a relay's hop has its own envelope
        want = decode(vocab, key, value)
        got = ho.get(key)
        if got is None:
            findings.append(fail(kind="missing", message=f"{key}: the record holds {shown(key, want)}; the line omits it", key=key,
                                 sender_value=shown(key, want)))
        elif not same(want, decode(vocab, key, got)):
            findings.append(fail(kind="mismatch", message=f"{key}: the line says {shown(key, got)}; the record holds {shown(key, want)}",
                                 key=key, sender_value=shown(key, want), receiver_value=shown(key, got)))
    if relay_adds is not None:
        adds = set(relay_adds)
        extra = ([("item", ho.item)] if ho.item is not None else []) + list(ho.slots.items())
        for key, value in extra:
            if key not in held and key not in adds:
                findings.append(fail(kind="mismatch", message=f"{key}={shown(key, value)} is neither in the received handoff nor "
                                     "added by the relay's role", key=key, sender_value=None, receiver_value=shown(key, value)))
        if _TAIL not in adds:
            findings.extend(_relay_tail(received_tail, ho.tail))
    else:
        for key in exec_slots(ho, vocab):
            if key not in held and ho.get(key) is not None:
                findings.append(fail(kind="mismatch", message=f"{key}={shown(key, ho.get(key))} is an execution value the record "
                                     "does not hold", key=key, sender_value=None, receiver_value=shown(key, ho.get(key))))
    if exec_slots(ho, vocab) and "exec" not in levels_of(ho):
        findings.append(fail(kind="level", message=f"the profile names execution slots for ask={ho.slots.get('ask')}; "
                             "the line does not ask rb=exec", key="rb", sender_value="exec",
                             receiver_value=shown("rb", ho.slots.get("rb"))))
    return ReadbackReport(passed=not any(f.failed for f in findings), findings=tuple(findings), check="check-ho", ho=ho)


def _relay_tail(received: Any, forwarded: str | None) -> list[Finding]:
    """The forwarded tail against the received one, character for character (D15)."""
    if received == forwarded:
        return []
    if forwarded is None:
        return [fail(kind="missing", message="the relay dropped the received tail; it carries the brief", key=_TAIL,
                     sender_value=str(received), receiver_value=None)]
    if received is None:
        return [fail(kind="mismatch", message="the relay added a tail the received handoff did not have, and its role does not "
                     "add one", key=_TAIL, sender_value=None, receiver_value=forwarded)]
    return [fail(kind="mismatch", message="the relay changed the tail it received; the brief lives there", key=_TAIL,
                 sender_value=str(received), receiver_value=forwarded)]


# --------------------------------------------------------------------------
# check-dn


def check_dn(
    ho: Message | str,
    dn: Message | str,
    rb: Message | str | None = None,
    *,
    profiles: Receiver | Iterable | None = None,
    record: Mapping[str, Any] | None = None,
    now: str | _dt.datetime | None = None,
) -> ReadbackReport:
    """Check a done report against the plan (spec 5.3).

    The plan of an execution slot is the HO's value, or, where the HO left it
    to the receiver, the value of a readback that passes ``check_rb``,
    judged against the sender's ``record`` and at ``now`` as the readback was:
    a readback the record voids, or one past its ``exp``, approves nothing. A
    value executed without an approved plan value is a mismatch. ``now`` is
    when the act is reported (default the clock, UTC): an act reported once
    the HO's ``exp`` has passed fails (``expired``).
    """
    at = _at(now)
    receiver = as_receiver(profiles)
    ho_msg, ho_problem = coerce(ho, receiver, "HO", "handoff")
    dn_msg, dn_problem = coerce(dn, receiver, "DN", "done report")
    rb_msg, rb_problem = (None, None) if rb is None else coerce(rb, receiver, "RB", "readback")
    problems = [p for p in (ho_problem, dn_problem, rb_problem) if p is not None]
    if ho_msg is None or dn_msg is None or rb_problem is not None:
        return ReadbackReport(passed=False, findings=tuple(problems), check="check-dn", ho=ho_msg, other=dn_msg)
    vocab = vocabulary_of(ho_msg, receiver)
    # out=NOOP reports that nothing ran: the right close of an expired handoff, never an act after its exp
    acted = dn_msg.slots.get("out") != "NOOP"
    findings: list[Finding] = ((_expired(ho_msg, "handoff", at) if acted else [])
                               + tier_receipt(ho_msg, dn_msg, tier=None, pairs=_DN_RECEIPT))
    rb_passed = rb_msg is not None and check_rb(ho_msg, rb_msg, profiles=receiver, record=record, now=at).passed
    out = dn_msg.slots.get("out")
    asked_exec = "exec" in levels_of(ho_msg)
    for key in exec_slots(ho_msg, vocab):
        got = dn_msg.get(key)
        if out == "NOOP":
            if got is not None:
                findings.append(fail(kind="noop-values", message=f"out=NOOP: nothing ran, yet the report carries {key}={shown(key, got)}",
                                     key=key, receiver_value=shown(key, got)))
            continue
        if got is None:
            if out == "OK" and asked_exec:
                findings.append(fail(kind="missing", message=f"out=OK: {key} as executed is not reported", key=key,
                                     sender_value=shown(key, _plan_value(ho_msg, rb_msg if rb_passed else None, key))))
            continue
        plan = _plan_value(ho_msg, rb_msg if rb_passed else None, key)
        if plan is None:
            why = "the readback did not pass" if rb_msg is not None else "no readback was given"
            findings.append(fail(kind="mismatch", message=f"{key}={shown(key, got)} was executed with no approved value ({why})",
                                 key=key, sender_value=None, receiver_value=shown(key, got)))
            continue
        want, have = decode(vocab, key, plan), decode(vocab, key, got)
        if not same(want, have):
            findings.append(fail(kind="mismatch", message=f"{key}: executed {shown(key, have)}, planned {shown(key, want)}", key=key,
                                 sender_value=shown(key, want), receiver_value=shown(key, have)))
    return ReadbackReport(passed=not any(f.failed for f in findings), findings=tuple(findings), check="check-dn",
                          ho=ho_msg, other=dn_msg)


def _plan_value(ho: Message, rb: Message | None, key: str) -> Any:
    value = ho.get(key)
    if value is None and rb is not None:
        value = rb.get(key)
    return value


# --------------------------------------------------------------------------
# make-rb


def _token_list(value: Any, name: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    items = value.split("+") if isinstance(value, str) else list(value)
    if not items or not all(isinstance(i, str) and i for i in items):
        raise ReadbackInputError(f"{name}: a list of tokens")
    return tuple(items)


def make_rb(
    ho: Message | str,
    n: int,
    *,
    profiles: Receiver | Iterable | None = None,
    acc: str | Iterable[str] | None = None,
    do: str | None = None,
    not_: str | Iterable[str] | None = None,
    asm: str | Iterable[str] | None = None,
    eta: str | None = None,
    values: Mapping[str, Any] | None = None,
    digest: bool = True,
) -> Message:
    """Compose the readback by code from the HO as delivered (spec 5.3).

    The echo set and the HO's values are copied, never retyped; ``values``
    gives the receiver's resolved execution values (a value given for a slot
    the HO carries is the receiver's dispute, and is read back as given).
    Raises :class:`ReadbackInputError` when the level asks for something the
    receiver did not give (``acc`` with no criteria, ``plan`` with no ``do``,
    an execution slot with no value).
    """
    receiver = as_receiver(profiles)
    message, problem = coerce(ho, receiver, "HO", "handoff")
    if message is None:
        raise ReadbackInputError(problem.message if problem else "not a handoff")
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ReadbackInputError("n is a message number (an integer, 0 or more)")
    vocab = vocabulary_of(message, receiver)
    levels = levels_of(message)
    values = dict(values or {})
    slots: dict[str, Any] = {}
    if message.profile is not None:
        slots["p"] = message.profile
    for key in echo_set(message):
        if key != "item":
            slots[key] = message.get(key)
    if "all" in levels and "keys" in message.slots:
        # D7's check does not ask keys= back under rb=all, but spec 5.1's "every slot" and the published reference's
        # check do: echoing it lets either sender's check pass (docs/reference.md R19). exp is never echoed (spec 3.1).
        slots["keys"] = message.slots["keys"]
    if "exec" in levels:
        for key in exec_slots(message, vocab):
            value = values.pop(key, None)
            value = message.get(key) if value is None else decode(vocab, key, value)
            if value is None:
                raise ReadbackInputError(f"execution slot {key}: the HO leaves it to the receiver; give its value")
            slots[key] = value
    for key, value in values.items():
        slots[key] = decode(vocab, key, value)
    criteria = _token_list(acc, "acc")
    if _COMPREHENSION_LEVELS & set(levels):
        if criteria is None:
            criteria = message.slots.get("acc")
        if criteria is None:
            raise ReadbackInputError("the HO asks rb=acc: give the receiver's acceptance criteria (acc)")
    if criteria is not None:
        try:
            parse_criteria(criteria)
        except ValueError as exc:
            raise ReadbackInputError(f"acc: {exc}") from None
        slots["acc"] = tuple(criteria)
    if "plan" in levels and do is None:
        raise ReadbackInputError("the HO asks rb=plan: say what will be produced (do)")
    if do is not None:
        slots["do"] = do
    for key, value in (("not", _token_list(not_, "not")), ("asm", _token_list(asm, "asm")), ("eta", eta)):
        if value is not None:
            slots[key] = value
    if digest:
        slots["h"] = message.digest()
    rb = Message(type="RB", id=f"{message.to}-{n}", re=message.id, from_=message.to, to=message.from_,
                 item=message.item, slots=slots)
    try:
        return reread(rb, receiver)
    except RW1Error as exc:
        raise ReadbackInputError(f"the readback cannot be written: {exc.token} {exc.message}".strip()) from None


__all__ = [
    "FAILED",
    "NOT_ASKED",
    "NOT_CHECKED",
    "PASSED",
    "ReadbackInputError",
    "ReadbackReport",
    "TIERS",
    "VERBATIM_BLOCKERS",
    "check_dn",
    "check_ho",
    "check_rb",
    "coerce",
    "compare_slot",
    "echo_set",
    "exec_slots",
    "levels_of",
    "make_rb",
    "readback_passes",
    "record_type_problems",
    "tier_digest",
    "tier_receipt",
    "verbatim_types",
    "vocabulary_of",
]
