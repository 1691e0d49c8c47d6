"""RW1 tools for PydanticAI agents (``pip install 'rogerwilco[pydantic-ai]'``).

Theory of operation
-------------------
:func:`rw1_toolset` gives a PydanticAI ``FunctionToolset`` holding the tools
of :data:`rogerwilco.front.tools.TOOLS` (validate, digest, make_rb, check_rb,
check_ho, check_dn, check_thread, legend) and, with ``session=True``, the
session tools of one agent's :class:`~rogerwilco.endpoint.Endpoint`
(receive, send, owner, open_handoffs, may_act, pending_questions, tick).
The endpoint is not held by the toolset: it is the run's dependencies, an
``Endpoint`` itself or any object with an ``endpoint`` attribute (such as
:class:`RW1Deps`), so one toolset serves every agent and each run keeps its
own numbering, ledger and threads.

A tool that cannot run on what the model gave it (a line the receiver
refuses, an argument of the wrong shape, a send the protocol forbids)
raises ``ModelRetry`` with the rule broken and the token at fault, so the
model gets the chance to correct the line instead of the run dying. A
refused line given to ``validate`` and a check that fails are results
(``valid: false``, ``passed: false``), returned to the model as they are.

With ``strict=True`` the tools carry the strict-compatible schemas of
:func:`rogerwilco.front.tools.schemas` and are flagged strict; what the model sends
in that form goes through :func:`rogerwilco.front.tools.from_strict` first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from ...core.extras import missing_extra

try:
    from pydantic_ai import ModelRetry, RunContext, Tool
    from pydantic_ai.toolsets import FunctionToolset
except ImportError as exc:  # the extra is not installed: say which line installs it
    raise missing_extra(exc, "rogerwilco.integrations.pydantic_ai") from exc

from ..mcp_server import session_tools
from ..tools import INSTRUCTIONS, TOOLS, call, from_strict, retry_message, schemas
from ..tools import Tool as RW1Tool

__all__ = ["INSTRUCTIONS", "RW1Deps", "endpoint_of", "retry_message", "rw1_toolset"]


@dataclass
class RW1Deps:
    """Run dependencies carrying one agent's endpoint (any deps with an ``endpoint`` attribute will do)."""

    endpoint: Any


def endpoint_of(deps: Any) -> Any:
    """The :class:`~rogerwilco.endpoint.Endpoint` in a run's deps: the deps themselves, or their ``endpoint``."""
    from ...checks.endpoint import Endpoint

    if isinstance(deps, Endpoint):
        return deps
    endpoint = getattr(deps, "endpoint", None)
    if isinstance(endpoint, Endpoint):
        return endpoint
    raise ModelRetry("this agent's run has no RW1 endpoint in its deps; use the stateless tools (make_rb, check_rb)")


def _result(result: dict[str, Any], is_error: bool) -> dict[str, Any]:
    if is_error:
        raise ModelRetry(retry_message(result["error"]))
    return result


def _stateless(name: str, strict: bool) -> Any:
    def run(**arguments: Any) -> dict[str, Any]:
        if strict:
            arguments = from_strict(name, arguments)
        return _result(*call(name, arguments))

    return run


def _session(name: str, strict: bool, table: Mapping[str, RW1Tool]) -> Any:
    def run(ctx: RunContext[Any], **arguments: Any) -> dict[str, Any]:
        tools = session_tools(endpoint_of(ctx.deps))
        if strict:
            arguments = from_strict(name, arguments, table)
        return _result(*call(name, arguments, tools))

    return run


def rw1_toolset(*, session: bool = True, strict: bool = False, names: Iterable[str] | None = None,
                max_retries: int = 2) -> FunctionToolset[Any]:
    """The RW1 tools as a PydanticAI toolset.

    ``session`` adds the endpoint tools (the run's deps must then carry an endpoint); ``strict`` uses the
    strict-compatible schemas; ``names`` keeps only the tools named; ``max_retries`` is how many times a
    model may correct a call that raised ``ModelRetry``.
    """
    wanted = set(names) if names is not None else None
    table = session_tools(None) if session else {}
    found: list[Tool[Any]] = []
    for tools, make, takes_ctx in ((TOOLS, _stateless, False), (table, None, True)):
        shapes = schemas(strict=strict, tools=tools)
        for name, tool in tools.items():
            if wanted is not None and name not in wanted:
                continue
            function = make(name, strict) if make is not None else _session(name, strict, table)
            made = Tool.from_schema(function, name=name, description=tool.description, json_schema=shapes[name],
                                    takes_ctx=takes_ctx)
            made.max_retries = max_retries
            if strict:
                made.strict = True
            found.append(made)
    if wanted is not None and wanted - {t.name for t in found}:
        raise ValueError(f"no RW1 tool named {', '.join(sorted(wanted - {t.name for t in found}))}")
    return FunctionToolset(found, max_retries=max_retries)
