"""Many hosts, for real: network namespaces as hosts, the PostgreSQL server in one, the payer's workers in three.

The test makes its own hosts (tests/netns.py): a namespace for the server and one per worker, each worker
joined to the server's namespace by a veth pair of its own, and the test's namespace by one more. Every
worker runs the payer's tool on the one store over the network.

* Handoffs with cancels and re-sends: for each handoff, every worker takes a different issue of it (the
  original, its re-send, a re-send of the re-send) and commits what it prepared, while for every other
  handoff one worker sends a cancel instead. One act per handoff at most, exactly one where nobody
  cancelled, none where a cancel was answered ``AN val=Y``; every id the payer issued is unique across
  the hosts.
* A link cut mid-commit: a worker's executor runs, its link is set down (``ip link set down``) before the
  tool records the result: the statement ends ``in-doubt`` (the act ran once), and a commit from any host
  afterwards is refused, never run again.

It needs root (namespaces and links are made with ``ip``). ``RW1_HOSTS_ROUNDS`` sets the handoffs per run
(default 6).
"""

from __future__ import annotations

import json
import os
import time

import psycopg
import pytest

from tests.bounds import HANG
from tests.netns import TAG, NoNamespaces, ip, network, on, python_on
from tests.test_tool_race import ACT, HEAD, VALUES

ROUNDS = int(os.environ.get("RW1_HOSTS_ROUNDS", "6"))
HOSTS = 3

WORKER = r"""
import json, sys, datetime as dt
from rogerwilco.core.errors import RW1Error
from rogerwilco.front.tool import ToolRefused, ToolStore
url, world, host, rounds, head, values, act = sys.argv[1:8]
host, rounds = int(host), int(rounds)
store = ToolStore.open(url, profiles=["pay"])
noon = dt.datetime(2026, 10, 2, 12, 0, tzinfo=dt.timezone.utc)
for k in range(rounds):
    base = 100 * (k + 1)
    item_head = head.replace("inv:MD-2026-057", f"inv:K{k}")
    issues = [f"RW1 HO scheduler-{base + 1} {item_head} {values} exp=20261002T1700Z",
              f"RW1 HO scheduler-{base + 2} re=scheduler-{base + 1} {item_head} {values} exp=20261002T1700Z",
              f"RW1 HO scheduler-{base + 3} re=scheduler-{base + 2} {item_head} {values} exp=20261002T1700Z"]
    cancelling = k % 2 == 1 and host == k % 3
    out = {"k": k, "host": host, "kind": "cancel" if cancelling else "act"}
    try:
        if cancelling:  # on every other handoff, one worker takes the sender's cancel
            cx = (f"RW1 CX scheduler-{base + 9} re=scheduler-{base + 1} "
                  f"{item_head.replace(' ask=PAY rb=exec', '')} why=REVOKED")
            out["reply"] = store.cancel(cx).to_line()
        else:
            prepared = store.prepare(issues[host % 3], now=noon)
            out["rb"] = prepared.rb.to_line()
            out["reply"] = store.commit(prepared.token, [sys.executable, "-c", act, world], now=noon).to_line()
    except ToolRefused as exc:
        out.update(refused=exc.reason, reply=exc.reply)
    except RW1Error as exc:
        out.update(error=exc.message)
    print(json.dumps(out), flush=True)
"""

CUTTING = r"""
import json, sys, datetime as dt
from rogerwilco.core.errors import RW1Error
from rogerwilco.front.tool import ToolRefused, ToolStore
url, token, act = sys.argv[1:4]
store = ToolStore.open(url, profiles=["pay"])
noon = dt.datetime(2026, 10, 2, 12, 0, tzinfo=dt.timezone.utc)
try:
    print(json.dumps({"reply": store.commit(token, [sys.executable, "-c", act], now=noon).to_line()}))
except ToolRefused as exc:
    print(json.dumps({"refused": exc.reason}))
except RW1Error as exc:
    print(json.dumps({"error": exc.message}))
"""

# The executor of the cut: it says it started, waits for the link to go down, then acts.
SLOW_ACT = ("import json, sys, os, time, pathlib; s = json.load(sys.stdin); d = pathlib.Path(os.environ['RW1_CUT']); "
            "(d / 'started').write_text('1')\nwhile not (d / 'go').exists(): time.sleep(0.05)\n"
            "open(d / 'world', 'a').write(s['ho'] + '\\n'); print(json.dumps({'out': 'OK', 'values': s['values']}))")


@pytest.fixture
def hosts_network():
    """The server's namespace and three hosts, joined by veth pairs; all removed at the end."""
    try:
        with network(HOSTS) as made:
            yield made
    except NoNamespaces as exc:
        pytest.fail(f"the multi-host test makes network namespaces: {exc}")


def test_handoffs_cancels_and_resends_across_hosts_then_a_link_cut_mid_commit(hosts_network, tmp_path):
    cluster, url, hosts = hosts_network
    world = tmp_path / "world.log"
    workers = [python_on(ns, WORKER, on(k, url), str(world), str(k - 1), str(ROUNDS), HEAD, VALUES, ACT)
               for k, ns in enumerate(hosts, start=1)]
    outcomes = []
    for worker in workers:
        out, err = worker.communicate(timeout=HANG)
        assert worker.returncode == 0, err[-2000:]
        outcomes += [json.loads(line) for line in out.splitlines()]
    assert not [o for o in outcomes if "error" in o], outcomes
    acts = world.read_text().split() if world.exists() else []
    for k in range(ROUNDS):
        these = [o for o in outcomes if o["k"] == k]
        ran = [ho for ho in acts if 100 * (k + 1) < int(ho.split("-")[1]) < 100 * (k + 2)]
        cancels = [o for o in these if o["kind"] == "cancel"]
        assert len(ran) <= 1, (k, these)  # one act per handoff, whatever the hosts did
        if not cancels:
            assert len(ran) == 1, (k, these)
        for cancel in cancels:
            if cancel.get("reply", "") and cancel["reply"].startswith("RW1 AN "):
                assert ran == [], (k, these)  # the cancel was answered before any act: nothing ran after
    # every id the payer issued, on whichever host, is its own
    with psycopg.connect(url) as conn:
        ids = [row[0].split(" ")[2] for row in conn.execute("SELECT rb_line FROM statements UNION ALL SELECT reply_line "
                                                            "FROM statements WHERE reply_line IS NOT NULL UNION ALL "
                                                            "SELECT reply_line FROM issues WHERE reply_line IS NOT NULL")]
    ids += [o["reply"].split(" ")[2] for o in outcomes if o.get("reply", "") and o["reply"].startswith("RW1 AN ")]
    assert len(ids) == len(set(ids)) and len(ids) >= ROUNDS, ids

    # the cut: host 1's executor runs, its link goes down before the tool records the result
    cut = tmp_path / "cut"
    cut.mkdir()
    line = (f"RW1 HO scheduler-9001 {HEAD.replace('inv:MD-2026-057', 'inv:CUT')} {VALUES} exp=20261002T1700Z")
    prepare = python_on(hosts[0], "import sys, datetime as dt; from rogerwilco.front.tool import ToolStore; "
                                  "print(ToolStore.open(sys.argv[1], profiles=['pay']).prepare(sys.argv[2], now="
                                  "dt.datetime(2026, 10, 2, 12, 0, tzinfo=dt.timezone.utc)).token)",
                        on(1, url), line)
    token = prepare.communicate(timeout=HANG)[0].strip()
    assert prepare.returncode == 0 and token
    committing = python_on(hosts[0], CUTTING, on(1, url), token, SLOW_ACT, env={"RW1_CUT": str(cut)})
    while not (cut / "started").exists():
        assert committing.poll() is None, committing.communicate()
        time.sleep(0.05)
    ip("link", "set", f"{TAG}a1", "down", ns=hosts[0])
    (cut / "go").write_text("1")
    out, err = committing.communicate(timeout=HANG)
    said = json.loads(out)
    assert "error" in said and "server" in said["error"], (said, err[-2000:])
    ip("link", "set", f"{TAG}a1", "up", ns=hosts[0])
    with psycopg.connect(url) as conn:
        state = conn.execute("SELECT state FROM statements WHERE token = %s", (token,)).fetchone()[0]
    assert state == "in-doubt" and (cut / "world").read_text().split() == ["scheduler-9001"]
    for k, ns in ((1, hosts[0]), (2, hosts[1])):  # once the link is back, and from another host: never again
        again = python_on(ns, CUTTING, on(k, url), token, SLOW_ACT, env={"RW1_CUT": str(cut)})
        assert json.loads(again.communicate(timeout=HANG)[0]) == {"refused": "in-doubt"}
    assert (cut / "world").read_text().split() == ["scheduler-9001"]
