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
import os
import sys
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
    finding_to_json as _finding_json,
    input_schema,
    output_schema,
    call,
    from_strict,
    schemas,
)

SERVER_NAME = "rogerwilco"

# --------------------------------------------------------------------------
# the server


class MissingSDK(ImportError):
    """The MCP SDK is not installed (or is older than the oldest major this server speaks)."""


#: the SDK versions the server is tested with: 1.x from 1.24 (the range of clients such as
#: langchain-mcp-adapters, which pin mcp<2) and 2.x
SDK_RANGE = ">=1.24,<3"


def _sdk() -> tuple[Any, Any, Any]:
    try:
        import mcp.types as types
        from mcp.server.lowlevel import Server
        from mcp.server.stdio import stdio_server
    except ImportError as exc:
        raise MissingSDK("rogerwilco mcp needs the MCP SDK: pip install 'rogerwilco[mcp]'") from exc
    if not hasattr(types, "ToolAnnotations") or "outputSchema" not in getattr(types.Tool, "model_fields", {}) \
            and "output_schema" not in getattr(types.Tool, "model_fields", {}):
        raise MissingSDK(f"rogerwilco mcp needs the MCP SDK {SDK_RANGE}: pip install -U 'rogerwilco[mcp]'")
    return types, Server, stdio_server


def sdk_major() -> int:
    """The installed SDK's major version: 2 has the server's handlers as constructor arguments, 1 has decorators."""
    _sdk()
    try:
        import mcp.server.mcpserver  # noqa: F401 - present from mcp 2 on
    except ImportError:
        return 1
    return 2


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
    # composes what is due from the ledger and records nothing
    "tick": ("What time makes due (session)", True, True),
}


def listed_tools(tools: Mapping[str, Tool], *, strict: bool = False) -> list[Any]:
    """The SDK's Tool objects for ``tools``, with titles and annotations; with ``strict``, the input schemas
    in the strict-compatible form (:func:`rogerwilco.tools.schemas`).

    No listed input schema has ``oneOf``, ``anyOf`` or ``allOf`` at its top level: Anthropic's API (and
    Bedrock and Vertex AI serving its models) refuse a tool whose input schema does. The rule "exactly one
    of ``line`` and ``lines``" (``validate``; ``line`` and ``json`` for ``send``) is said in the tool's
    description and kept by the call, which refuses both or neither with ``ok: false``.

    Built with the wire (camelCase) field names, which both majors of the SDK take.
    """
    types, _, _ = _sdk()
    shapes = schemas(strict=strict, tools=tools)
    out = []
    for t in tools.values():
        title, read_only, idempotent = TOOL_META.get(t.name, (t.name.replace("_", " "), False, False))
        annotations = types.ToolAnnotations(title=title, readOnlyHint=read_only, destructiveHint=False,
                                            idempotentHint=idempotent, openWorldHint=False)
        out.append(types.Tool(name=t.name, title=title, description=t.description, inputSchema=shapes[t.name],
                              outputSchema=dict(t.output_schema), annotations=annotations))
    return out


def build_server(endpoint: Any = None, *, strict: bool = False) -> Any:
    """The low-level SDK server with every tool of :data:`TOOLS`; with an endpoint, its session tools too.

    ``strict`` lists the strict-compatible input schemas, which clients with a strict tool mode take as
    they are (the OpenAI Agents SDK's ``convert_schemas_to_strict``, which falls back to non-strict for the
    plain ones), and passes what they send through :func:`rogerwilco.tools.from_strict`; plain arguments
    are taken as well.

    On SDK 2 the handlers are the server's constructor arguments; on SDK 1 they are registered with its
    decorators (the call handler without the SDK's own input check, so a bad argument gets this package's
    structured ``ok: false`` on both). Either way the answer is the same ``CallToolResult``.
    """
    types, Server, _ = _sdk()
    tools = dict(TOOLS)
    if endpoint is not None:
        tools.update(session_tools(endpoint))
    listed = listed_tools(tools, strict=strict)

    def result_of(name: str, arguments: Any) -> Any:
        if name not in tools:
            raise unknown_tool(name, tools)
        if strict and isinstance(arguments, dict):
            arguments = from_strict(name, arguments, tools)
        result, is_error = call(name, arguments, tools)
        text = json.dumps(result, ensure_ascii=True)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structuredContent=result,
                                    isError=is_error)

    instructions = INSTRUCTIONS if endpoint is None else INSTRUCTIONS + " " + SESSION_INSTRUCTIONS
    if sdk_major() >= 2:
        async def list_tools(ctx: Any, params: Any) -> Any:
            return types.ListToolsResult(tools=listed)

        async def call_tool(ctx: Any, params: Any) -> Any:
            return result_of(params.name, params.arguments)

        return Server(SERVER_NAME, version=__version__, instructions=instructions,
                      on_list_tools=list_tools, on_call_tool=call_tool)

    server = Server(SERVER_NAME, version=__version__, instructions=instructions)

    @server.list_tools()
    async def list_tools_v1() -> list[Any]:
        return listed

    @server.call_tool(validate_input=False)
    async def call_tool_v1(name: str, arguments: Any) -> Any:
        return result_of(name, arguments)

    # SDK 1's call handler turns whatever the tool raises into an isError result; the name is
    # checked ahead of it so that an unknown tool is the protocol error on this major too
    call_handler = server.request_handlers[types.CallToolRequest]

    async def call_known_tool_v1(request: Any) -> Any:
        if request.params.name not in tools:
            raise unknown_tool(request.params.name, tools)
        return await call_handler(request)

    server.request_handlers[types.CallToolRequest] = call_known_tool_v1
    return server


def unknown_tool(name: str, tools: Mapping[str, Tool]) -> Exception:
    """The JSON-RPC error for a call to a tool the server does not list (MCP: invalid params, -32602).

    A tool's own failure is an ``isError`` result the model reads; a name that is not listed is the
    client's mistake, answered as the protocol says, in the exception each SDK major sends as an error.
    """
    types, _, _ = _sdk()
    message = f"Unknown tool: {name} (the tools are {', '.join(sorted(tools))})"
    import mcp.shared.exceptions as exceptions

    if hasattr(exceptions, "MCPError"):  # SDK 2
        return exceptions.MCPError(types.INVALID_PARAMS, message)
    sdk1_error: Any = getattr(exceptions, "McpError")  # noqa: B009 - SDK 1's name, absent from SDK 2's types
    return sdk1_error(types.ErrorData(code=types.INVALID_PARAMS, message=message))


async def serve_stdio(endpoint: Any = None, strict: bool = False) -> None:
    _, _, stdio_server = _sdk()
    server = build_server(endpoint, strict=strict)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve(endpoint: Any = None, *, strict: bool = False) -> int:
    """Serve over stdin/stdout until the client closes the connection (session mode with an endpoint)."""
    _sdk()
    try:
        import anyio
    except ImportError as exc:
        raise MissingSDK("rogerwilco mcp needs the MCP SDK and its anyio: pip install 'rogerwilco[mcp]'") from exc
    anyio.run(serve_stdio, endpoint, strict)
    if sys.stdout is not None and sys.stdout.closed:
        # SDK 1's stdio transport closes the stdout it wrapped when the client goes; the server has said
        # everything, and the command's final flush must not fail on it
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - lives as long as the process
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
            run: Callable[[Mapping[str, Any]], dict[str, Any]], strict_omit: tuple[str, ...] = ()) -> None:
        tools[name] = Tool(name, description, input_schema(inputs, required), output_schema(outputs), run, strict_omit)

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
            failures = [f for f in exc.findings if f.severity == "fail"]
            token = exc.token or None
            if token is None and failures and failures[0].key:  # a check's refusal: the first slot at fault
                first = failures[0]
                token = first.key if first.receiver_value is None else f"{first.key}={first.receiver_value}"
            error = ToolError(exc.kind, exc.message, token=token, why=exc.why if exc.kind == "form" else None,
                              column=exc.column)
            if failures and exc.kind != "form":
                error.error["findings"] = [_finding_json(f) for f in failures]
            raise error from None
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
        "Give exactly one of `line` (the line) or `json` (its JSON form). "
        "`number: true` gives it your next id. Refused (ok: false, error.rule) when the protocol forbids it: "
        "act-before-wilco, act-after-cancel, closed-twice, cancel-wrong-party, hand-written, ... For a handoff, "
        "`expect_acc` (criteria you keep back) and `record` (the approval record) are used to check its "
        "readback and done report.",
        {"line": LINE_SCHEMA, "json": {"type": "object", "description": "the message's JSON form (id may be null "
                                                                  "with number: true)"},
         "number": {"type": "boolean"}, "expect_acc": TOKENS_SCHEMA,
         "record": {"type": "object", "description": "slot: value, as written in a line"}},
        [], {"line": STR_SCHEMA}, send, strict_omit=("json",))
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
