"""Run in an environment with mcp 1.x, langchain-mcp-adapters and rogerwilco[mcp]: LangChain's MCP adapter
starts ``rogerwilco mcp`` over stdio, from the connection given as JSON (checked first against the adapter's
own ``StdioConnection``), and calls its tools. Prints one JSON object per call."""

from __future__ import annotations

import asyncio
import json
import sys

from langchain_mcp_adapters.client import MultiServerMCPClient


async def main(connection: str, ho: str) -> None:
    from langchain_mcp_adapters.sessions import StdioConnection

    entry = json.loads(connection)
    # the TypedDict's fields as declared (its annotations are strings, so NotRequired is read from them)
    declared = {name: str(kind) for name, kind in StdioConnection.__annotations__.items()}
    required = {name for name, kind in declared.items() if "NotRequired" not in kind}
    assert set(entry) <= set(declared) and required <= set(entry), (sorted(entry), declared)
    assert entry["transport"] == "stdio"
    client = MultiServerMCPClient({"rw1": entry})
    tools = {t.name: t for t in await client.get_tools()}
    print(json.dumps({"tools": sorted(tools)}))
    for args in ({"ho": ho, "n": 1, "profiles": ["pay"]}, {"ho": ho.replace("ask=PAY", "ask=PAYY"), "n": 1}):
        out = await tools["make_rb"].ainvoke({"args": args, "id": "1", "name": "make_rb", "type": "tool_call"})
        print(json.dumps({"content": out.content, "artifact": out.artifact}, default=str))


asyncio.run(main(sys.argv[1], sys.argv[2]))
