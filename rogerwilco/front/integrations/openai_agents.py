"""RW1 in the OpenAI Agents SDK (``pip install 'rogerwilco[openai-agents]'``).

Theory of operation
-------------------
Three pieces, each a thin layer over :mod:`rogerwilco.front.tools` and the
:class:`~rogerwilco.endpoint.Endpoint`:

* :func:`rw1_tools` gives the tools of :data:`rogerwilco.front.tools.TOOLS` (and,
  with an endpoint, that endpoint's session tools) as SDK ``FunctionTool``
  objects in strict mode: their schemas are the strict form of
  :func:`rogerwilco.front.tools.schemas`, which the SDK's own
  ``ensure_strict_json_schema`` takes unchanged, so no tool falls back to
  non-strict. A tool never raises into the run: its output is the JSON of
  :func:`rogerwilco.front.tools.call`; a tool that could not run answers
  ``ok: false`` with the rule broken, the token at fault and a ``retry``
  sentence, so the model corrects the line and calls again.

* :func:`rw1_handoff` is an SDK ``handoff(...)`` whose typed input
  (:class:`HandoffLine`) carries the HO line. Its ``on_handoff`` runs the
  readback in code: the sender's endpoint sends the HO (checked against the
  approval ``record`` when one is given), the receiver's endpoint composes the
  readback from the line as delivered, the sender's endpoint checks it, and
  under ``rb=exec`` sends the ``AN val=Y``. Control passes to the receiver
  only when the readback passed (ownership moved); its input filter gives
  the receiving agent the HO, its RB (and the AN), nothing else. A line
  refused before it went, or a readback that is void, keeps control with the
  sending agent: the handoff's output then carries the refusal (or the void
  readback's findings and the HO to re-issue), so the model retries instead
  of the run dying.

* :func:`rw1_readback_tool` is the agents-as-tools form, a true round trip:
  the sender's model calls the receiving agent as a tool with the HO line;
  the receiving agent runs (nested) on the HO and the readback composed for
  it, and answers with its RB line; the sender's endpoint checks that line,
  and the tool's output shows the sender the receiver's RB, the verdict, and
  on a void readback the findings and the HO to re-issue. With ``act=True``
  the receiver, once cleared, runs again to act and report its DN, which
  the sender's endpoint checks against the plan.

The endpoints are plain objects the caller owns and keeps across runs, so
numbering, the ledger and the threads survive from one run to the next.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Mapping

from ...core.extras import missing_extra

try:
    from agents import Agent, FunctionTool, Handoff, HandoffInputData, RunContextWrapper, Runner, handoff
    from agents.exceptions import AgentsException
    from agents.items import HandoffOutputItem
    from pydantic import BaseModel, ConfigDict, Field
except ImportError as exc:  # the extra is not installed: say which line installs it
    raise missing_extra(exc, "rogerwilco.integrations.openai_agents") from exc

from ...checks.endpoint import (
    DoneReport,
    Endpoint,
    HandoffOffered,
    ReadbackPassed,
    ReadbackVoid,
    event_to_json,
    replies,
)
from ..mcp_server import session_tools
from ..tools import INSTRUCTIONS, TOOLS, call, from_strict, retry_message, schemas
from ..tools import Tool as RW1Tool

__all__ = ["INSTRUCTIONS", "Exchange", "HandoffLine", "rw1_handoff", "rw1_readback_tool", "rw1_tools"]


# --------------------------------------------------------------------------
# function tools


def _output(result: Mapping[str, Any], is_error: bool) -> str:
    out = dict(result)
    if is_error:
        out["retry"] = retry_message(out["error"])
    return json.dumps(out, ensure_ascii=False)


def _invoker(name: str, table: Mapping[str, RW1Tool], strict: bool) -> Callable[[Any, str], Any]:
    async def invoke(ctx: Any, arguments: str) -> str:
        try:
            parsed = json.loads(arguments) if arguments.strip() else {}
        except ValueError as exc:
            error = {"rule": "arguments", "message": f"{name}: the arguments are not JSON ({exc})", "token": None,
                     "why": None}
            return _output({"ok": False, "error": error}, True)
        if strict and isinstance(parsed, dict):
            parsed = from_strict(name, parsed, table)
        return _output(*call(name, parsed, table))

    return invoke


def rw1_tools(endpoint: Endpoint | None = None, *, strict: bool = True,
              names: Iterable[str] | None = None) -> list[FunctionTool]:
    """The RW1 tools as SDK ``FunctionTool`` objects; with ``endpoint``, its session tools too (receive, send,
    owner, open_handoffs, may_act, pending_questions, tick), bound to that agent's endpoint.

    ``strict`` (default) gives the strict-compatible schemas, flagged ``strict_json_schema``; ``names`` keeps
    only the tools named. The output is the JSON result; a bad line or argument comes back as ``ok: false``
    with a ``retry`` sentence, never as an exception.
    """
    wanted = set(names) if names is not None else None
    tables = [dict(TOOLS)] + ([session_tools(endpoint)] if endpoint is not None else [])
    found: list[FunctionTool] = []
    for table in tables:
        shapes = schemas(strict=strict, tools=table)
        for name, tool in table.items():
            if wanted is None or name in wanted:
                found.append(FunctionTool(name=name, description=tool.description, params_json_schema=shapes[name],
                                          on_invoke_tool=_invoker(name, table, strict), strict_json_schema=strict))
    if wanted is not None and wanted - {t.name for t in found}:
        raise ValueError(f"no RW1 tool named {', '.join(sorted(wanted - {t.name for t in found}))}")
    return found


# --------------------------------------------------------------------------
# the exchange both handoff forms run


class HandoffLine(BaseModel):
    """The handoff's typed input: the HO line the sending model hands over."""

    model_config = ConfigDict(extra="forbid")

    line: str = Field(description="the RW1 HO line, exactly as it is to be sent (one line, no terminator)")


@dataclass
class Exchange:
    """What one handoff call came to. ``status``: ``refused`` (the HO did not go: ``error``), ``unable`` (the
    receiver refused it: its replies are in ``lines``), ``void`` (the readback failed the sender's check:
    ``findings``, and ``reissue``, the HO to send again), ``wilco`` (the readback passed: ownership moved),
    ``done`` (with ``act``: the DN passed the done check) or ``done-failed`` (it did not: ``findings``,
    ``undo``); ``no-readback`` when the receiving agent gave no line its endpoint would send (``error``)."""

    status: str
    handoff: str | None = None
    lines: list[str] = field(default_factory=list)
    readback: str | None = None
    findings: list[dict[str, Any]] = field(default_factory=list)
    reissue: str | None = None
    undo: str | None = None
    owner: str | None = None
    error: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": self.ok, "status": self.status}
        if self.error is not None:
            return {**out, "error": self.error, "retry": retry_message(self.error)}
        out.update(handoff=self.handoff, lines=self.lines, readback=self.readback, owner=self.owner)
        if self.findings:
            out["findings"] = self.findings
        if self.reissue is not None:
            out["reissue"] = self.reissue
            out["retry"] = ("the readback is void and nothing moved: hand over again with the `reissue` line "
                            "(re= the void readback), or cancel the handoff with a CX")
        if self.undo is not None:
            out["undo"] = self.undo
        return out

    def text(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False)


def _error(result: Mapping[str, Any]) -> dict[str, Any]:
    return dict(result["error"])


def _item(line: str) -> str | None:
    for token in line.split(" // ", 1)[0].split(" "):
        if token.startswith("item="):
            return token[5:]
    return None


class _Exchanger:
    """The code both forms share: send the HO, have it read back, check the readback."""

    def __init__(self, sender: Endpoint, receiver: Endpoint, *, record: Mapping[str, Any] | None,
                 expect_acc: Any, number: bool) -> None:
        if not isinstance(sender, Endpoint) or not isinstance(receiver, Endpoint):
            raise TypeError("sender and receiver are rogerwilco Endpoint objects")
        self.sender, self.receiver = sender, receiver
        self.record, self.expect_acc, self.number = record, expect_acc, number

    def send_ho(self, line: Any) -> tuple[str | None, Exchange | None]:
        if not isinstance(line, str):
            return None, Exchange("refused", error={"rule": "arguments", "message": "the handoff's line is text",
                                                    "token": None, "why": None, "argument": "line"})
        args: dict[str, Any] = {"line": line, "number": self.number}
        if self.record is not None:
            args["record"] = dict(self.record)
        if self.expect_acc is not None:
            args["expect_acc"] = self.expect_acc
        result, is_error = call("send", args, session_tools(self.sender))
        if is_error:
            return None, Exchange("refused", error=_error(result))
        ho = result["line"]
        if ho.split(" ", 2)[1] != "HO":
            return None, Exchange("refused", error={"rule": "not-a-handoff", "message": "a handoff carries an HO "
                                                    "line; send other lines with the send tool",
                                                    "token": ho.split(" ", 2)[1], "why": None, "argument": "line"})
        return ho, None

    def deliver(self, ho: str) -> tuple[HandoffOffered | None, Exchange | None]:
        """The HO at the receiver: the offer (with the readback composed by code), or what it answered."""
        ho_id = ho.split(" ", 3)[2]
        events = self.receiver.receive(ho)
        offered = [e for e in events if isinstance(e, HandoffOffered)]
        if offered and offered[0].readback is not None:
            return offered[0], None
        answers = replies(events)
        for reply in answers:
            self.sender.receive(reply)
        findings = [f for e in events for f in (event_to_json(e, self.receiver).get("findings") or [])]
        for kind in ("needs", "refused"):  # what only the receiver can give; why no readback may go now
            if offered and getattr(offered[0], kind):
                findings.append({"severity": "fail", "kind": kind, "tier": None, "key": None,
                                 "message": getattr(offered[0], kind)})
        return None, Exchange("unable", handoff=ho_id, lines=[ho, *answers], findings=findings,
                              owner=self.sender.owner(_item(ho) or ""))

    def check(self, ho: str, rb: str, lines: list[str]) -> Exchange:
        """The sender's check of the readback; on a pass under rb=exec the AN val=Y goes to the receiver."""
        ho_id = ho.split(" ", 3)[2]
        events = self.sender.receive(rb)
        lines.extend(replies(events))
        item = _item(ho) or ""
        for event in events:
            if isinstance(event, ReadbackPassed):
                if event.confirm is not None:
                    an = self.sender.send(event.confirm)
                    lines.append(an)
                    self.receiver.receive(an)
                return Exchange("wilco", handoff=ho_id, lines=lines, readback=rb, owner=self.sender.owner(item))
            if isinstance(event, ReadbackVoid):
                findings = [f.to_json() for f in event.report.findings] if event.report is not None else []
                return Exchange("void", handoff=ho_id, lines=lines, readback=rb, findings=findings,
                                reissue=event.reissue.to_line() if event.reissue is not None else None,
                                owner=self.sender.owner(item))
        findings = [f for e in events for f in (event_to_json(e, self.sender).get("findings") or [])]
        return Exchange("unable", handoff=ho_id, lines=lines, readback=rb, findings=findings,
                        owner=self.sender.owner(item))

    def receiver_sends(self, line: str) -> tuple[str | None, dict[str, Any] | None]:
        result, is_error = call("send", {"line": line}, session_tools(self.receiver))
        return (None, _error(result)) if is_error else (result["line"], None)


# --------------------------------------------------------------------------
# the handoff


def _lines_message(exchange: Exchange, receiver: Endpoint) -> dict[str, Any]:
    ho_id = exchange.handoff or ""
    may = "you may act on it now" if receiver.may_act(ho_id) else "wait for the sender's AN val=Y before acting"
    text = (f"Handoff {ho_id} to you: your readback, composed by code from the line as delivered, passed the "
            f"sender's check; {may}. The lines, in the order sent:\n" + "\n".join(exchange.lines))
    return {"role": "user", "content": text}


def rw1_handoff(from_agent: Agent[Any], to_agent: Agent[Any], *, sender: Endpoint, receiver: Endpoint,
                record: Mapping[str, Any] | None = None, expect_acc: Any = None,
                write_rb: Callable[[str, str], str] | None = None, number: bool = False,
                tool_name: str | None = None, tool_description: str | None = None) -> Handoff[Any, Agent[Any]]:
    """An SDK handoff from ``from_agent`` to ``to_agent`` that transfers control only on a passing readback.

    Add it to the sending agent: ``from_agent.handoffs.append(rw1_handoff(from_agent, to_agent, ...))``.
    ``sender`` and ``receiver`` are the two agents' endpoints; ``record`` the approval record the HO is
    checked against before it goes (``check_ho``: a misread amount never leaves); ``expect_acc`` the
    criteria kept back for ``rb=acc``; ``number`` lets the sender's endpoint give the HO its id.
    ``write_rb(composed, ho)`` gives the readback line to send instead of the one composed by code (a
    receiver that writes its own, which the sender's check may void). :attr:`outcomes` keeps each call's
    :class:`Exchange`, in order.
    """
    exchanger = _Exchanger(sender, receiver, record=record, expect_acc=expect_acc, number=number)
    pending: dict[int, Exchange] = {}
    outcomes: list[Exchange] = []

    def on_handoff(ctx: RunContextWrapper[Any], data: HandoffLine) -> None:
        ho, refused = exchanger.send_ho(data.line)
        if refused is not None:
            pending[id(ctx)] = refused
            return
        assert ho is not None
        offered, unable = exchanger.deliver(ho)
        if unable is not None:
            pending[id(ctx)] = unable
            return
        assert offered is not None and offered.readback is not None
        composed = offered.readback.to_line()
        rb: str | None
        if write_rb is None:
            rb, error = receiver.send(offered.readback, number=True), None
        else:
            rb, error = exchanger.receiver_sends(write_rb(composed, ho))
        if rb is None:
            pending[id(ctx)] = Exchange("no-readback", handoff=ho.split(" ", 3)[2], lines=[ho], error=error)
            return
        pending[id(ctx)] = exchanger.check(ho, rb, [ho, rb])

    made = handoff(to_agent, tool_name_override=tool_name,
                   tool_description_override=tool_description or (
                       f"Hand work to {to_agent.name} with one RW1 HO line. The readback is composed and checked "
                       f"by code; control passes to {to_agent.name} only when it passes. A refused line or a void "
                       "readback comes back to you to correct."),
                   on_handoff=on_handoff, input_type=HandoffLine)
    inner = made.on_invoke_handoff

    async def invoke(ctx: RunContextWrapper[Any], arguments: str) -> Agent[Any]:
        try:
            await inner(ctx, arguments)
        except AgentsException as exc:  # arguments that are not a HandoffLine: back to the model
            pending[id(ctx)] = Exchange("refused", error={"rule": "arguments", "message": str(exc)[:300],
                                                          "token": None, "why": None, "argument": "line"})
        exchange = pending[id(ctx)]
        outcomes.append(exchange)
        return to_agent if exchange.status == "wilco" else from_agent

    def input_filter(data: HandoffInputData) -> HandoffInputData:
        exchange = pending.pop(id(data.run_context), None)
        if exchange is None:
            return data
        if exchange.status == "wilco":
            message = _lines_message(exchange, receiver)
            return data.clone(input_history=(message,), pre_handoff_items=(), input_items=())
        # control stays with the sender: its handoff call's output is the refusal or the void readback
        # (raw_item is the SDK's function-call-output TypedDict; a copy with its output replaced is one too)
        items = tuple(replace(item, raw_item={**item.raw_item, "output": exchange.text()})  # type: ignore[arg-type]
                      if isinstance(item, HandoffOutputItem) and isinstance(item.raw_item, dict) else item
                      for item in data.new_items)
        return data.clone(new_items=items)

    made.on_invoke_handoff = invoke
    made.input_filter = input_filter
    made.outcomes = outcomes  # type: ignore[attr-defined]
    return made


# --------------------------------------------------------------------------
# agents as tools: the round trip


_RECEIVER_PROMPT = (
    "An RW1 handoff arrived for you:\n{ho}\n"
    "Its readback, composed by code from the line as delivered:\n{rb}\n"
    "Answer with one line only: that readback exactly as composed, or a UN line to refuse the handoff."
)
_ACT_PROMPT = (
    "The sender checked your readback and confirmed it:\n{an}\n"
    "You may act on {ho_id} now. Act, then answer with one line only: your DN (re={ho_id}) carrying the "
    "values as executed, exactly as your tools report them."
)


def rw1_readback_tool(to_agent: Agent[Any], *, sender: Endpoint, receiver: Endpoint,
                      record: Mapping[str, Any] | None = None, expect_acc: Any = None, number: bool = False,
                      act: bool = False, max_turns: int = 10, run_config: Any = None,
                      tool_name: str | None = None, tool_description: str | None = None) -> FunctionTool:
    """The receiving agent as a strict function tool for the sending agent: a round trip in which the sender
    sees the receiver's RB.

    The tool takes ``line`` (the HO). The sender's endpoint sends it (checked against ``record``); the
    receiving agent runs on the HO and the readback composed for it and answers with its RB line; the
    sender's endpoint checks that line and the tool returns the :class:`Exchange` as JSON (``status``,
    ``lines``, ``readback``, ``findings``, ``reissue``, ``owner``). With ``act``, a cleared receiver runs again
    to act and answer with its DN, checked against the plan. Nothing raises into the sender's run.
    """
    exchanger = _Exchanger(sender, receiver, record=record, expect_acc=expect_acc, number=number)
    outcomes: list[Exchange] = []

    async def run_receiver(ctx: Any, prompt: str) -> tuple[str | None, dict[str, Any] | None]:
        try:
            result = await Runner.run(to_agent, prompt, context=getattr(ctx, "context", None), max_turns=max_turns,
                                      run_config=run_config)
        except AgentsException as exc:
            return None, {"rule": "receiver-run", "message": f"{to_agent.name} did not answer: "
                                                             f"{type(exc).__name__}: {str(exc)[:200]}",
                          "token": None, "why": None}
        reply = str(result.final_output or "").strip()
        lines = [x.strip() for x in reply.splitlines() if x.strip().startswith("RW1 ")]
        return exchanger.receiver_sends(lines[-1] if lines else reply)

    async def exchange(ctx: Any, line: Any) -> Exchange:
        ho, refused = exchanger.send_ho(line)
        if refused is not None:
            return refused
        assert ho is not None
        ho_id = ho.split(" ", 3)[2]
        offered, unable = exchanger.deliver(ho)
        if unable is not None:
            return unable
        assert offered is not None and offered.readback is not None
        rb, error = await run_receiver(ctx, _RECEIVER_PROMPT.format(ho=ho, rb=offered.readback.to_line()))
        if rb is None:
            return Exchange("no-readback", handoff=ho_id, lines=[ho], error=error)
        if rb.split(" ", 2)[1] != "RB":  # the receiver refused (UN) or answered otherwise
            return exchanger.check(ho, rb, [ho, rb])
        out = exchanger.check(ho, rb, [ho, rb])
        if not act or out.status != "wilco" or not receiver.may_act(ho_id):
            return out
        an = out.lines[-1] if len(out.lines) > 2 else ""
        dn, error = await run_receiver(ctx, _ACT_PROMPT.format(an=an, ho_id=ho_id))
        if dn is None:
            return replace(out, status="no-report", error=error)
        out.lines.append(dn)
        for event in sender.receive(dn):
            if isinstance(event, DoneReport) and event.report is not None:
                findings = [f.to_json() for f in event.report.findings if f.severity == "fail"]
                return replace(out, status="done" if event.report.passed else "done-failed", findings=findings,
                               undo=event.undo.to_line() if event.undo is not None else None,
                               owner=sender.owner(_item(ho) or ""))
        return replace(out, status="no-report", error={"rule": "not-a-done-report", "message": f"{to_agent.name} "
                                                        "answered with something other than a DN for the handoff",
                                                        "token": dn.split(" ", 2)[1], "why": None})

    async def invoke(ctx: Any, arguments: str) -> str:
        try:
            parsed = json.loads(arguments) if arguments.strip() else {}
        except ValueError as exc:
            parsed = {"_": str(exc)}
        if not isinstance(parsed, dict) or set(parsed) != {"line"}:
            out = Exchange("refused", error={"rule": "arguments", "message": "give exactly one argument, `line`: "
                                             "the HO line", "token": None, "why": None, "argument": "line"})
        else:
            out = await exchange(ctx, parsed["line"])
        outcomes.append(out)
        return out.text()

    schema = {"type": "object", "properties": {"line": HandoffLine.model_json_schema()["properties"]["line"]},
              "required": ["line"], "additionalProperties": False}
    tool = FunctionTool(
        name=tool_name or f"hand_to_{to_agent.name}".replace("-", "_").replace(".", "_"),
        description=tool_description or (
            f"Hand work to {to_agent.name} with one RW1 HO line and get its readback (RB) back, checked by code "
            "against your HO. `status` wilco: the readback passed and ownership moved; void: it failed (see "
            "`findings`), hand over again with `reissue`; refused: your line did not go (see `error`), correct it."),
        params_json_schema=schema, on_invoke_tool=invoke, strict_json_schema=True)
    tool.outcomes = outcomes  # type: ignore[attr-defined]
    return tool
