"""Scoring an agent's replies against agent-behaviour cases.

Theory of operation
-------------------
An agent-behaviour case gives a line an agent receives and says what its one
reply must be. The cases are JSON Lines in the format the protocol's author
publishes (``tests/conformance.jsonl`` of the reference codec, the lines whose
``kind`` is ``agent``); this package's own are ``conformance/agent/cases.jsonl``
in the same format. A case holds:

* ``id``; ``incoming``, the line received, addressed ``to=YOU``; ``you``, the
  agent's name, which its reply must carry as ``from=``; ``context`` and
  ``note``, for the person or the prompt, not scored;
* ``reply_type`` (or ``reply_type_in``, a list): the type the reply must be;
* ``reply_slots``: values the reply must carry, each compared with the value
  as written (``re``, ``to``, ``item`` and keyed slots alike);
* ``val_in``: the values an ``AN`` may give; ``why_in``: the reasons a ``UN``
  may give (each only when the reply is of that type);
* ``acc_keys_required``: the constraint keys the reply's ``acc=`` must hold
  (a readback the sender asked for at ``rb=acc``; ``expect_acc`` is the
  sender's own criteria, shown when keys are missing).

The replies are JSON Lines too, one object per case: ``{"id": "a01",
"reply": "<line>"}``. A reply passes when it is a valid line to the receiver
(the never-guess pass of :func:`rogerwilco.core.semantics.check_line`) and
meets every field of its case; each failed field is a reason. Input that
cannot be scored (a file that is not JSON Lines of the right shape, two
cases or two replies with one id) is :class:`AgentInputError`, naming the
file, the line and the problem.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Mapping

import attrs

from ..core._resources import data_dir
from ..core.errors import RW1Error
from ..core.files import DATA_MAX_BYTES, read_limited
from ..core.semantics import check_line
from ..core.slottypes import split_constraint
from ..core.vocab import Receiver

# how a field's JSON type is named in an error
_EXPECTED: dict[type, str] = {str: "a string", dict: "an object", list: "a list"}


class AgentInputError(RW1Error):
    """A case file or a replies file that cannot be scored: names the file, the line and the problem."""


def default_cases() -> Path:
    """This package's own agent-behaviour cases."""
    return data_dir("conformance") / "agent" / "cases.jsonl"


@attrs.frozen
class AgentCase:
    id: str
    incoming: str
    you: str
    reply_types: tuple[str, ...]
    reply_slots: Mapping[str, str]
    val_in: tuple[str, ...] | None = None
    why_in: tuple[str, ...] | None = None
    acc_keys_required: tuple[str, ...] = ()
    expect_acc: str | None = None
    source: str = ""  # "file:line", for messages


@attrs.frozen
class Score:
    case: AgentCase
    reply: str | None
    reasons: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return not self.reasons


def _json_lines(path: Path, what: str) -> Iterable[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line of a JSON Lines file."""
    try:
        text = read_limited(path, what=what, limit=DATA_MAX_BYTES, error=AgentInputError).decode("utf-8")
    except OSError as exc:
        raise AgentInputError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise AgentInputError(f"{what} {path} is not UTF-8 text (byte {exc.start})") from None
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except (ValueError, RecursionError) as exc:
            reason = f"{exc.msg} at column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else type(exc).__name__
            raise AgentInputError(f"{path}: line {number}: not JSON ({reason})") from None
        if not isinstance(doc, dict):
            raise AgentInputError(f"{path}: line {number}: expected a JSON object, got {type(doc).__name__}")
        yield number, doc


def _field(doc: Mapping[str, Any], key: str, kind: type, where: str, *, required: bool = True) -> Any:
    value = doc.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, kind) or isinstance(value, bool):
        expected = _EXPECTED[kind]
        got = "missing" if key not in doc else f"a {type(value).__name__}"
        raise AgentInputError(f"{where}: {key!r} is expected to be {expected}, got {got}")
    return value


def _strings(doc: Mapping[str, Any], key: str, where: str) -> tuple[str, ...] | None:
    value = _field(doc, key, list, where, required=False)
    if value is None:
        return None
    if not all(isinstance(item, str) for item in value):
        raise AgentInputError(f"{where}: {key!r} is expected to be a list of strings")
    return tuple(value)


def _case(doc: Mapping[str, Any], where: str) -> AgentCase:
    types = _strings(doc, "reply_type_in", where) or (_field(doc, "reply_type", str, where),)
    slots = _field(doc, "reply_slots", dict, where)
    if not all(isinstance(v, str) for v in slots.values()):
        raise AgentInputError(f"{where}: 'reply_slots' maps each key to the value as written, a string")
    return AgentCase(
        id=_field(doc, "id", str, where), incoming=_field(doc, "incoming", str, where),
        you=_field(doc, "you", str, where), reply_types=types, reply_slots=dict(slots),
        val_in=_strings(doc, "val_in", where), why_in=_strings(doc, "why_in", where),
        acc_keys_required=_strings(doc, "acc_keys_required", where) or (),
        expect_acc=_field(doc, "expect_acc", str, where, required=False), source=where,
    )


def load_cases(paths: Iterable[str | Path]) -> list[AgentCase]:
    """The agent cases (``kind: agent``) of every file, in order; other kinds are passed over."""
    cases: list[AgentCase] = []
    seen: dict[str, str] = {}
    for path in map(Path, paths):
        for number, doc in _json_lines(path, "case file"):
            if doc.get("kind") != "agent":
                continue
            where = f"{path}: line {number}"
            case = _case(doc, where)
            if case.id in seen:
                raise AgentInputError(f"{where}: case id {case.id!r} is also at {seen[case.id]}")
            seen[case.id] = where
            cases.append(case)
    return cases


def load_replies(path: str | Path) -> dict[str, str]:
    """Case id -> the agent's reply line, from ``{"id": ..., "reply": ...}`` lines."""
    path = Path(path)
    replies: dict[str, str] = {}
    lines: dict[str, int] = {}
    for number, doc in _json_lines(path, "replies file"):
        where = f"{path}: line {number}"
        case_id = _field(doc, "id", str, where)
        reply = _field(doc, "reply", str, where)
        if case_id in replies:
            raise AgentInputError(f"{where}: a second reply to case {case_id!r} (the first is on line {lines[case_id]})")
        replies[case_id], lines[case_id] = reply, number
    return replies


def _acc_keys(written: str) -> set[str]:
    keys = set()
    for item in written.split("+"):
        try:
            keys.add(split_constraint(item)[0])
        except ValueError:
            continue  # not a constraint: the line's own check names it
    return keys


def score_reply(case: AgentCase, reply: str | None, receiver: Receiver) -> Score:
    """Every way ``reply`` falls short of ``case`` (none: it passes)."""
    if reply is None:
        return Score(case, None, ("no reply",))
    result = check_line(reply, receiver)
    if not result.valid or result.raw is None:
        refusal = result.refusal
        said = f"{refusal.message} ({refusal.token})" if refusal is not None and refusal.token else (
            refusal.message if refusal is not None else "not a line")
        return Score(case, reply, (f"the reply is not a valid line: {said}",))
    if result.raw.type not in case.reply_types:
        return Score(case, reply, (f"expected {' or '.join(case.reply_types)}, got {result.raw.type}",))
    written = dict(result.raw.slots)
    reasons = [f"{key}= expected {want!r}, got {written.get(key)!r}"
               for key, want in case.reply_slots.items() if written.get(key) != want]
    if written.get("from") != case.you:
        reasons.append(f"from= expected {case.you!r} (the agent the case addresses), got {written.get('from')!r}")
    if case.val_in is not None and result.raw.type == "AN" and written.get("val") not in case.val_in:
        reasons.append(f"val= expected one of {', '.join(case.val_in)}, got {written.get('val')!r}")
    if case.why_in is not None and result.raw.type == "UN" and written.get("why") not in case.why_in:
        reasons.append(f"why= expected one of {', '.join(case.why_in)}, got {written.get('why')!r}")
    if case.acc_keys_required:
        acc = written.get("acc")
        if not acc:
            reasons.append("the sender asked for rb=acc and the reply has no acc=")
        else:
            missing = [k for k in case.acc_keys_required if k not in _acc_keys(acc)]
            if missing:
                shown = f" (the sender's criteria: {case.expect_acc})" if case.expect_acc else ""
                reasons.append(f"acc= lacks the keys {', '.join(missing)}{shown}")
    return Score(case, reply, tuple(reasons))


def score(cases: Iterable[AgentCase], replies: Mapping[str, str], receiver: Receiver | None = None) -> list[Score]:
    """One score per case, in the cases' order."""
    held = receiver if receiver is not None else Receiver.all_bundled()
    return [score_reply(case, replies.get(case.id), held) for case in cases]
