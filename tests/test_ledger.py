"""The endpoint's durable ledger: restart, sharing between processes, a kill mid-event, a damaged file."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rogerwilco import Endpoint
from rogerwilco.checks.endpoint import Redelivered, replies
from rogerwilco.checks.ledger import LedgerError, MemoryLedger, SQLiteLedger, open_ledger
from tests.bounds import HANG
from tests.pg import engine, locate, pg_cluster, pg_database, rows  # noqa: F401 - fixtures: every test of a
# store runs on both engines

HO = "RW1 HO lead-1 from=lead to=dev item=gh:org/app#7 ask=FIX due=20261010"
BAD = "RW1 HO lead-{n} from=lead to=dev item=x ask=FIXX"

# A receiver that takes numbered lines for ever: every third one it cannot read (one UN each), the rest are
# handoffs it reads back. It prints each line's number once that line's step is committed.
WORKER = r"""
import sys
from rogerwilco import Endpoint
from rogerwilco.checks.endpoint import HandoffOffered
dev = Endpoint("dev", ledger=sys.argv[1])
start = int(sys.argv[2])
for n in range(start, start + 100000):
    line = (f"RW1 HO lead-{n} from=lead to=dev item=x ask=FIXX" if n % 3 == 0
            else f"RW1 HO lead-{n} from=lead to=dev item=gh:org/app#{n} ask=FIX")
    events = dev.receive(line)
    offered = [e for e in events if isinstance(e, HandoffOffered)]
    if offered and offered[0].readback is not None:
        dev.send(offered[0].readback, number=True)
    print(n, flush=True)
"""


def journal_of(path: Path | str) -> list[tuple[str, str]]:
    """The journal as the store holds it (a SQLite file, or a PostgreSQL URL)."""
    return [(d, line) for d, line in rows(path, "SELECT dir, line FROM journal ORDER BY seq")]


def test_an_endpoint_reopened_from_its_ledger_resumes_where_it_stopped(tmp_path, locate):
    path = locate("dev.ledger")
    dev = Endpoint("dev", ledger=path)
    dev.receive(HO)
    rb = dev.send(dev.readback("lead-1"), number=True)
    unk = replies(dev.receive(BAD.format(n=2)))
    again = Endpoint("dev", ledger=path)
    assert again.may_act("lead-1") and again.owner("gh:org/app#7") == "dev"
    assert again.journal() == dev.journal()
    # the transport delivers the same lines again after the restart: nothing is answered twice
    assert isinstance(again.receive(HO)[0], Redelivered)
    assert replies(again.receive(BAD.format(n=2))) == unk
    assert again.send("RW1 ST dev-0 from=dev to=lead item=gh:org/app#7 pct=50", number=True).startswith("RW1 ST dev-3 ")
    assert [line for d, line in journal_of(path) if d == "out"][:2] == [rb, unk[0]]


def test_a_readback_lost_to_a_restart_is_offered_again_on_redelivery(tmp_path, locate):
    path = locate("dev.ledger")
    Endpoint("dev", ledger=path).receive(HO)  # the process dies before it sends the readback
    again = Endpoint("dev", ledger=path).receive(HO)
    assert [type(e).__name__ for e in again] == ["Redelivered", "HandoffOffered"]
    assert again[1].readback.to_line().startswith("RW1 RB dev-1 re=lead-1 ")


def test_two_endpoints_sharing_a_ledger_see_each_other(tmp_path, locate):
    path = locate("dev.ledger")
    one, two = Endpoint("dev", ledger=path), Endpoint("dev", ledger=path)
    one.receive(HO)
    assert isinstance(two.receive(HO)[0], Redelivered)
    two.send(two.readback("lead-1"), number=True)
    assert one.may_act("lead-1")  # a query reads what the other recorded
    assert one.send("RW1 ST dev-0 from=dev to=lead item=gh:org/app#7 pct=1", number=True).startswith("RW1 ST dev-2 ")


def test_two_processes_never_hand_out_the_same_number(tmp_path, locate):
    path = locate("dev.ledger")
    open_ledger(path)
    script = ("import sys\nfrom rogerwilco import Endpoint\ne = Endpoint('dev', ledger=sys.argv[1])\n"
              "for i in range(40):\n    e.send('RW1 ST dev-0 from=dev to=lead item=x pct=1', number=True)\n")
    procs = [subprocess.Popen([sys.executable, "-c", script, str(path)]) for _ in range(2)]
    assert [p.wait(timeout=HANG) for p in procs] == [0, 0]
    ids = [line.split(" ")[2] for d, line in journal_of(path)]
    assert len(ids) == 80 and len(set(ids)) == 80
    assert sorted(int(i.split("-")[1]) for i in ids) == list(range(1, 81))


def test_a_kill_mid_event_loses_and_doubles_nothing(tmp_path, locate):
    path = locate("dev.ledger")
    open_ledger(path)
    proc = subprocess.Popen([sys.executable, "-c", WORKER, str(path), "1"], stdout=subprocess.PIPE, text=True)
    done = []
    deadline = time.monotonic() + 60
    while len(done) < 30 and time.monotonic() < deadline:
        done.append(int(proc.stdout.readline()))
    time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)  # somewhere inside a step
    proc.wait()
    # the last line the worker reported is committed; later ones may or may not be
    journal = journal_of(path)
    ins = [line for d, line in journal if d == "in"]
    assert len(ins) >= len(done)
    last = max(int(line.split(" ")[2].split("-")[1]) for line in ins)
    # every step is whole: a line that could not be read has its UN, and the numbers run 1, 2, 3... once each
    outs = [line for d, line in journal if d == "out"]
    numbers = [int(line.split(" ")[2].split("-")[1]) for line in outs]
    assert numbers == list(range(1, len(numbers) + 1))
    refusals = [line for line in outs if line.startswith("RW1 UN")]
    assert len(refusals) == sum(1 for line in ins if "FIXX" in line)
    # resume: redeliver from the last reported line, as a transport that was never told would
    proc = subprocess.Popen([sys.executable, "-c", WORKER, str(path), str(done[-1])], stdout=subprocess.PIPE,
                            text=True)
    while int(proc.stdout.readline()) < last + 6:
        pass
    proc.kill()
    proc.wait()
    ids = [line.split(" ")[2] for d, line in journal_of(path) if d == "in"]
    assert len(ids) == len(set(ids))  # no line taken twice
    outs = [line for d, line in journal_of(path) if d == "out"]
    numbers = [int(line.split(" ")[2].split("-")[1]) for line in outs]
    assert numbers == list(range(1, len(numbers) + 1))
    answered = {line.split(" re=")[1].split(" ")[0] for line in outs}
    assert answered == set(ids[: len(answered)]) and len(answered) >= len(ids) - 1  # every handled line answered


def test_a_corrupted_ledger_is_refused_not_reset(tmp_path):
    path = tmp_path / "dev.ledger"
    dev = Endpoint("dev", ledger=path)
    dev.receive(HO)
    data = bytearray(path.read_bytes())
    data[0:16] = b"not a database!!"
    path.write_bytes(bytes(data))
    with pytest.raises(LedgerError, match="not a usable rogerwilco ledger"):
        Endpoint("dev", ledger=path)
    assert path.read_bytes()[:16] == b"not a database!!"  # left as it was


def test_a_damaged_page_is_refused(tmp_path):
    path = tmp_path / "dev.ledger"
    dev = Endpoint("dev", ledger=path)
    for n in range(60):
        dev.receive(f"RW1 HO lead-{n} from=lead to=dev item=gh:org/app#{n} ask=FIX // {'x' * 250}")
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    data = bytearray(path.read_bytes())
    page = 4096
    for i in range(2 * page, len(data) - page, page):
        data[i:i + 64] = b"\xff" * 64
    path.write_bytes(bytes(data))
    with pytest.raises(LedgerError):
        Endpoint("dev", ledger=path)


def test_another_sqlite_file_is_not_a_ledger(tmp_path):
    path = tmp_path / "other.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE t (a)")
    db.commit()
    db.close()
    with pytest.raises(LedgerError, match="not a rogerwilco ledger"):
        SQLiteLedger(path)


def test_a_failed_step_leaves_the_memory_ledger_as_it_was():
    ledger = MemoryLedger()
    with pytest.raises(RuntimeError):
        with ledger.transaction() as tx:
            tx.append("dev", "in", HO, msg_id="lead-1", extra={}, at="x")
            raise RuntimeError
    with ledger.transaction() as tx:
        assert tx.entries("dev", 0) == []


# ---- the tool's store consults the ledger ------------------------------------------------

PAY_HO = ("RW1 HO scheduler-1 p=pay from=scheduler to=payer item=inv:MD-2026-057 ask=PAY rb=exec sup=marlow "
          "amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 apref=FD-0929")
EXECUTOR = ("import json, sys\nstatement = json.load(sys.stdin)\n"
            "print(json.dumps({'out': 'OK', 'values': statement['values']}))\n")


def test_commit_waits_for_wilco_in_the_ledger_and_never_runs_after_a_cancel(tmp_path, locate):
    from rogerwilco.front.tool import ToolRefused, ToolStore

    payer = Endpoint("payer", profiles=["pay"], ledger=locate("payer.ledger"))
    scheduler = Endpoint("scheduler", profiles=["pay"])
    store = ToolStore.open(locate("payer.ledger"), profiles=["pay"], endpoint=payer)
    with pytest.raises(ToolRefused) as unknown:
        store.prepare(PAY_HO)
    assert unknown.value.reason == "not-offered"  # the endpoint never received it
    payer.receive(scheduler.send(PAY_HO))
    prepared = store.prepare(PAY_HO)
    argv = [sys.executable, "-c", EXECUTOR]
    with pytest.raises(ToolRefused) as early:
        store.commit(prepared.token, argv)
    assert early.value.reason == "not-wilco"  # no readback yet
    rb = payer.send(prepared.rb.replace(id="payer-1"))  # the tool's statement is the readback
    confirm = scheduler.receive(rb)[0].confirm
    with pytest.raises(ToolRefused):
        store.commit(prepared.token, argv)  # rb=exec: not before AN val=Y
    payer.receive(scheduler.send(confirm, number=True))
    dn = store.commit(prepared.token, argv)
    assert dn.type == "DN" and dn.get("amt") == "5400.00"


def test_a_cancel_in_the_ledger_stops_the_commit(tmp_path, locate):
    from rogerwilco.front.tool import ToolRefused, ToolStore

    payer = Endpoint("payer", profiles=["pay"], ledger=locate("payer.ledger"))
    store = ToolStore.open(locate("payer.ledger"), profiles=["pay"], endpoint=payer)
    payer.receive(PAY_HO)
    prepared = store.prepare(PAY_HO)
    payer.send(prepared.rb.replace(id="payer-1"))
    payer.receive("RW1 AN scheduler-2 re=payer-1 p=pay from=scheduler to=payer val=Y")
    assert payer.may_act("scheduler-1")
    payer.receive("RW1 CX scheduler-3 re=scheduler-1 p=pay from=scheduler to=payer item=inv:MD-2026-057 why=REVOKED")
    with pytest.raises(ToolRefused) as cancelled:
        store.commit(prepared.token, [sys.executable, "-c", EXECUTOR])
    assert cancelled.value.reason == "cancelled"
    with pytest.raises(ToolRefused) as again:
        store.prepare(PAY_HO)
    assert again.value.reason == "cancelled"


def test_the_tool_command_takes_the_ledger(tmp_path, locate):
    payer = Endpoint("payer", profiles=["pay"], ledger=locate("payer.ledger"))
    payer.receive(PAY_HO)
    run = [sys.executable, "-m", "rogerwilco", "tool"]
    prepared = subprocess.run(run + ["prepare", PAY_HO, "--ledger", str(locate("payer.ledger")), "--profile",
                                     "pay", "--format", "json"],
                              capture_output=True, text=True, timeout=HANG)
    assert prepared.returncode == 0, prepared.stderr
    import json

    token = json.loads(prepared.stdout)["token"]
    refused = subprocess.run(run + ["commit", token, "--ledger", str(locate("payer.ledger")), "--as", "payer",
                                    "--profile", "pay",
                                    "--exec", sys.executable, "-c", EXECUTOR],
                             capture_output=True, text=True, timeout=HANG)
    assert refused.returncode == 1 and "wilco" in refused.stderr


# ---- damaged text, symbolic links ---------------------------------------------------------------


def test_text_that_is_not_utf8_is_a_ledger_error_naming_the_file(tmp_path):
    path = tmp_path / "dev.ledger"
    Endpoint("dev", ledger=path).receive(HO)
    db = sqlite3.connect(path)
    db.execute("UPDATE journal SET line = CAST(x'52573120ff' AS TEXT)")  # "RW1 " and a byte no UTF-8 has
    db.commit()
    db.close()
    with pytest.raises(LedgerError, match="not UTF-8") as damaged:
        Endpoint("dev", ledger=path)
    assert str(path) in str(damaged.value) and "restore it from a copy" in str(damaged.value)


def test_a_dangling_symlink_at_the_ledger_path_is_refused_and_nothing_is_created(tmp_path):
    target, link = tmp_path / "elsewhere.ledger", tmp_path / "dev.ledger"
    link.symlink_to(target)
    with pytest.raises(LedgerError, match="symbolic link"):
        Endpoint("dev", ledger=link)
    assert not target.exists()


def test_a_symlink_to_an_existing_file_is_refused_and_the_file_left_as_it_is(tmp_path):
    target, link = tmp_path / "empty", tmp_path / "dev.ledger"
    target.write_bytes(b"")
    link.symlink_to(target)
    with pytest.raises(LedgerError, match="symbolic link"):
        SQLiteLedger(link)
    assert target.read_bytes() == b""


def test_the_tool_store_refuses_a_symlink_too(tmp_path):
    from rogerwilco.front.tool import ToolStore

    target, link = tmp_path / "elsewhere.db", tmp_path / "tool.db"
    link.symlink_to(target)
    with pytest.raises(LedgerError, match="symbolic link"):
        ToolStore.open(link, profiles=["pay"])
    assert not target.exists()


# ---- one store per agent: the tool's steps and the endpoint's are one state --------------------------

CANCEL = "RW1 CX scheduler-3 re=scheduler-1 p=pay from=scheduler to=payer item=inv:MD-2026-057 why=REVOKED"
MARKING = ("import json, sys, pathlib\nstatement = json.load(sys.stdin)\npathlib.Path(sys.argv[1]).write_text('ran')\n"
           "print(json.dumps({'out': 'OK', 'values': statement['values']}))\n")


def wilco(tmp_path, locate):
    """payer's endpoint and tool on one ledger, its statement read back and confirmed."""
    from rogerwilco.front.tool import ToolStore

    path = locate("payer.ledger")
    payer = Endpoint("payer", profiles=["pay"], ledger=path)
    store = ToolStore.open(path, profiles=["pay"], endpoint=payer)
    payer.receive(PAY_HO)
    prepared = store.prepare(PAY_HO)
    payer.send(prepared.rb)
    payer.receive("RW1 AN scheduler-2 re=payer-1 p=pay from=scheduler to=payer val=Y")
    return path, payer, store, prepared


def test_a_cancel_another_process_records_after_prepare_is_honoured_at_commit(tmp_path, locate):
    from rogerwilco.front.tool import ToolRefused

    path, payer, store, prepared = wilco(tmp_path, locate)
    Endpoint("payer", profiles=["pay"], ledger=path).receive(CANCEL)  # another process, its own connection
    with pytest.raises(ToolRefused) as refused:
        store.commit(prepared.token, [sys.executable, "-c", MARKING, str(tmp_path / "ran")])
    assert refused.value.reason == "cancelled" and not (tmp_path / "ran").exists()


def test_no_cancel_lands_between_the_ledgers_answer_and_the_mark_in_doubt(tmp_path, locate, engine, monkeypatch):
    path, payer, store, prepared = wilco(tmp_path, locate)
    # another process, which gives up at once where it would wait for the ledger
    waits_not = SQLiteLedger(path, busy_timeout=0) if engine == "sqlite" else open_ledger(path + "%20-clock_timeout%3D50")
    other = Endpoint("payer", profiles=["pay"], ledger=waits_not)
    tries = []
    asked = payer.may_act

    def may_act_then_another_process_records_a_cancel(ho_id):
        answer = asked(ho_id)
        try:
            other.receive(CANCEL)
            tries.append("recorded")
        except LedgerError:  # the commit's transaction holds the ledger from the question to the mark
            tries.append("waits")
        return answer

    monkeypatch.setattr(payer, "may_act", may_act_then_another_process_records_a_cancel)
    dn = store.commit(prepared.token, [sys.executable, "-c", MARKING, str(tmp_path / "ran")])
    assert tries == ["waits"] and (tmp_path / "ran").exists()
    # the cancel lands after the act, and the endpoint answers it with the act's DN, which the tool journalled
    cancelled = other.receive(CANCEL)[0]
    assert cancelled.reply is not None and cancelled.reply.to_line() == dn.to_line()
    order = [line.split(" ")[1] for d, line in journal_of(path)]
    assert order.index("DN") < order.index("CX")


def test_one_agent_never_issues_one_id_twice_across_the_tool_and_the_endpoint(tmp_path, locate):
    from rogerwilco.front.tool import ToolStore

    path = locate("payer.ledger")
    payer = Endpoint("payer", profiles=["pay"], ledger=path)
    store = ToolStore.open(path, profiles=["pay"], endpoint=payer)
    issued = []
    payer.receive("RW1 AQ scheduler-9 from=scheduler to=payer need=TEXT // when?")
    issued.append(payer.send("RW1 AN payer-0 re=scheduler-9 from=payer to=scheduler val=today", number=True))
    payer.receive(PAY_HO)
    prepared = store.prepare(PAY_HO)  # the tool's readback takes the next number of the one counter
    issued.append(prepared.rb.to_line())
    issued += replies(payer.receive(BAD.format(n=5)))  # an automatic UN in between
    issued.append(payer.send(prepared.rb))
    payer.receive("RW1 AN scheduler-2 re=payer-2 p=pay from=scheduler to=payer val=Y")
    issued.append(store.commit(prepared.token, [sys.executable, "-c", EXECUTOR]).to_line())
    issued.append(payer.send("RW1 ST payer-0 from=payer to=scheduler item=inv:MD-2026-057 pct=100", number=True))
    ids = [line.split(" ")[2] for line in issued]
    assert ids == ["payer-1", "payer-2", "payer-3", "payer-2", "payer-4", "payer-5"]
    outs = [line.split(" ")[2] for d, line in journal_of(path) if d == "out"]
    assert len(outs) == len(set(outs)) == 5  # the DN is in the journal: the endpoint knows the act ran


def test_the_tool_keeps_one_store_with_its_endpoint(tmp_path):
    from rogerwilco.front.tool import ToolError, ToolStore

    payer = Endpoint("payer", profiles=["pay"], ledger=tmp_path / "payer.ledger")
    with pytest.raises(ToolError, match="one store"):
        ToolStore.open(tmp_path / "tool.db", profiles=["pay"], endpoint=payer)
    with pytest.raises(ToolError, match="SQLite ledger"):
        ToolStore.open(None, profiles=["pay"], endpoint=Endpoint("payer", profiles=["pay"]))


def test_a_ledger_of_version_1_is_upgraded_in_place(tmp_path):
    path = tmp_path / "dev.ledger"
    Endpoint("dev", ledger=path).receive(HO)
    db = sqlite3.connect(path)
    db.executescript("DROP TABLE statements; DROP TABLE cancels; DROP TABLE issues; "
                     "UPDATE meta SET value = '1' WHERE key = 'version';")
    db.close()
    again = Endpoint("dev", ledger=path)
    assert again.handoff("lead-1") is not None
    db = sqlite3.connect(path)
    assert db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone() == ("2",)
    assert db.execute("SELECT count(*) FROM statements").fetchone() == (0,)
    db.close()


# ---- refused input is journalled cut short -------------------------------------------------------------


def test_oversized_refused_lines_are_journalled_cut_short_and_never_parsed_again(tmp_path, monkeypatch):
    import hashlib

    from rogerwilco.checks import endpoint as endpoint_module
    from rogerwilco.checks.ledger import REFUSED_PREFIX
    from rogerwilco.core.message import Message

    path = tmp_path / "dev.ledger"
    dev = Endpoint("dev", ledger=path)
    big = "RW1 HO lead-{n} from=lead to=dev item=x ask=FIX // " + "x" * (10 * 2**20)
    answered = [replies(dev.receive(big.format(n=n))) for n in (1, 2, 3)]
    assert all(len(a) == 1 for a in answered)  # each refused, and answered UN
    size = sum(p.stat().st_size for p in tmp_path.iterdir() if p.name.startswith("dev.ledger"))
    assert size < 256 * 1024  # three 10 MiB lines cost the file kilobytes
    db = sqlite3.connect(path)
    kept = db.execute("SELECT line, extra FROM journal WHERE dir = 'in' ORDER BY seq").fetchall()
    db.close()
    line, extra = kept[0]
    whole = big.format(n=1).encode()
    assert len(line) == REFUSED_PREFIX and big.format(n=1).startswith(line)
    assert json.loads(extra)["refused"] == {"sha256": hashlib.sha256(whole).hexdigest(), "size": len(whole)}
    longest = []
    parse_line, from_line = endpoint_module.check_line, Message.from_line
    monkeypatch.setattr(endpoint_module, "check_line", lambda text, *a, **k: (longest.append(len(text)),
                                                                              parse_line(text, *a, **k))[1])
    monkeypatch.setattr(Message, "from_line", classmethod(lambda cls, text, *a, **k: (
        longest.append(len(text)), from_line.__func__(cls, text, *a, **k))[1]))
    again = Endpoint("dev", ledger=path)
    assert max(longest) <= REFUSED_PREFIX  # the restart parsed no big text
    longest.clear()
    assert replies(again.receive(big.format(n=2))) == answered[1]  # delivered again: recognised by its hash


def test_a_version_1_ledgers_refused_lines_are_cut_short_when_it_is_upgraded(tmp_path):
    from rogerwilco.checks.ledger import REFUSED_PREFIX

    path = tmp_path / "dev.ledger"
    dev = Endpoint("dev", ledger=path)
    big = BAD.format(n=1) + " // " + "y" * 100_000
    unk = replies(dev.receive(big))
    db = sqlite3.connect(path)  # as version 1 journalled it: whole
    db.execute("UPDATE journal SET line = ?, extra = ? WHERE dir = 'in'", (big, json.dumps({"replies": ["dev-1"]})))
    db.execute("UPDATE meta SET value = '1' WHERE key = 'version'")
    db.commit()
    db.close()
    again = Endpoint("dev", ledger=path)
    assert replies(again.receive(big)) == unk  # still recognised
    db = sqlite3.connect(path)
    assert db.execute("SELECT max(length(line)) FROM journal").fetchone()[0] <= REFUSED_PREFIX
    db.close()


def test_a_cancel_while_the_act_is_in_doubt_is_not_answered_nothing_was_done(tmp_path, locate):
    from rogerwilco import ProtocolError
    from rogerwilco.front.tool import ToolRefused

    path, payer, store, prepared = wilco(tmp_path, locate)
    dying = "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"  # the act may have run
    with pytest.raises(ToolRefused):
        store.commit(prepared.token, [sys.executable, "-c", dying])
    assert payer.receive(CANCEL)[0].reply is None  # no "nothing executed" offered while the act may have run
    answer = "RW1 AN payer-0 re=scheduler-3 p=pay from=payer to=scheduler val=Y // abandoned; nothing executed"
    with pytest.raises(ProtocolError) as refused:
        payer.send(answer, number=True)
    assert refused.value.kind == "act-ran" and "in-doubt" in str(refused.value)
    store.settle(prepared.token, ran=False, note="the bank has no such payment", who="ops")
    assert payer.send(answer, number=True).startswith("RW1 AN payer-3 re=scheduler-3 ")


def test_the_tool_command_keeps_one_store_and_one_counter(tmp_path, locate):
    payer = Endpoint("payer", profiles=["pay"], ledger=locate("payer.ledger"))
    payer.receive(PAY_HO)
    payer.send("RW1 ST payer-0 from=payer to=scheduler item=inv:MD-2026-057 pct=0", number=True)
    run = [sys.executable, "-m", "rogerwilco", "tool", "prepare", PAY_HO, "--profile", "pay"]
    elsewhere = subprocess.run(run + ["--ledger", str(locate("payer.ledger")), "--store", str(tmp_path / "t.db")],
                               capture_output=True, text=True)
    assert elsewhere.returncode == 2 and "one store" in elsewhere.stderr and not (tmp_path / "t.db").exists()
    used = subprocess.run(run + ["--ledger", str(locate("payer.ledger")), "--n", "1"], capture_output=True,
                          text=True)
    assert used.returncode == 2 and "payer-1 is not free" in used.stderr
    fine = subprocess.run(run + ["--ledger", str(locate("payer.ledger"))], capture_output=True, text=True)
    assert fine.returncode == 0 and fine.stdout.startswith("RW1 RB payer-2 ")
