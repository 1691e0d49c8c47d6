"""benchmarks/fuzz_scanner.py, a bounded run: mutated lines, the C scanner against the Python path.

A few hundred mutants by default; ``RW1_FUZZ_SCANNER_EXECUTIONS`` runs more
(the script itself, ``python benchmarks/fuzz_scanner.py --seconds 600 --asan``,
is the long run, under AddressSanitizer).
"""

from __future__ import annotations

import importlib.util
import os
import random
from pathlib import Path

from rogerwilco.core import scanner as scanner_module

from .test_scanner import MISNAMED, _Misplaced
from .test_scanner import scan as scan  # the fixture: the built scanner, or one built for the run

_SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "fuzz_scanner.py"
_spec = importlib.util.spec_from_file_location("rw1_fuzz_scanner", _SCRIPT)
assert _spec is not None and _spec.loader is not None
fuzz = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz)

EXECUTIONS = int(os.environ.get("RW1_FUZZ_SCANNER_EXECUTIONS", "400"))


def test_mutated_lines_never_make_the_scanner_disagree(scan) -> None:
    report = fuzz.run(float("inf"), EXECUTIONS, seed=11, module=scan.scan)
    assert report["executions"] == EXECUTIONS
    assert report["failures"] == []


def test_the_checker_finds_a_scanner_that_settles_a_refused_line(scan) -> None:
    def lenient(line, receiver, number=None):  # says yes to a line with a repeated key, which Python refuses
        return scan.scan.accept(line.replace(" x=1 x=2", ""), receiver, number)

    line = "RW1 AN a-1 re=b-1 from=a to=b val=plain"
    receiver = fuzz.receivers()[1]
    assert fuzz.checker(scan.scan.accept)(line, receiver) == ""
    assert fuzz.checker(scan.scan.accept)(line.replace(" re=", " ?=", 1), receiver) is None
    assert "refuses" in fuzz.checker(lenient)(line.replace(" val=", " x=1 x=2 val=", 1), receiver)


def test_the_checker_finds_a_first_fault_named_wrong(scan) -> None:
    wrong = scanner_module.Scanner.__new__(scanner_module.Scanner)
    wrong.scan, wrong.expected, wrong.refusals = _Misplaced(scan.scan, 1), scan.expected, scan.refusals
    line = "RW1 AN a-1 re=b-1 from=a to=b val=plain Val=x"  # a syntax fault at Val=x
    receiver = fuzz.receivers()[1]
    assert fuzz.checker(scan.scan.accept, scan)(line, receiver) == ""
    assert "worded otherwise" in fuzz.checker(scan.scan.accept, wrong)(line, receiver)
    assert fuzz.checker(scan.scan.accept, scan)(line.replace(" Val=x", " // \u200d"), receiver) == ""  # a tail's
    assert fuzz.checker(scan.scan.accept, scan)(line.replace(" Val=x", " pri=9"), receiver) == ""  # a refused value
    assert fuzz.checker(scan.scan.accept, scan)(line.replace(" Val=x", " // " + "w" * 301), receiver) is None  # a tail


def test_the_checker_finds_a_refusal_by_the_checks_named_out_of_order(scan) -> None:
    """A line refused for a value and for its id, named by the id (the later in D10's order): a wrong verdict."""
    wrong = scanner_module.Scanner.__new__(scanner_module.Scanner)
    wrong.scan, wrong.expected, wrong.refusals = _Misplaced(scan.scan, 0, scan.scan.FAULT_ID), scan.expected, scan.refusals
    receiver = fuzz.receivers()[1]
    line = MISNAMED[scan.scan.FAULT_ID]
    assert scan.scan.fault(line, receiver)[0] == scan.scan.FAULT_VALUE
    assert fuzz.checker(scan.scan.accept, scan)(line, receiver) == ""
    assert "worded otherwise" in fuzz.checker(scan.scan.accept, wrong)(line, receiver)


def test_the_json_text_check_finds_a_text_other_than_json_dumps(scan) -> None:
    def unescaped(value):  # writes U+2028 as itself, which json.dumps escapes
        text = scan.scan.dumps(value)
        return None if text is None else text.replace("\\u2028", "\u2028")

    line = "RW1 AN a-1 re=b-1 from=a to=b val=plain // a\u2028b"
    assert fuzz.dumps_differs(scan.scan.dumps, line) == ""
    assert fuzz.dumps_differs(scan.scan.dumps, 1.5) == ""  # not sure: json.dumps writes it
    assert "other than json.dumps" in fuzz.dumps_differs(unescaped, line)


def test_the_mutator_reaches_hostile_characters_huge_values_and_many_slots() -> None:
    rng = random.Random(3)
    seeds = ["RW1 AN a-1 re=b-1 from=a to=b val=plain // ok"]
    mutants = [fuzz.mutate(rng, seeds[0], seeds) for _ in range(600)]
    assert any(len(m) >= fuzz.HUGE for m in mutants)
    assert any(m.count("=") >= 1000 for m in mutants)
    assert any(ch in m for m in mutants for ch in ("\u202e", "\ud800", "\u200b", "\x00"))


def test_the_fuzzer_holds_a_time_and_a_json_walk_to_pythons_reading_not_the_scanners(scan) -> None:
    """A reader that answers wrong is caught even where scan's Python would ask the scanner itself."""
    from datetime import timedelta

    def late(text, end, whole):  # the scanner's reading, a second late
        found = scan.scan.utc_time(text, end, whole)
        return None if found is None else found + timedelta(seconds=1)

    assert fuzz.time_differs(scan.scan.utc_time, "2026-10-01T00:00:17.017Z") == ""
    assert "other than Python's" in fuzz.time_differs(late, "2026-10-01T00:00:17Z")  # whole and as a prefix
    assert "other than Python's" in fuzz.time_differs(late, "2026-10-01T00:00:17Z RW1 ST a-1")  # as a prefix
    text = '{"m": ["RW1 ST a-1"]}'
    assert fuzz.strings_differs(scan.scan.strings, text) == ""
    assert "other than Python's" in fuzz.strings_differs(lambda line, at: [("/m", "RW1 ST a-1", 9)], text)
