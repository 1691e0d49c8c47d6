"""The reference codec's API (``rogerwilco`` 0.3.0), answered by this package.

Theory of operation
-------------------
The protocol's author publishes a reference codec, ``rogerwilco`` 0.3.0, whose
functions are in its users' code: ``rw.parse(line, "pay")``,
``problems, notes = rw.check_rb_full(ho, rb, "pay")``, ``rw.make_rb(ho,
"payer-1", "pay")``. This package succeeds it, so those calls keep working:
each name here has the reference's call shape and return shape, and is
answered by this package's own checks (:mod:`rogerwilco.checks.readback`,
:mod:`rogerwilco.checks.thread`, the never-guess pass), never by a second
implementation. The package's top level exports these names; the richer API
keeps its module paths (``rogerwilco.readback.check_rb`` returns a
:class:`~rogerwilco.readback.ReadbackReport`, ``rogerwilco.vocab.load_profile``
a profile document).

=======================  ====================================================
reference shape          answered by
=======================  ====================================================
``profile`` by name      a receiver holding that profile (``None``: the
                         bundled ones, as everywhere in this package); a path
                         to a profile file works too
``(msg, errors, warns)`` :func:`rogerwilco.core.semantics.check_line`: its
                         ``fail`` findings are the errors, its notes the
                         warnings; ``msg`` is the JSON form
``(problems, notes)``    a check's report: its ``fail`` findings are the
                         problems, its notes the notes
``FormError``            this package's :class:`~rogerwilco.errors.RW1Error`
                         (a ``ValueError``, as the reference's is), so
                         ``except rw.FormError`` catches every refusal
=======================  ====================================================

Each finding is said in a sentence that names the same facts as the
reference's (``tier3 echo: RB does not echo due``, ``record: acct
mismatch``, ``not a known ask code``): programs and suites that look for
those words find them (:data:`_SAID`). Where this package reads the spec
differently from the reference, the difference is written down in
``docs/migrating.md``.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from ..checks import readback as _readback
from ..checks import thread as _thread
from ..checks.comprehension import Comparator, parse_criteria
from ..core import legend as _legend
from ..core._resources import data_dir
from ..core.errors import RefusedError, RW1Error
from ..core.findings import Finding
from ..core.codec import reread
from ..core.message import Message, canonical_json
from ..core.semantics import LineResult, check_line, line_from_json
from ..core.vocab import Receiver, Vocabulary, as_receiver, compare_document

VERSION = "RW1"
#: the folder of the bundled profiles (``PROFILES / "pay.json"``)
PROFILES: Path = data_dir("profiles")

#: what the reference's callers catch: every error this package raises
FormError = RW1Error


# --------------------------------------------------------------------------
# profiles


def _receiver(profile: str | Receiver | None) -> Receiver:
    """The receiver a profile argument describes: ``None`` holds the bundled profiles, a name or path that one
    (a :class:`~rogerwilco.vocab.Receiver` is itself)."""
    if isinstance(profile, Receiver):
        return profile
    if profile is None:
        return as_receiver(None)
    return Receiver.load([profile])


def _vocabulary(profile: str | None) -> Vocabulary:
    receiver = _receiver(profile)
    return receiver.vocabulary(receiver.names[0]) if profile is not None else receiver.vocabulary(None)


def load_core() -> dict[str, Any]:
    """The core vocabulary document, with the comparison data under the reference's keys
    (``constraint_keys``, ``constraint_set_keys``, ``value_aliases``) for :func:`compare_acc`."""
    core = json.loads(json.dumps(_vocabulary(None).core))
    compare = compare_document()
    core["constraint_keys"] = dict(compare["constraint_keys"])
    core["constraint_set_keys"] = list(compare["set_valued_keys"])
    core["value_aliases"] = {canonical: list(spellings) for canonical, spellings in compare["aliases"].items()}
    return core


def load_profile(name: str | None) -> dict[str, Any]:
    """The core merged with the named profile (``None``: the core), in the reference's shape:
    ``types`` (each with ``required``, ``optional``, ``name``), ``slots`` (key: type), ``enums``,
    ``tail_max``, ``agents``, ``profile``, and where the profile has them ``slot_desc``, ``asks_used``, ``exec``.
    The richer loader is :func:`rogerwilco.vocab.load_profile`."""
    vocab = _vocabulary(name)
    envelope = set(vocab.envelope)
    spec: dict[str, Any] = {
        "types": {t: {"required": list(table.required),
                      "optional": [k for k in table.slots if k not in table.required and k != "p"],
                      "name": table.desc}
                  for t, table in vocab.types.items()},
        "slots": {k: slot.type.name for k, slot in vocab.slots.items()},
        "enums": {k: dict(v) for k, v in vocab.enums.items()},
        "tail_max": vocab.tail_max,
        "agents": set(vocab.agents) | {"human"} if vocab.agents is not None else None,
        "profile": vocab.profile,
    }
    desc = {k: slot.desc for k, slot in vocab.slots.items() if slot.profile is not None and slot.desc and k not in envelope}
    if desc:
        spec["slot_desc"] = desc
    if vocab.asks_used is not None:
        spec["asks_used"] = list(vocab.asks_used)
    if vocab.exec_slots:
        spec["exec"] = {ask: list(keys) for ask, keys in vocab.exec_slots.items()}
    return spec


# --------------------------------------------------------------------------
# findings, said in the reference's words


def _type_hint(slot_type: str) -> str | None:
    """What a value of this slot type looks like, in the words the reference's callers look for."""
    base = slot_type.removeprefix("list:").partition(":")[0]
    return {
        "date": "dates are YYYYMMDD",
        "time": "times are YYYYMMDDTHHMMZ in UTC, e.g. 20261002T1405Z",
        "num": "num is a number as written (7.2, 148/88), no units, no separators",
        "money": "money is digits with exactly two decimals, no separators, e.g. 5400.00",
        "bool": "booleans are Y or N",
        "int": "expected an integer in range",
    }.get(base)


def _line_error(f: Finding, result: LineResult, receiver: Receiver) -> str:
    """A line finding as an error or warning string."""
    raw = result.raw
    kind, token, key = f.kind, f.token or "", f.key or ""
    if kind == "missing" and raw is not None:
        return f"{raw.type} requires {key}"
    if kind == "repeated":
        return f"duplicate key {key} ({token} {f.message})"
    if kind == "rule" and raw is not None:
        if f.message.startswith("required: "):
            return f"{raw.type} requires {key}: {f.message.removeprefix('required: ')}"
        if f.message.startswith("tail required: "):
            return f"{raw.type} with {token} needs a tail: {f.message.removeprefix('tail required: ')}"
    if kind in ("enum", "value") and raw is not None:
        profile = next((t[2:] for t in raw.tokens if t.startswith("p=")), None)
        vocab = receiver.vocabulary(profile if profile is not None and receiver.holds(profile) else None)
        slot = vocab.slots.get(key)
        if slot is not None and kind == "enum":
            return f"{token}: not a known {slot.type.enum} code (reply UN why=UNK, do not guess)"
        hint = _type_hint(slot.type.name) if slot is not None else None
        if hint is not None:
            return f"{token}: {f.message}; {hint}"
    if kind == "version" or (kind == "syntax" and f.column == 1):
        return f"version token {token!r} is not {VERSION} (reply UN why=VER)"
    return f"{token}: {f.message}" if token else f.message


def _show(value: Any) -> str:
    if value is None:
        return "nothing"
    return str(value)


# (check, kind) or (check, kind, tier) -> the sentence, from the finding and the two messages checked
_Said = Callable[[Finding, Any, Any], str]
_SAID: dict[tuple[Any, ...], _Said] = {
    ("check-rb", "receipt", 1): lambda f, ho, rb: (
        f"tier1 receipt: RB re={rb.re} does not point at HO id {ho.id}" if f.key == "re" else
        f"tier1 receipt: RB must come from {ho.to} to {ho.from_}; got from={rb.from_} to={rb.to}"),
    ("check-rb", "digest", 2): lambda f, ho, rb: f"tier2 integrity: h={f.receiver_value} but digest of the HO is {f.sender_value}",
    ("check-rb", "missing"): lambda f, ho, rb: (
        f"tier{f.tier} {_readback.TIERS[f.tier]}: RB does not carry {f.key}, which the act needs" if f.tier == 5 else
        f"tier4 comprehension: HO asked for rb=acc but RB carries no acc=" if f.key == "acc" else
        f"tier{f.tier} {_readback.TIERS[f.tier or 3]}: RB does not echo {f.key} (HO has {f.key}={_show(f.sender_value)})"),
    ("check-rb", "mismatch"): lambda f, ho, rb: (
        f"tier{f.tier} {_readback.TIERS[f.tier or 3]}: {f.key} mismatch: HO {_show(f.sender_value)} vs RB {_show(f.receiver_value)}"),
    ("check-rb", "expiry"): lambda f, ho, rb: f"expired: the statement's exp outlives the HO's ({f.message})",
    ("check-rb", "expired"): lambda f, ho, rb: (
        f"expired: the {'statement' if f.message.startswith('the readback') else 'HO'} expired at {f.sender_value} "
        f"(now {f.receiver_value}); {f.message.partition('; ')[2]}"),
    ("check-rb", "plan"): lambda f, ho, rb: "tier4 comprehension: rb=plan requires do= on the RB",
    ("check-ho", "mismatch"): lambda f, ho, _: f"record: {f.key} mismatch: record {_show(f.sender_value)} vs HO {_show(f.receiver_value)}",
    ("check-ho", "missing"): lambda f, ho, _: f"record: HO does not carry {f.key} (record has {f.key}={_show(f.sender_value)})",
    ("check-ho", "level"): lambda f, ho, _: (
        f"ask {ho.slots.get('ask')} is an irreversible act under profile {ho.profile}: the HO must ask rb=exec"),
    ("check-dn", "receipt"): lambda f, ho, dn: (
        f"receipt: DN re={dn.re} does not point at HO id {ho.id}" if f.key == "re" else
        f"receipt: DN item {dn.item} is not the HO's {ho.item}" if f.key == "item" else
        f"receipt: DN must come from {ho.to} to {ho.from_}; got from={dn.from_} to={dn.to}"),
    ("check-dn", "mismatch"): lambda f, ho, dn: f"executed: {f.key} mismatch: plan {_show(f.sender_value)} vs DN {_show(f.receiver_value)}",
    ("check-dn", "missing"): lambda f, ho, dn: f"executed: DN does not carry {f.key}, which the act used",
    ("check-dn", "noop-values"): lambda f, ho, dn: f"executed: out=NOOP but the DN carries {f.key}",
}

# tier 4 (compare_acc and check-rb), from the finding alone
_SAID_ACC: dict[str, Callable[[Finding], str]] = {
    "gap": lambda f: (f"tier4 comprehension: gap, sender asked for {f.key} in keys= and receiver did not report it"
                      if f.sender_value == f"{f.key}:" else f"tier4 comprehension: gap, receiver did not derive {f.sender_value}"),
    "contradiction": lambda f: f"tier4 comprehension: contradiction on {f.key}: sender {f.sender_value} vs receiver {f.receiver_value}",
    "excluded": lambda f: f"tier4 comprehension: receiver excludes {str(f.receiver_value).partition(':')[2]} which the sender requires",
    "assumption": lambda f: f"assumption: receiver added {f.receiver_value}; confirm or correct",
    "loose": lambda f: f"loose match: sender {f.sender_value} taken as receiver {f.receiver_value}",
    "unknown-key": lambda f: f"key {f.key} is not in the closed constraint set; not compared",
}


def _said(check: str, f: Finding, first: Any, second: Any) -> str:
    said = _SAID.get((check, f.kind, f.tier)) or _SAID.get((check, f.kind))
    if said is not None and first is not None and second is not None:
        return said(f, first, second)
    if f.tier == 4 and f.kind in _SAID_ACC:
        return _SAID_ACC[f.kind](f)
    where = f"tier{f.tier} {_readback.TIERS[f.tier]}: " if f.tier in _readback.TIERS else ""
    return f"{where}{f.message}"


def _split(findings: Iterable[Finding], say: Callable[[Finding], str]) -> tuple[list[str], list[str]]:
    problems: list[str] = []
    notes: list[str] = []
    for f in findings:
        (problems if f.failed else notes).append(say(f))
    return problems, notes


def _report(report: _readback.ReadbackReport) -> tuple[list[str], list[str]]:
    """A check's report as (problems, notes); an input that did not read is named with its role."""
    other = report.ho if report.check == "check-ho" else report.other  # check-ho compares one line with a record
    return _split(report.findings, lambda f: _said(report.check, f, report.ho, other))


# --------------------------------------------------------------------------
# lines


def _check(line: str, receiver: Receiver) -> LineResult:
    return check_line(line.rstrip("\n"), receiver)


def _json_form(result: LineResult) -> dict[str, Any]:
    """The JSON form of a line, as far as it reads: what the reference returns beside its errors."""
    if result.message is not None:
        return result.message.to_json()
    raw = result.raw
    form: dict[str, Any] = {"v": None, "type": None, "id": None, "re": None, "from": None, "to": None,
                            "item": None, "slots": {}, "tail": None}
    if raw is not None:
        form.update(v=raw.version, type=raw.type, id=raw.id, tail=raw.tail)
        for key, value in raw.slots:
            if key in ("re", "from", "to", "item"):
                form[key] = value
            else:
                form["slots"].setdefault(key, value)
    return form


def parse(line: str, profile: str | None = None, spec: Mapping[str, Any] | None = None
          ) -> tuple[dict[str, Any], list[str], list[str]]:
    """Parse one line: ``(message, errors, warnings)``, the message as its JSON form (a dict).
    ``spec`` is a :func:`load_profile` result, standing for its profile."""
    receiver = _receiver(spec.get("profile") if spec is not None else profile)
    result = _check(line, receiver)
    errors, warnings = _split(result.findings, lambda f: _line_error(f, result, receiver))
    return _json_form(result), errors, warnings


def validate(line: str, profile: str | None = None, strict: bool = False) -> list[str]:
    """The errors of a line (and, with ``strict``, its warnings): empty means valid."""
    _, errors, warnings = parse(line, profile)
    return errors + (warnings if strict else [])


def _message(line: str, receiver: Receiver) -> Message:
    """A valid line's message, or :class:`FormError` naming every error."""
    result = _check(line, receiver)
    if result.message is None:
        errors, _ = _split(result.findings, lambda f: _line_error(f, result, receiver))
        refusal = result.refusal
        raise RefusedError("; ".join(errors), why=refusal.why or "UNK" if refusal else "UNK",
                           token=refusal.token or "" if refusal else "", column=refusal.column if refusal else None,
                           text=line, findings=result.findings)
    return result.message


def encode(msg: Mapping[str, Any], profile: str | Receiver | None = None) -> str:
    """A JSON form (a dict) as its line; the line is validated. As in the reference, ``v`` may be left out,
    and a member or slot that is absent, ``None`` or ``""`` is not written."""
    if not isinstance(msg, Mapping):
        raise FormError("a JSON form is a JSON object", token="json")
    form: dict[str, Any] = {"v": VERSION, "re": None, "from": None, "to": None, "item": None, "tail": None}
    form.update({k: v for k, v in msg.items() if v != ""})
    slots = form.get("slots") or {}
    if isinstance(slots, Mapping):
        slots = {k: v for k, v in slots.items() if v is not None and v != ""}
    form["slots"] = slots
    return line_from_json(form, _receiver(profile))


def to_json(line: str, profile: str | None = None) -> str:
    """A valid line's JSON form, as JSON text."""
    return json.dumps(_message(line, _receiver(profile)).to_json(), ensure_ascii=False)


def from_json(s: str, profile: str | Receiver | None = None) -> str:
    """JSON text of a message's JSON form, as its line (malformed JSON names its line and column)."""
    try:
        form = json.loads(s)
    except json.JSONDecodeError as exc:
        raise FormError(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", token="json") from None
    if not isinstance(form, dict):
        raise FormError("a JSON form is a JSON object", token="json")
    return encode(form, profile)


def canonical(msg: Mapping[str, Any]) -> str:
    """The canonical JSON text of a JSON form: sorted keys, no whitespace, UTF-8 kept."""
    return canonical_json(dict(msg))


def digest(line_or_msg: str | Mapping[str, Any], profile: str | None = None) -> str:
    """``h=``: the first 12 hex digits of SHA-256 of the canonical JSON form, of a line or of a JSON form."""
    if isinstance(line_or_msg, str):
        return _message(line_or_msg, _receiver(profile)).digest()
    return hashlib.sha256(canonical(line_or_msg).encode("utf-8")).hexdigest()[:12]


# --------------------------------------------------------------------------
# the checks


def _criteria(tokens: Iterable[str] | str | None) -> tuple[Any, ...] | None:
    return None if tokens is None else parse_criteria(tokens)


def compare_acc(expected: list[str], derived: list[str], keys: list[str] | None = None,
                spec: Mapping[str, Any] | None = None, derived_not: list[str] | None = None) -> tuple[list[str], list[str]]:
    """Tier 4 alone: the sender's criteria against the receiver's, as (problems, notes).
    ``spec`` (a :func:`load_core` result) may give other ``constraint_keys``, ``constraint_set_keys``
    and ``value_aliases``."""
    base = load_core() if spec is None else spec
    core = load_core()
    aliases = {spelling: canonical for canonical, spellings in base.get("value_aliases", core["value_aliases"]).items()
               for spelling in spellings}
    comparator = Comparator(base.get("constraint_keys", core["constraint_keys"]),
                            base.get("constraint_set_keys", core["constraint_set_keys"]), aliases)
    findings = comparator.compare(_criteria(expected), _criteria(derived) or (), not_tokens=derived_not or (),
                                  required_keys=[k.lower() for k in keys or ()])
    return _split(findings, lambda f: _SAID_ACC[f.kind](f) if f.kind in _SAID_ACC else f.message)


def now_utc() -> str:
    """The current time as an ``exp=`` value, YYYYMMDDTHHMMZ (UTC)."""
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%MZ")


def check_rb_full(ho_line: str, rb_line: str, profile: str | None = None,
                  expect_acc: list[str] | None = None, now: str | None = None) -> tuple[list[str], list[str]]:
    """The readback check, every tier: (problems, notes); no problems means the readback passes.
    ``expect_acc`` is the sender's own criteria (a list of ``key:value``), ``now`` the time to judge ``exp=`` by."""
    report = _readback.check_rb(ho_line, rb_line, profiles=_receiver(profile), expect_acc=expect_acc, now=now)
    return _report(report)


def check_rb(ho_line: str, rb_line: str, profile: str | None = None, expect_acc: list[str] | None = None) -> list[str]:
    """The problems of :func:`check_rb_full` alone."""
    return check_rb_full(ho_line, rb_line, profile, expect_acc)[0]


def check_ho(ho_line: str, record: Mapping[str, Any], profile: str | None = None) -> tuple[list[str], list[str]]:
    """Before sending: the HO against the record it was built from, as (problems, notes)."""
    if not isinstance(record, Mapping):
        raise FormError("the record is a JSON object of slot values as written on the line")
    return _report(_readback.check_ho(ho_line, record, profiles=_receiver(profile)))


def check_dn(ho_line: str, dn_line: str, profile: str | None = None,
             rb_line: str | None = None) -> tuple[list[str], list[str]]:
    """After the act: the done report against the plan (the HO, and the readback where given), as (problems, notes)."""
    return _report(_readback.check_dn(ho_line, dn_line, rb_line, profiles=_receiver(profile)))


def readback_number(rb_id: str, ho: Message) -> int:
    """The message number of a readback id given whole (``payer-1``): it must be ``<the HO's to>-<n>``."""
    prefix, _, number = rb_id.rpartition("-")
    if prefix != ho.to or not number.isdigit():
        raise FormError(f"id {rb_id!r} must be <from>-<n> for the readback's from={ho.to}: {ho.to}-1, {ho.to}-2, ...",
                        token=rb_id)
    return int(number)


def with_readback_id(rb: Message, rb_id: str, receiver: Receiver) -> Message:
    """The readback under the id given whole, as written (``payer-01`` stays ``payer-01``), read back again."""
    return rb if rb.id == rb_id else reread(rb.replace(id=rb_id), receiver)


def make_rb(ho_line: str, rb_id: str, profile: str | None = None, with_hash: bool = True, eta: str | None = None,
            acc: list[str] | None = None, do: str | None = None) -> str:
    """The readback of an HO, composed by code, as a line; ``rb_id`` is ``<the HO's to>-<n>``."""
    receiver = _receiver(profile)
    ho = _message(ho_line, receiver)
    rb = _readback.make_rb(ho, readback_number(rb_id, ho), profiles=receiver, acc=acc, do=do, eta=eta, digest=with_hash)
    return with_readback_id(rb, rb_id, receiver).to_line()


def _thread_said(report: _thread.ThreadReport) -> Callable[[Finding], str]:
    handoffs = {h.id: h for h in report.ledger.handoffs}
    closes: dict[str | None, int] = {}
    for f in report.findings:
        if f.kind == "closed-twice":
            closes[f.key] = closes.get(f.key, 1) + 1

    def said(f: Finding) -> str:
        ho = handoffs.get(f.key or "")
        if ho is None:
            return f.message
        if f.kind == "act-after-cancel":
            return (f"{ho.id}: {f.token} reports the act done after CX {ho.closer} cancelled it; "
                    "decide whether to UNDO it")
        if f.kind in ("open-past-exp", "open-past-due"):
            limit = f"exp={ho.exp}" if f.kind == "open-past-exp" else f"due={ho.due}"
            return f"{ho.id}: orphaned, open past {limit} with no DN, UN, FL or acknowledged CX; close it or cancel it"
        if f.kind == "closed-twice":
            return f"{ho.id}: closed {closes[f.key]} times ({f.message}); a handoff closes once"
        if f.kind == "cancel-wrong-party":
            return f"CX {f.token} must come from {ho.from_} to {ho.to}, the HO's sender and receiver"
        if f.kind == "cancel-unacknowledged":
            return f"{ho.id}: CX {f.token} sent, not yet acknowledged; the receiver abandons anything prepared and answers AN val=Y"
        if f.kind == "open":
            return f"{ho.id}: open"
        return f"{ho.id}: {f.message}"

    return said


def check_thread(lines: list[str], profile: str | None = None, now: str | None = None) -> tuple[list[str], list[str]]:
    """Every handoff closes: the lines of a conversation in the order sent, as (problems, notes).
    Blank lines and lines starting with ``#`` are skipped; ``now`` (default: the clock) judges ``exp=`` and ``due=``."""
    kept = ["" if line.lstrip().startswith("#") else line for line in lines]
    report = _thread.check_thread(kept, now=now, profiles=_receiver(profile))
    return _split(report.findings, _thread_said(report))


# --------------------------------------------------------------------------
# the legend


def legend(profile: str | None = None, lean: bool = False) -> str:
    """The legend a model reads RW1 from, generated from the vocabulary (``lean``: the short one)."""
    return _legend.legend(profile, lean=lean)


__all__ = [
    "FormError", "PROFILES", "VERSION", "canonical", "check_dn", "check_ho", "check_rb", "check_rb_full",
    "check_thread", "compare_acc", "digest", "encode", "from_json", "legend", "load_core", "load_profile",
    "make_rb", "now_utc", "parse", "to_json", "validate",
]
