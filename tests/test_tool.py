"""The tool's statement: prepare, commit exactly once, expiry, abandon, cancel, in doubt."""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from rogerwilco.checks.readback import check_dn, check_rb
from rogerwilco.checks.thread import check_thread
from rogerwilco.front.tool import ToolError, ToolRefused, ToolStore
from tests.bounds import HANG
from tests.pg import engine, locate, pg_cluster, pg_database  # noqa: F401 - fixtures

ROOT = Path(__file__).resolve().parent.parent
VALUES = "sup=marlow amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 apref=FD-0929"
HO = ("RW1 HO scheduler-1 p=pay from=scheduler to=payer item=inv:MD-2026-057 ask=PAY rb=exec "
      f"{VALUES} exp=20261002T1700Z")
CX = "RW1 CX scheduler-2 re=scheduler-1 p=pay from=scheduler to=payer item=inv:MD-2026-057 why=REVOKED"
CHGBANK = ("RW1 HO scheduler-1 p=pay from=scheduler to=payer item=sup:marlow ask=CHGBANK rb=exec sup=marlow "
           "acct=30-99-01/11112222 eff=20261005 apref=FD-0931 exp=20261002T1700Z")
NOON = dt.datetime(2026, 10, 2, 12, 0, tzinfo=dt.timezone.utc)

EXECUTOR = textwrap.dedent("""
    import json, os, signal, sys, time
    statement = json.load(sys.stdin)
    world, mode = sys.argv[1], sys.argv[2]
    if mode == "fail":
        sys.exit(3)
    with open(world, "a") as fh:
        fh.write(statement["token"] + "\\n")
    values = dict(statement["values"])
    if mode == "slow":
        time.sleep(1.0)
    if mode == "crash":  # the tool dies after the act, before it records the result
        os.kill(os.getppid(), signal.SIGKILL)
        time.sleep(0.5)
    if mode == "die":
        os.kill(os.getpid(), signal.SIGKILL)
    if mode == "garbage":
        print("paid, I think")
        sys.exit(0)
    if mode == "short":
        values["amt"] = "5100.00"
    print(json.dumps({"out": "OK", "values": values}))
""")


@pytest.fixture
def executor(tmp_path):
    script = tmp_path / "executor.py"
    script.write_text(EXECUTOR)
    world = tmp_path / "world.log"

    def argv(mode: str = "ok") -> list[str]:
        return [sys.executable, str(script), str(world), mode]

    argv.runs = lambda: len(world.read_text().splitlines()) if world.exists() else 0  # type: ignore[attr-defined]
    return argv


@pytest.fixture
def store(locate):
    return ToolStore.open(locate("store.db"), profiles=["pay"])  # on each engine (tests/pg.py)


def cli(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rogerwilco", *args], input=stdin, capture_output=True, cwd=ROOT)


def test_prepare_states_the_execution_values_under_an_unguessable_token(store, locate):
    first = store.prepare(HO, now=NOON)
    second = ToolStore.open(locate("other.db"), profiles=["pay"]).prepare(HO, now=NOON)
    assert re.fullmatch(r"[0-9a-f]{32}", first.token) and first.token != second.token
    rb = first.rb
    assert (rb.type, rb.re, rb.from_, rb.to) == ("RB", "scheduler-1", "payer", "scheduler")
    assert rb.get("x_tok") == first.token and rb.get("amt") == "5400.00" and rb.get("acct") == "40-12-88/61102938"
    assert rb.get("exp") == first.exp == "20261002T1215Z"
    assert check_rb(HO, rb, profiles=["pay"], now=NOON).passed


def test_statement_exp_never_outlives_the_handoffs(store):
    assert store.prepare(HO, now=NOON.replace(hour=16, minute=50)).exp == "20261002T1700Z"
    with pytest.raises(ToolRefused) as caught:
        store.prepare(HO, now=NOON.replace(hour=17, minute=1))
    assert caught.value.reason == "expired"


def test_prepare_resolves_what_the_handoff_leaves_from_the_record(store):
    prepared = store.prepare(CHGBANK, record={"prev": "40-12-88/61102938"}, now=NOON)
    assert prepared.rb.get("prev") == "40-12-88/61102938"
    with pytest.raises(ToolRefused) as missing:
        store.prepare(CHGBANK, now=NOON)
    assert missing.value.reason == "missing" and "prev" in missing.value.message


def test_prepare_stops_when_the_record_contradicts_the_handoff(store):
    with pytest.raises(ToolRefused) as caught:
        store.prepare(HO, record={"acct": "99-99-99/00000000"}, now=NOON)
    assert caught.value.reason == "record" and "acct" in caught.value.message
    with pytest.raises(ToolError):
        store.prepare(CHGBANK, record={"prev": 12}, now=NOON)


def test_prepare_refuses_what_is_not_its_statement(store):
    with pytest.raises(ToolRefused) as caught:
        store.prepare(HO, as_="treasury", now=NOON)
    assert caught.value.reason == "not-addressed"
    with pytest.raises(ToolRefused) as no_exec:
        store.prepare("RW1 HO scheduler-1 p=pay from=scheduler to=payer item=inv:X ask=REVIEW", now=NOON)
    assert no_exec.value.reason == "no-exec"
    with pytest.raises(ToolError):
        store.prepare(CX, now=NOON)


def test_commit_runs_once_and_reports_the_values_as_executed(store, executor):
    prepared = store.prepare(HO, now=NOON)
    dn = store.commit(prepared.token, executor("short"), now=NOON)
    assert executor.runs() == 1
    assert dn.type == "DN" and dn.re == "scheduler-1" and dn.get("out") == "OK"
    assert dn.get("amt") == "5100.00"  # what ran, not the plan
    report = check_dn(HO, dn, prepared.rb, profiles=["pay"], now=NOON)
    assert not report.passed and {f.key for f in report.failures()} == {"amt"}
    with pytest.raises(ToolRefused) as again:
        store.commit(prepared.token, executor(), now=NOON)
    assert again.value.reason == "committed" and again.value.reply == dn.to_line()
    assert executor.runs() == 1


def test_commit_refuses_after_exp_without_running(store, executor):
    prepared = store.prepare(HO, now=NOON)
    with pytest.raises(ToolRefused) as caught:
        store.commit(prepared.token, executor(), now=NOON + dt.timedelta(minutes=16))
    assert caught.value.reason == "expired" and executor.runs() == 0
    assert store.status(prepared.token, now=NOON + dt.timedelta(minutes=16))[0].state == "expired"
    renewed = store.prepare(HO, now=NOON + dt.timedelta(minutes=16))  # prepare again instead
    assert store.commit(renewed.token, executor(), now=NOON + dt.timedelta(minutes=17)).type == "DN"


def test_commit_at_the_exp_minute_still_runs(store, executor):
    prepared = store.prepare(HO, now=NOON)
    assert store.commit(prepared.token, executor(), now=NOON + dt.timedelta(minutes=15)).type == "DN"


def test_abandon_then_commit_is_refused(store, executor):
    prepared = store.prepare(HO, now=NOON)
    assert store.abandon(prepared.token).state == "abandoned"
    with pytest.raises(ToolRefused) as caught:
        store.commit(prepared.token, executor(), now=NOON)
    assert caught.value.reason == "abandoned" and executor.runs() == 0
    with pytest.raises(ToolRefused):
        store.abandon(prepared.token)
    with pytest.raises(ToolError):
        store.abandon("0" * 32)


def test_a_new_prepare_supersedes_the_live_statement(store, executor):
    old = store.prepare(HO, now=NOON)
    new = store.prepare(HO, now=NOON)
    with pytest.raises(ToolRefused):
        store.commit(old.token, executor(), now=NOON)
    store.commit(new.token, executor(), now=NOON)
    with pytest.raises(ToolRefused) as caught:
        store.prepare(HO, now=NOON)
    assert caught.value.reason == "committed"
    assert executor.runs() == 1


def test_cancel_before_commit_abandons_and_answers_an_val_y(store, executor):
    prepared = store.prepare(HO, now=NOON)
    answer = store.cancel(CX, n=3)
    assert answer.to_line().startswith("RW1 AN payer-3 re=scheduler-2 from=payer to=scheduler p=pay val=Y")
    with pytest.raises(ToolRefused) as caught:
        store.commit(prepared.token, executor(), now=NOON)
    assert caught.value.reason == "cancelled" and executor.runs() == 0
    with pytest.raises(ToolRefused) as again:
        store.prepare(HO, now=NOON)
    assert again.value.reason == "cancelled"
    lines = [HO, prepared.rb.to_line(), CX, answer.to_line()]
    assert check_thread(lines, now=NOON, profiles=["pay"]).findings == ()


def test_cancel_with_nothing_prepared_still_answers(store):
    assert store.cancel(CX).get("val") == "Y"


def test_cancel_after_commit_answers_with_the_acts_dn(store, executor):
    prepared = store.prepare(HO, now=NOON)
    dn = store.commit(prepared.token, executor(), now=NOON)
    assert store.cancel(CX) == dn
    assert store.status(prepared.token)[0].state == "committed"


def test_cancel_from_the_wrong_party_is_refused(store):
    prepared = store.prepare(HO, now=NOON)
    with pytest.raises(ToolRefused) as caught:
        store.cancel("RW1 CX payer-9 re=scheduler-1 p=pay from=payer to=scheduler item=inv:MD-2026-057")
    assert caught.value.reason == "wrong-party"
    assert store.status(prepared.token, now=NOON)[0].state == "prepared"


def test_executor_failure_is_recorded_with_an_fl(store, executor):
    prepared = store.prepare(HO, now=NOON)
    fl = store.commit(prepared.token, executor("fail"), now=NOON)
    assert fl.type == "FL" and fl.get("why") == "ERR" and fl.re == "scheduler-1"
    assert store.status(prepared.token)[0].state == "failed"
    with pytest.raises(ToolRefused):
        store.commit(prepared.token, executor(), now=NOON)


@pytest.mark.parametrize("mode", ["die", "garbage"])
def test_executor_killed_or_unreadable_leaves_it_in_doubt(store, executor, mode):
    prepared = store.prepare(HO, now=NOON)
    with pytest.raises(ToolRefused) as caught:
        store.commit(prepared.token, executor(mode), now=NOON)
    assert caught.value.reason == "in-doubt"
    assert store.status(prepared.token)[0].state == "in-doubt"
    with pytest.raises(ToolRefused):
        store.commit(prepared.token, executor(), now=NOON)
    assert executor.runs() == 1


def test_executor_timeout_leaves_it_in_doubt(store, executor):
    prepared = store.prepare(HO, now=NOON)
    with pytest.raises(ToolRefused) as caught:
        store.commit(prepared.token, executor("slow"), now=NOON, timeout=0.2)
    assert caught.value.reason == "in-doubt"
    assert "did not finish" in store.status(prepared.token)[0].detail


def test_an_executor_that_cannot_start_leaves_the_statement_prepared(store, executor, tmp_path):
    prepared = store.prepare(HO, now=NOON)
    with pytest.raises(ToolError):
        store.commit(prepared.token, [str(tmp_path / "no-such-program")], now=NOON)
    assert store.status(prepared.token, now=NOON)[0].state == "prepared"
    assert store.commit(prepared.token, executor(), now=NOON).type == "DN"


def test_the_executor_runs_without_a_shell(store, tmp_path):
    marker = tmp_path / "injected"
    prepared = store.prepare(HO, now=NOON)
    reply = store.commit(prepared.token, [sys.executable, "-c", "import sys; sys.exit(2)", f"; touch {marker}"], now=NOON)
    assert reply.type == "FL" and not marker.exists()


def _prepare_cli(tmp_path, ho: str) -> str:
    store = tmp_path / "store.db"
    done = cli("tool", "prepare", ho, "--store", str(store), "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["token"]


def _future_ho() -> str:
    exp = (dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=2)).strftime("%Y%m%dT%H%MZ")
    return HO.replace("exp=20261002T1700Z", f"exp={exp}")


def test_crash_between_execute_and_record_leaves_it_in_doubt(tmp_path, executor):
    token = _prepare_cli(tmp_path, _future_ho())
    store = str(tmp_path / "store.db")
    crashed = cli("tool", "commit", token, "--store", store, "--exec", *executor("crash"))
    assert crashed.returncode == -9  # the tool itself was killed
    assert executor.runs() == 1
    status = cli("tool", "status", token, "--store", store, "--format", "json")
    [entry] = json.loads(status.stdout)
    assert entry["state"] == "in-doubt" and "never run again" in entry["detail"]
    again = cli("tool", "commit", token, "--store", store, "--exec", *executor())
    assert again.returncode == 1 and "in doubt" in again.stderr.decode()
    cancel = cli("tool", "cancel", CX, "--store", store)
    assert cancel.returncode == 1 and cancel.stdout == b""
    assert executor.runs() == 1
    table = cli("tool", "status", "--store", store)
    assert b"in-doubt" in table.stdout


@pytest.mark.parametrize("round_", range(3))
def test_many_processes_committing_one_token_execute_it_once(tmp_path, executor, round_):
    token = _prepare_cli(tmp_path, _future_ho())
    store = str(tmp_path / "store.db")
    command = [sys.executable, "-m", "rogerwilco", "tool", "commit", token, "--store", store, "--exec", *executor("slow")]
    procs = [subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(8)]
    results = [(p.wait(timeout=HANG), p.stdout.read(), p.stderr.read()) for p in procs]
    codes = sorted(code for code, _, _ in results)
    assert codes == [0] + [1] * 7, results
    assert executor.runs() == 1
    [winner] = [out for code, out, _ in results if code == 0]
    assert winner.startswith(b"RW1 DN payer-")
    losers = [err.decode() for code, _, err in results if code == 1]
    assert all("refused" in err for err in losers)


def test_cli_prepare_with_a_record_and_bad_input(tmp_path):
    record = tmp_path / "record.json"
    record.write_text(json.dumps({"prev": "40-12-88/61102938"}))
    ho = CHGBANK.replace("exp=20261002T1700Z", "exp=" + _future_ho().rsplit("exp=", 1)[1])
    done = cli("tool", "prepare", ho, "--store", str(tmp_path / "s.db"), "--record", str(record), "--n", "7")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"RW1 RB payer-7 re=scheduler-1") and b" prev=40-12-88/61102938 " in done.stdout
    refused = cli("tool", "prepare", ho, "--store", str(tmp_path / "s.db"))
    assert refused.returncode == 1 and b"prev" in refused.stderr
    broken = cli("tool", "prepare", "RW1 HO nonsense", "--store", str(tmp_path / "s.db"))
    assert broken.returncode == 2 and b"Traceback" not in broken.stderr
    unknown = cli("tool", "abandon", "deadbeef", "--store", str(tmp_path / "s.db"))
    assert unknown.returncode == 2 and b"Traceback" not in unknown.stderr


# ---- one handoff, one act: re-sends, failures and cancels from the wrong party -------------------------------


def test_a_re_sent_handoff_after_the_act_is_refused_as_a_duplicate(store, executor):
    store.commit(store.prepare(HO, now=NOON).token, executor(), now=NOON)
    resent = HO.replace("HO scheduler-1 ", "HO scheduler-3 re=scheduler-1 ")
    with pytest.raises(ToolRefused) as caught:
        store.prepare(resent, now=NOON)
    assert caught.value.reason == "duplicate" and "why=DUP" in caught.value.message
    assert executor.runs() == 1


def test_a_re_issue_after_our_own_readback_is_the_same_handoff(store, executor):
    prepared = store.prepare(HO, now=NOON)
    store.commit(prepared.token, executor(), now=NOON)
    reissued = HO.replace("HO scheduler-1 ", f"HO scheduler-3 re={prepared.rb.id} ")
    with pytest.raises(ToolRefused) as caught:
        store.prepare(reissued, now=NOON)
    assert caught.value.reason == "duplicate"


def test_a_new_handoff_to_another_receiver_is_not_a_re_send(tmp_path, executor):
    first = ToolStore.open(tmp_path / "a.db", profiles=["pay"])
    first.commit(first.prepare(HO, now=NOON).token, executor(), now=NOON)
    other = HO.replace("HO scheduler-1 ", "HO scheduler-3 re=scheduler-1 ").replace("to=payer", "to=auditor")
    assert first.prepare(other, as_="auditor", now=NOON).token


def test_a_handoff_that_failed_is_closed_and_not_run_again(store, executor):
    store.commit(store.prepare(HO, now=NOON).token, executor("fail"), now=NOON)
    with pytest.raises(ToolRefused) as caught:
        store.prepare(HO, now=NOON)
    assert caught.value.reason == "failed"


def test_a_cancel_from_anyone_but_the_sender_is_refused_even_before_a_prepare(store):
    with pytest.raises(ToolRefused) as caught:
        store.cancel("RW1 CX auditor-1 re=scheduler-1 p=pay from=auditor to=payer item=inv:MD-2026-057 why=REVOKED")
    assert caught.value.reason == "wrong-party"
    assert store.prepare(HO, now=NOON).token  # the real handoff is not blocked
