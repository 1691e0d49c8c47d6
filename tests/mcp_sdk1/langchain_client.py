"""Run in an environment with mcp 1.x, langchain-mcp-adapters and rogerwilco[mcp]: LangChain's MCP adapter
starts ``rogerwilco mcp`` over stdio and calls its tools. Prints one JSON object per call."""

from __future__ import annotations

import asyncio
import json
import sys

from langchain_mcp_adapters.client import MultiServerMCPClient


async def main(command: str, ho: str) -> None:
    client = MultiServerMCPClient({"rw1": {"command": command, "args": ["-m", "rogerwilco", "mcp"],
                                           "transport": "stdio"}})
    tools = {t.name: t for t in await client.get_tools()}
    print(json.dumps({"tools": sorted(tools)}))
    for args in ({"ho": ho, "n": 1, "profiles": ["pay"]}, {"ho": ho.replace("ask=PAY", "ask=PAYY"), "n": 1}):
        out = await tools["make_rb"].ainvoke({"args": args, "id": "1", "name": "make_rb", "type": "tool_call"})
        print(json.dumps({"content": out.content, "artifact": out.artifact}, default=str))


asyncio.run(main(sys.argv[1], sys.argv[2]))
