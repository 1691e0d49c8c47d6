"""Many processes at once over the issues of one handoff: prepare, commit and cancel give one act at most.

Each round starts 16 processes on a fresh store (a SQLite file, or a PostgreSQL schema), released together by a
barrier. Each prepares one issue of the handoff (the original, its re-send, a
re-send of the re-send), some then re-issue it with ``re=`` naming the
readback they got (as after a void readback), and each commits the last
statement it prepared; or it sends a cancel naming one of the issues. Every round must end with at most
one act, exactly one when nobody cancelled, none when a cancel was answered
``AN val=Y`` (nothing had run, so nothing may run after), and one when a
cancel was answered with the act's DN.

``RW1_RACE_ROUNDS`` sets the number of rounds (default 4, bounded for CI);
``RW1_RACE_PROCS`` the processes per round (default 16).
"""

from __future__ import annotations

import datetime as dt
import multiprocessing
import os
import sys

import pytest

from rogerwilco.front.tool import ToolError, ToolRefused, ToolStore
from tests.bounds import HANG
from tests.pg import engine, locate, pg_cluster, pg_database  # noqa: F401 - fixtures: on each engine

VALUES = "sup=marlow amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 apref=FD-0929"
HEAD = "p=pay from=scheduler to=payer item=inv:MD-2026-057 ask=PAY rb=exec"
ISSUES = [
    f"RW1 HO scheduler-1 {HEAD} {VALUES} exp=20261002T1700Z",
    f"RW1 HO scheduler-2 re=scheduler-1 {HEAD} {VALUES} exp=20261002T1700Z",
    f"RW1 HO scheduler-3 re=scheduler-2 {HEAD} {VALUES} exp=20261002T1700Z",
]
NOON = dt.datetime(2026, 10, 2, 12, 0, tzinfo=dt.timezone.utc)
ACT = "import json, sys; s = json.load(sys.stdin); open(sys.argv[1], 'a').write(s['ho'] + '\\n'); " \
      "print(json.dumps({'out': 'OK', 'values': s['values']}))"
ROUNDS = int(os.environ.get("RW1_RACE_ROUNDS", "4"))
PROCS = int(os.environ.get("RW1_RACE_PROCS", "16"))


def _worker(store_path: str, world: str, role: tuple[str, int], barrier, results) -> None:
    store = ToolStore.open(store_path, profiles=["pay"])
    kind, which = role
    barrier.wait()
    try:
        if kind == "cancel":
            named = ["scheduler-1", "scheduler-2", "scheduler-3"][which % 3]
            line = f"RW1 CX scheduler-{9 + which} re={named} {HEAD.replace(' ask=PAY rb=exec', '')} why=REVOKED"
            answer = store.cancel(line)
            results.put((kind, answer.type))
            return
        token = store.prepare(ISSUES[which % 3], now=NOON).token
        if kind == "reissue":  # the readback is taken as void: the sender re-issues with re= naming it
            rb = store.status(token)[0].rb.split(" ")[2]
            line = ISSUES[0].replace("HO scheduler-1 ", f"HO scheduler-{20 + which} re={rb} ")
            try:
                token = store.prepare(line, now=NOON).token
            except ToolRefused:
                pass
        reply = store.commit(token, [sys.executable, "-c", ACT, world], now=NOON)
        results.put((kind, reply.type))
    except ToolRefused as exc:
        results.put((kind, f"refused:{exc.reason}"))
    except ToolError as exc:
        results.put((kind, f"error:{exc.message}"))


def _round(tmp_path, locate, number: int, cancels: int) -> tuple[list[str], list[tuple[str, str]]]:
    context = multiprocessing.get_context("fork")
    store_path = str(locate(f"store-{number}.db"))
    world = str(tmp_path / f"world-{number}.log")
    with ToolStore.open(store_path, profiles=["pay"]):  # made here, let go of before the fork
        pass
    roles = [("cancel", i) if i < cancels else ("reissue", i) if i % 4 == 3 else ("act", i) for i in range(PROCS)]
    barrier = context.Barrier(PROCS)
    results = context.Queue()
    procs = [context.Process(target=_worker, args=(store_path, world, role, barrier, results)) for role in roles]
    for proc in procs:
        proc.start()
    outcomes = [results.get(timeout=HANG) for _ in procs]
    for proc in procs:
        proc.join(timeout=HANG)
        assert proc.exitcode == 0
    runs = open(world).read().split() if os.path.exists(world) else []
    return runs, outcomes


@pytest.mark.parametrize("cancels", [0, 3])
def test_one_act_per_handoff_in_every_round(tmp_path, locate, cancels):
    for number in range(ROUNDS):
        runs, outcomes = _round(tmp_path, locate, number, cancels)
        assert not [o for o in outcomes if o[1].startswith("error:")], outcomes
        assert len(runs) <= 1, (runs, outcomes)
        answers = [answer for kind, answer in outcomes if kind == "cancel"]
        if cancels == 0:
            assert len(runs) == 1, outcomes
            assert [answer for _, answer in outcomes].count("DN") == 1
        if "AN" in answers:
            assert runs == [], outcomes
        if "DN" in answers:
            assert len(runs) == 1, outcomes
