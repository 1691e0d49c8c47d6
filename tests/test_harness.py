"""The conformance harness itself, driven against small fake adapters.

A fake adapter is a script that answers by the request: it can answer right,
answer wrong, hang, print something that is not JSON, or die. The harness
must report each of those as the contract says and carry on with the rest.
"""

from __future__ import annotations

import json
import shlex
import sys
import textwrap
import time
from pathlib import Path

import pytest

from rogerwilco.cli import main
from rogerwilco.conformance import compare, load_cases, reply_signature

FAKE = textwrap.dedent(
    """
    import json, sys, time
    for line in sys.stdin:
        req = json.loads(line)
        op = req.get("op")
        if op == "echo":
            out = {"ok": True, "value": req["value"]}
        elif op == "wrong":
            out = {"ok": True, "value": req["value"] + 1}
        elif op == "hang":
            time.sleep(60)
            continue
        elif op == "garble":
            sys.stdout.write("this is not json\\n")
            sys.stdout.flush()
            continue
        elif op == "die":
            sys.stderr.write("adapter: fell over on purpose\\n")
            sys.stderr.flush()
            sys.exit(3)
        elif op == "reply":
            out = {"ok": True, "reply": req["reply"]}
        elif op == "refuse":
            out = {"ok": False, "error": "bad request: missing line"}
        else:
            out = {"ok": False, "error": "unsupported"}
        sys.stdout.write(json.dumps(out) + "\\n")
        sys.stdout.flush()
    """
)


def case(cid, request, expect, description=""):
    return {"id": cid, "description": description or cid, "request": request, "expect": expect}


@pytest.fixture
def adapter(tmp_path: Path) -> str:
    script = tmp_path / "fake_adapter.py"
    script.write_text(FAKE, encoding="utf-8")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def write_suite(root: Path, cases: list[dict], area: str = "area", name: str = "file") -> Path:
    (root / area).mkdir(parents=True, exist_ok=True)
    (root / area / f"{name}.json").write_text(json.dumps({"description": "fake", "cases": cases}), encoding="utf-8")
    return root


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["conformance", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_wrong_answer_is_reported_failing_with_expected_and_got(tmp_path, adapter, capsys):
    suite = write_suite(tmp_path / "suite", [
        case("right", {"op": "echo", "value": 1}, {"value": 1}),
        case("broken", {"op": "wrong", "value": 1}, {"value": 1}, "the adapter adds one"),
    ])
    code, out, _ = run(capsys, "--impl", adapter, "--suite", str(suite))
    assert code == 1
    assert "FAIL area/file:broken: value: expected 1, got 2" in out
    assert "case:     the adapter adds one" in out
    assert 'request:  {"op": "wrong", "value": 1}' in out
    assert "FAIL area/file:right" not in out
    assert out.rstrip().endswith("1 passed, 1 failed, 0 skipped")


def test_a_hanging_case_times_out_and_the_run_continues(tmp_path, adapter, capsys):
    suite = write_suite(tmp_path / "suite", [
        case("before", {"op": "echo", "value": 1}, {"value": 1}),
        case("hangs", {"op": "hang"}, {"value": 1}),
        case("after", {"op": "echo", "value": 2}, {"value": 2}),
    ])
    started = time.monotonic()
    code, out, _ = run(capsys, "--impl", adapter, "--suite", str(suite), "--timeout", "1")
    assert time.monotonic() - started < 20
    assert code == 1
    assert "FAIL area/file:hangs: timed out" in out
    assert out.rstrip().endswith("2 passed, 1 failed, 0 skipped")


def test_unsupported_counts_as_skipped_not_failed(tmp_path, adapter, capsys):
    suite = write_suite(tmp_path / "suite", [
        case("missing-op", {"op": "check-thread", "lines": []}, {"passed": True}),
        case("present", {"op": "echo", "value": "x"}, {"value": "x"}),
    ])
    code, out, _ = run(capsys, "--impl", adapter, "--suite", str(suite))
    assert code == 0
    assert "FAIL" not in out
    assert out.rstrip().endswith("1 passed, 0 failed, 1 skipped")


def test_other_errors_fail_and_show_the_adapters_error(tmp_path, adapter, capsys):
    suite = write_suite(tmp_path / "suite", [case("refused", {"op": "refuse"}, {"value": 1})])
    code, out, _ = run(capsys, "--impl", adapter, "--suite", str(suite))
    assert code == 1
    assert "answered ok: false: bad request: missing line" in out


def test_garbled_output_fails_one_case_and_the_adapter_is_restarted(tmp_path, adapter, capsys):
    suite = write_suite(tmp_path / "suite", [
        case("garbles", {"op": "garble"}, {"value": 1}),
        case("after", {"op": "echo", "value": 5}, {"value": 5}),
    ])
    code, out, _ = run(capsys, "--impl", adapter, "--suite", str(suite))
    assert code == 1
    assert "FAIL area/file:garbles: response is not JSON" in out
    assert "'this is not json'" in out
    assert out.rstrip().endswith("1 passed, 1 failed, 0 skipped")


def test_an_adapter_that_dies_is_reported_with_its_stderr_and_restarted(tmp_path, adapter, capsys):
    suite = write_suite(tmp_path / "suite", [
        case("dies", {"op": "die"}, {"value": 1}),
        case("after", {"op": "echo", "value": 7}, {"value": 7}),
    ])
    code, out, _ = run(capsys, "--impl", adapter, "--suite", str(suite))
    assert code == 1
    assert "implementation exited with status 3" in out
    assert "adapter: fell over on purpose" in out
    assert out.rstrip().endswith("1 passed, 1 failed, 0 skipped")


def test_known_failures_are_reported_not_counted_and_fixed_ones_are_named(tmp_path, adapter, capsys):
    suite = write_suite(tmp_path / "suite", [
        case("broken", {"op": "wrong", "value": 1}, {"value": 1}),
        case("mended", {"op": "echo", "value": 1}, {"value": 1}),
        case("other", {"op": "wrong", "value": 3}, {"value": 3}),
    ])
    known = tmp_path / "known.txt"
    known.write_text("# expected to fail in this port\narea/file:broken  # off by one\narea/file:mend*\ngone/*\n",
                     encoding="utf-8")
    code, out, _ = run(capsys, "--impl", adapter, "--suite", str(suite), "--known-failures", str(known))
    assert code == 1  # 'other' is not listed
    assert "KNOWN area/file:broken" in out
    assert "FIXED area/file:mended" in out
    assert "FAIL area/file:other" in out
    assert "STALE gone/*" in out
    assert out.rstrip().endswith("1 passed, 1 failed, 0 skipped (1 known failures, 1 fixed)")

    known.write_text("area/file:broken\narea/file:other\n", encoding="utf-8")
    code, out, _ = run(capsys, "--impl", adapter, "--suite", str(suite), "--known-failures", str(known))
    assert code == 0


def test_json_report_holds_every_case_and_the_summary(tmp_path, adapter, capsys):
    suite = write_suite(tmp_path / "suite", [
        case("ok", {"op": "echo", "value": 1}, {"value": 1}),
        case("bad", {"op": "wrong", "value": 1}, {"value": 1}),
        case("skip", {"op": "make-rb"}, {"line": "x"}),
    ])
    code, out, _ = run(capsys, "--impl", adapter, "--suite", str(suite), "--json", "-")
    assert code == 1
    doc = json.loads(out)
    assert doc["summary"] == {"passed": 1, "failed": 1, "skipped": 1, "known": 0, "fixed": 0}
    by_id = {c["id"]: c for c in doc["cases"]}
    assert by_id["area/file:bad"]["status"] == "failed"
    assert by_id["area/file:bad"]["got"] == {"ok": True, "value": 2}
    assert by_id["area/file:bad"]["expected"] == {"value": 1}
    assert by_id["area/file:skip"]["status"] == "skipped"

    report = tmp_path / "report.json"
    code, out, _ = run(capsys, "--impl", adapter, "--suite", str(suite), "--json", str(report))
    assert json.loads(report.read_text(encoding="utf-8"))["summary"]["failed"] == 1
    assert out.rstrip().endswith("1 passed, 1 failed, 1 skipped")


def test_run_and_skip_select_by_glob_over_full_ids(tmp_path, adapter, capsys):
    suite = tmp_path / "suite"
    write_suite(suite, [case("a", {"op": "echo", "value": 1}, {"value": 1})], "one", "x")
    write_suite(suite, [case("b", {"op": "wrong", "value": 1}, {"value": 1})], "two", "y")
    code, out, _ = run(capsys, "--suite", str(suite), "--list")
    assert out.split() == ["one/x:a", "two/y:b"]
    code, out, _ = run(capsys, "--impl", adapter, "--suite", str(suite), "--run", "one/*")
    assert code == 0 and out.rstrip().endswith("1 passed, 0 failed, 0 skipped")
    code, out, _ = run(capsys, "--impl", adapter, "--suite", str(suite), "--skip", "one/*")
    assert code == 1 and out.rstrip().endswith("0 passed, 1 failed, 0 skipped")


def test_an_implementation_that_cannot_start_exits_2(tmp_path, capsys):
    suite = write_suite(tmp_path / "suite", [case("a", {"op": "echo", "value": 1}, {"value": 1})])
    code, _, err = run(capsys, "--impl", str(tmp_path / "no-such-adapter"), "--suite", str(suite))
    assert code == 2
    assert "cannot start" in err


def test_reply_compares_the_line_and_the_offending_token_not_the_wording(tmp_path, adapter, capsys):
    want = "RW1 UN me-1 re=a-1 from=me to=a why=UNK // ask=PAYY unknown ask code"
    suite = write_suite(tmp_path / "suite", [
        case("same-token", {"op": "reply", "reply": "RW1 UN me-1 re=a-1 from=me to=a why=UNK // ask=PAYY not a known ask"},
             {"reply": want}),
        case("other-token", {"op": "reply", "reply": "RW1 UN me-1 re=a-1 from=me to=a why=UNK // ask=PAY unknown"},
             {"reply": want}),
        case("other-why", {"op": "reply", "reply": "RW1 UN me-1 re=a-1 from=me to=a why=VER // ask=PAYY unknown"},
             {"reply": want}),
        case("null", {"op": "reply", "reply": None}, {"reply": None}),
        case("null-expected", {"op": "reply", "reply": want}, {"reply": None}),
    ])
    code, out, _ = run(capsys, "--impl", adapter, "--suite", str(suite))
    failed = {line.split(":", 2)[1] for line in out.splitlines() if line.startswith("FAIL")}
    assert failed == {"other-token", "other-why", "null-expected"}
    assert reply_signature(want) == ("RW1 UN me-1 re=a-1 from=me to=a why=UNK", "ask=PAYY")


def test_findings_compare_as_a_set_of_signatures_ignoring_message():
    want = {"findings": [{"severity": "fail", "kind": "gap", "tier": 4, "key": "len", "message": "x"}]}
    same = {"findings": [{"severity": "fail", "kind": "gap", "tier": 4, "key": "len", "message": "other words"}]}
    other = {"findings": [{"severity": "note", "kind": "gap", "tier": 4, "key": "len", "message": "x"}]}
    assert compare(want, same) == ""
    assert "findings differ" in compare(want, other)


def test_the_bundled_suite_loads_with_unique_full_ids():
    cases = load_cases()
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids))
    assert all(":" in i and "/" in i.split(":")[0] for i in ids)


def test_a_json_form_with_its_slots_out_of_written_order_fails():
    from rogerwilco.conformance import compare

    want = {"json": {"v": "RW1", "slots": {"ask": "DRAFT", "pri": 2}}}
    assert compare(want, {"ok": True, "json": {"v": "RW1", "slots": {"pri": 2, "ask": "DRAFT"}}})
    assert compare(want, {"ok": True, "json": {"slots": {"ask": "DRAFT", "pri": 2}, "v": "RW1"}}) == ""
