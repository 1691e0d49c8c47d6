"""The RW1 tools: the table every agent-facing layer serves, and a transport-free :func:`call`.

Theory of operation
-------------------
Every tool is one row of :data:`TOOLS`: a name, a description written for
the model that will call it, a JSON Schema for its arguments and one for its
result. The MCP server (:mod:`rogerwilco.front.mcp_server`) and the framework
integrations (:mod:`rogerwilco.front.integrations`) are thin layers over this
module; it needs nothing outside the core.

Results always carry ``ok``:

* ``ok: true``: the tool ran. A refused line or a failing check is a result,
  not an error: ``valid: false`` or ``passed: false`` with findings in the
  conformance shape (``severity kind tier key message``, plus ``why``,
  ``token`` and ``column`` where a line was refused).
* ``ok: false``: the tool could not run on what it was given (an argument of
  the wrong shape, a handoff that does not parse for ``make_rb``, a profile
  the server does not hold). ``error`` names the ``rule`` broken, the
  ``token`` at fault exactly as written, and the ``why`` a refusal would
  carry. Nothing is ever bare text or a traceback.

Profiles are the bundled ones by name, or profile objects given inline;
a tool never reads a path a caller names. Without ``profiles`` a tool uses
every bundled profile.

:func:`call` runs a tool on plain arguments and returns ``(result,
is_error)``; it checks the arguments against the tool's input schema with
:func:`check_arguments`, the core's JSON Schema checker in JSON Schema's own reading of
``integer`` (``2.0`` is one, and the tool gets ``2``).
:func:`schemas` gives the table's schemas, and with ``strict=True`` the
strict-compatible form (closed objects, every property required, no union
``type``), with :func:`from_strict` turning strict arguments back into the
plain ones.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Mapping

import attrs

from ..core._lru import RECEIVER_CACHE_SIZE, LRUCache
from ..core.errors import RW1Error
from ..core.findings import Finding, fail
from ..core.message import Message
from ..core.schemacheck import Checker
from ..core.semantics import check_line, refusal_for
from ..core.vocab import BUNDLED_PROFILES, Receiver

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

STR_SCHEMA = {"type": "string"}
LINE_SCHEMA = {"type": "string", "description": "one RW1 line, exactly as sent (no line terminator)"}
NULLABLE_STR_SCHEMA = {"type": ["string", "null"]}
TOKENS_SCHEMA = {"type": ["string", "array"], "items": {"type": "string"},
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
        "kind": STR_SCHEMA,
        "tier": {"type": ["integer", "null"]},
        "key": NULLABLE_STR_SCHEMA,
        "message": STR_SCHEMA,
        "token": STR_SCHEMA,
        "column": {"type": "integer"},
        "why": STR_SCHEMA,
        "sender": {"type": "string", "description": "the sender's value, as written"},
        "receiver": {"type": "string", "description": "the receiver's value, as written"},
    },
    "required": ["severity", "kind", "tier", "key", "message"],
}

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "why the tool could not run: the rule broken and the token at fault",
    "properties": {
        "rule": STR_SCHEMA,
        "message": STR_SCHEMA,
        "token": NULLABLE_STR_SCHEMA,
        "why": NULLABLE_STR_SCHEMA,
        "column": {"type": "integer"},
        "argument": STR_SCHEMA,
    },
    "required": ["rule", "message", "token", "why"],
}

_FINDINGS = {"type": "array", "items": FINDING_SCHEMA}


def input_schema(properties: dict[str, Any], required: list[str], **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False, **extra}


def output_schema(properties: dict[str, Any]) -> dict[str, Any]:
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
            return Receiver.load(profiles)
        except RW1Error as exc:
            raise ToolError("profile", str(exc), token=exc.token or None, argument="profiles") from None

    return _receivers.get(_receivers.key(profiles), make)


def finding_to_json(f: Finding) -> dict[str, Any]:
    """The contract's shape, plus the two sides' values where a check compared them."""
    out = f.to_json()
    for side, value in (("sender", f.sender_value), ("receiver", f.receiver_value)):
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
    return fail(kind="form", message=f"{_label(argument)} is refused: {first.message}",
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
    return {"passed": bool(report.passed), "findings": [finding_to_json(f) for f in report.findings]}


def _check_with_lines(args: Mapping[str, Any], names: tuple[str, ...]) -> tuple[Receiver, list[Finding]]:
    receiver = _receiver(args)
    problems = [p for n in names if isinstance(args.get(n), str)
                for p in [_refused_line(args[n], receiver, n)] if p is not None]
    return receiver, problems


# --------------------------------------------------------------------------
# the tools


def _tool_validate(args: Mapping[str, Any]) -> dict[str, Any]:
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
            "findings": [finding_to_json(f) for f in result.findings],
            "json": result.message.to_json() if result.message is not None else None,
        }
        if reply_as is not None and next_n is not None:  # given together or not at all
            try:
                reply = refusal_for(result, reply_as, next_n) if result.message is None else None
            except ValueError as exc:
                raise ToolError("arguments", str(exc), token=str(reply_as), argument="reply_as") from None
            entry["reply"] = reply
            if reply is not None:
                next_n += 1
        results.append(entry)
    return {"valid": all(r["valid"] for r in results), "results": results}


def _tool_digest(args: Mapping[str, Any]) -> dict[str, Any]:
    message = _message_or_error(args["line"], _receiver(args), "line")
    return {"h": message.digest(), "id": message.id, "type": message.type, "canonical": message.canonical()}


def _tool_make_rb(args: Mapping[str, Any]) -> dict[str, Any]:
    from ..checks.readback import make_rb

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


def _tool_check_rb(args: Mapping[str, Any]) -> dict[str, Any]:
    from ..checks.readback import TIERS, check_rb

    receiver, problems = _check_with_lines(args, ("ho", "rb"))
    if problems:
        return {"passed": False, "findings": [finding_to_json(p) for p in problems], "tiers": []}
    report = check_rb(args["ho"], args["rb"], profiles=receiver, expect_acc=args.get("expect_acc"),
                      record=args.get("record"))
    out = _report(report)
    out["tiers"] = [{"tier": t, "name": TIERS[t], "status": report.tiers.get(t, "not checked")} for t in sorted(TIERS)]
    return out


def _tool_check_ho(args: Mapping[str, Any]) -> dict[str, Any]:
    from ..checks.readback import check_ho

    receiver, problems = _check_with_lines(args, ("line", "record"))
    if problems:
        return {"passed": False, "findings": [finding_to_json(p) for p in problems]}
    return _report(check_ho(args["line"], args["record"], profiles=receiver, relay_adds=args.get("relay_adds")))


def _tool_check_dn(args: Mapping[str, Any]) -> dict[str, Any]:
    from ..checks.readback import check_dn

    receiver, problems = _check_with_lines(args, ("ho", "dn", "rb"))
    if problems:
        return {"passed": False, "findings": [finding_to_json(p) for p in problems]}
    return _report(check_dn(args["ho"], args["dn"], args.get("rb"), profiles=receiver, record=args.get("record")))


def _tool_check_thread(args: Mapping[str, Any]) -> dict[str, Any]:
    from ..checks.thread import check_thread, parse_now

    receiver = _receiver(args)
    now = args.get("now")
    if now is not None:
        try:
            parse_now(now)
        except ValueError as exc:
            raise ToolError("arguments", str(exc), token=now, argument="now") from None
    report = check_thread(list(args["lines"]), now=now, profiles=receiver)
    return {**_report(report), "ledger": report.ledger.to_json()}


def _tool_legend(args: Mapping[str, Any]) -> dict[str, Any]:
    from ..core.legend import legend

    name = args.get("profile")
    if name is None:
        vocab = Receiver().vocabulary(None)
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
    #: arguments left out of the strict form: they have no strict shape (a message's JSON form, whose
    #: ``slots`` is an object of any keys) and the tool takes the same thing another way (``line``)
    strict_omit: tuple[str, ...] = ()


TOOLS: dict[str, Tool] = {}


def _tool(name: str, description: str, inputs: dict[str, Any], required: list[str], outputs: dict[str, Any],
          run: Callable[[Mapping[str, Any]], dict[str, Any]]) -> None:
    TOOLS[name] = Tool(name, description, input_schema(inputs, required), output_schema(outputs), run)


_tool(
    "validate",
    "Check RW1 lines against the grammar and the vocabulary (never guess: an unknown code is refused). "
    "Give `line` for one line or `lines` for several; each result has the findings, and the JSON form "
    "when valid. With `reply_as` and `n`, each refused line also gets the UN reply to send.",
    {"line": LINE_SCHEMA, "lines": {"type": "array", "items": STR_SCHEMA, "description": "several lines, each checked alone"},
     "profiles": _PROFILES, "reply_as": {"type": "string", "description": "your agent name, to compose UN replies"},
     "n": {"type": "integer", "minimum": 0, "description": "the message number of the first reply"}},
    [],
    {"valid": {"type": "boolean", "description": "every line is valid"},
     "results": {"type": "array", "items": {"type": "object", "properties": {
         "index": {"type": "integer"}, "valid": {"type": "boolean"}, "findings": _FINDINGS,
         "json": {"type": ["object", "null"]}, "reply": NULLABLE_STR_SCHEMA},
         "required": ["index", "valid", "findings", "json"]}}},
    _tool_validate,
)
_tool(
    "digest",
    "The h= digest of a line: the first 12 hex digits of SHA-256 of its canonical JSON form. "
    "A readback carries the handoff's digest to prove the bytes arrived intact.",
    {"line": LINE_SCHEMA, "profiles": _PROFILES},
    ["line"],
    {"h": STR_SCHEMA, "id": STR_SCHEMA, "type": STR_SCHEMA, "canonical": STR_SCHEMA},
    _tool_digest,
)
_tool(
    "make_rb",
    "Compose the readback (RB) for a handoff (HO) you received, by code, from the HO exactly as delivered. "
    "Send the returned line unchanged. Give `n` (your next message number); under rb=acc or rb=plan give "
    "your acceptance criteria `acc` (and `do` for plan); under rb=exec give in `values` the execution "
    "values you resolved yourself that the HO does not carry.",
    {"ho": LINE_SCHEMA, "n": {"type": "integer", "minimum": 0, "description": "your next message number"},
     "profiles": _PROFILES, "acc": TOKENS_SCHEMA, "do": STR_SCHEMA, "not": TOKENS_SCHEMA, "asm": TOKENS_SCHEMA,
     "eta": {"type": "string", "description": "expected completion, YYYYMMDD"},
     "values": {"type": "object", "description": "resolved execution values, slot: value as written"},
     "digest": {"type": "boolean", "description": "carry h= (default true)"}},
    ["ho", "n"],
    {"line": STR_SCHEMA, "json": {"type": "object"}, "h": NULLABLE_STR_SCHEMA},
    _tool_make_rb,
)
_tool(
    "check_rb",
    "The sender's check of a readback against its handoff, tier by tier: 1 receipt, 2 integrity (h=), "
    "3 echo, 4 comprehension (acc=), 5 execution. Ownership transfers only when `passed` is true. "
    "`expect_acc` holds the criteria you kept to yourself; `record` the values your record holds for "
    "slots the HO left to the receiver.",
    {"ho": LINE_SCHEMA, "rb": LINE_SCHEMA, "profiles": _PROFILES, "expect_acc": TOKENS_SCHEMA,
     "record": {"type": "object", "description": "slot: value, as written in a line"}},
    ["ho", "rb"],
    {"passed": {"type": "boolean"}, "findings": _FINDINGS,
     "tiers": {"type": "array", "items": {"type": "object", "properties": {
         "tier": {"type": "integer"}, "name": STR_SCHEMA, "status": STR_SCHEMA}, "required": ["tier", "name", "status"]}}},
    _tool_check_rb,
)
_tool(
    "check_ho",
    "Check a handoff against the approval record before sending it: every value the record holds must "
    "be in the line and equal, and an ask with execution slots must ask rb=exec. A relay gives the HO it "
    "received as `record` and the slots its role adds as `relay_adds`.",
    {"line": LINE_SCHEMA, "record": {"type": ["object", "string"],
                               "description": "slot: value as written, or the HO line a relay received"},
     "profiles": _PROFILES, "relay_adds": {"type": "array", "items": STR_SCHEMA}},
    ["line", "record"],
    {"passed": {"type": "boolean"}, "findings": _FINDINGS},
    _tool_check_ho,
)
_tool(
    "check_dn",
    "Check a done report (DN) against the plan: it answers the HO, and every execution value as executed "
    "equals the HO's, or the passing readback's where the HO left it to the receiver. Give the RB when "
    "the receiver resolved values, and `record` (the values your record holds) so a readback your record "
    "voids approves nothing.",
    {"ho": LINE_SCHEMA, "dn": LINE_SCHEMA, "rb": LINE_SCHEMA, "profiles": _PROFILES,
     "record": {"type": "object", "description": "slot: value, as written in a line"}},
    ["ho", "dn"],
    {"passed": {"type": "boolean"}, "findings": _FINDINGS},
    _tool_check_dn,
)
_tool(
    "check_thread",
    "Check a conversation, lines in the order they were sent: every handoff closes exactly once (DN, UN, FL "
    "or CX), nothing acts after a cancel, a cancel comes from the right party, nothing is left open past its "
    "exp= or due=. The ledger says each handoff's state and who owns each item now.",
    {"lines": {"type": "array", "items": STR_SCHEMA, "description": "the conversation's lines, in the order sent"},
     "now": {"type": "string", "description": "when the thread is read, YYYYMMDDTHHMMZ UTC (default: the clock)"},
     "profiles": _PROFILES},
    ["lines"],
    {"passed": {"type": "boolean"}, "findings": _FINDINGS,
     "ledger": {"type": "object", "properties": {
         "items": {"type": "array", "items": {"type": "object"}},
         "handoffs": {"type": "array", "items": {"type": "object"}}}}},
    _tool_check_thread,
)
_tool(
    "legend",
    "The legend a model needs to read and write RW1, generated from the vocabulary: the core, or the core "
    "plus one profile. `lean` drops the comprehension readback and unused asks, for teams that use envelope "
    "echo only.",
    {"profile": {"type": "string", "enum": list(BUNDLED_PROFILES)}, "lean": {"type": "boolean"},
     "format": {"type": "string", "enum": ["text", "md"]}},
    [],
    {"profile": NULLABLE_STR_SCHEMA, "lean": {"type": "boolean"}, "format": STR_SCHEMA, "text": STR_SCHEMA},
    _tool_legend,
)


# --------------------------------------------------------------------------
# calling


def retry_message(error: Mapping[str, Any]) -> str:
    """The text a model gets back for a tool that could not run: rule, message, token and why, and what to do."""
    parts = [f"{error.get('rule')}: {error.get('message')}"]
    if error.get("token"):
        parts.append(f"token at fault: {error['token']}")
    if error.get("why"):
        parts.append(f"why={error['why']}")
    if error.get("argument"):
        parts.append(f"argument: {error['argument']}")
    return "; ".join(parts) + ". Correct it and call the tool again; never write an RB yourself."


def check_arguments(schema: Mapping[str, Any], value: Any,
                    path: tuple[Any, ...] = ()) -> tuple[str, str] | None:
    """The first way ``value`` breaks ``schema``, as ``(path, message)``, or ``None``.

    The core's JSON Schema checker (:mod:`rogerwilco.core.schemacheck`), so that :func:`call` needs nothing
    outside the core, in JSON Schema's own reading of ``integer`` (``2.0`` is one: a client's numbers may be
    doubles). The path is the argument's, dotted (``profiles.1``). A schema with a keyword the checker does not
    cover is a programming error (:class:`~rogerwilco.core.schemacheck.SchemaError`), never a silent pass.
    """
    fault = next(Checker(schema, integral_floats=True).faults(value, path=path), None)
    if fault is None:
        return None
    at, message = fault
    return ".".join(str(p) for p in at), message


def _integers(tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments with an integral double in an ``integer`` argument read as the integer (``2.0`` is 2)."""
    properties = tool.input_schema.get("properties", {})
    return {key: int(value) if isinstance(value, float) and "integer" in _types(properties.get(key, {}))
            else value for key, value in arguments.items()}


def _argument_error(tool: Tool, arguments: Any) -> ToolError | None:
    problem = check_arguments(tool.input_schema, arguments)
    if problem is None:
        return None
    path, message = problem
    return ToolError("arguments", f"{tool.name}: {message}", token=path or None, argument=path or None)


# --------------------------------------------------------------------------
# strict-compatible schemas

_PAIRS = {
    "type": "array",
    "description": "slot: value pairs, each value as written in a line",
    "items": {"type": "object", "properties": {"slot": STR_SCHEMA, "value": STR_SCHEMA}, "required": ["slot", "value"],
              "additionalProperties": False},
}


def _types(schema: Mapping[str, Any]) -> list[str]:
    t = schema.get("type", [])
    return list(t) if isinstance(t, list) else [t]


def _strict(schema: Mapping[str, Any]) -> dict[str, Any]:
    """One schema in the strict-compatible form (see :func:`schemas`)."""
    described = {"description": schema["description"]} if "description" in schema else {}
    if "anyOf" in schema:
        named = [o for o in schema["anyOf"] if "enum" in o]
        if named and all(_types(o) in (["string"], ["object"]) for o in schema["anyOf"]):
            # profiles: a name or an inline object; strict mode takes the names
            return {"type": "string", "enum": list(named[0]["enum"]), **described}
        return {"anyOf": [_strict(o) for o in schema["anyOf"]], **described}
    types = _types(schema)
    if "null" in types and len(types) > 1:
        rest = {k: v for k, v in schema.items() if k != "type"}
        inner = [t for t in types if t != "null"]
        return {"anyOf": [_strict({**rest, "type": inner if len(inner) > 1 else inner[0]}), {"type": "null"}]}
    if types == ["string", "array"]:  # tokens: the list form
        return {"type": "array", "items": {"type": "string"}, **described}
    if len(types) > 1:
        rest = {k: v for k, v in schema.items() if k not in ("type", "description")}
        return {"anyOf": [_strict({**rest, "type": t}) for t in types], **described}
    if types == ["object"]:
        if "properties" not in schema:
            return {**_PAIRS, **described}
        required = set(schema.get("required", []))
        properties = {}
        for key, sub in schema["properties"].items():
            sub = _strict(sub)
            if key not in required:
                sub = {"anyOf": [sub, {"type": "null"}]} if "anyOf" not in sub else {
                    **sub, "anyOf": [*sub["anyOf"], *([] if {"type": "null"} in sub["anyOf"] else [{"type": "null"}])]}
            properties[key] = sub
        return {"type": "object", "properties": properties, "required": list(properties),
                "additionalProperties": False, **described}
    if types == ["array"]:
        out = {k: v for k, v in schema.items() if k != "items"}
        if "items" in schema:
            out["items"] = _strict(schema["items"])
        return out
    return dict(schema)


def _strict_input(tool: Tool) -> dict[str, Any]:
    schema = dict(tool.input_schema)
    if tool.strict_omit:
        schema["properties"] = {k: v for k, v in schema["properties"].items() if k not in tool.strict_omit}
    return _strict(schema)


def schemas(strict: bool = False, tools: Mapping[str, Tool] | None = None) -> dict[str, dict[str, Any]]:
    """Every tool's input schema by name.

    ``strict=True`` gives the form providers' strict tool modes accept: every object closed
    (``additionalProperties: false``) with every property required, an optional one nullable (``anyOf`` with
    ``null``); no union ``type`` arrays; ``profiles`` as a list of bundled names (an enum); tokens as a list;
    ``values`` and ``record`` (slot: value objects) as lists of ``{slot, value}``; an argument with no strict
    shape left out (``send``'s ``json``: the strict form sends a ``line``). Pass what a model sends in that
    form through :func:`from_strict` before :func:`call`.
    """
    tools = TOOLS if tools is None else tools
    return {name: (_strict_input(t) if strict else dict(t.input_schema)) for name, t in tools.items()}


def from_strict(name: str, arguments: Mapping[str, Any] | None,
                tools: Mapping[str, Tool] | None = None) -> dict[str, Any]:
    """Arguments in the strict form (:func:`schemas` with ``strict=True``) as :func:`call` takes them:
    ``null`` for an argument left out, lists of ``{slot, value}`` back into objects. Anything else is left
    as it is, for :func:`call` to check."""
    tools = TOOLS if tools is None else tools
    tool = tools.get(name)
    properties = tool.input_schema.get("properties", {}) if tool is not None else {}
    out: dict[str, Any] = {}
    for key, value in dict(arguments or {}).items():
        if value is None:
            continue
        if ("object" in _types(properties.get(key, {})) and isinstance(value, list)
                and all(isinstance(p, dict) and set(p) == {"slot", "value"} for p in value)):
            value = {p["slot"]: p["value"] for p in value}
        out[key] = value
    return out


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
        return {"ok": True, **tool.run(_integers(tool, args))}, False
    except ToolError as exc:
        return {"ok": False, "error": exc.error}, True
    except RW1Error as exc:
        return {"ok": False, "error": ToolError(exc.findings[0].kind if exc.findings else type(exc).__name__,
                                                exc.message, token=exc.token or None, why=exc.why,
                                                column=exc.column).error}, True
    except Exception as exc:  # noqa: BLE001 - the contract: a structured result, never a traceback
        return {"ok": False, "error": ToolError("internal", f"{type(exc).__name__}: {exc}").error}, True


__all__ = [
    "ERROR_SCHEMA",
    "FINDING_SCHEMA",
    "INSTRUCTIONS",
    "LINE_SCHEMA",
    "NULLABLE_STR_SCHEMA",
    "STR_SCHEMA",
    "TOKENS_SCHEMA",
    "TOOLS",
    "Tool",
    "ToolError",
    "call",
    "check_arguments",
    "finding_to_json",
    "from_strict",
    "input_schema",
    "output_schema",
    "retry_message",
    "schemas",
]
