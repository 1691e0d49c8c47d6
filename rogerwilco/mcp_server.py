"""The MCP server: RW1's checks as tools an agent calls (``rogerwilco mcp``).

Theory of operation
-------------------
Agents need readbacks composed by code where they work: the spec's studies
found a model's hand-written readback refused for form far more often than
one composed from the message as delivered (spec 5.3, 10). This module puts
the library behind the Model Context Protocol, stdio transport, through the
official SDK's low-level server, which is imported only when the server is
built, so the core never needs the ``mcp`` extra.

Every tool is one row of :data:`TOOLS`: a name, a description written for
the model that will call it, a JSON Schema for its arguments and one for its
result. Results are structured content (with the same JSON as text for
clients that read only text) and always carry ``ok``:

* ``ok: true``: the tool ran. A refused line or a failing check is a result,
  not an error: ``valid: false`` or ``passed: false`` with findings in the
  conformance shape (``severity kind tier key message``, plus ``why``,
  ``token`` and ``column`` where a line was refused).
* ``ok: false``: the tool could not run on what it was given (an argument of
  the wrong shape, a handoff that does not parse for ``make_rb``, a profile
  the server does not hold). ``error`` names the ``rule`` broken, the
  ``token`` at fault exactly as written, and the ``why`` a refusal would
  carry; the MCP result is flagged ``isError``. Nothing is ever bare text or
  a traceback.

Profiles are the bundled ones by name, or profile objects given inline;
a server never reads a path a caller names. Without ``profiles`` the server
holds every bundled profile.

:func:`call` runs a tool on plain arguments and returns ``(result,
is_error)``; the server is a thin layer over it.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Mapping

import attrs

from . import __version__
from ._lru import RECEIVER_CACHE_SIZE, LRUCache
from .errors import RW1Error
from .findings import FAIL, Finding
from .message import Message
from .semantics import check_line, refusal_for
from .vocab import BUNDLED_PROFILES, Receiver

SERVER_NAME = "rogerwilco"

INSTRUCTIONS = (
    "RW1 tools. Messages between agents are one-line RW1 messages. When you receive a handoff (HO), "
    "do not write the readback (RB) yourself: call make_rb with the HO exactly as delivered, then send "
    "the line it returns. A sender checks a readback with check_rb, a handoff against its record with "
    "check_ho before sending, and a done report (DN) with check_dn. Use validate on any line you are "
    "unsure of, and reply UN why=UNK to a line it refuses: never guess. The legend tool gives the "
    "vocabulary for a prompt."
)


class ToolError(Exception):
    """A tool could not run: carried back as ``ok: false`` with ``error``."""

    def __init__(self, rule: str, message: str, *, token: str | None = None, why: str | None = None,
                 column: int | None = None, argument: str | None = None) -> None:
        super().__init__(message)
        self.error: dict[str, Any] = {"rule": rule, "message": message, "token": token, "why": why}
        if column is not None:
            self.error["column"] = column
        if argument is not None:
            self.error["argument"] = argument


# --------------------------------------------------------------------------
# schemas

_STR = {"type": "string"}
_LINE = {"type": "string", "description": "one RW1 line, exactly as sent (no line terminator)"}
_NULLABLE_STR = {"type": ["string", "null"]}
_TOKENS = {"type": ["string", "array"], "items": {"type": "string"},
           "description": "tokens joined with + as in a line (len:120w+tone:plain), or a list of tokens"}
_PROFILES = {
    "type": "array",
    "description": "profiles the receiver holds: bundled names (" + ", ".join(BUNDLED_PROFILES)
                   + ") or profile objects; default: every bundled profile",
    "items": {"anyOf": [{"type": "string", "enum": list(BUNDLED_PROFILES)}, {"type": "object"}]},
}

FINDING_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "severity": {"type": "string", "enum": ["fail", "note"]},
        "kind": _STR,
        "tier": {"type": ["integer", "null"]},
        "key": _NULLABLE_STR,
        "message": _STR,
        "token": _STR,
        "column": {"type": "integer"},
        "why": _STR,
        "sender": {"type": "string", "description": "the sender's value, as written"},
        "receiver": {"type": "string", "description": "the receiver's value, as written"},
    },
    "required": ["severity", "kind", "tier", "key", "message"],
}

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "why the tool could not run: the rule broken and the token at fault",
    "properties": {
        "rule": _STR,
        "message": _STR,
        "token": _NULLABLE_STR,
        "why": _NULLABLE_STR,
        "column": {"type": "integer"},
        "argument": _STR,
    },
    "required": ["rule", "message", "token", "why"],
}

_FINDINGS = {"type": "array", "items": FINDING_SCHEMA}


def _input(properties: dict[str, Any], required: list[str], **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False, **extra}


def _output(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"ok": {"type": "boolean"}, "error": ERROR_SCHEMA, **properties},
        "required": ["ok"],
    }


# --------------------------------------------------------------------------
# helpers

_receivers: LRUCache[Receiver] = LRUCache(RECEIVER_CACHE_SIZE)


def _receiver(args: Mapping[str, Any]) -> Receiver:
    profiles = args.get("profiles")
    if profiles is None:
        profiles = list(BUNDLED_PROFILES)
    for i, entry in enumerate(profiles):
        if isinstance(entry, str) and entry not in BUNDLED_PROFILES:
            raise ToolError("profile", f"{entry} is not a bundled profile ({', '.join(BUNDLED_PROFILES)}); "
                            "give any other profile as an object", token=entry, argument=f"profiles[{i}]")

    def make() -> Receiver:
        try:
            return Receiver(profiles)
        except RW1Error as exc:
            raise ToolError("profile", str(exc), token=exc.token or None, argument="profiles") from None

    return _receivers.get(_receivers.key(profiles), make)


def _finding(f: Finding) -> dict[str, Any]:
    """The contract's shape, plus the two sides' values where a check compared them."""
    out = f.to_json()
    for side in ("sender", "receiver"):
        value = getattr(f, side)
        if value is not None:
            out[side] = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return out


def _label(argument: str) -> str:
    return "the line" if argument == "line" else f"the {argument} line"


def _refused_line(text: str, receiver: Receiver, argument: str) -> Finding | None:
    """The first refusal of a line argument, as a ``form`` finding with its token."""
    result = check_line(text, receiver)
    if result.message is not None:
        return None
    first = result.refusal
    assert first is not None
    return Finding(severity=FAIL, kind="form", message=f"{_label(argument)} is refused: {first.message}",
                   token=first.token or "", why=first.why or "UNK", column=first.column)


def _message_or_error(text: str, receiver: Receiver, argument: str) -> Message:
    result = check_line(text, receiver)
    if result.message is not None:
        return result.message
    first = result.refusal
    assert first is not None
    raise ToolError(first.kind, f"{_label(argument)} is refused: {first.message}", token=first.token or "",
                    why=first.why or "UNK", column=first.column, argument=argument)


def _report(report: Any) -> dict[str, Any]:
    return {"passed": bool(report.passed), "findings": [_finding(f) for f in report.findings]}


def _check_with_lines(args: Mapping[str, Any], names: tuple[str, ...]) -> tuple[Receiver, list[Finding]]:
    receiver = _receiver(args)
    problems = [p for n in names if isinstance(args.get(n), str)
                for p in [_refused_line(args[n], receiver, n)] if p is not None]
    return receiver, problems


# --------------------------------------------------------------------------
# the tools


def tool_validate(args: Mapping[str, Any]) -> dict[str, Any]:
    if ("line" in args) == ("lines" in args):
        raise ToolError("arguments", "give exactly one of line (one line) or lines (a list)", token="line",
                        argument="line")
    lines = [args["line"]] if "line" in args else list(args["lines"])
    receiver = _receiver(args)
    reply_as, n = args.get("reply_as"), args.get("n")
    if (reply_as is None) != (n is None):
        raise ToolError("arguments", "reply_as and n go together", token="reply_as" if n is not None else "n",
                        argument="reply_as" if n is not None else "n")
    results = []
    next_n = n
    for index, text in enumerate(lines):
        result = check_line(text, receiver)
        entry: dict[str, Any] = {
            "index": index,
            "valid": result.message is not None,
            "findings": [_finding(f) for f in result.findings],
            "json": result.message.to_json() if result.message is not None else None,
        }
        if reply_as is not None:
            try:
                reply = refusal_for(result, reply_as, next_n) if result.message is None else None
            except ValueError as exc:
                raise ToolError("arguments", str(exc), token=str(reply_as), argument="reply_as") from None
            entry["reply"] = reply
            if reply is not None:
                next_n += 1
        results.append(entry)
    return {"valid": all(r["valid"] for r in results), "results": results}


def tool_digest(args: Mapping[str, Any]) -> dict[str, Any]:
    message = _message_or_error(args["line"], _receiver(args), "line")
    return {"h": message.digest(), "id": message.id, "type": message.type, "canonical": message.canonical()}


def tool_make_rb(args: Mapping[str, Any]) -> dict[str, Any]:
    from .readback import make_rb

    receiver = _receiver(args)
    ho = _message_or_error(args["ho"], receiver, "ho")
    if ho.type != "HO":
        raise ToolError("form", f"ho is a {ho.type}, not an HO", token=ho.type, why="UNK", argument="ho")
    try:
        rb = make_rb(ho, args["n"], profiles=receiver, acc=args.get("acc"), do=args.get("do"),
                     not_=args.get("not"), asm=args.get("asm"), eta=args.get("eta"), values=args.get("values"),
                     digest=args.get("digest", True))
    except RW1Error as exc:
        raise ToolError("make-rb", exc.message, token=exc.token or None, why=exc.why) from None
    return {"line": rb.to_line(), "json": rb.to_json(), "h": rb.slots.get("h")}


def tool_check_rb(args: Mapping[str, Any]) -> dict[str, Any]:
    from .readback import TIERS, check_rb

    receiver, problems = _check_with_lines(args, ("ho", "rb"))
    if problems:
        return {"passed": False, "findings": [_finding(p) for p in problems], "tiers": []}
    report = check_rb(args["ho"], args["rb"], profiles=receiver, expect_acc=args.get("expect_acc"),
                      record=args.get("record"))
    out = _report(report)
    out["tiers"] = [{"tier": t, "name": TIERS[t], "status": report.tiers.get(t, "not checked")} for t in sorted(TIERS)]
    return out


def tool_check_ho(args: Mapping[str, Any]) -> dict[str, Any]:
    from .readback import check_ho

    receiver, problems = _check_with_lines(args, ("line", "record"))
    if problems:
        return {"passed": False, "findings": [_finding(p) for p in problems]}
    return _report(check_ho(args["line"], args["record"], profiles=receiver, relay_adds=args.get("relay_adds")))


def tool_check_dn(args: Mapping[str, Any]) -> dict[str, Any]:
    from .readback import check_dn

    receiver, problems = _check_with_lines(args, ("ho", "dn", "rb"))
    if problems:
        return {"passed": False, "findings": [_finding(p) for p in problems]}
    return _report(check_dn(args["ho"], args["dn"], args.get("rb"), profiles=receiver, record=args.get("record")))


def tool_check_thread(args: Mapping[str, Any]) -> dict[str, Any]:
    from .thread import check_thread, parse_now

    receiver = _receiver(args)
    now = args.get("now")
    if now is not None:
        try:
            parse_now(now)
        except ValueError as exc:
            raise ToolError("arguments", str(exc), token=now, argument="now") from None
    report = check_thread(list(args["lines"]), now=now, profiles=receiver)
    return {**_report(report), "ledger": report.ledger.to_json()}


def tool_legend(args: Mapping[str, Any]) -> dict[str, Any]:
    from .legend import legend

    name = args.get("profile")
    if name is None:
        vocab = Receiver(()).vocabulary(None)
    else:
        vocab = _receiver({"profiles": [name]}).vocabulary(name)
    lean = bool(args.get("lean", False))
    fmt = args.get("format", "text")
    return {"profile": name, "lean": lean, "format": fmt, "text": legend(vocab, lean=lean, fmt=fmt)}


@attrs.frozen
class Tool:
    name: str
    description: str
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any]
    run: Callable[[Mapping[str, Any]], dict[str, Any]]


TOOLS: dict[str, Tool] = {}


def _tool(name: str, description: str, inputs: dict[str, Any], required: list[str], outputs: dict[str, Any],
          run: Callable[[Mapping[str, Any]], dict[str, Any]]) -> None:
    TOOLS[name] = Tool(name, description, _input(inputs, required), _output(outputs), run)


_tool(
    "validate",
    "Check RW1 lines against the grammar and the vocabulary (never guess: an unknown code is refused). "
    "Give `line` for one line or `lines` for several; each result has the findings, and the JSON form "
    "when valid. With `reply_as` and `n`, each refused line also gets the UN reply to send.",
    {"line": _LINE, "lines": {"type": "array", "items": _STR, "description": "several lines, each checked alone"},
     "profiles": _PROFILES, "reply_as": {"type": "string", "description": "your agent name, to compose UN replies"},
     "n": {"type": "integer", "minimum": 0, "description": "the message number of the first reply"}},
    [],
    {"valid": {"type": "boolean", "description": "every line is valid"},
     "results": {"type": "array", "items": {"type": "object", "properties": {
         "index": {"type": "integer"}, "valid": {"type": "boolean"}, "findings": _FINDINGS,
         "json": {"type": ["object", "null"]}, "reply": _NULLABLE_STR},
         "required": ["index", "valid", "findings", "json"]}}},
    tool_validate,
)
_tool(
    "digest",
    "The h= digest of a line: the first 12 hex digits of SHA-256 of its canonical JSON form. "
    "A readback carries the handoff's digest to prove the bytes arrived intact.",
    {"line": _LINE, "profiles": _PROFILES},
    ["line"],
    {"h": _STR, "id": _STR, "type": _STR, "canonical": _STR},
    tool_digest,
)
_tool(
    "make_rb",
    "Compose the readback (RB) for a handoff (HO) you received, by code, from the HO exactly as delivered. "
    "Send the returned line unchanged. Give `n` (your next message number); under rb=acc or rb=plan give "
    "your acceptance criteria `acc` (and `do` for plan); under rb=exec give in `values` the execution "
    "values you resolved yourself that the HO does not carry.",
    {"ho": _LINE, "n": {"type": "integer", "minimum": 0, "description": "your next message number"},
     "profiles": _PROFILES, "acc": _TOKENS, "do": _STR, "not": _TOKENS, "asm": _TOKENS,
     "eta": {"type": "string", "description": "expected completion, YYYYMMDD"},
     "values": {"type": "object", "description": "resolved execution values, slot: value as written"},
     "digest": {"type": "boolean", "description": "carry h= (default true)"}},
    ["ho", "n"],
    {"line": _STR, "json": {"type": "object"}, "h": _NULLABLE_STR},
    tool_make_rb,
)
_tool(
    "check_rb",
    "The sender's check of a readback against its handoff, tier by tier: 1 receipt, 2 integrity (h=), "
    "3 echo, 4 comprehension (acc=), 5 execution. Ownership transfers only when `passed` is true. "
    "`expect_acc` holds the criteria you kept to yourself; `record` the values your record holds for "
    "slots the HO left to the receiver.",
    {"ho": _LINE, "rb": _LINE, "profiles": _PROFILES, "expect_acc": _TOKENS,
     "record": {"type": "object", "description": "slot: value, as written in a line"}},
    ["ho", "rb"],
    {"passed": {"type": "boolean"}, "findings": _FINDINGS,
     "tiers": {"type": "array", "items": {"type": "object", "properties": {
         "tier": {"type": "integer"}, "name": _STR, "status": _STR}, "required": ["tier", "name", "status"]}}},
    tool_check_rb,
)
_tool(
    "check_ho",
    "Check a handoff against the approval record before sending it: every value the record holds must "
    "be in the line and equal, and an ask with execution slots must ask rb=exec. A relay gives the HO it "
    "received as `record` and the slots its role adds as `relay_adds`.",
    {"line": _LINE, "record": {"type": ["object", "string"],
                               "description": "slot: value as written, or the HO line a relay received"},
     "profiles": _PROFILES, "relay_adds": {"type": "array", "items": _STR}},
    ["line", "record"],
    {"passed": {"type": "boolean"}, "findings": _FINDINGS},
    tool_check_ho,
)
_tool(
    "check_dn",
    "Check a done report (DN) against the plan: it answers the HO, and every execution value as executed "
    "equals the HO's, or the passing readback's where the HO left it to the receiver. Give the RB when "
    "the receiver resolved values, and `record` (the values your record holds) so a readback your record "
    "voids approves nothing.",
    {"ho": _LINE, "dn": _LINE, "rb": _LINE, "profiles": _PROFILES,
     "record": {"type": "object", "description": "slot: value, as written in a line"}},
    ["ho", "dn"],
    {"passed": {"type": "boolean"}, "findings": _FINDINGS},
    tool_check_dn,
)
_tool(
    "check_thread",
    "Check a conversation, lines in the order they were sent: every handoff closes exactly once (DN, UN, FL "
    "or CX), nothing acts after a cancel, a cancel comes from the right party, nothing is left open past its "
    "exp= or due=. The ledger says each handoff's state and who owns each item now.",
    {"lines": {"type": "array", "items": _STR, "description": "the conversation's lines, in the order sent"},
     "now": {"type": "string", "description": "when the thread is read, YYYYMMDDTHHMMZ UTC (default: the clock)"},
     "profiles": _PROFILES},
    ["lines"],
    {"passed": {"type": "boolean"}, "findings": _FINDINGS,
     "ledger": {"type": "object", "properties": {
         "items": {"type": "array", "items": {"type": "object"}},
         "handoffs": {"type": "array", "items": {"type": "object"}}}}},
    tool_check_thread,
)
_tool(
    "legend",
    "The legend a model needs to read and write RW1, generated from the vocabulary: the core, or the core "
    "plus one profile. `lean` drops the comprehension readback and unused asks, for teams that use envelope "
    "echo only.",
    {"profile": {"type": "string", "enum": list(BUNDLED_PROFILES)}, "lean": {"type": "boolean"},
     "format": {"type": "string", "enum": ["text", "md"]}},
    [],
    {"profile": _NULLABLE_STR, "lean": {"type": "boolean"}, "format": _STR, "text": _STR},
    tool_legend,
)


# --------------------------------------------------------------------------
# calling


def _argument_error(tool: Tool, arguments: Any) -> ToolError | None:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    error = best_match(Draft202012Validator(tool.input_schema).iter_errors(arguments))
    if error is None:
        return None
    path = ".".join(str(p) for p in error.absolute_path)
    if error.validator == "additionalProperties":
        extra = sorted(set(arguments) - set(tool.input_schema["properties"]))
        path = extra[0] if extra else path
    elif error.validator == "required":
        missing = [k for k in tool.input_schema["required"] if k not in arguments]
        path = missing[0] if missing else path
    return ToolError("arguments", f"{tool.name}: {error.message}", token=path or None, argument=path or None)


def call(name: str, arguments: Mapping[str, Any] | None,
         tools: Mapping[str, Tool] | None = None) -> tuple[dict[str, Any], bool]:
    """Run a tool (of :data:`TOOLS`, or of ``tools``): ``(structured result, is_error)``. Never raises."""
    tools = TOOLS if tools is None else tools
    tool = tools.get(name)
    if tool is None:
        error = ToolError("unknown-tool", f"no tool named {name}; the tools are {', '.join(tools)}", token=name)
        return {"ok": False, "error": error.error}, True
    args = dict(arguments or {})
    try:
        problem = _argument_error(tool, args)
        if problem is not None:
            raise problem
        return {"ok": True, **tool.run(args)}, False
    except ToolError as exc:
        return {"ok": False, "error": exc.error}, True
    except RW1Error as exc:
        return {"ok": False, "error": ToolError(exc.findings[0].kind if exc.findings else type(exc).__name__,
                                                exc.message, token=exc.token or None, why=exc.why,
                                                column=exc.column).error}, True
    except Exception as exc:  # noqa: BLE001 - the contract: a structured result, never a traceback
        return {"ok": False, "error": ToolError("internal", f"{type(exc).__name__}: {exc}").error}, True


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
    from .endpoint import ProtocolError, event_to_json, replies

    tools: dict[str, Tool] = {}
    events_schema = {"type": "array", "items": {"type": "object"}}

    def add(name: str, description: str, inputs: dict[str, Any], required: list[str], outputs: dict[str, Any],
            run: Callable[[Mapping[str, Any]], dict[str, Any]]) -> None:
        tools[name] = Tool(name, description, _input(inputs, required), _output(outputs), run)

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
        from .thread import parse_now

        try:
            now = parse_now(args.get("now"))
        except ValueError as exc:
            raise ToolError("arguments", str(exc), token=args.get("now"), argument="now") from None
        return {"events": [event_to_json(e, endpoint) for e in endpoint.tick(now)]}

    add("receive", "Take one RW1 line you received. Returns the events it means for you (a handoff offered, with "
        "the readback composed by code; a question; a readback of your handoff that passed or is void; a done "
        "report checked against the plan; a cancel with what to abandon and the answer) and `replies`: lines "
        "to deliver as they are (UN why=UNK|VER|DUP). Never fails on a bad line.",
        {"line": _LINE}, ["line"], {"events": events_schema, "replies": {"type": "array", "items": _STR}}, receive)
    add("send", "Check a line you want to send against the protocol and record it; send only the returned line. "
        "`number: true` gives it your next id. Refused (ok: false, error.rule) when the protocol forbids it: "
        "act-before-wilco, act-after-cancel, closed-twice, cancel-wrong-party, hand-written, ... For a handoff, "
        "`expect_acc` (criteria you keep back) and `record` (the approval record) are used to check its "
        "readback and done report.",
        {"line": _LINE, "json": {"type": "object", "description": "the message's JSON form (id may be null "
                                                                  "with number: true)"},
         "number": {"type": "boolean"}, "expect_acc": _TOKENS,
         "record": {"type": "object", "description": "slot: value, as written in a line"}},
        [], {"line": _STR}, send)
    add("owner", "Who owns an item now: the receiver of the latest handoff whose readback passed.",
        {"item": _STR}, ["item"], {"item": _STR, "owner": _NULLABLE_STR}, owner)
    add("open_handoffs", "Your handoffs, sent or received, that no DN, UN, FL or CX has closed.",
        {}, [], {"handoffs": events_schema}, open_handoffs)
    add("may_act", "Whether you may act on a handoff now: you received it, its readback passed (and, under "
        "rb=exec, AN val=Y came), nobody closed or cancelled it, and the item is still yours.",
        {"ho": _STR}, ["ho"], {"ho": _STR, "may_act": {"type": "boolean"}, "handoff": {"type": ["object", "null"]}},
        may_act)
    add("pending_questions", "Questions (AQ) to you that you have not answered.", {}, [],
        {"questions": {"type": "array", "items": _STR}}, pending_questions)
    add("tick", "What time makes due on your handoffs: open past exp= or due= (with the CX to send), readbacks "
        "overdue (with the re-send). `now` is YYYYMMDDTHHMMZ (default: the clock).",
        {"now": _STR}, [], {"events": events_schema}, tick)
    return tools
