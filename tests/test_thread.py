"""check_thread: the ledger, the close table, the API's inputs, the CLI and its rendering."""

from __future__ import annotations

import io
import json

import pytest

from rogerwilco import Message
from rogerwilco.front.adapter import handle
from rogerwilco.front.cli import main
from rogerwilco.front.render import make_console
from rogerwilco.front.render.thread import thread_report
from rogerwilco.checks.thread import CLOSE_TRANSITIONS, HANDOFF_STATES, check_thread, parse_now

HO = "RW1 HO lead-1 from=lead to=dev item=gh:org/app#7 ask=FIX due=20261010"
RB = "RW1 RB dev-1 re=lead-1 from=dev to=lead item=gh:org/app#7 ask=FIX due=20261010"
BAD_RB = "RW1 RB dev-1 re=lead-1 from=dev to=lead item=gh:org/app#7 ask=TEST due=20261010"
DN = "RW1 DN dev-2 re=lead-1 from=dev to=lead item=gh:org/app#7 out=OK"
CX = "RW1 CX lead-2 re=lead-1 from=lead to=dev item=gh:org/app#7 why=REVOKED"
RELAY = "RW1 HO dev-2 re=lead-1 from=dev to=qa item=gh:org/app#7 ask=TEST"
RELAY_RB = "RW1 RB qa-1 re=dev-2 from=qa to=dev item=gh:org/app#7 ask=TEST"
NOW = "20261003T0900Z"


def states(report):
    return {h.id: h.state for h in report.ledger.handoffs}


def kinds(report):
    return {(f.severity, f.kind, f.key) for f in report.findings}


def test_every_close_state_answers_every_event():
    reachable = {"open"} | {after for after, _ in CLOSE_TRANSITIONS.values()}
    events = {"DN-act", "DN-noop", "UN", "FL", "CX"}
    assert {(s, e) for s in reachable for e in events} <= set(CLOSE_TRANSITIONS)


@pytest.mark.parametrize("lines, expected", [
    ([HO], "awaiting-readback"),
    ([HO, RB], "owned"),
    ([HO, BAD_RB], "held"),
    ([HO, RB, DN], "closed"),
    ([HO, CX], "closed"),
])
def test_handoff_states_in_time(lines, expected):
    report = check_thread(lines, now=NOW)
    assert states(report)["lead-1"] == expected
    assert expected in HANDOFF_STATES


def test_orphaned_when_open_past_due_whatever_the_readback():
    for lines in ([HO], [HO, RB], [HO, BAD_RB]):
        assert states(check_thread(lines, now="20261011T0000Z"))["lead-1"] == "orphaned"


def test_closed_records_which_message_closed_it():
    handoff = check_thread([HO, RB, DN, CX], now=NOW).ledger.handoff("lead-1")
    assert (handoff.state, handoff.by, handoff.closer) == ("closed", "DN", "dev-2")
    cancelled = check_thread([HO, CX], now=NOW).ledger.handoff("lead-1")
    assert (cancelled.by, cancelled.closer) == ("CX", "lead-2")


def test_owner_is_the_sender_until_a_readback_passes():
    report = check_thread([HO], now=NOW)
    assert report.ledger.owner("gh:org/app#7") == "lead"
    assert report.ledger.items[0].via is None
    assert check_thread([HO, BAD_RB], now=NOW).ledger.owner("gh:org/app#7") == "lead"
    assert check_thread([HO, RB], now=NOW).ledger.owner("gh:org/app#7") == "dev"


def test_owner_follows_the_most_recent_handoff_whose_readback_passed():
    assert check_thread([HO, RB, RELAY], now=NOW).ledger.owner("gh:org/app#7") == "dev"
    report = check_thread([HO, RB, RELAY, RELAY_RB], now=NOW)
    assert report.ledger.owner("gh:org/app#7") == "qa"
    assert report.ledger.items[0].via == "dev-2"


def test_readback_order_in_stream_does_not_decide_the_owner():
    """The most recent HO decides, even when an older HO's RB arrives last."""
    report = check_thread([HO, RELAY, RELAY_RB, RB], now=NOW)
    assert report.ledger.owner("gh:org/app#7") == "qa"


def test_dup_answer_creates_no_second_owner_and_no_second_close():
    resend = "RW1 HO lead-2 re=lead-1 from=lead to=dev item=gh:org/app#7 ask=FIX due=20261010"
    dup = "RW1 UN dev-2 re=lead-2 from=dev to=lead why=DUP"
    done = "RW1 DN dev-3 re=lead-1 from=dev to=lead item=gh:org/app#7 out=OK"
    report = check_thread([HO, RB, resend, dup, done], now=NOW)
    assert report.passed and report.findings == ()
    assert states(report) == {"lead-1": "closed", "lead-2": "closed"}
    assert report.ledger.handoff("lead-2").by == "UN"
    assert report.ledger.handoff("lead-1").closer == "dev-3"
    assert report.ledger.owner("gh:org/app#7") == "dev"


def test_void_readback_reissue_leaves_the_old_handoff_carried_forward():
    lines = [
        "RW1 HO ops-03 from=ops to=builder item=jira:OPS-77 ask=FIX due=20261001",
        "RW1 RB builder-05 re=ops-03 from=builder to=ops item=jira:OPS-77 ask=BUILD due=20261001",
        "RW1 HO ops-04 re=builder-05 from=ops to=builder item=jira:OPS-77 ask=FIX due=20261001",
    ]
    report = check_thread(lines, now="20260930T0000Z")
    old = report.ledger.handoff("ops-03")
    assert (old.state, old.next, old.readback) == ("reissued", "ops-04", "failed")
    assert report.ledger.handoff("ops-04").state == "awaiting-readback"
    assert kinds(report) == {("note", "open", "ops-04")}
    assert report.ledger.owner("jira:OPS-77") == "ops"


def test_accepts_messages_and_skips_blank_lines():
    messages = [Message.from_line(HO), "", Message.from_line(RB), DN + "\n"]
    report = check_thread(messages, now=NOW)
    assert report.passed and states(report) == {"lead-1": "closed"}


def test_refuses_what_is_not_a_line():
    with pytest.raises(TypeError):
        check_thread([42], now=NOW)


def test_now_defaults_to_the_clock_and_rejects_bad_text():
    assert check_thread(["RW1 HO a-1 from=a to=b item=x:1 ask=FIX due=20000101"]).passed is False
    assert check_thread(["RW1 HO a-1 from=a to=b item=x:1 ask=FIX due=29991231"]).passed is True
    for bad in ("2026-10-03", "20261332T0000Z", "20261003T2460Z", 20261003):
        with pytest.raises(ValueError):
            parse_now(bad)


def test_readback_decides_by_every_tier_asked():
    """A wrong digest fails the readback even when the echo is right."""
    good = RB + " h=" + Message.from_line(HO).digest()
    assert check_thread([HO, good], now=NOW).ledger.handoff("lead-1").readback == "passed"
    wrong = RB + " h=000000000000"
    assert check_thread([HO, wrong], now=NOW).ledger.handoff("lead-1").state == "held"


def test_finding_keys_are_the_handoff_id_or_null():
    report = check_thread([HO, RB, "RW1 DN dev-9 re=lead-7 from=dev to=lead item=x:1 out=OK", "RW1 ZZ x"], now=NOW)
    keys = {f.kind: f.key for f in report.findings}
    assert keys == {"reply-to-unknown": None, "form": None, "open": "lead-1"}


def test_adapter_op_answers_and_refuses_bad_requests():
    ok = handle({"op": "check-thread", "lines": [HO, RB, DN], "now": NOW})
    assert ok["ok"] is True and ok["passed"] is True and ok["findings"] == []
    assert ok["ledger"]["handoffs"][0]["state"] == "closed"
    assert handle({"op": "check-thread", "lines": HO, "now": NOW})["ok"] is False
    assert handle({"op": "check-thread", "lines": [HO], "now": "yesterday"})["ok"] is False


def test_cli_json_and_exit_codes(tmp_path, capsys):
    path = tmp_path / "t.rw1"
    path.write_text("\n".join([HO, RB, DN]) + "\n")
    assert main(["check-thread", str(path), "--now", NOW, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {"passed", "findings", "ledger"} and doc["passed"] is True
    path.write_text(HO + "\n")
    assert main(["check-thread", str(path), "--now", "20261011T0000Z", "-f", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["findings"][0]["kind"] == "open-past-due"
    assert main(["check-thread", str(path), "--now", "soon"]) == 2
    assert main(["check-thread", str(tmp_path / "missing.rw1"), "--now", NOW]) == 2
    assert "rogerwilco:" in capsys.readouterr().err


def test_cli_reports_a_non_utf8_line_as_form(tmp_path, capsys):
    path = tmp_path / "t.rw1"
    path.write_bytes(HO.encode() + b"\n\xff\xfe\n")
    assert main(["check-thread", str(path), "--now", NOW, "-f", "json"]) == 1
    assert [f["kind"] for f in json.loads(capsys.readouterr().out)["findings"]] == ["form", "open"]


def test_rendering_shows_findings_owner_and_states():
    report = check_thread([HO, RB, RELAY, CX], now=NOW)
    out = io.StringIO()
    make_console(out, width=120, color=False).print(thread_report(report))
    text = out.getvalue()
    assert "note [cancel-unacknowledged]" in text
    assert "note [open] dev-2 is open and in time" in text
    assert "passed: 0 fails, 2 notes" in text
    assert "lead-1" in text and "CX lead-2" in text
    row = next(line for line in text.splitlines() if line.startswith("| dev-2"))
    assert "awaiting-readback" in row
    assert "\x1b[" not in text


def test_cycles_of_re_are_walked_once_and_end():
    # re= loops (a stream cannot be sent this way, but a file can say it): each chain is walked once
    lines = ["RW1 HO lead-1 re=lead-2 from=lead to=dev item=x:1 ask=FIX due=20261010",
             "RW1 HO lead-2 re=lead-1 from=lead to=dev item=x:1 ask=FIX due=20261010",
             "RW1 HO lead-3 re=lead-2 from=lead to=dev item=x:1 ask=FIX due=20261010",
             "RW1 RB dev-9 re=lead-3 from=dev to=lead item=x:1 ask=FIX due=20261010",
             "RW1 DN dev-1 re=lead-3 from=dev to=lead item=x:1 out=OK",
             "RW1 CX lead-4 re=lead-5 from=lead to=dev item=x:1 why=REVOKED",
             "RW1 CX lead-5 re=lead-4 from=lead to=dev item=x:1 why=REVOKED",
             "RW1 DN dev-2 re=lead-1 from=dev to=lead item=x:1 out=OK"]
    report = check_thread(lines, now=NOW)
    # the three issues are one handoff, so the DN naming the first is a second close
    assert [(f.kind, f.key, f.token) for f in report.findings] == [("closed-twice", "lead-3", "dev-2")]
    assert [(h.id, h.state, h.next, h.closer) for h in report.ledger.handoffs] == [
        ("lead-1", "reissued", "lead-2", None), ("lead-2", "reissued", "lead-3", None),
        ("lead-3", "closed", None, "dev-1")]


def test_a_long_chain_of_re_sends_is_one_handoff():
    lines = ["RW1 HO lead-1 from=lead to=dev item=x:1 ask=FIX due=20261010"]
    lines += [f"RW1 HO lead-{n} re=lead-{n - 1} from=lead to=dev item=x:1 ask=FIX due=20261010"
              for n in range(2, 3001)]
    lines += ["RW1 RB dev-9 re=lead-3000 from=dev to=lead item=x:1 ask=FIX due=20261010",
              "RW1 DN dev-1 re=lead-1 from=dev to=lead item=x:1 out=OK",
              "RW1 DN dev-2 re=lead-1500 from=dev to=lead item=x:1 out=OK"]
    report = check_thread(lines, now=NOW)
    assert [(f.kind, f.key, f.token) for f in report.findings] == [("closed-twice", "lead-3000", "dev-2")]
    assert report.ledger.handoff("lead-3000").state == "closed"
    assert report.ledger.handoff("lead-1").state == "reissued"


def test_a_readback_that_arrives_before_its_handoff_still_counts():
    report = check_thread([RB, HO], now=NOW)
    assert states(report)["lead-1"] == "owned"
    assert report.ledger.handoff("lead-1").rb == "dev-1"


def test_an_undo_is_followed_back_to_the_act_it_reverses():
    ho = ("RW1 HO scheduler-1 p=pay from=scheduler to=payer item=inv:MD-2026-057 ask=PAY rb=exec sup=marlow "
          "amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 apref=FD-0929")
    values = ("sup=marlow amt=5100.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 "
              "apref=FD-0929")
    dn = f"RW1 DN payer-2 re=scheduler-1 p=pay from=payer to=scheduler item=inv:MD-2026-057 out=OK {values}"
    undo = (f"RW1 HO scheduler-3 p=pay from=scheduler to=payer item=inv:MD-2026-057 ask=UNDO ctx=payer-2 rb=exec "
            f"{values}")
    report = check_thread([ho, dn, undo], now="20261001T0000Z", profiles=["pay"])
    state = report.ledger.handoff("scheduler-3")
    assert (state.undoes, state.reverses) == ("scheduler-1", "payer-2")
    assert report.ledger.to_json()["handoffs"][1]["undoes"] == "scheduler-1"
    assert "undoes" not in report.ledger.to_json()["handoffs"][0]



def test_an_act_on_an_unechoed_change_is_what_the_live_endpoint_refuses():
    from rogerwilco import Endpoint, ProtocolError

    lead, dev = Endpoint("lead"), Endpoint("dev")
    log = []

    def say(sender, receiver, message, **kw):
        line = sender.send(message, **kw)
        log.append(line)
        return receiver.receive(line)

    say(lead, dev, "RW1 HO lead-1 from=lead to=dev item=gh:o/r#1 ask=FIX due=20261010 rb=all")
    say(dev, lead, dev.readback("lead-1"), number=True)
    events = say(lead, dev, "RW1 ST lead-2 re=lead-1 from=lead to=dev item=gh:o/r#1 eta=20261008 // sooner")
    act = "RW1 DN dev-9 re=lead-1 from=dev to=lead item=gh:o/r#1 out=OK"
    with pytest.raises(ProtocolError) as refused:
        dev.send(act)
    assert refused.value.kind == "act-before-echo"
    forced = check_thread(log + [act], now="20261001T0000Z")
    assert [(f.severity, f.kind, f.key, f.token) for f in forced.findings] == [("fail", "act-before-echo", "lead-1",
                                                                               "dev-9")]
    say(dev, lead, events[0].echo, number=True)  # the echo composed by code passes the sender's check
    say(dev, lead, act)
    report = check_thread(log, now="20261001T0000Z")
    assert report.passed and report.findings == ()


def test_a_wrong_echo_does_not_clear_the_act():
    lines = ["RW1 HO lead-1 from=lead to=dev item=gh:o/r#1 ask=FIX due=20261010 rb=all",
             "RW1 RB dev-1 re=lead-1 from=dev to=lead item=gh:o/r#1 ask=FIX due=20261010",
             "RW1 ST lead-2 re=lead-1 from=lead to=dev item=gh:o/r#1 eta=20261008",
             "RW1 RB dev-2 re=lead-2 from=dev to=lead item=gh:o/r#1 ask=FIX eta=20261009",
             "RW1 DN dev-3 re=lead-1 from=dev to=lead item=gh:o/r#1 out=OK"]
    assert [f.kind for f in check_thread(lines, now="20261001T0000Z").findings] == ["act-before-echo"]
    right = lines[:3] + [lines[3].replace("eta=20261009", "eta=20261008")] + lines[4:]
    assert check_thread(right, now="20261001T0000Z").findings == ()
