"""The documented `rogerwilco mcp` registration for each client (docs/agents.md, "Per client"): each entry's
fields checked against the type the client declares for it where it publishes one, then started as the
client would start it and asked for its tools. LangChain's adapter, which pins the SDK's first major, is
checked in that environment (tests/test_mcp_sdk1.py)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp.server.mcpserver", reason="the entries are started with the SDK 2 client")

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from pydantic import TypeAdapter  # noqa: E402

from rogerwilco.front.tools import TOOLS  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
SECTION = DOC.split("\nPer client ")[1].split("\n### ")[0]
#: the files each client reads, as the section names them, in its order
CONFIG_FILES = ["`.mcp.json`", "`claude_desktop_config.json`", "`.cursor/mcp.json`"]


def block_after(label: str, lang: str) -> str:
    return SECTION.split(label, 1)[1].split(f"```{lang}\n", 1)[1].split("```", 1)[0]


def entries() -> list[tuple[str, dict]]:
    return [(label, json.loads(block_after(label, "json"))["mcpServers"]["rogerwilco"]) for label in CONFIG_FILES]


def started(entry: dict) -> set[str]:
    """The tools the entry's server lists, started from this environment (its scripts first on the PATH)."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONPATH": str(ROOT)}  # the command is the installed script; this tree is the package it runs

    async def listing() -> set[str]:
        params = StdioServerParameters(command=entry["command"], args=entry["args"], env=env, cwd=str(ROOT))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return {t.name for t in (await session.list_tools()).tools}

    return anyio.run(listing)


def test_the_config_file_entries_are_stdio_servers_as_the_sdk_declares_them():
    for label, entry in entries():
        fields = {k: v for k, v in entry.items() if k != "type"}  # Claude Code's "type" names the transport
        assert StdioServerParameters.model_validate(fields).command == "rogerwilco", label
        assert entry.get("type", "stdio") == "stdio", label


@pytest.mark.parametrize("label", CONFIG_FILES)
def test_each_config_file_entry_starts_the_server(label):
    entry = dict(entries())[label]
    assert started(entry) == set(TOOLS)


def test_the_agents_sdk_entry_is_its_declared_params_and_starts_the_strict_server():
    from agents.mcp.server import MCPServerStdioParams

    block = block_after("The OpenAI Agents SDK", "python")
    namespace: dict = {}
    exec(compile(block, "docs/agents.md", "exec"), namespace)  # noqa: S102 - our own documentation
    params = namespace["rw1"].params
    declared = TypeAdapter(MCPServerStdioParams).validate_python({"command": params.command, "args": params.args})
    assert declared == {"command": "rogerwilco", "args": ["mcp", "--strict"]}
    assert set(declared) <= set(MCPServerStdioParams.__annotations__)
    assert started(dict(declared)) == set(TOOLS)

