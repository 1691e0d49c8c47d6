"""check_thread keeps the lines it reads small and reads them again on demand: the same report.

A line given as text or as a :class:`LineResult` is kept as its envelope and a
few control slots, its text in a spooled file
(:class:`rogerwilco.checks.thread.KeptMessage`); a :class:`Message` given as
such is kept whole, as it is. So the whole-message path is the reference: on
random conversations (re-sends, re-issues, duplicates, cancels from either
party, questions, ``rb=all`` changes and echoes, repeated ids, replies to
nothing, lines that do not read), the report from the lines as text, as
:class:`LineResult` and as messages is the same, findings, order, ledger and
JSON byte for byte. And the replay keeps each handoff at its sender's end
alone: the report is the same as with both ends kept. ``RW_PROPERTY_EXAMPLES`` raises the number of
conversations (default 150).
"""

from __future__ import annotations

import json
import os

from hypothesis import example, given, settings, strategies as st

from rogerwilco import Message
from rogerwilco.checks import thread
from rogerwilco.checks.thread import KeptMessage, check_thread
from rogerwilco.core.semantics import check_line
from rogerwilco.core.vocab import as_receiver

EXAMPLES = int(os.environ.get("RW_PROPERTY_EXAMPLES", "150"))
AGENTS = ("lead", "dev", "qa")
IDS = tuple(f"{a}-{n}" for a in AGENTS for n in range(1, 7))
ITEMS = ("gh:o/r#1", "gh:o/r#2")
NOW = "20261003T0900Z"


@st.composite
def conversations(draw) -> list[str]:
    """A conversation whose replies mostly answer an earlier message between its two parties."""
    out: list[str] = []
    sent: list[tuple[str, str, str, str]] = []  # (id, type, from, to)
    numbers = {a: 0 for a in AGENTS}
    for _ in range(draw(st.integers(0, 24))):
        kind = draw(st.sampled_from(("HO", "HO", "RB", "RB", "DN", "DN", "UN", "FL", "CX", "CX", "AN", "AN", "AQ",
                                     "ST", "BAD", "AGAIN")))
        if kind == "BAD":
            out.append(draw(st.sampled_from(("RW1 ZZ x", "RW1 HO lead-1 from=lead", "not a message"))))
            continue
        if kind == "AGAIN" and out:  # a line again, or another line under an id already used
            again = draw(st.sampled_from(out))
            out.append(again if draw(st.booleans()) else again.replace("item=gh:o/r#1", "item=gh:o/r#2"))
            continue
        if kind == "AGAIN":
            continue
        re = None
        sender, receiver = draw(st.permutations(AGENTS))[:2]
        if sent and (kind != "HO" or draw(st.booleans())) and (kind != "ST" or draw(st.booleans())):
            how = draw(st.integers(0, 9))
            if how == 0:
                re = "ghost-1"
            else:
                named = draw(st.sampled_from(sent))
                re = named[0]
                if how < 8:  # an answer between the two parties
                    sender, receiver = (named[2], named[3]) if kind in ("HO", "CX") or how == 7 else (named[3], named[2])
        numbers[sender] += 1
        ident = f"{sender}-{numbers[sender]}" if draw(st.integers(0, 9)) else f"{sender}-1"
        if draw(st.integers(0, 9)) == 0:  # a reply listed before the message it answers
            re = f"{receiver}-{numbers[receiver] + 1}"
        item = "gh:o/r#1" if draw(st.integers(0, 4)) else "gh:o/r#2"
        head = f"RW1 {kind} {ident}" + (f" re={re}" if re else "") + f" from={sender} to={receiver} item={item}"
        if kind == "HO":
            rb = draw(st.sampled_from(("", "", " rb=all", " rb=exec")))
            ask = draw(st.sampled_from(("FIX", "FIX", "TEST", "UNDO")))
            ctx = f" ctx={draw(st.sampled_from(sent))[0]}" if ask == "UNDO" and sent else ""
            late = draw(st.sampled_from(("", " due=20261010", " due=20261001", " exp=20261002T1200Z")))
            line = f"{head} ask={ask}{ctx}{late}{rb}"
        elif kind == "RB":
            line = f"{head} ask={draw(st.sampled_from(('FIX', 'FIX', 'TEST')))}" + draw(
                st.sampled_from(("", " due=20261010", " eta=20261008")))
        elif kind == "DN":
            line = f"{head} out={draw(st.sampled_from(('OK', 'NOOP', 'PARTIAL')))}"
        elif kind == "UN":
            line = f"{head} why={draw(st.sampled_from(('DUP', 'DUP', 'BUSY')))}"
        elif kind == "FL":
            line = f"{head} why=ERR"
        elif kind == "CX":
            line = f"{head} why=REVOKED"
        elif kind == "AN":
            line = f"{head} val={draw(st.sampled_from(('Y', 'N', 'a')))}"
        elif kind == "AQ":
            line = f"{head} need=ENUM opts=a+b" + draw(st.sampled_from(("", " by=20261001", " by=20261010")))
        else:
            line = f"{head} eta={draw(st.sampled_from(('20261008', '20261009')))}"
        out.append(line)
        sent.append((ident, kind, sender, receiver))
    return out


def _json(report) -> str:
    return json.dumps(report.to_json(), ensure_ascii=True)


_E = " from=lead to=dev item=x"
_B = " from=dev to=lead item=x"


@settings(max_examples=EXAMPLES, deadline=None)
@given(conversations())
@example([f"RW1 HO lead-1{_E} ask=FIX", f"RW1 RB dev-1 re=lead-1{_B} ask=FIX", f"RW1 HO lead-2 re=lead-1{_E} ask=FIX",
          f"RW1 UN dev-2 re=lead-2{_B} why=DUP", f"RW1 DN dev-3 re=lead-1{_B} out=OK"])
@example([f"RW1 HO lead-1{_E} ask=FIX", f"RW1 CX lead-2 re=lead-1{_E} why=REVOKED", f"RW1 DN dev-1 re=lead-1{_B} out=NOOP"])
@example([f"RW1 HO lead-1{_E} ask=FIX rb=exec", f"RW1 RB dev-1 re=lead-1{_B} ask=FIX",
          f"RW1 AN lead-2 re=dev-1{_E} val=N", f"RW1 DN dev-2 re=lead-1{_B} out=OK"])
@example([f"RW1 HO lead-1{_E} ask=FIX", f"RW1 AQ dev-1 re=lead-1{_B} need=ENUM opts=a+b by=20261001",
          f"RW1 AN lead-2 re=dev-1{_E} val=a"])
def test_the_report_is_the_same_whether_lines_are_kept_small_or_whole(conversation):
    as_text = check_thread(conversation, now=NOW)
    results = [check_line(text, line_number=n) for n, text in enumerate(conversation, start=1)]
    as_results = check_thread(results, now=NOW)
    whole = [r.message if r.message is not None else r for r in results]
    as_messages = check_thread(whole, now=NOW)
    assert as_text == as_results == as_messages
    assert _json(as_text) == _json(as_results) == _json(as_messages)


@settings(max_examples=EXAMPLES, deadline=None)
@given(conversations())
@example([f"RW1 HO lead-1{_E} ask=FIX rb=all", f"RW1 HO dev-1{_B} ask=FIX rb=all", f"RW1 ST dev-2{_B} eta=20261008",
          f"RW1 ST lead-2{_E} eta=20261008", f"RW1 DN dev-3 re=lead-1{_B} out=OK"])
@example([f"RW1 HO lead-1{_E} ask=FIX rb=all", f"RW1 HO qa-1 from=qa to=dev item=x ask=FIX rb=all",
          f"RW1 RB dev-1 re=lead-1{_B} ask=FIX", f"RW1 ST lead-2{_E} eta=20261008", f"RW1 DN dev-2 re=lead-1{_B} out=OK"])
@example([f"RW1 HO lead-1{_E} ask=FIX", f"RW1 CX qa-1 re=lead-1 from=qa to=dev item=x why=REVOKED",
          f"RW1 CX dev-1 re=lead-1{_B} why=REVOKED"])
def test_the_report_is_the_same_with_each_handoff_kept_at_its_senders_end_alone(conversation):
    # the check replays the conversation keeping each handoff at its sender's end alone; the reference
    # keeps it at both ends, as rogerwilco.checks.endpoint.replay does
    alone = check_thread(conversation, now=NOW)
    thread._SENDERS_ONLY = False
    try:
        both = check_thread(conversation, now=NOW)
    finally:
        thread._SENDERS_ONLY = True
    assert alone == both
    assert _json(alone) == _json(both)


def test_a_kept_line_reads_like_its_message():
    text = "RW1 HO lead-1 from=lead to=dev item=gh:o/r#1 ask=UNDO ctx=dev-2 due=20261010 rb=all // why"
    message = Message.from_line(text)
    lines = thread.SpooledLines(as_receiver(None))
    try:
        kept = KeptMessage(message, None, lines.add(text), lines)
        assert (kept.type, kept.id, kept.re, kept.from_, kept.to, kept.item) == ("HO", "lead-1", None, "lead", "dev",
                                                                                  "gh:o/r#1")
        for key in ("ask", "ctx", "due", "rb", "from", "item", "re", "exp"):
            assert kept.get(key) == message.get(key), key
        assert kept.get("exp", "none") == "none"
        assert kept.whole() == message and kept.tail == message.tail and kept.profile == message.profile
    finally:
        lines.close()


def test_a_record_not_yet_made_has_no_attributes_rather_than_recursing():
    import pytest

    empty = KeptMessage.__new__(KeptMessage)
    with pytest.raises(AttributeError):
        empty.tail
    with pytest.raises(AttributeError):
        empty.whole()


def test_the_text_spills_to_a_file_and_reads_back(monkeypatch):
    monkeypatch.setattr(thread, "SPOOL_BYTES", 64)
    lines = thread.SpooledLines(as_receiver(None))
    try:
        texts = [f"RW1 HO lead-{n} from=lead to=dev item=x ask=FIX // é {n}" for n in range(1, 40)]
        places = [lines.add(t) for t in texts]
        assert [lines.text(p) for p in reversed(places)] == texts[::-1]
        assert lines.add("a\nb") == "a\nb"  # a line break cannot be a line's end here: kept as it is
    finally:
        lines.close()


def test_with_no_temporary_file_the_lines_stay_in_memory(monkeypatch):
    import tempfile

    def no_file(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(thread, "SPOOL_BYTES", 64)
    monkeypatch.setattr(tempfile, "TemporaryFile", no_file)
    lines = [f"RW1 HO lead-{n} from=lead to=dev item=x ask=FIX" for n in range(1, 6)]
    lines += [f"RW1 RB dev-{n} re=lead-{n} from=dev to=lead item=x ask=FIX" for n in range(1, 6)]
    report = check_thread(lines, now=NOW)
    assert [h.state for h in report.ledger.handoffs] == ["owned"] * 5
    monkeypatch.undo()
    assert check_thread(lines, now=NOW) == report


def test_the_collector_is_restored_after_the_check():
    import gc

    assert gc.isenabled()
    check_thread(["RW1 HO lead-1 from=lead to=dev item=x ask=FIX"], now=NOW)
    assert gc.isenabled()
    gc.disable()
    try:
        check_thread(["RW1 HO lead-1 from=lead to=dev item=x ask=FIX"], now=NOW)
        assert not gc.isenabled()
    finally:
        gc.enable()
