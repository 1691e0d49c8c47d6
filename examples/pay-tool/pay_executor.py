"""The payment tool's executor: the one program that moves money in this example.

Contract (rogerwilco tool commit): the frozen statement arrives as JSON on
stdin; the values as executed are printed as JSON on stdout. Exit status 1
means nothing was paid (the world refused the statement).

The world is a JSON ledger file (argv[1]). The payment is checked against it
(the invoice is open, the account is the one on file, the amount is the
invoice's, the approval covers it), appended, and the invoice marked paid; the
file is replaced atomically under a lock. The values printed are read back
from the payment as recorded, not copied from the statement.
"""

import fcntl
import json
import os
import sys
import tempfile


def main() -> int:
    world_path = sys.argv[1]
    statement = json.load(sys.stdin)
    want = statement["values"]
    with open(world_path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with open(world_path, encoding="utf-8") as fh:
            world = json.load(fh)
        invoice = world["invoices"].get(want["ref"])
        supplier = world["suppliers"].get(want["sup"])
        approval = world["approvals"].get(want["apref"])
        problems = []
        if invoice is None or invoice["status"] != "open":
            problems.append("the invoice is not open")
        if supplier is None or supplier["acct"] != want["acct"]:
            problems.append("the account is not the one on file")
        if invoice is not None and (invoice["amt"], invoice["cur"]) != (want["amt"], want["cur"]):
            problems.append("the amount is not the invoice's")
        if approval is None or approval["invoice"] != want["ref"] or approval["amt"] != want["amt"]:
            problems.append("the approval does not cover this payment")
        if problems:
            print("; ".join(problems), file=sys.stderr)
            return 1
        payment = {k: want[k] for k in ("sup", "amt", "cur", "kind", "acct", "paid", "ref", "apref")}
        payment["token"] = statement["token"]
        world["payments"].append(payment)
        invoice["status"] = "paid"
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(world_path)))
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(world, fh, indent=1)
        os.replace(tmp, world_path)
    recorded = world["payments"][-1]
    executed = {k: recorded[k] for k in ("sup", "amt", "cur", "kind", "acct", "paid", "ref", "apref")}
    print(json.dumps({"out": "OK", "values": executed, "tail": "as executed, from the payment ledger"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
