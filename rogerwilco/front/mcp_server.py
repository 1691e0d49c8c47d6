"""The MCP server: RW1's checks as tools an agent calls (``rogerwilco mcp``).

Theory of operation
-------------------
Agents need readbacks composed by code where they work: the spec's studies
found a model's hand-written readback refused for form far more often than
one composed from the message as delivered (spec 5.3, 10). This module puts
the library behind the Model Context Protocol, stdio transport, through the
official SDK's low-level server, which is imported only when the server is
built, so the core never needs the ``mcp`` extra.

Every tool is one row of :data:`rogerwilco.front.tools.TOOLS`: a name, a description written for
the model that will call it, a JSON Schema for its arguments and one for its
result. Results are structured content (with the same JSON as text for
clients that read only text), in the shape :mod:`rogerwilco.front.tools` gives
them (``ok: true`` with the check's result, or ``ok: false`` with the rule,
the token and the ``why``); an ``ok: false`` result is flagged ``isError``.

:func:`call` runs a tool on plain arguments and returns ``(result,
is_error)``; the server is a thin layer over it.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Mapping

from ..core._version import __version__

# The tool table and the transport-free call live in rogerwilco.front.tools; re-exported here for the server's callers.
from .tools import (  # noqa: F401
    LINE_SCHEMA,
    NULLABLE_STR_SCHEMA,
    STR_SCHEMA,
    TOKENS_SCHEMA,
    ERROR_SCHEMA,
    FINDING_SCHEMA,
    INSTRUCTIONS,
    TOOLS,
    Tool,
    ToolError,
    input_schema,
    output_schema,
    call,
)

SERVER_NAME = "rogerwilco"

# --------------------------------------------------------------------------
# the server


class MissingSDK(ImportError):
    """The MCP SDK (2 or later) is not installed."""


def _sdk() -> tuple[Any, Any, Any]:
    try:
        import mcp.types as types
        from mcp.server.lowlevel import Server
        from mcp.server.stdio import stdio_server
    except ImportError as exc:
        raise MissingSDK("rogerwilco mcp needs the MCP SDK: pip install 'rogerwilco[mcp]'") from exc
    try:
        import mcp.server.mcpserver  # noqa: F401 - present from mcp 2 on, whose server API this uses
    except ImportError as exc:
        raise MissingSDK("rogerwilco mcp needs the MCP SDK version 2 or later: pip install -U 'rogerwilco[mcp]'") from exc
    return types, Server, stdio_server


# What clients show and how they may treat each tool (MCP tool annotations): a
# title for people; readOnlyHint and idempotentHint let a client skip its
# confirmation prompt for the checks, which change nothing and give the same
# answer each time. The session tools change the agent's ledger.
#: name -> (title, read-only, idempotent)
TOOL_META: dict[str, tuple[str, bool, bool]] = {
    "validate": ("Validate RW1 lines", True, True),
    "digest": ("Digest of a line (h=)", True, True),
    "make_rb": ("Compose a readback", True, True),
    "check_rb": ("Check a readback", True, True),
    "check_ho": ("Check a handoff against its record", True, True),
    "check_dn": ("Check a done report", True, True),
    "check_thread": ("Check a conversation's threads", True, True),
    "legend": ("RW1 legend", True, True),
    "receive": ("Receive a line (session)", False, False),
    "send": ("Send a line (session)", False, False),
    "owner": ("Who owns an item (session)", True, True),
    "open_handoffs": ("Open handoffs (session)", True, True),
    "may_act": ("May I act on a handoff? (session)", True, True),
    "pending_questions": ("Unanswered questions (session)", True, True),
    "tick": ("What time makes due (session)", False, False),
}
#: tools whose input takes exactly one of two arguments
ONE_OF: dict[str, tuple[str, str]] = {"validate": ("line", "lines"), "send": ("line", "json")}


def listed_schema(tool: Tool) -> dict[str, Any]:
    """A tool's input schema as listed to clients, its one-of rule spelled out."""
    schema = dict(tool.input_schema)
    pair = ONE_OF.get(tool.name)
    if pair is not None:
        schema["oneOf"] = [{"required": [pair[0]]}, {"required": [pair[1]]}]
    return schema


def listed_tools(tools: Mapping[str, Tool]) -> list[Any]:
    """The SDK's Tool objects for ``tools``, with titles and annotations."""
    types, _, _ = _sdk()
    out = []
    for t in tools.values():
        title, read_only, idempotent = TOOL_META.get(t.name, (t.name.replace("_", " "), False, False))
        annotations = types.ToolAnnotations(title=title, read_only_hint=read_only, destructive_hint=False,
                                            idempotent_hint=idempotent, open_world_hint=False)
        out.append(types.Tool(name=t.name, title=title, description=t.description, input_schema=listed_schema(t),
                              output_schema=dict(t.output_schema), annotations=annotations))
    return out


def build_server(endpoint: Any = None) -> Any:
    """The low-level SDK server with every tool of :data:`TOOLS`; with an endpoint, its session tools too."""
    types, Server, _ = _sdk()
    tools = dict(TOOLS)
    if endpoint is not None:
        tools.update(session_tools(endpoint))
    listed = listed_tools(tools)

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: Any, params: Any) -> Any:
        result, is_error = call(params.name, params.arguments, tools)
        text = json.dumps(result, ensure_ascii=True)
        return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=result,
                                    is_error=is_error)

    instructions = INSTRUCTIONS if endpoint is None else INSTRUCTIONS + " " + SESSION_INSTRUCTIONS
    return Server(SERVER_NAME, version=__version__, instructions=instructions,
                  on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_stdio(endpoint: Any = None) -> None:
    _, _, stdio_server = _sdk()
    server = build_server(endpoint)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve(endpoint: Any = None) -> int:
    """Serve over stdin/stdout until the client closes the connection (session mode with an endpoint)."""
    _sdk()
    try:
        import anyio
    except ImportError as exc:
        raise MissingSDK("rogerwilco mcp needs the MCP SDK and its anyio: pip install 'rogerwilco[mcp]'") from exc
    anyio.run(serve_stdio, endpoint)
    return 0


# --------------------------------------------------------------------------
# session mode: one agent's endpoint behind the tools


SESSION_INSTRUCTIONS = (
    "RW1 session tools for one agent. Pass every RW1 line you receive to `receive` and deliver every line in "
    "its `replies` as it is: they are the protocol's own answers. Put every line you want to send through "
    "`send` and send only the line it returns; when it refuses (ok: false), the error's rule says what the "
    "protocol forbids. For a handoff offered to you, send the `readback` the receive result carries "
    "(with number: true) instead of writing one. Act on a handoff only when `may_act` says true."
)


def session_tools(endpoint: Any) -> dict[str, Tool]:
    """The tools of ``rogerwilco mcp --ledger PATH --as NAME``: an :class:`~rogerwilco.endpoint.Endpoint`
    run by code, so a model-only agent gets the protocol's duties done for it."""
    from ..checks.endpoint import ProtocolError, event_to_json, replies

    tools: dict[str, Tool] = {}
    events_schema = {"type": "array", "items": {"type": "object"}}

    def add(name: str, description: str, inputs: dict[str, Any], required: list[str], outputs: dict[str, Any],
            run: Callable[[Mapping[str, Any]], dict[str, Any]]) -> None:
        tools[name] = Tool(name, description, input_schema(inputs, required), output_schema(outputs), run)

    def receive(args: Mapping[str, Any]) -> dict[str, Any]:
        events = endpoint.receive(args["line"])
        return {"events": [event_to_json(e, endpoint) for e in events], "replies": replies(events)}

    def send(args: Mapping[str, Any]) -> dict[str, Any]:
        if ("line" in args) == ("json" in args):
            raise ToolError("arguments", "send takes one of `line` or `json`", argument="line")
        try:
            line = endpoint.send(args.get("line", args.get("json")), number=bool(args.get("number", False)),
                                 expect_acc=args.get("expect_acc"), record=args.get("record"))
        except ProtocolError as exc:
            raise ToolError(exc.kind, exc.message, token=exc.token or None, why=exc.why if exc.kind == "form" else None,
                            column=exc.column) from None
        return {"line": line}

    def owner(args: Mapping[str, Any]) -> dict[str, Any]:
        return {"item": args["item"], "owner": endpoint.owner(args["item"])}

    def open_handoffs(args: Mapping[str, Any]) -> dict[str, Any]:
        return {"handoffs": [h.to_json() for h in endpoint.open_handoffs()]}

    def may_act(args: Mapping[str, Any]) -> dict[str, Any]:
        view = endpoint.handoff(args["ho"])
        return {"ho": args["ho"], "may_act": endpoint.may_act(args["ho"]),
                "handoff": view.to_json() if view is not None else None}

    def pending_questions(args: Mapping[str, Any]) -> dict[str, Any]:
        return {"questions": [endpoint.line_of(q.id) for q in endpoint.pending_questions()]}

    def tick(args: Mapping[str, Any]) -> dict[str, Any]:
        from ..checks.thread import parse_now

        try:
            now = parse_now(args.get("now"))
        except ValueError as exc:
            raise ToolError("arguments", str(exc), token=args.get("now"), argument="now") from None
        return {"events": [event_to_json(e, endpoint) for e in endpoint.tick(now)]}

    add("receive", "Take one RW1 line you received. Returns the events it means for you (a handoff offered, with "
        "the readback composed by code; a question; a readback of your handoff that passed or is void; a done "
        "report checked against the plan; a cancel with what to abandon and the answer) and `replies`: lines "
        "to deliver as they are (UN why=UNK|VER|DUP). Never fails on a bad line.",
        {"line": LINE_SCHEMA}, ["line"], {"events": events_schema, "replies": {"type": "array", "items": STR_SCHEMA}}, receive)
    add("send", "Check a line you want to send against the protocol and record it; send only the returned line. "
        "`number: true` gives it your next id. Refused (ok: false, error.rule) when the protocol forbids it: "
        "act-before-wilco, act-after-cancel, closed-twice, cancel-wrong-party, hand-written, ... For a handoff, "
        "`expect_acc` (criteria you keep back) and `record` (the approval record) are used to check its "
        "readback and done report.",
        {"line": LINE_SCHEMA, "json": {"type": "object", "description": "the message's JSON form (id may be null "
                                                                  "with number: true)"},
         "number": {"type": "boolean"}, "expect_acc": TOKENS_SCHEMA,
         "record": {"type": "object", "description": "slot: value, as written in a line"}},
        [], {"line": STR_SCHEMA}, send)
    add("owner", "Who owns an item now: the receiver of the latest handoff whose readback passed.",
        {"item": STR_SCHEMA}, ["item"], {"item": STR_SCHEMA, "owner": NULLABLE_STR_SCHEMA}, owner)
    add("open_handoffs", "Your handoffs, sent or received, that no DN, UN, FL or CX has closed.",
        {}, [], {"handoffs": events_schema}, open_handoffs)
    add("may_act", "Whether you may act on a handoff now: you received it, its readback passed (and, under "
        "rb=exec, AN val=Y came), nobody closed or cancelled it, and the item is still yours.",
        {"ho": STR_SCHEMA}, ["ho"], {"ho": STR_SCHEMA, "may_act": {"type": "boolean"}, "handoff": {"type": ["object", "null"]}},
        may_act)
    add("pending_questions", "Questions (AQ) to you that you have not answered.", {}, [],
        {"questions": {"type": "array", "items": STR_SCHEMA}}, pending_questions)
    add("tick", "What time makes due on your handoffs: open past exp= or due= (with the CX to send), readbacks "
        "overdue (with the re-send). `now` is YYYYMMDDTHHMMZ (default: the clock).",
        {"now": STR_SCHEMA}, [], {"events": events_schema}, tick)
    return tools
