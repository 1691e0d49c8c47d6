"""Run with either major of the MCP SDK: its own stdio client starts a server (the command and arguments
given) and calls make_rb twice, a good handoff and a refused one, then a tool the server does not list. Prints
one JSON object per call, read through whichever attribute names the installed SDK uses."""

from __future__ import annotations

import json
import sys

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def field(obj, *names):
    for name in names:
        if hasattr(obj, name):
            return getattr(obj, name)
    raise AttributeError(names[0])


async def main(ho: str, command: str, *args: str) -> None:
    async with stdio_client(StdioServerParameters(command=command, args=list(args))) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            info = field(init, "server_info", "serverInfo")
            print(json.dumps({"server": info.name, "instructions": bool(init.instructions)}))
            listed = await session.list_tools()
            print(json.dumps({"tools": sorted(t.name for t in listed.tools),
                              "output_schemas": all(field(t, "output_schema", "outputSchema") for t in listed.tools)}))
            for arguments in ({"ho": ho, "n": 1, "profiles": ["pay"]}, {"ho": ho.replace("ask=PAY", "ask=PAYY"), "n": 1}):
                result = await session.call_tool("make_rb", arguments)
                print(json.dumps({"is_error": field(result, "is_error", "isError"),
                                  "structured": field(result, "structured_content", "structuredContent"),
                                  "text": json.loads(result.content[0].text)}))
            try:
                await session.call_tool("readback", {"ho": ho})
            except Exception as exc:  # McpError on SDK 1, MCPError on SDK 2: both carry the JSON-RPC error
                print(json.dumps({"error_code": exc.error.code, "message": exc.error.message}))
            else:
                print(json.dumps({"error_code": None}))


anyio.run(main, *sys.argv[1:])
