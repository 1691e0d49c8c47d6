"""conformance --diff: generated requests, both adapters, disagreements shrunk.

Against this package's own adapter there is nothing to find. Against a
faulty implementation (this package with two planted faults, and a crash on
one kind of line) every fault is found, shrunk to a small request with a
reproducer that shows the difference, the crash is reported with the request
that caused it, and the run goes on to the end.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from rogerwilco.front.cli import main
from rogerwilco.front.conformance import RawNumber, dumps_request
from rogerwilco.front.difftest import CLASSES, classes_of, judge, run_diff, shrink
from rogerwilco.front.testing import OPS, RequestGenerator
from tests.bounds import HANG

FAULTY = textwrap.dedent(
    """
    import json, sys
    from rogerwilco.front.adapter import handle
    for line in sys.stdin:
        request = json.loads(line)
        text = request.get("line", "") if isinstance(request.get("line"), str) else ""
        if request.get("op") == "reply" and "\\u00e9" in text:
            sys.exit(5)
        response = handle(request)
        if request.get("op") == "parse" and response.get("valid") is False and " pri=" in text:
            response["token"] = "pri"
        if request.get("op") == "digest" and "<" in text:
            response["h"] = "000000000000"
        sys.stdout.write(json.dumps(response) + "\\n")
        sys.stdout.flush()
    """
)


@pytest.fixture
def faulty(tmp_path: Path) -> list[str]:
    script = tmp_path / "faulty_adapter.py"
    script.write_text(FAULTY, encoding="utf-8")
    return [sys.executable, str(script)]


def ours() -> list[str]:
    return [sys.executable, "-m", "rogerwilco", "adapter"]


def test_the_generators_are_reproducible_by_seed_and_cover_every_op():
    first = [dumps_request(r) for r in RequestGenerator(seed=5).requests(90)]
    again = [dumps_request(r) for r in RequestGenerator(seed=5).requests(90)]
    other = [dumps_request(r) for r in RequestGenerator(seed=6).requests(90)]
    assert first == again and first != other
    assert {json.loads(r)["op"] for r in first} == set(OPS)


def test_the_generators_draw_faults_odd_numbers_and_unicode():
    generator = RequestGenerator(seed=1)
    requests = list(generator.requests(3000, ops=["parse", "encode"]))
    lines = [r["line"] for r in requests if r["op"] == "parse"]
    text = "".join(lines)
    assert any(line.startswith("RW2 ") for line in lines)
    assert any("  " in line for line in lines)
    assert any(ch in text for ch in "\u202e\u2066\u061c")
    assert "\U0001f600" in text and "\u00a0" in text
    encoded = [dumps_request(r) for r in requests if r["op"] == "encode"]
    assert any(".0" in e or "e0" in e or "E0" in e for e in encoded)
    assert any("\\ud800" in e or "\\udc00" in e for e in encoded)
    # lines with several faults at once (D10), judged by the reference: more than one fail
    from rogerwilco.core.semantics import check_line
    from rogerwilco.core.vocab import Receiver

    multi = [line for line in lines if sum(f.failed for f in check_line(line, Receiver.all_bundled()).findings) > 1]
    assert len(multi) > 50
    assert RawNumber("1e0").text == "1e0"
    assert dumps_request({"pri": RawNumber("1e0"), "t": "\u00e9"}) == '{"pri": 1e0, "t": "\\u00e9"}'


def test_against_itself_the_reference_never_disagrees():
    report = run_diff(ours(), count=270, seed=3)
    assert report.count == 270 and report.skipped == 0
    assert report.disagreements == []
    assert all(row[0] == 30 for row in report.by_op.values())


def test_every_planted_fault_is_found_shrunk_and_reproducible(faulty):
    report = run_diff(faulty, count=600, seed=11, ops=["parse", "digest", "reply"])
    assert report.count == 600
    kinds = {(d.op, d.crashed) for d in report.disagreements}
    assert ("parse", False) in kinds and ("digest", False) in kinds and ("reply", True) in kinds
    for d in report.disagreements:
        original = d.original.get("line", "")
        small = d.request.get("line", "")
        assert len(small) <= len(original)
        if d.op == "parse":
            assert " pri=" in small and len(small.split(" ")) <= 6, small
        if d.op == "digest":
            assert "<" in small
        if d.crashed:
            assert "\u00e9" in small and "exited" in d.why
            continue
        # the reproducer runs as printed and shows the implementation's answer
        result = subprocess.run(d.reproducer([sys.executable, *faulty[1:]]), shell=True, capture_output=True,
                                text=True, timeout=HANG)
        answer = json.loads(result.stdout)
        assert judge(d.ours, answer) not in (None, "skip")


def test_shrinking_keeps_the_failure_and_takes_away_the_rest():
    request = {"op": "parse", "line": "RW1 HO a-1 from=a to=b item=x ask=PAYY pri=2 due=20261002 // tail words here",
               "profiles": ["pay"]}
    small = shrink(request, lambda r: "ask=PAYY" in r.get("line", ""))
    assert small == {"op": "parse", "line": "RW1 HO a-1 ask=PAYY"}


def test_the_cli_reports_disagreements_with_a_reproducer_and_exits_1(faulty, capsys):
    code = main(["conformance", "--diff", "--impl", shlex.join(faulty), "--count", "300", "--seed", "9",
                 "--op", "parse", "--op", "digest", "--progress", "on"])
    captured = capsys.readouterr()
    assert code == 1
    assert "DISAGREE parse: token" in captured.out
    assert "reproduce: printf '%s\\n' " in captured.out
    assert captured.out.rstrip().splitlines()[-1].startswith("diff (seed 9): 300 requests: ")
    assert "[" in captured.err and "300/300 requests" in captured.err


def test_the_cli_exits_0_when_nothing_disagrees(capsys):
    code = main(["conformance", "--diff", "--impl", shlex.join(ours()), "--count", "40", "--op", "encode",
                 "--json", "-"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["count"] == 40 and doc["disagreed"] == 0
    assert doc["by_op"]["encode"]["agreed"] == 40


def test_an_implementation_that_cannot_start_exits_2(tmp_path, capsys):
    assert main(["conformance", "--diff", "--impl", str(tmp_path / "nothing-here"), "--count", "5"]) == 2
    assert "cannot start" in capsys.readouterr().err


# ---- shrinking has a budget ----------------------------------------------------------------


def test_shrinking_stops_at_the_runs_budget_and_at_its_own():
    from rogerwilco.front.difftest import ShrinkBudget

    request = {"op": "parse", "line": "RW1 HO a-1 from=a to=b item=x ask=PAYY pri=2 due=20261002 // tail words here"}
    tries = []
    budget = ShrinkBudget(steps=7)
    shrink(request, lambda r: tries.append(r) or True, 300, budget)
    assert len(tries) == 7 and budget.used == 7
    assert shrink(request, lambda r: tries.append(r) or True, 300, budget) == request  # nothing left
    assert len(tries) == 7
    tries.clear()
    shrink(request, lambda r: tries.append(r) or True, 4, ShrinkBudget())
    assert len(tries) == 4


GARBAGE = ("import sys, json\n"
           "sys.stdin.readline()\n"
           "sys.stdout.write(json.dumps({'ok': False, 'error': 'unsupported'}) + '\\n'); sys.stdout.flush()\n"
           "for line in sys.stdin:\n"
           "    sys.stdout.write('garbage, not JSON\\n'); sys.stdout.flush()\n")


def test_an_implementation_answering_garbage_is_reported_with_a_bounded_shrink(capsys):
    from rogerwilco.front.difftest import CRASH_SHRINK_STEPS

    count = 6
    code = main(["conformance", "--diff", "--impl", shlex.join([sys.executable, "-c", GARBAGE]),
                 "--count", str(count), "--op", "parse", "--timeout", f"{HANG:g}", "--json", "-"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1 and doc["count"] == count and doc["disagreed"] == count
    assert all(d["crashed"] and "response is not JSON" in d["why"] for d in doc["disagreements"])
    assert 0 < doc["shrink_steps"] <= count * CRASH_SHRINK_STEPS


def test_an_implementation_that_dies_at_the_handshake_stops_the_diff_with_one_line(capsys):
    code = main(["conformance", "--diff", "--impl", shlex.join([sys.executable, "-c", "import sys; sys.exit(3)"]),
                 "--count", "20", "--timeout", f"{HANG:g}"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "" and len(captured.err.splitlines()) == 1
    assert "did not answer the start handshake" in captured.err and "status 3" in captured.err


# ---------------------------------------------------------------- coverage

def _reached(requests) -> set[str]:
    return {name for request in requests for name in classes_of(request)}


def test_the_generator_reaches_every_class_at_a_modest_count():
    every_op = _reached(RequestGenerator(seed=0).requests(900))
    readback = _reached(RequestGenerator(seed=0).requests(1500, ops=["check-rb"]))
    missed = set(CLASSES) - every_op - readback
    assert not missed, missed
    assert {"inline-profile:loads", "bad-n", "bad-as"} <= every_op


@pytest.mark.parametrize("request_, expected", [
    ({"op": "parse", "line": "RW1 ST a-1", "profiles": ["pay", {"profile": "t", "version": "1", "extends": "RW1"}]},
     ["inline-profile:loads"]),
    ({"op": "parse", "line": "RW1 ST a-1", "profiles": [{"profile": "t", "version": "1", "extends": "RW2"}]},
     ["inline-profile:refused"]),
    ({"op": "reply", "line": "RW1 ST a-1", "as": "b", "n": 3}, []),
    ({"op": "reply", "line": "RW1 ST a-1", "as": "a b", "n": True}, ["bad-as", "bad-n"]),
    ({"op": "make-rb", "ho": "RW1 HO s-1", "n": -1}, ["bad-n"]),
    ({"op": "check-rb", "ho": "RW1 HO s-1 from=s to=r item=x ask=DRAFT",
      "rb": "RW1 RB r-1 re=s-1 from=r to=s item=x ask=DRAFT h=0123456789ab do=copy due=20261002 eta=20261002T1200Z "
            "x_note=y out=OK"},
     ["rb-slot-ho-lacks:extension", "rb-slot-ho-lacks:misread", "rb-slot-ho-lacks:other-type",
      "rb-slot-ho-lacks:receivers-own"]),
    ({"op": "check-rb", "ho": "RW1 HO s-1 from=s to=r item=x p=pay ask=PAY",
      "rb": "RW1 RB r-1 re=s-1 from=r to=s item=x p=pay ask=PAY amt=5.00"}, ["rb-slot-ho-lacks:execution"]),
    ({"op": "check-rb", "ho": "RW1 HO s-1 acc=len:120w+len:150w", "rb": "RW1 RB r-1 acc=must:a+must:b",
      "expect_acc": "len:short"},
     ["criteria-multi-valued:set-key", "criteria-multi-valued:single-key", "len-unparsable"]),
    ({"op": "check-rb", "ho": "RW1 HO s-1", "rb": "RW1 RB r-1", "expect_acc": "plain"}, ["expect-acc-malformed"]),
    ({"op": "check-rb", "ho": "RW1 HO s-1", "rb": "RW1 RB r-1", "expect_acc": ["len:12.5.3"]}, ["len-unparsable"]),
])
def test_each_class_is_named_from_the_request(request_, expected):
    assert classes_of(request_) == expected


def test_the_diff_reports_the_classes_it_reached(capsys):
    args = ["conformance", "--diff", "--impl", shlex.join(ours()), "--count", "60", "--op", "reply", "--op", "make-rb"]
    assert main([*args, "--coverage", "--progress", "off"]) == 0
    out = capsys.readouterr().out
    expected = [name for name, (ops, _) in CLASSES.items() if {"reply", "make-rb"} & set(ops)]
    listing = out.split("classes of request (requests, by op):\n", 1)[1].split("answers of this package")[0]
    rows = {line.strip().split(": ", 1)[0]: line for line in listing.splitlines()}
    assert list(rows) == expected
    assert "NOT REACHED" not in rows["bad-n"]
    answers = out.split("answers of this package (requests, by kind):\n", 1)[1]
    assert "  reply: " in answers and "reply:UN " in answers and "  make-rb: " in answers
    assert main([*args, "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert list(doc["coverage"]["classes"]) == expected
    reached = len(expected) - len(doc["coverage"]["missed"])
    summary = out.rstrip().splitlines()[-2]
    assert summary.startswith(f"classes: {reached} of {len(expected)} reached")
    assert all(name in summary for name in doc["coverage"]["missed"])
