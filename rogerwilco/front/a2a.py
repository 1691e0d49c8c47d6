"""A2A carriage: an RW1 line inside an A2A message, and a thread as A2A tasks.

Theory of operation
-------------------
RW1 is content, not transport (spec section 9). In A2A a message is a list of
parts; an RW1 message rides in two of them, both marked in their part
``metadata`` under the extension URI :data:`EXTENSION_URI`, which the A2A
message also lists in ``extensions``:

* the **line part**, a text part holding the line exactly
  (``metadata[URI] = {"part": "line"}``, media type ``text/plain``), which a
  model reads; and
* the **JSON part**, a data part holding the message's JSON form (spec
  section 6) (``metadata[URI] = {"part": "json", "h": <digest>}``, media type
  ``application/json``), which code reads; ``h`` is the 12-hex SHA-256 digest
  of the canonical JSON form (decisions D1).

Taking a message out (:func:`from_a2a`) checks that the two parts say the
same thing: exactly one part of each kind, a line that passes the
never-guess pass, a JSON form that validates, the two decoding to the same
message, and the digest matching it. Any disagreement refuses the whole A2A
message with findings naming the rule (``kind``) and the offending token,
never a guess at which part is right. The line is the authority for what is
returned, so nothing the data part holds can add to it. The digest proves the
parts were not altered apart from each other in transit; it is not a
signature, and authenticity is the transport's business.

Protobuf carries JSON numbers as doubles, so a JSON form read back from an A2A
SDK message has ``2.0`` where the line said ``pri=2`` (and the Python SDK writes
``2.0`` on the wire). RW1 has no fractional JSON numbers (money and
measurements are strings), so the reader takes an integral double in a data
part as the integer; any other float is left for the JSON check to refuse.
This is done at the carriage, where the Struct's doubles are known to be
doubles, and nowhere else: :meth:`Message.from_json` stays strict (D9), and
:func:`json_part` gives a peer that validates the JSON part itself the JSON
form with the integers restored (docs/agents.md, "Integral doubles from
protobuf").

Both the A2A SDK's own types (``a2a.types.Message``, imported lazily, the
``a2a`` extra) and plain dicts in the A2A JSON form (camelCase, as
``google.protobuf.json_format`` writes it) are supported; the SDK functions
are the dict functions through ``ParseDict``/``MessageToDict``. Reading also
accepts the older part shape with ``"kind": "text"``/``"kind": "data"``.

Task states (:func:`task_states`): an HO opens an A2A task (``submitted``);
its readback, when it passes the sender's check, makes it ``working``; an
``AQ`` from the receiver to the sender makes it ``input-required`` until the
``AN`` to it; ``DN`` ends it ``completed``, ``UN`` ``rejected``, ``FL``
``failed`` and ``CX`` ``canceled``. A message is tied to its HO by following
``re=``, never by position (spec 5 rule 3). An end state is final, as in
A2A; anything after it is noted and changes nothing. The states and their
table are :data:`rogerwilco.checks.lifecycle.A2A_TASK_TRANSITIONS`; the walk from a
reply to its HO is :func:`rogerwilco.checks.lifecycle.handoff_of`.
"""

from __future__ import annotations

import uuid
from typing import Any, Iterable, Mapping

import attrs

from ..checks.lifecycle import (A2A_END_STATES, A2A_TASK_STATES, A2A_TASK_TRANSITIONS, A2A_TERMINAL, RESUME,
                                handoff_of)
from ..core.errors import RefusedError, printable
from ..core.findings import Finding, fail, note
from ..core.message import Message
from ..core.semantics import check_line

EXTENSION_URI = "https://rogerwilco.dev/ext/rw1/v1"
LINE_MEDIA_TYPE = "text/plain"
JSON_MEDIA_TYPE = "application/json"

# A2A roles by who sends the type: the delegating side is the A2A client
# ("user"), the side doing the work is the A2A server ("agent").
_USER_TYPES = frozenset({"HO", "CX", "AN"})

SUBMITTED, WORKING, INPUT_REQUIRED, COMPLETED, REJECTED, FAILED, CANCELED = A2A_TASK_STATES
END_STATES = A2A_END_STATES
TERMINAL = A2A_TERMINAL


class CarriageError(RefusedError):
    """An A2A message that does not carry exactly one RW1 message."""


# --------------------------------------------------------------------------
# putting a line in


def to_a2a_dict(
    message: Message | str,
    profiles: Any = None,
    *,
    message_id: str | None = None,
    context_id: str | None = None,
    task_id: str | None = None,
    role: str | None = None,
) -> dict[str, Any]:
    """An A2A message (plain dict, A2A JSON form) carrying one RW1 message.

    ``message`` is a :class:`Message` or a line (validated first; raises an
    RW1Error when it is refused); a line is carried exactly as written, a
    Message as :meth:`Message.to_line` writes it. ``role`` is ``"user"`` or ``"agent"``;
    by default ``HO``, ``CX`` and ``AN`` are the delegating side (user) and
    the other types the working side (agent).
    """
    if isinstance(message, Message):
        msg, line = message, message.to_line()
    else:
        msg, line = Message.from_line(message, profiles), message  # the line exactly as its sender wrote it
    who = role or ("user" if msg.type in _USER_TYPES else "agent")
    if who not in ("user", "agent"):
        raise ValueError(f"role is 'user' or 'agent', not {who!r}")
    out: dict[str, Any] = {
        "messageId": message_id or uuid.uuid4().hex,
        "role": "ROLE_USER" if who == "user" else "ROLE_AGENT",
        "parts": [
            {"text": line, "mediaType": LINE_MEDIA_TYPE, "metadata": {EXTENSION_URI: {"part": "line"}}},
            {"data": msg.to_json(), "mediaType": JSON_MEDIA_TYPE,
             "metadata": {EXTENSION_URI: {"part": "json", "h": msg.digest()}}},
        ],
        "extensions": [EXTENSION_URI],
    }
    if context_id:
        out["contextId"] = context_id
    if task_id:
        out["taskId"] = task_id
    return out


def to_a2a_message(message: Message | str, profiles: Any = None, **kw: Any) -> Any:
    """The same as :func:`to_a2a_dict`, as an ``a2a.types.Message`` (needs the ``a2a`` extra)."""
    sdk_message, parse_dict, _ = _sdk()
    return parse_dict(to_a2a_dict(message, profiles, **kw), sdk_message())


# --------------------------------------------------------------------------
# declaring the extension on an AgentCard


def agent_extension(*, required: bool = False, profiles: Iterable[str] = (), line_only: bool = False,
                    description: str | None = None) -> dict[str, Any]:
    """The AgentCard entry (``capabilities.extensions[]``, A2A JSON form) that says this agent speaks RW1.

    ``params`` tells a client what to send: the profiles the agent holds
    and whether it also reads a text part holding just the line.
    """
    return {
        "uri": EXTENSION_URI,
        "description": description or ("RW1 one-line typed handoffs: a text part holding the line and a data part "
                                        "holding its JSON form, both marked in metadata under this URI"),
        "required": required,
        "params": {"profiles": list(profiles), "lineOnly": line_only},
    }


def declare_extension(card: Any, **kw: Any) -> Any:
    """Add :func:`agent_extension` to an AgentCard (a dict in the A2A JSON form, or an SDK ``AgentCard``),
    once; returns the card. ``kw`` are :func:`agent_extension`'s."""
    entry = agent_extension(**kw)
    if isinstance(card, dict):
        caps = card.setdefault("capabilities", {})
        extensions = caps.setdefault("extensions", [])
        extensions[:] = [e for e in extensions if not (isinstance(e, Mapping) and e.get("uri") == EXTENSION_URI)]
        extensions.append(entry)
        return card
    try:
        from google.protobuf.json_format import ParseDict

        from a2a.types import AgentExtension
    except ImportError as exc:
        raise ImportError("an SDK AgentCard needs the A2A SDK: pip install 'rogerwilco[a2a]' "
                          "(a card as a dict needs nothing extra)") from exc
    kept = [e for e in card.capabilities.extensions if e.uri != EXTENSION_URI]
    del card.capabilities.extensions[:]
    card.capabilities.extensions.extend(kept)
    card.capabilities.extensions.append(ParseDict(entry, AgentExtension()))
    return card


# --------------------------------------------------------------------------
# taking it out


@attrs.frozen(kw_only=True)
class Unwrapped:
    """What an A2A message carried: the message, or findings saying why not."""

    line: str | None
    message: Message | None
    findings: tuple[Finding, ...]

    @property
    def ok(self) -> bool:
        return self.message is not None and not any(f.failed for f in self.findings)

    @property
    def refusal(self) -> Finding | None:
        return next((f for f in self.findings if f.failed), None)


def _ints(value: Any) -> Any:
    """Integral floats back to ints (protobuf numbers are doubles), recursively."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_ints(v) for v in value]
    if isinstance(value, dict):
        return {k: _ints(v) for k, v in value.items()}
    return value


def _part_kind(part: Mapping[str, Any]) -> str | None:
    kind = part.get("kind")
    if kind in ("text", "data"):
        return kind
    if "text" in part:
        return "text"
    if "data" in part:
        return "data"
    return None


def _marker(part: Mapping[str, Any]) -> Mapping[str, Any] | None:
    meta = part.get("metadata")
    if not isinstance(meta, Mapping):
        return None
    mark = meta.get(EXTENSION_URI)
    return mark if isinstance(mark, Mapping) else None


NOT_CROSS_CHECKED = "not-cross-checked"


def _line_only(obj: Mapping[str, Any], profiles: Any) -> Unwrapped | None:
    """Line-only mode: a message whose only text part holds just the line (what other agents send)."""
    texts = [p for p in obj["parts"] if isinstance(p, Mapping) and _part_kind(p) == "text"]
    if len(texts) != 1 or not isinstance(texts[0].get("text"), str):
        return None
    text = texts[0]["text"]
    text = text[:-1] if text.endswith("\n") else text
    text = text[:-1] if text.endswith("\r") else text
    if not text.startswith("RW") or "\n" in text:
        return None
    result = check_line(text, profiles)
    if result.message is None:
        first = result.refusal
        assert first is not None
        return Unwrapped(line=text, message=None, findings=(
            fail(kind="form", message=f"the line is refused: {first.message}", key=first.key or "line", token=first.token,
                 why=first.why or "UNK", column=first.column),))
    derived = note(kind=NOT_CROSS_CHECKED, key="json",
                   message="line-only: the JSON form is derived from the line; no JSON part was there to cross-check it")
    return Unwrapped(line=text, message=result.message,
                     findings=(*(f for f in result.findings if not f.failed), derived))


def _marked_parts(obj: Mapping[str, Any]) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """The parts marked as the line part (text) and as the JSON part (data), in order."""
    lines: list[Mapping[str, Any]] = []
    forms: list[Mapping[str, Any]] = []
    for part in obj["parts"]:
        if not isinstance(part, Mapping):
            continue
        mark = _marker(part)
        if mark is None:
            continue
        kind = _part_kind(part)
        if mark.get("part") == "line" and kind == "text":
            lines.append(part)
        elif mark.get("part") == "json" and kind == "data":
            forms.append(part)
    return lines, forms


def json_part(obj: Any) -> Any:
    """The JSON form an A2A message's JSON part holds, as the spec's JSON form, for a peer that validates
    the part itself (``Message.from_json(json_part(msg))``, or another implementation's reader).

    ``obj`` is a plain dict in the A2A JSON form, or an SDK message. A2A data parts are protobuf
    ``Struct`` values, whose numbers are doubles: an integral double is given back as the integer it
    was sent as (``pri: 2.0`` is ``pri: 2``); a fractional one is left as it is, for the JSON check
    to refuse (D9). Raises :class:`CarriageError` when the message has no single JSON part.
    """
    if not isinstance(obj, Mapping):
        _, _, message_to_dict = _sdk()
        obj = message_to_dict(obj)
    forms = _marked_parts(obj)[1] if isinstance(obj.get("parts"), list) else []
    if len(forms) != 1:
        kind = "missing-part" if not forms else "extra-part"
        raise CarriageError(f"{kind}: the message carries {len(forms)} JSON parts; exactly one may",
                            why="UNK", token="json")
    return _ints(forms[0].get("data"))


def from_a2a_dict(obj: Mapping[str, Any], profiles: Any = None, *, line_only: bool = False) -> Unwrapped:
    """The RW1 message an A2A message (plain dict) carries; never raises.

    Refused, with findings, when the line part or the JSON part is missing
    or repeated, when either does not validate, when they decode to
    different messages, or when the digest does not match.

    ``line_only=True`` also reads a message with no marked parts whose only
    text part holds just the line, as other agents usually send it: the JSON
    form is then derived from the line, and the result carries a
    ``not-cross-checked`` note saying nothing checked it against a JSON part.
    """
    if not isinstance(obj, Mapping) or not isinstance(obj.get("parts"), list):
        return Unwrapped(line=None, message=None,
                         findings=(fail(kind="missing-part", message="not an A2A message: no parts", key="parts", token="parts", why="UNK"),))
    lines, forms = _marked_parts(obj)
    if line_only and not lines and not forms:
        taken = _line_only(obj, profiles)
        if taken is not None:
            return taken
    findings: list[Finding] = []
    for name, found, what in (("line", lines, "line part (a text part holding the line)"),
                              ("json", forms, "JSON part (a data part holding the JSON form)")):
        if not found:
            findings.append(fail(kind="missing-part", message=f"no {what}, marked with {EXTENSION_URI}", key=name, token=name, why="UNK"))
        elif len(found) > 1:
            findings.append(fail(kind="extra-part", message=f"{len(found)} parts claim to be the {name} part; exactly one may",
                                 key=name, token=name, why="UNK"))
    if findings:
        text = lines[0].get("text") if len(lines) == 1 and isinstance(lines[0].get("text"), str) else None
        return Unwrapped(line=text, message=None, findings=tuple(findings))

    text = lines[0].get("text")
    if not isinstance(text, str):
        return Unwrapped(line=None, message=None,
                         findings=(fail(kind="form", message="the line part's text is not a string", key="line", token="line", why="UNK"),))
    result = check_line(text, profiles)
    if result.message is None:
        first = result.refusal
        assert first is not None
        findings.append(fail(kind="form", message=f"the line is refused: {first.message}", key=first.key or "line",
                             token=first.token, why=first.why or "UNK", column=first.column))
        return Unwrapped(line=text, message=None, findings=tuple(findings))
    message = result.message

    form = _ints(forms[0].get("data"))
    try:
        carried = Message.from_json(form, profiles)
    except Exception as exc:  # noqa: BLE001 - any refusal of the JSON part is a finding
        token = getattr(exc, "token", None) or "json"
        why = getattr(exc, "why", "UNK")
        findings.append(fail(kind="json", message=f"the JSON part is refused: {getattr(exc, 'message', exc)}", key="json",
                             token=str(token), why=why))
        return Unwrapped(line=text, message=None, findings=tuple(findings))

    if carried != message:
        key = _first_difference(message.to_json(), carried.to_json())
        findings.append(fail(kind="disagree", message=f"the line and the JSON part carry different messages (at {key})",
                             key=key, token=_written(message, key), why="UNK"))
        return Unwrapped(line=text, message=None, findings=tuple(findings))

    digest = _marker(forms[0]).get("h")  # type: ignore[union-attr]
    if digest is None:
        findings.append(fail(kind="digest", message="the JSON part carries no digest h", key="h", token="h", why="UNK"))
    elif digest != message.digest():
        findings.append(fail(kind="digest", message=f"digest {printable(str(digest))} does not match the message ({message.digest()})",
                             key="h", token=f"h={printable(str(digest))}", why="UNK"))
    if findings:
        return Unwrapped(line=text, message=None, findings=tuple(findings))
    notes = tuple(f for f in result.findings if not f.failed)
    return Unwrapped(line=text, message=message, findings=notes)


def from_a2a_message(sdk_message: Any, profiles: Any = None, *, line_only: bool = False) -> Unwrapped:
    """The same as :func:`from_a2a_dict`, for an ``a2a.types.Message``."""
    _, _, message_to_dict = _sdk()
    return from_a2a_dict(message_to_dict(sdk_message), profiles, line_only=line_only)


def from_a2a(obj: Any, profiles: Any = None, *, line_only: bool = False) -> Unwrapped:
    """Either form: a plain dict or an SDK message."""
    if isinstance(obj, Mapping):
        return from_a2a_dict(obj, profiles, line_only=line_only)
    return from_a2a_message(obj, profiles, line_only=line_only)


def message_from_a2a(obj: Any, profiles: Any = None, *, line_only: bool = False) -> Message:
    """The carried message, or :class:`CarriageError` naming the rule and token."""
    out = from_a2a(obj, profiles, line_only=line_only)
    if out.ok:
        assert out.message is not None
        return out.message
    first = out.refusal
    assert first is not None
    raise CarriageError(f"{first.kind}: {first.message}", why=first.why or "UNK", token=first.token or "",
                        column=first.column, findings=out.findings)


def _first_difference(a: Mapping[str, Any], b: Mapping[str, Any]) -> str:
    for key in ("v", "type", "id", "re", "from", "to", "item"):
        if a.get(key) != b.get(key):
            return key
    sa, sb = a.get("slots", {}), b.get("slots", {})
    for key in list(sa) + [k for k in sb if k not in sa]:
        if sa.get(key) != sb.get(key):
            return key
    return "tail"


def _written(message: Message, key: str) -> str:
    """The token as the line writes it, for a finding."""
    if key in ("v", "type", "id"):
        return {"v": message.v, "type": message.type, "id": message.id}[key]
    if key == "tail":
        return "//"
    value = message.get(key)
    if value is None:
        return key
    line = message.to_line()
    prefix = f" {key}="
    at = line.find(prefix)
    if at < 0:
        return key
    end = line.find(" ", at + 1)
    return line[at + 1: end if end > 0 else len(line)]


# --------------------------------------------------------------------------
# a thread as A2A tasks


@attrs.frozen(kw_only=True)
class TaskView:
    """One HO as an A2A task: its state now, and each message that moved it."""

    ho: str  # the HO's id, which keys the task
    item: str | None
    sender: str
    receiver: str
    state: str
    history: tuple[tuple[str, str], ...]  # (message id, state after it)

    @property
    def a2a_state(self) -> str:
        """The SDK's enum name: ``TASK_STATE_WORKING`` and so on."""
        return sdk_state_name(self.state)


@attrs.frozen(kw_only=True)
class TaskMap:
    tasks: Mapping[str, TaskView]
    findings: tuple[Finding, ...]

    def state(self, ho_id: str) -> str:
        return self.tasks[ho_id].state


def sdk_state_name(state: str) -> str:
    return "TASK_STATE_" + state.upper().replace("-", "_")


def sdk_task_state(state: str) -> int:
    """An A2A task state as the SDK's ``a2a.types.TaskState`` value (needs the ``a2a`` extra)."""
    from a2a.types import TaskState

    return TaskState.Value(sdk_state_name(state))


def task_states(
    messages: Iterable[Message | str],
    *,
    profiles: Any = None,
    readback_passes: Any = None,
) -> TaskMap:
    """The A2A task state of every HO in a thread, in the order the thread was sent.

    ``messages`` are :class:`Message` values or lines (a refused line is a
    finding and moves nothing). ``readback_passes(ho, rb) -> bool`` decides
    whether an RB passes; by default the sender's readback check
    (``rogerwilco.checks.readback.check_rb``) with the same profiles.
    """
    passes = readback_passes or _default_readback_check(profiles)
    by_id: dict[str, Message] = {}
    tasks: dict[str, dict[str, Any]] = {}
    findings: list[Finding] = []
    for entry in messages:
        if isinstance(entry, Message):
            msg = entry
        else:
            result = check_line(entry, profiles)
            if result.message is None:
                first = result.refusal
                findings.append(fail(kind="form", message=f"line refused: {first.message if first else 'unreadable'}",
                                     token=first.token if first else None, why=first.why if first else "UNK"))
                continue
            msg = result.message
        by_id[msg.id] = msg
        if msg.type == "HO":
            tasks[msg.id] = {"ho": msg, "state": SUBMITTED, "before_aq": None, "history": [(msg.id, SUBMITTED)]}
            continue
        ho = handoff_of(msg, by_id.get, through=None)
        if ho is None or ho.id not in tasks:
            if msg.type in ("RB", "DN", "UN", "FL", "CX"):
                findings.append(note(kind="no-task", key="re", token=f"re={msg.re}" if msg.re else msg.id,
                                        message=f"{msg.type} {msg.id} answers no HO in this thread"))
            continue
        task = tasks[ho.id]
        state = task["state"]
        if state in TERMINAL:
            findings.append(note(kind="after-end", key=None, token=msg.id,
                                    message=f"{msg.type} {msg.id} after the task ended {state}; no change"))
            continue
        event = _task_event(msg, ho, by_id, passes)
        if event == "AQ":
            task["before_aq"] = state
        new = A2A_TASK_TRANSITIONS.get((state, event)) if event is not None else None
        if new == RESUME:
            new = task["before_aq"] or SUBMITTED
        if new is not None and new != state:
            task["state"] = new
            task["history"].append((msg.id, new))
    views = {
        ho_id: TaskView(ho=ho_id, item=t["ho"].item, sender=t["ho"].from_, receiver=t["ho"].to,
                        state=t["state"], history=tuple(t["history"]))
        for ho_id, t in tasks.items()
    }
    return TaskMap(tasks=views, findings=tuple(findings))


def _task_event(msg: Message, ho: Message, by_id: Mapping[str, Message], passes: Any) -> str | None:
    """What ``msg`` is to the task of ``ho``: an event of :data:`rogerwilco.checks.lifecycle.A2A_TASK_TRANSITIONS`."""
    from_receiver = msg.from_ == ho.to and msg.to == ho.from_
    from_sender = msg.from_ == ho.from_ and msg.to == ho.to
    if msg.type in ("DN", "UN", "FL") and from_receiver and msg.re == ho.id:
        return msg.type
    if msg.type == "CX" and from_sender and msg.re == ho.id:
        return msg.type
    if msg.type == "RB" and from_receiver and msg.re == ho.id:
        return "RB-pass" if passes(ho, msg) else "RB-void"
    if msg.type == "AQ" and from_receiver:
        return "AQ"
    if msg.type == "AN" and from_sender:
        asked = by_id.get(msg.re or "")
        if asked is not None and asked.type == "AQ":
            return "AN"
    return None


def _default_readback_check(profiles: Any) -> Any:
    def check(ho: Message, rb: Message) -> bool:
        from ..checks.readback import check_rb

        return bool(check_rb(ho, rb, profiles=profiles).passed)

    return check


# --------------------------------------------------------------------------


def _sdk() -> tuple[Any, Any, Any]:
    try:
        from a2a.types import Message as SDKMessage
        from google.protobuf.json_format import MessageToDict, ParseDict
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            "the A2A SDK is not installed: pip install 'rogerwilco[a2a]' "
            "(the plain-dict functions to_a2a_dict and from_a2a_dict need nothing extra)"
        ) from exc
    return SDKMessage, ParseDict, MessageToDict


# --------------------------------------------------------------------------
# an endpoint behind an A2A message handler


@attrs.frozen(kw_only=True)
class Handled:
    """What one incoming A2A message meant: the endpoint's events, and the A2A messages to send back."""

    events: tuple[Any, ...]
    replies: tuple[dict[str, Any], ...]


class EndpointHandler:
    """An :class:`rogerwilco.checks.endpoint.Endpoint` behind an A2A message handler.

    ``handle`` takes an incoming A2A message (a dict in the A2A JSON form or
    an SDK message), takes the RW1 line out of it (:func:`from_a2a`: the line
    part and the JSON part must agree) and gives it to the endpoint; the
    protocol's automatic replies come back as A2A messages in the same
    context and task. A message whose parts disagree about a valid line never
    reaches the endpoint: it is an ``Unreadable`` event with the carriage
    findings and no reply, since nothing says which part to believe. A
    carried line that cannot be taken is answered ``UN why=UNK`` as the
    endpoint answers any such line. ``send`` puts a line this agent
    writes through the endpoint (so what the protocol forbids raises
    :class:`~rogerwilco.endpoint.ProtocolError`) and wraps it.
    """

    def __init__(self, endpoint: Any) -> None:
        self.endpoint = endpoint

    def handle(self, a2a_message: Any) -> Handled:
        obj = a2a_message if isinstance(a2a_message, Mapping) else None
        if obj is None:
            _, _, message_to_dict = _sdk()
            obj = message_to_dict(a2a_message)
        unwrapped = from_a2a_dict(obj, self.endpoint.receiver)
        if unwrapped.ok and unwrapped.line is not None:
            events = self.endpoint.receive(unwrapped.line)
        else:
            from ..checks.endpoint import Unreadable

            line = unwrapped.line
            if line is not None and check_line(line, self.endpoint.receiver).valid:
                # the line is fine but the parts disagree: refuse it as the carriage error it is
                events = [Unreadable(text=line, findings=unwrapped.findings)]
            elif line is not None:
                events = self.endpoint.receive(line)
            else:
                events = [Unreadable(text="", findings=unwrapped.findings)]
        context, task = obj.get("contextId"), obj.get("taskId")
        from ..checks.endpoint import replies

        out = tuple(to_a2a_dict(line, self.endpoint.receiver, context_id=context, task_id=task)
                    for line in replies(events))
        return Handled(events=tuple(events), replies=out)

    def send(self, message: Any, *, context_id: str | None = None, task_id: str | None = None,
             **kwargs: Any) -> dict[str, Any]:
        """Check and record a line through the endpoint, then wrap it as an A2A message."""
        line = self.endpoint.send(message, **kwargs)
        return to_a2a_dict(line, self.endpoint.receiver, context_id=context_id, task_id=task_id)


__all__ = [
    "CarriageError",
    "EXTENSION_URI",
    "EndpointHandler",
    "Handled",
    "JSON_MEDIA_TYPE",
    "LINE_MEDIA_TYPE",
    "TaskMap",
    "TaskView",
    "Unwrapped",
    "agent_extension",
    "declare_extension",
    "from_a2a",
    "from_a2a_dict",
    "from_a2a_message",
    "json_part",
    "message_from_a2a",
    "task_states",
    "to_a2a_dict",
    "to_a2a_message",
]
