"""The planted-fault benchmark (benchmarks/fault_table.py) runs in CI: every class caught, no false alarm."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from rogerwilco.core.findings import Finding
from rogerwilco.checks.readback import ReadbackReport

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "fault_table.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("fault_table", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["fault_table"] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("fault_table", None)


@pytest.fixture(scope="module")
def results(bench):
    return bench.run(seed=21, per_class=60, clean=80)


def test_every_planted_fault_is_caught_by_its_check(bench, results):
    assert set(results.faults) == set(bench.FAULTS)
    for kind, tally in results.faults.items():
        assert tally.planted >= 60, kind
        assert tally.caught == tally.planted, (kind, tally.missed[:3])


def test_no_false_alarm_on_clean_exchanges(bench, results):
    assert set(results.clean) == set(bench.CHECKS)
    for check, tally in results.clean.items():
        assert tally.planted >= 80, check
        assert tally.caught == tally.planted, (check, tally.missed[:3])
    assert results.made[0] == results.made[1] > 0
    assert results.ok


def test_the_script_prints_the_table_and_exits_0(bench, capsys):
    assert bench.main(["--per-class", "60", "--clean", "80", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] and len(out["faults"]) == len(bench.FAULTS)
    assert all(row["caught"] == row["planted"] and row["missed"] == 0 for row in out["faults"])
    assert all(row["false_alarms"] == 0 for row in out["clean"])


def test_the_generator_is_deterministic_for_a_seed(bench):
    a = bench.as_json(bench.run(seed=5, per_class=3, clean=3))
    b = bench.as_json(bench.run(seed=5, per_class=3, clean=3))
    assert a == b


def test_a_check_that_misses_makes_the_benchmark_fail(bench, monkeypatch, capsys):
    def approves_everything(*args, **kwargs):
        return ReadbackReport(passed=True, findings=(), check="check-rb")

    monkeypatch.setattr(bench, "check_rb", approves_everything)
    assert bench.main(["--per-class", "5", "--clean", "5"]) == 1
    captured = capsys.readouterr()
    assert "missed [misread neighbouring field]" in captured.err


def test_a_check_that_cries_wolf_makes_the_benchmark_fail(bench, monkeypatch, capsys):
    def refuses_everything(*args, **kwargs):
        finding = Finding(severity="fail", kind="mismatch", tier=None, key="x", message="always")
        return ReadbackReport(passed=False, findings=(finding,), check="check-dn")

    monkeypatch.setattr(bench, "check_dn", refuses_everything)
    assert bench.main(["--per-class", "5", "--clean", "5"]) == 1
    assert "false alarm [check-dn]" in capsys.readouterr().err
