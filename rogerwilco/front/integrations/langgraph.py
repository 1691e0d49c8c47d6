"""RW1 in LangChain and LangGraph (``pip install 'rogerwilco[langgraph]'``).

Theory of operation
-------------------
:func:`rw1_tools` gives the tools of :data:`rogerwilco.front.tools.TOOLS` (and,
with an endpoint, that endpoint's session tools) as LangChain
``StructuredTool`` objects with the tables' JSON Schemas. A tool never
raises into the graph: its result is the structured dict of
:func:`rogerwilco.front.tools.call`. A tool that could not run raises
:class:`RW1ToolException` (LangChain's ``ToolException``), which the tool
handles as LangChain's convention has it: the answer is a ``ToolMessage``
with ``status="error"`` whose content is the ``ok: false`` result (the rule
broken and the token at fault), so a ``ToolNode`` hands the model its error
to correct and code can tell an error from a result by the status.

:func:`handoff_graph` is the two-node handoff built on two
:class:`~rogerwilco.endpoint.Endpoint` objects, so numbering, the ledger and
the thread are kept: the ``sender`` node sends the HO; the ``receiver`` node
answers with the readback composed by code (or, with ``write_rb``, one
written by a model, which the sender then checks); back at the sender a
conditional edge on the sender's check goes on to ``END`` (or the node
``on_wilco``) when the readback passed (under ``rb=exec`` once the receiver has
the sender's ``AN val=Y``, so it may act), and sends the re-issued HO when it
was void, up to ``max_reissues`` times. The state's ``lines`` carries every
line sent, in order; ``status`` says where the handoff stands.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Callable, Iterable, TypedDict

from ...core.extras import missing_extra

try:
    from langchain_core.tools import StructuredTool, ToolException
    from langgraph.graph import END, START, StateGraph
except ImportError as exc:  # the extra is not installed: say which line installs it
    raise missing_extra(exc, "rogerwilco.integrations.langgraph") from exc

from ...checks.endpoint import HandoffOffered, ProtocolError, ReadbackPassed, ReadbackVoid, replies
from ..mcp_server import session_tools
from ..tools import INSTRUCTIONS, TOOLS, call, from_strict, schemas

__all__ = ["INSTRUCTIONS", "HandoffState", "RW1ToolException", "handoff_graph", "rw1_tools"]


class RW1ToolException(ToolException):
    """A tool that could not run on what it was given: ``result`` is its ``ok: false`` dict."""

    def __init__(self, result: dict[str, Any]) -> None:
        super().__init__(result["error"]["message"])
        self.result = result


def _answer_error(exc: ToolException) -> Any:
    """The content of the ``status="error"`` answer: the ``ok: false`` result, as a result would be."""
    return exc.result if isinstance(exc, RW1ToolException) else str(exc)


def _run(name: str, tools: Any, strict: bool) -> Callable[..., dict[str, Any]]:
    def run(**arguments: Any) -> dict[str, Any]:
        if strict:
            arguments = from_strict(name, arguments, tools)
        result, is_error = call(name, arguments, tools)
        if is_error:
            raise RW1ToolException(result)
        return result

    return run


def rw1_tools(endpoint: Any = None, *, strict: bool = False, names: Iterable[str] | None = None) -> list[StructuredTool]:
    """The RW1 tools as ``StructuredTool`` objects; with ``endpoint``, its session tools too (receive, send, ...).

    ``strict`` uses the strict-compatible schemas (:func:`rogerwilco.front.tools.schemas`); ``names`` keeps only
    the tools named. Results are dicts with ``ok``; a tool that could not run (a bad line or argument, a
    ``send`` the protocol forbids) answers its ``ok: false`` dict with ``status="error"`` (a ``ToolMessage``
    when called with a tool call, the dict itself when called with plain arguments); nothing is raised.
    """
    wanted = set(names) if names is not None else None
    tables = [TOOLS] + ([session_tools(endpoint)] if endpoint is not None else [])
    found = []
    for table in tables:
        shapes = schemas(strict=strict, tools=table)
        for name, tool in table.items():
            if wanted is None or name in wanted:
                found.append(StructuredTool(name=name, description=tool.description, args_schema=shapes[name],
                                            func=_run(name, table, strict), handle_tool_error=_answer_error))
    if wanted is not None and wanted - {t.name for t in found}:
        raise ValueError(f"no RW1 tool named {', '.join(sorted(wanted - {t.name for t in found}))}")
    return found


class HandoffState(TypedDict, total=False):
    """The graph's state: ``lines`` (every line sent, in order, appended by each node), ``handoff`` (the id of
    the live HO), ``status`` (``sent``, ``read-back``, ``confirm`` (the ``AN val=Y`` on its
    way to the receiver), ``wilco``, ``void``, ``unable``), ``reissues``,
    ``findings`` (of the last void readback)."""

    lines: Annotated[list[str], operator.add]
    handoff: str
    status: str
    reissues: int
    findings: list[dict[str, Any]]


def handoff_graph(sender: Any, receiver: Any, ho: str | Callable[[HandoffState], str], *,
                  write_rb: Callable[[str, HandoffState], str] | None = None, max_reissues: int = 2,
                  on_wilco: str | None = None, graph: StateGraph | None = None) -> StateGraph:
    """A ``StateGraph`` over :class:`HandoffState` with a ``sender`` and a ``receiver`` node; compile it (or
    add your own nodes first: ``on_wilco`` names the node to go to when the readback passes, else ``END``).

    ``ho`` is the HO line to send (or a function of the state giving it), sent through ``sender.send``;
    the receiver's readback is composed by code from the HO as delivered unless ``write_rb(composed, state)``
    gives the line to send instead (a model's own readback, which the sender's check may void).
    """
    graph = graph if graph is not None else StateGraph(HandoffState)

    def sender_node(state: HandoffState) -> dict[str, Any]:
        if not state.get("handoff"):
            line = sender.send(ho(state) if callable(ho) else ho)
            return {"lines": [line], "handoff": line.split()[2], "status": "sent", "reissues": 0}
        events = sender.receive(state["lines"][-1])
        out: dict[str, Any] = {"lines": replies(events)}
        for event in events:
            if isinstance(event, ReadbackPassed):
                if event.confirm is not None:  # rb=acc, plan or exec: the receiver may act once it has the AN val=Y
                    return {"lines": out["lines"] + [sender.send(event.confirm)], "status": "confirm",
                            "findings": []}
                return {**out, "status": "wilco", "findings": []}
            if isinstance(event, ReadbackVoid):
                findings = [f.to_json() for f in event.report.findings] if event.report is not None else []
                if event.reissue is None or state.get("reissues", 0) >= max_reissues:
                    return {**out, "status": "void", "findings": findings}
                line = sender.send(event.reissue)
                return {"lines": out["lines"] + [line], "handoff": event.reissue.id, "status": "sent",
                        "reissues": state.get("reissues", 0) + 1, "findings": findings}
        return {**out, "status": "unable"}

    def receiver_node(state: HandoffState) -> dict[str, Any]:
        events = receiver.receive(state["lines"][-1])
        if state.get("status") == "confirm":
            return {"lines": replies(events), "status": "wilco"}
        offered = [e for e in events if isinstance(e, HandoffOffered)]
        if not offered or offered[0].readback is None:
            return {"lines": replies(events), "status": "unable"}
        if write_rb is None:
            composed = receiver.send(offered[0].readback, number=True)
        else:
            try:
                composed = receiver.send(write_rb(offered[0].readback.to_line(), state))
            except ProtocolError:
                return {"lines": replies(events), "status": "unable"}
        return {"lines": replies(events) + [composed], "status": "read-back"}

    def done(state: HandoffState) -> str:
        return on_wilco if state.get("status") == "wilco" and on_wilco is not None else END

    def after_sender(state: HandoffState) -> str:
        return "receiver" if state.get("status") in ("sent", "confirm") else done(state)

    def after_receiver(state: HandoffState) -> str:
        return "sender" if state.get("status") == "read-back" else done(state)

    graph.add_node("sender", sender_node)
    graph.add_node("receiver", receiver_node)
    graph.add_edge(START, "sender")
    graph.add_conditional_edges("sender", after_sender)
    graph.add_conditional_edges("receiver", after_receiver)
    return graph
