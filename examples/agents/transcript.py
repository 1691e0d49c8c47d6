"""One handoff done through the MCP tools, printed as a transcript.

Starts ``rogerwilco mcp`` as a subprocess, connects with the MCP SDK's
client over stdio, and plays both sides of a payment handoff under the pay
profile: the sender checks its HO against the approval record (check_ho),
the receiver composes its readback by code (make_rb), the sender checks it
(check_rb) and gives the go-ahead (AN val=Y: under rb=exec the act waits for
it), the receiver reports the payment tool's values (DN), the sender checks
the done report (check_dn), and check_thread confirms the handoff closed. Run it from the repository root:

    python examples/agents/transcript.py
"""

from __future__ import annotations

import json
import sys

try:
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
except ImportError as exc:
    sys.exit(f"this example needs the MCP SDK ({exc.name} is missing): pip install 'rogerwilco[mcp] @ git+https://github.com/croxio/rogerwilco'")

HO = ("RW1 HO scheduler-1 p=pay from=scheduler to=payer item=inv:MD-2026-057 ask=PAY rb=exec sup=marlow "
      "amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 apref=FD-0929")
RECORD = {"item": "inv:MD-2026-057", "sup": "marlow", "amt": "5400.00", "cur": "GBP", "kind": "GROSS",
          "acct": "40-12-88/61102938", "paid": "20261002", "ref": "MD-2026-057", "apref": "FD-0929"}
# The sender's go-ahead once the readback passed (spec 5.3: the act waits for it under rb=exec).
GO = "RW1 AN scheduler-2 re=payer-1 p=pay from=scheduler to=payer val=Y // readback matches the approved run; proceed"
# What the payment tool printed after it ran, reported as executed.
DN = ("RW1 DN payer-2 re=scheduler-1 p=pay from=payer to=scheduler item=inv:MD-2026-057 out=OK sup=marlow "
      "amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 apref=FD-0929 "
      "// as executed, from the payment tool")


# Lines already shown are named, not repeated, in the calls printed below.
SHOWN: dict[str, str] = {}


def show_call(name: str, arguments: dict) -> None:
    def named(value):
        if isinstance(value, list):
            return [named(v) for v in value]
        return SHOWN.get(value, value) if isinstance(value, str) else value

    shown = {k: named(v) for k, v in arguments.items()}
    print(f"> {name} {json.dumps(shown, ensure_ascii=False)}")


def show_result(data: dict, keys: tuple[str, ...]) -> None:
    shown = {k: data[k] for k in keys if k in data}
    print(f"< {json.dumps(shown, ensure_ascii=False)}")
    for finding in data.get("findings", []):
        print(f"  {finding['severity']} {finding['kind']} tier={finding['tier']} key={finding['key']}: "
              f"{finding['message']}")


async def main() -> int:
    params = StdioServerParameters(command=sys.executable, args=["-m", "rogerwilco", "mcp"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()

            async def call(name: str, arguments: dict, keys: tuple[str, ...]) -> dict:
                show_call(name, arguments)
                result = await session.call_tool(name, arguments)
                data = result.structured_content
                show_result(data, keys)
                print()
                if not data.get("ok"):
                    raise SystemExit(f"{name} could not run: {data['error']}")
                return data

            print(f"<HO> = {HO}\n")
            SHOWN[HO] = "<HO>"
            print("# scheduler, before sending: the HO against the approval record")
            checked = await call("check_ho", {"line": HO, "record": RECORD, "profiles": ["pay"]}, ("passed",))
            print("scheduler -> payer: <HO>\n")

            print("# payer: the readback, composed by code from the HO as delivered")
            made = await call("make_rb", {"ho": HO, "n": 1, "profiles": ["pay"]}, ("line",))
            rb = made["line"]
            SHOWN[rb] = "<RB>"
            print(f"payer -> scheduler: <RB> = {rb}\n")

            print("# scheduler: the readback, tier by tier")
            verdict = await call("check_rb", {"ho": HO, "rb": rb, "profiles": ["pay"]}, ("passed", "tiers"))
            SHOWN[GO] = "<AN>"
            print(f"scheduler -> payer: <AN> = {GO}\n")

            print("# payer, after the payment tool ran: the done report carries its values")
            SHOWN[DN] = "<DN>"
            print(f"payer -> scheduler: <DN> = {DN}\n")

            print("# scheduler: the done report against the plan")
            done = await call("check_dn", {"ho": HO, "dn": DN, "rb": rb, "profiles": ["pay"]}, ("passed",))

            print("# scheduler: the handoff closed exactly once")
            thread = await call("check_thread", {"lines": [HO, rb, GO, DN], "now": "20261002T1200Z", "profiles": ["pay"]},
                                ("passed",))
            ledger = thread["ledger"]
            print(f"ledger: {json.dumps(ledger['handoffs'][0], ensure_ascii=False)}")
            print(f"owner of {ledger['items'][0]['item']}: {ledger['items'][0]['owner']}")
    return 0 if all(d["passed"] for d in (checked, verdict, done, thread)) else 1


if __name__ == "__main__":
    raise SystemExit(anyio.run(main))
