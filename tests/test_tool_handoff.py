"""One handoff, one act: the tool across the issues of a handoff (re-sends, re-issues) and their cancels."""

from __future__ import annotations

import datetime as dt
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rogerwilco import Message
from rogerwilco.checks.lifecycle import RESEND, REISSUE, Envelope, issue_link
from rogerwilco.checks.thread import check_thread
from rogerwilco.front.tool import ToolRefused, ToolStore
from tests.pg import engine, locate, pg_cluster, pg_database  # noqa: F401 - fixtures

ROOT = Path(__file__).resolve().parent.parent
VALUES = "sup=marlow amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 apref=FD-0929"
HEAD = "p=pay from=scheduler to=payer item=inv:MD-2026-057 ask=PAY rb=exec"
HO1 = f"RW1 HO scheduler-1 {HEAD} {VALUES} exp=20261002T1700Z"
HO2 = f"RW1 HO scheduler-2 re=scheduler-1 {HEAD} {VALUES} exp=20261002T1700Z"  # the re-send
HO3 = f"RW1 HO scheduler-3 re=scheduler-2 {HEAD} {VALUES} exp=20261002T1700Z"  # a re-send of the re-send


def cx(n: int, re: str) -> str:
    return f"RW1 CX scheduler-{n} re={re} p=pay from=scheduler to=payer item=inv:MD-2026-057 why=REVOKED"


NOON = dt.datetime(2026, 10, 2, 12, 0, tzinfo=dt.timezone.utc)
ACT = "import json, sys; s = json.load(sys.stdin); open(sys.argv[1], 'a').write(s['ho'] + '\\n'); " \
      "print(json.dumps({'out': 'OK', 'values': s['values']}))"


@pytest.fixture
def store(locate):
    return ToolStore.open(locate("store.db"), profiles=["pay"])  # on each engine (tests/pg.py)


@pytest.fixture
def act(tmp_path):
    world = tmp_path / "world.log"

    class Act(list):
        def runs(self) -> list[str]:
            return world.read_text().split() if world.exists() else []

    return Act([sys.executable, "-c", ACT, str(world)])


def refused(call, *args, **kw) -> ToolRefused:
    with pytest.raises(ToolRefused) as caught:
        call(*args, **kw)
    return caught.value


def closes_once(lines: list[str]) -> None:
    kinds = {f.kind for f in check_thread(lines, now=NOON, profiles=["pay"]).findings}
    assert not kinds & {"closed-twice", "act-after-cancel"}, kinds


# ---- 1. a re-send is the same handoff ------------------------------------------------------------------------------


def test_a_re_send_while_the_original_is_prepared_is_answered_un_dup_and_runs_once(store, act):
    first = store.prepare(HO1, now=NOON)
    dup = refused(store.prepare, HO2, now=NOON)
    assert dup.reason == "duplicate"
    un = Message.from_line(dup.reply, ["pay"])
    assert (un.type, un.re, un.from_, un.to, un.get("why")) == ("UN", "scheduler-2", "payer", "scheduler", "DUP")
    assert refused(store.prepare, HO2, now=NOON).reply == dup.reply  # the same answer each time it comes
    dn = store.commit(first.token, act, now=NOON)
    assert act.runs() == ["scheduler-1"]
    closes_once([HO1, first.rb.to_line(), HO2, dup.reply, dn.to_line()])


def test_a_re_send_that_arrives_first_carries_the_handoff_and_the_late_original_is_refused(store, act):
    second = store.prepare(HO2, now=NOON)
    late = refused(store.prepare, HO1, now=NOON)
    assert late.reason == "duplicate" and late.reply is None
    store.commit(second.token, act, now=NOON)
    assert refused(store.prepare, HO3, now=NOON).reason == "duplicate"
    assert act.runs() == ["scheduler-2"]


def test_both_issues_prepared_in_any_order_commit_once(tmp_path, act):
    for order in ((HO1, HO2, HO3), (HO3, HO2, HO1), (HO2, HO3, HO1), (HO1, HO3, HO2)):
        store = ToolStore.open(tmp_path / f"{order[0][8:20]}-{len(list(tmp_path.iterdir()))}.db", profiles=["pay"])
        tokens = []
        for line in order:
            try:
                tokens.append(store.prepare(line, now=NOON).token)
            except ToolRefused as exc:
                assert exc.reason == "duplicate"
        before = len(act.runs())
        for token in tokens:
            try:
                store.commit(token, act, now=NOON)
            except ToolRefused:
                pass
        assert len(act.runs()) - before == 1, order


def test_a_re_send_past_the_statements_window_replaces_it(store, act):
    first = store.prepare(HO1, now=NOON)
    later = NOON + dt.timedelta(minutes=20)
    second = store.prepare(HO2, now=later)
    assert refused(store.commit, first.token, act, now=later).reason in ("expired", "abandoned")
    store.commit(second.token, act, now=later)
    assert act.runs() == ["scheduler-2"]


def test_a_re_issue_after_a_void_readback_supersedes_the_statement(store, act):
    first = store.prepare(HO1, now=NOON)
    reissue = HO1.replace("HO scheduler-1 ", f"HO scheduler-4 re={first.rb.id} ")
    assert issue_link(Envelope.of(Message.from_line(reissue, ["pay"])),
                      {first.rb.id: first.rb, "scheduler-1": Message.from_line(HO1, ["pay"])}.get) == \
        ("scheduler-1", REISSUE)
    second = store.prepare(reissue, now=NOON)
    assert refused(store.commit, first.token, act, now=NOON).reason == "abandoned"
    store.commit(second.token, act, now=NOON)
    assert refused(store.prepare, HO2, now=NOON).reason == "duplicate"
    assert act.runs() == ["scheduler-4"]


def test_a_re_send_of_an_issue_the_tool_never_saw_is_not_a_second_act(store, act):
    store.commit(store.prepare(HO1, now=NOON).token, act, now=NOON)  # scheduler-2 is lost on the way
    assert refused(store.prepare, HO3, now=NOON).reason == "duplicate"
    assert refused(store.prepare, HO2, now=NOON).reason == "duplicate"
    assert act.runs() == ["scheduler-1"]


def test_an_unrelated_handoff_is_still_its_own(store, act):
    store.commit(store.prepare(HO1, now=NOON).token, act, now=NOON)
    other = HO1.replace("scheduler-1 ", "scheduler-7 ").replace("inv:MD-2026-057", "inv:MD-2026-058")
    store.commit(store.prepare(other, now=NOON).token, act, now=NOON)
    assert act.runs() == ["scheduler-1", "scheduler-7"]


# ---- 2. a cancel of any issue cancels the handoff ------------------------------------------------------------------


def test_a_cancel_of_the_original_refuses_its_re_send(store, act):
    assert store.cancel(cx(5, "scheduler-1")).get("val") == "Y"
    assert refused(store.prepare, HO2, now=NOON).reason == "cancelled"
    assert refused(store.prepare, HO1, now=NOON).reason == "cancelled"
    assert act.runs() == []


def test_a_cancel_of_the_original_after_its_prepare_refuses_its_re_send(store, act):
    first = store.prepare(HO1, now=NOON)
    store.cancel(cx(5, "scheduler-1"))
    assert refused(store.prepare, HO2, now=NOON).reason == "cancelled"
    assert refused(store.commit, first.token, act, now=NOON).reason == "cancelled"
    assert act.runs() == []


@pytest.mark.parametrize("seen", [True, False])
def test_a_cancel_naming_the_re_send_cancels_the_prepared_original(store, act, seen):
    first = store.prepare(HO1, now=NOON)
    if seen:
        assert refused(store.prepare, HO2, now=NOON).reason == "duplicate"
    answer = store.cancel(cx(5, "scheduler-2"))
    assert answer.type == "AN" and answer.get("val") == "Y"
    assert refused(store.commit, first.token, act, now=NOON).reason == "cancelled"
    assert act.runs() == []


def test_a_cancel_naming_our_readback_cancels_its_handoff(store, act):
    first = store.prepare(HO1, now=NOON)
    store.cancel(cx(5, first.rb.id))
    assert refused(store.commit, first.token, act, now=NOON).reason == "cancelled"


def test_a_cancel_of_the_re_send_after_the_act_answers_with_the_acts_dn(store, act):
    dn = store.commit(store.prepare(HO1, now=NOON).token, act, now=NOON)
    assert store.cancel(cx(5, "scheduler-2")) == dn


def test_a_cancel_that_arrives_before_the_re_send_it_names(store, act):
    store.prepare(HO1, now=NOON)
    store.cancel(cx(5, "scheduler-2"))
    assert refused(store.prepare, HO2, now=NOON).reason == "cancelled"
    assert act.runs() == []


# ---- any order of prepare, commit and cancel across the issues ----------------------------------------------------

OPS = st.lists(st.tuples(st.sampled_from(["prepare", "commit", "cancel"]), st.sampled_from([0, 1, 2, 3])),
               min_size=1, max_size=10)


@settings(max_examples=int(os.environ.get("RW1_ORDER_EXAMPLES", "40")), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
def test_any_order_of_operations_gives_at_most_one_act_and_none_after_a_cancel_is_granted(tmp_path_factory, ops):
    base = tmp_path_factory.mktemp("order")
    store = ToolStore.open(base / "store.db", profiles=["pay"])
    world = base / "world.log"
    argv = [sys.executable, "-c", ACT, str(world)]
    issues = [HO1, HO2, HO3]
    tokens: list[str] = []
    rbs: list[str] = []
    granted = False
    for op, which in ops:
        if op == "prepare":
            line = issues[which] if which < 3 else (
                HO1.replace("HO scheduler-1 ", f"HO scheduler-4 re={rbs[0]} ") if rbs else HO1)
            try:
                prepared = store.prepare(line, now=NOON)
            except ToolRefused:
                continue
            tokens.append(prepared.token)
            rbs.append(prepared.rb.id)
        elif op == "commit" and tokens:
            try:
                store.commit(tokens[which % len(tokens)], argv, now=NOON)
            except ToolRefused:
                pass
        elif op == "cancel":
            named = ["scheduler-1", "scheduler-2", "scheduler-3", rbs[0] if rbs else "scheduler-4"][which]
            try:
                answer = store.cancel(cx(9, named))
            except ToolRefused:
                continue
            if answer.type == "AN":
                granted = True
                ran = len(world.read_text().split()) if world.exists() else 0
                assert ran == 0
    runs = world.read_text().split() if world.exists() else []
    assert len(runs) <= 1
    if granted:
        assert runs == []


# ---- the window, and a store from before handoff keys ----------------------------------------------------------------


def test_a_window_under_a_minute_rounds_exp_up_and_the_statement_can_commit(store, act, locate):
    at = NOON + dt.timedelta(seconds=30)
    short = ToolStore.open(store.path, profiles=["pay"], window=dt.timedelta(minutes=0.02))
    prepared = short.prepare(HO1, now=at)
    assert prepared.exp == "20261002T1201Z"
    store.commit(prepared.token, act, now=at + dt.timedelta(seconds=1))
    assert act.runs() == ["scheduler-1"]
    assert ToolStore.open(locate("b.db"), profiles=["pay"]).prepare(HO1, now=NOON).exp == "20261002T1215Z"


def test_cli_prepare_with_a_short_window_then_commit(tmp_path, act):
    exp = (dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=2)).strftime("%Y%m%dT%H%MZ")
    ho = HO1.replace("exp=20261002T1700Z", f"exp={exp}")
    db = str(tmp_path / "cli.db")
    run = lambda *a: subprocess.run([sys.executable, "-m", "rogerwilco", "tool", *a], capture_output=True, cwd=ROOT)
    done = run("prepare", ho, "--store", db, "--window", "0.02", "--format", "json")
    assert done.returncode == 0, done.stderr
    committed = run("commit", json.loads(done.stdout)["token"], "--store", db, "--exec", *act)
    assert committed.returncode == 0, committed.stderr
    resent = run("prepare", HO2.replace("exp=20261002T1700Z", f"exp={exp}"), "--store", db)
    assert resent.returncode == 1 and b"why=DUP" in resent.stderr
    un = Message.from_line(resent.stdout.decode().strip(), ["pay"])  # the line to send
    assert (un.type, un.re, un.get("why")) == ("UN", "scheduler-2", "DUP")


OLD_SCHEMA = """
CREATE TABLE statements (token TEXT PRIMARY KEY, ho_id TEXT NOT NULL, ho_from TEXT NOT NULL, ho_to TEXT NOT NULL,
    item TEXT, ask TEXT NOT NULL, profile TEXT, ho_line TEXT NOT NULL, agent TEXT NOT NULL, statement TEXT NOT NULL,
    rb_line TEXT NOT NULL, exp TEXT NOT NULL, state TEXT NOT NULL, prepared_at TEXT NOT NULL, started_at TEXT,
    finished_at TEXT, pid INTEGER, reply_n INTEGER, executed TEXT, reply_line TEXT, cx_id TEXT, detail TEXT);
CREATE TABLE cancels (ho_id TEXT PRIMARY KEY, cx_id TEXT NOT NULL, cx_line TEXT NOT NULL);
CREATE TABLE numbers (agent TEXT PRIMARY KEY, n INTEGER NOT NULL);
"""


def test_a_store_from_before_handoff_keys_keeps_one_statement_per_handoff(tmp_path, act):
    fresh = ToolStore.open(tmp_path / "fresh.db", profiles=["pay"])
    rows = []
    for line in (HO1, HO2):  # two statements of one handoff, as the older store allowed
        prepared = fresh.prepare(line.replace("re=scheduler-1 ", ""), now=NOON)
        rows.append((prepared.token, line))
    db = sqlite3.connect(tmp_path / "old.db")
    db.executescript(OLD_SCHEMA)
    source = sqlite3.connect(tmp_path / "fresh.db")
    columns = [r[1] for r in db.execute("PRAGMA table_info(statements)")]
    for (token, line), i in zip(rows, range(2)):
        values = source.execute(f"SELECT {', '.join(columns)} FROM statements WHERE token = ?", (token,)).fetchone()
        record = dict(zip(columns, values), ho_line=line, prepared_at=f"2026-10-02T12:00:0{i}+00:00")
        db.execute(f"INSERT INTO statements ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                   [record[c] for c in columns])
    db.commit()
    db.close()
    upgraded = ToolStore.open(tmp_path / "old.db", profiles=["pay"])
    states = {s.ho: s.state for s in upgraded.status(now=NOON)}
    assert states == {"scheduler-1": "prepared", "scheduler-2": "abandoned"}  # as a re-send is answered UN why=DUP
    assert refused(upgraded.commit, rows[1][0], act, now=NOON).reason == "abandoned"
    upgraded.commit(rows[0][0], act, now=NOON)
    assert act.runs() == ["scheduler-1"]


def test_issue_link_is_the_rule_check_thread_uses():
    ho1, ho2 = (Message.from_line(line, ["pay"]) for line in (HO1, HO2))
    assert issue_link(ho2, {"scheduler-1": ho1}.get) == ("scheduler-1", RESEND)
    elsewhere = Message.from_line(HO2.replace("to=payer", "to=auditor"), ["pay"])
    assert issue_link(elsewhere, {"scheduler-1": ho1}.get) is None
    report = check_thread([HO1, HO2], now=NOON, profiles=["pay"])
    assert report.ledger.handoff("scheduler-1").state == "reissued"
