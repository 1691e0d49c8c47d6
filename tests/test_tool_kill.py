"""kill -9 inside the tool's commit, on each engine: nothing lost, nothing doubled, no act run twice.

Each round starts a worker that commits, for every statement already in the store, the act once more (as a
worker picking up after a crash would), then prepares and commits new payments one after another. The test
waits until the worker announces a commit, lets it run a random while (inside the move to ``in-doubt``,
the executor, or the recording of its result), and kills the worker's whole process group with SIGKILL,
the executor with it. After every round:

* no act ran twice (the executor's log names each handoff at most once);
* a statement still ``prepared`` never ran (its move to ``in-doubt`` was not committed, so nothing started);
  the next round commits it, so nothing is lost;
* a ``committed`` statement ran once and holds its DN; one ``in-doubt`` ran at most once, and a commit of
  it in a later round is refused (``in-doubt``), never run again;
* every id the agent issued (readbacks and DNs) is its own.

``RW1_TOOL_KILL_ROUNDS`` sets the number of rounds per engine (default 3, bounded for CI); the closing
note's 50 by hand::

    RW1_PURE=1 RW1_TOOL_KILL_ROUNDS=50 python -m pytest -q -p no:cacheprovider tests/test_tool_kill.py
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter

from tests.bounds import HANG
from tests.pg import engine, locate, pg_cluster, pg_database, rows  # noqa: F401 - fixtures: on each engine
from tests.test_tool_race import HEAD, VALUES

ROUNDS = int(os.environ.get("RW1_TOOL_KILL_ROUNDS", "3"))

# The executor: logs the handoff it acts on (one write), then reports the statement's values as executed.
ACT = ("import json, sys; s = json.load(sys.stdin); open(sys.argv[1], 'a').write(s['ho'] + '\\n'); "
       "print(json.dumps({'out': 'OK', 'values': s['values']}))")

WORKER = r"""
import datetime as dt, json, sys
from rogerwilco.front.tool import ToolRefused, ToolStore
store_at, world, head, values, act, start = sys.argv[1:7]
store = ToolStore.open(store_at, profiles=["pay"])
noon = dt.datetime(2026, 10, 2, 12, 0, tzinfo=dt.timezone.utc)
executor = [sys.executable, "-c", act, world]


def commit(token, k):
    print(json.dumps({"commit": k}), flush=True)
    try:
        reply = store.commit(token, executor, now=noon).to_line()
        print(json.dumps({"k": k, "reply": reply}), flush=True)
    except ToolRefused as exc:
        print(json.dumps({"k": k, "refused": exc.reason, "reply": exc.reply}), flush=True)


for statement in store.status(now=noon):  # what earlier workers left: committed again, once more
    commit(statement.token, statement.ho)
for k in range(int(start), int(start) + 100000):
    item = head.replace("inv:MD-2026-057", f"inv:K{k}")
    token = store.prepare(f"RW1 HO scheduler-{k} {item} {values} exp=20261002T1700Z", now=noon).token
    commit(token, f"scheduler-{k}")
"""


def _statements(location) -> list[tuple[str, str, str | None, str]]:
    return rows(location, "SELECT ho_id, state, reply_line, rb_line FROM statements ORDER BY ho_id")


def _check(location, world) -> dict[str, str]:
    """The round's invariants; each handoff's statement state."""
    ran = Counter(world.read_text().split()) if world.exists() else Counter()
    assert all(n == 1 for n in ran.values()), f"an act ran twice: {ran}"
    states = {}
    for ho, state, reply, _ in _statements(location):
        assert ho not in states, f"two statements of {ho}"
        states[ho] = state
        if state == "prepared":
            assert ran[ho] == 0, f"{ho} ran while its statement is still prepared"
        elif state == "committed":
            assert ran[ho] == 1 and reply is not None and reply.startswith("RW1 DN "), (ho, reply)
        else:
            assert state == "in-doubt", (ho, state)
    assert set(ran) <= set(states)
    ids = [line.split(" ")[2] for _, _, reply, rb in _statements(location) for line in (reply, rb) if line]
    assert len(ids) == len(set(ids)), f"an id issued twice: {sorted(ids)}"
    return states


def test_kill_9_inside_the_tools_commit_loses_nothing_and_runs_nothing_twice(locate, tmp_path):
    location = locate("payer.ledger")
    world = tmp_path / "world.log"
    chance = random.Random(os.environ.get("RW1_TOOL_KILL_SEED"))
    start, before = 1, {}
    for _ in range(ROUNDS):
        worker = subprocess.Popen([sys.executable, "-c", WORKER, str(location), str(world), HEAD, VALUES, ACT,
                                   str(start)], stdout=subprocess.PIPE, text=True, start_new_session=True)
        said = []
        for _ in range(len(before) + chance.randint(1, 3)):  # past the re-commits, into a new commit
            said.append(json.loads(worker.stdout.readline()))
            assert "commit" in said[-1] or "k" in said[-1], said
        time.sleep(chance.uniform(0.0, 0.25))
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(HANG)
        said += [json.loads(line) for line in worker.stdout.read().splitlines() if line.endswith("}")]
        for out in said:  # a statement left in doubt is never run again, whoever asks
            if "k" in out and before.get(out["k"]) == "in-doubt":
                assert out.get("refused") == "in-doubt", out
        states = _check(location, world)
        assert set(before) <= set(states)  # nothing lost
        for ho, state in before.items():  # a state moves on only from prepared
            assert state == "prepared" or states[ho] == state, (ho, state, states[ho])
        before = states
        start = 1 + max((int(ho.split("-")[1]) for ho in states), default=0)
    print(f"{ROUNDS} rounds; states at the end: {dict(Counter(before.values()))}")
    worker = subprocess.run([sys.executable, "-c", WORKER.replace("range(int(start), int(start) + 100000)", "()"),
                             str(location), str(world), HEAD, VALUES, ACT, str(start)], capture_output=True,
                            text=True, timeout=HANG)
    assert worker.returncode == 0, worker.stderr[-2000:]
    states = _check(location, world)
    assert "prepared" not in states.values() and states  # the last worker committed what was left
