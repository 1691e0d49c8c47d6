"""The C scanner never changes a verdict or a value (rogerwilco.core.scanner, rogerwilco/core/_scan.c).

A differential test: over the realistic corpus, the benchmark corpus, every
conformance line, generated, mutated and hostile lines (control characters,
non-ASCII digits, surrogates, bidi and zero-width characters, 64 KiB values
and tails, 6,000-slot lines), under the core alone, every bundled profile
alone and all of them together, a line the scanner settles is one the full
pass accepts, to a Message equal in every field, value type, key order and
source to the one the Python accept path builds. Each native check is also
set beside its Python twin on its own: the slot value class against the
grammar's terminal for every code point, the id against the MSGID terminal
over every short string of a small alphabet, each native decoder against the
slot type's decoder.

Asked to be quiet (the accept attempt of ``validate_stream(...,
quiet_first=True)``, which lint and check-thread read with), a line the
scanner settles is one the full pass takes with no finding at all, not even a
note; and a stream read with the scanner first gives every line the same
verdict, message and findings as one read by the Python paths alone.

The scanner is the one the package imports when it is built (an installed
wheel, or ``python hatch_build.py --inplace`` in a clone); when it is not,
this module builds it into a temporary folder with the machine's C compiler.
``ROGERWILCO_FUZZ_EXAMPLES`` raises the generated budget, ``RW1_SCAN_VALGRIND_LINES``
the sample run under valgrind memcheck (tests/test_scanner.py::test_memcheck).
"""

from __future__ import annotations

import importlib
import io
import itertools
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rogerwilco.core import accept as python_path
from rogerwilco.core import scanner as scanner_module
from rogerwilco.core import speedups
from rogerwilco.core._fastpath import TERMINALS
from rogerwilco.core import semantics
from rogerwilco.core.errors import RefusedError, RW1Error
from rogerwilco.core.message import Message
from rogerwilco.core.semantics import check_line
from rogerwilco.core.slottypes import compile_type
from rogerwilco.core.vocab import Receiver
from rogerwilco.io import stream as stream_module

from .bounds import HANG
from .strategies import PIECES, messages, mutated_lines
from .test_accept import HOSTILE, _bench, conformance_lines, corpus

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = int(os.environ.get("ROGERWILCO_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES * 2, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
                                       HealthCheck.function_scoped_fixture])
BUNDLED = Receiver.all_bundled()
RECEIVERS = (BUNDLED, Receiver(), *(Receiver.load([name]) for name in BUNDLED.names))
# Bidi controls, zero-width characters and joiners, a BOM, a variation selector, beside tests/test_accept.py's.
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u061c", "\u2066", "\u2069", "\ufe0f", "\u034f",
             "\U000e0001", "\u00ad", "\u1680", "\u180e"]
SETTLED_FLOOR = 0.95  # of the realistic corpus, the share the scanner must settle alone


def _build(tmp: Path) -> ModuleType:
    sys.path.insert(0, str(ROOT))
    try:
        import hatch_build
    finally:
        sys.path.remove(str(ROOT))
    hatch_build.build_scanner(ROOT, tmp)
    import rogerwilco.core as core

    where = str(tmp / "rogerwilco" / "core")
    core.__path__.append(where)
    try:
        return importlib.import_module("rogerwilco.core._scan")
    finally:
        core.__path__.remove(where)


@pytest.fixture(scope="module")
def scan(tmp_path_factory: pytest.TempPathFactory) -> scanner_module.Scanner:
    try:
        module = importlib.import_module("rogerwilco.core._scan")
    except ImportError:
        module = _build(tmp_path_factory.mktemp("scan"))
    return scanner_module.Scanner(module)


def settles(scan: scanner_module.Scanner, line: str, receiver: Receiver) -> bool:
    """The property: None, or exactly the Message the Python path builds of a line the full pass accepts; and None
    only for a line the Python accept path does not take either (no valid line is left to a slower path)."""
    got = scan.scan.accept(line, receiver, 3)
    if got is None:
        assert scan.scan.form(line, receiver) is None, line  # the batch entry point is not sure either
        assert python_path.accept(line, receiver, 3) is None, line
        return False
    full = check_line(line, receiver, line_number=3)
    assert full.valid and full.message is not None, (line, full.findings)
    want = python_path.accept(line, receiver, 3)
    assert want is not None, line
    assert type(got) is type(want)
    assert attrs.asdict(got, recurse=False) == attrs.asdict(want, recurse=False)
    assert list(got.slots.items()) == list(want.slots.items())  # the written order
    assert [type(v) for v in got.slots.values()] == [type(v) for v in want.slots.values()]
    for field in ("type", "id", "re", "from_", "to", "item", "tail", "v"):
        assert type(getattr(got, field)) is type(getattr(want, field))
    assert got.source == want.source and type(got.source) is type(want.source)
    assert got == full.message and hash(got) == hash(full.message)
    assert_same_form(scan, line, receiver, full.message)
    return True


def assert_same_form(scan: scanner_module.Scanner, line: str, receiver: Receiver, message: Message) -> None:
    """The batch entry point's JSON form is the Python batch path's: keys, values, order and value types."""
    got = scan.scan.form(line, receiver)
    want = python_path.json_form(line, receiver)
    assert got is not None and want is not None, line
    assert list(got.items()) == list(want.items()) == list(message.to_json().items())
    assert [(k, type(v)) for k, v in got["slots"].items()] == [(k, type(v)) for k, v in want["slots"].items()]
    assert [type(v) for v in got.values()] == [type(v) for v in want.values()]


def settles_quietly(scan: scanner_module.Scanner, line: str, receiver: Receiver) -> bool:
    """The quiet property: None, or the Message of a line the full pass takes with no finding, not even a note;
    None only for a line the Python quiet attempt does not take either."""
    got = scan.scan.accept(line, receiver, 3, "f.rw1", True)
    if got is None:
        assert python_path.accept_quiet(line, receiver, 3, "f.rw1") is None, line
        return False
    full = check_line(line, receiver, line_number=3, file="f.rw1")
    assert full.findings == () and full.message is not None, (line, full.findings)
    want = python_path.accept_quiet(line, receiver, 3, "f.rw1")
    assert want is not None, line
    assert attrs.asdict(got, recurse=False) == attrs.asdict(want, recurse=False)
    assert list(got.slots.items()) == list(want.slots.items())
    assert [type(v) for v in got.slots.values()] == [type(v) for v in want.slots.values()]
    assert got.source == want.source == full.message.source and type(got.source) is type(want.source)
    assert got == full.message
    return True


# ---- the character classes, derived again ---------------------------------

def test_the_class_header_is_derived_from_the_grammar() -> None:
    assert Path(scanner_module.HEADER).read_text(encoding="utf-8") == scanner_module.classes_header()


def test_the_slot_value_class_is_the_terminals_for_every_code_point(scan) -> None:
    value_class = re.compile(TERMINALS["SLOT"].split("=", 1)[1][3:-2])  # the class inside =(?:[^...])+
    check = scan.scan.check
    differ = [cp for cp in range(0x110000)
              if check("slot_value", chr(cp)) != (value_class.fullmatch(chr(cp)) is not None)]
    assert differ == []


# ---- each native check beside its Python twin --------------------------------

ALPHABET = "a1-._Z 0"


def test_the_id_check_is_the_msgid_terminal_over_every_short_string(scan) -> None:
    terminal = re.compile(TERMINALS["MSGID"])
    for size in range(1, 7):
        for chars in itertools.product(ALPHABET, repeat=size):
            text = "".join(chars)
            assert scan.scan.check("msgid_terminal", text) == (terminal.fullmatch(text) is not None), text


def test_the_tail_check_is_the_tail_terminal_over_every_short_string(scan) -> None:
    terminal = re.compile(TERMINALS["TAIL"])
    # a word character (ASCII and not), a space, a tab, DEL, NBSP, two selectors, the two joiners, a bidi control
    for size in range(1, 7):
        for chars in itertools.product("a\u00e9 \t\x7f\u00a0\ufe0f\ufe00\u200d\u200c\u202e", repeat=size):
            text = "".join(chars)
            assert scan.scan.check("tail", text) == (terminal.fullmatch(text) is not None), text


def test_where_a_tail_ends_is_where_the_tail_terminal_matches_over_every_short_string(scan) -> None:
    """The first fault in a tail is where the grammar stops reading it: the end of the terminal's greedy match."""
    terminal = re.compile(TERMINALS["TAIL"])
    for size in range(1, 8):
        for chars in itertools.product("a \u00a0\t\ufe0f\u200d", repeat=size):
            text = "".join(chars)
            found = terminal.match(text)
            assert scan.scan.check("tail_end", text) == (found.end() if found else -1), text


def test_the_tail_check_is_the_tail_terminal_for_every_code_point(scan) -> None:
    terminal = re.compile(TERMINALS["TAIL"])
    check = scan.scan.check
    for cp in range(0x110000):
        for text in (chr(cp), f"a{chr(cp)}", f"a{chr(cp)}b"):
            assert check("tail", text) == (terminal.fullmatch(text) is not None), hex(cp)


NATIVE_TYPES = {
    "agent": "AGENT", "msgid": "MSGID", "date": "DATE", "time": "TIME", "money": "MONEY", "num": "NUM",
    "digest": "DIGEST", "bool": "BOOL", "days": "DAYS", "constraint": "CONSTRAINT",
}
SAMPLES = ["", "0", "00", "1", "-", "-1", "-0", "5", "6", "100", "101", "12.5", "12.50", "-3.00", "1/2", "1.5/-2.25",
           "1//2", "1.", ".5", "20261002", "20260229", "20240229", "00000101", "99991231", "20261301", "20261000",
           "20261002T1230Z", "20261002T2400Z", "20261002T2360Z", "20261002T1230", "a-1", "-1", "a-", "a--1", "a-1-2",
           "research-01", "a.b_c-9", "Y", "N", "y", "14", "14d", "d", "-1d", "0d", "0123456789ab", "ffffffffffff", "0123456789AB",
           "k:v", ":v", "k:", "k+:v", "k:v:w", "é:v", "k:é", "x" * 19, "9" * 18, "9" * 19, "-" + "9" * 18,
           "\u0663", "1\u0663", "\uff12", "202610\u00b22", "a b", "a\x00", "\ud800", "🙂"]


def _agree_native(scan, kind: str, inner: str, decode, text: str, lo: int = 0, hi: int = 0, codes=frozenset()) -> None:
    got = scan.scan.native(getattr(scan.scan, kind), getattr(scan.scan, inner), text, lo, hi, codes)
    if got is None:
        return
    want = decode(text)  # raises if the native check accepted what the decoder refuses
    assert (got, type(got)) == (want, type(want)), (kind, text)
    if isinstance(got, tuple):
        assert [type(v) for v in got] == [type(v) for v in want]


@pytest.mark.parametrize("type_name", sorted(NATIVE_TYPES))
def test_each_native_decoder_accepts_only_what_its_python_decoder_accepts(scan, type_name: str) -> None:
    decode = compile_type(type_name, {}).decode
    listed = compile_type(f"list:{type_name}", {}).decode
    accepted = 0
    for text in SAMPLES + [a + b for a in SAMPLES[:30] for b in ("", "+", "d", "-7")]:
        _agree_native(scan, NATIVE_TYPES[type_name], "KEEP", decode, text)
        _agree_native(scan, "LIST", NATIVE_TYPES[type_name], listed, text)
        _agree_native(scan, "LIST", NATIVE_TYPES[type_name], listed, f"{text}+{text}")
        accepted += scan.scan.native(getattr(scan.scan, NATIVE_TYPES[type_name]), 0, text, 0, 0, frozenset()) is not None
    assert accepted >= 2  # the native check settles values, not only hands them on


def test_the_date_type_knows_the_calendar_as_datetime_does() -> None:
    """The date slot type (and the scanner's native twin, held to it above) reads the calendar without datetime:
    every day number 0-32 of every month number 0-13 of years around each leap rule, as datetime.date reads it."""
    import datetime

    decode = compile_type("date", {}).decode
    for year in (1, 3, 4, 100, 400, 1600, 1700, 1900, 2000, 2023, 2024, 2100, 2400, 9999):
        for month in range(14):
            for day in range(33):
                text = f"{year:04d}{month:02d}{day:02d}"
                try:
                    datetime.date(year, month, day)
                    real = True
                except ValueError:
                    real = False
                try:
                    decode(text)
                    read = True
                except ValueError as exc:
                    assert str(exc) == "not a calendar date", text
                    read = False
                assert read == real, text
    for text in ("00000101", "2026010", "2026-1-01", "2026010\u0661"):
        with pytest.raises(ValueError):
            decode(text)


@pytest.mark.parametrize("bounds", [(1, 5), (0, 100), (-5, 5), (-(10**18) + 1, 10**18 - 1)])
def test_a_native_integer_is_the_python_integer_in_range(scan, bounds: tuple[int, int]) -> None:
    lo, hi = bounds
    decode = compile_type(f"int:{lo}-{hi}", {}).decode
    for text in SAMPLES + [str(lo), str(hi), str(lo - 1), str(hi + 1), "02", "-00"]:
        _agree_native(scan, "INT", "KEEP", decode, text, lo, hi)
    assert scan.scan.native(scan.scan.INT, 0, "02", lo, hi, frozenset()) in (2, None)


CODE_SETS = [
    frozenset({"DRAFT", "REVIEW", "FIX", "A", "AB", "BA"}),
    frozenset({"DRAFT", "X" * 32, "Y" * 33}),  # a code longer than the table holds: looked up in the frozenset
    frozenset({"DRAFT", "ÉTÉ", "\U0001f600"}),  # codes that are not ASCII: the same
    frozenset({"DRAFT", 7, ("T",)}),  # members that are not str: never a value
    frozenset(f"C{i}" for i in range(5000)),  # more codes than a table is made for
]


@pytest.mark.parametrize("codes", CODE_SETS, ids=range(len(CODE_SETS)))
def test_a_set_of_codes_settles_a_value_as_its_frozenset_does(scan, codes: frozenset) -> None:
    """A code is found by the table (the set's own string) or the frozenset; anything else is not sure."""
    members = sorted(c for c in codes if isinstance(c, str))
    near = [c[:-1] for c in members[:50]] + [c + "A" for c in members[:50]] + [c.lower() for c in members[:50]]
    for text in members[:200] + near + ["", "DRAFT\u0663", "DRAFT\x00", "\ud800", "DRAF\u0400", "7"]:
        got = scan.scan.native(scan.scan.SET, scan.scan.KEEP, text, 0, 0, codes)
        assert (got is not None) == (text in codes), text
        if got is not None:
            assert got == text and type(got) is str
            if text.isascii() and len(text) <= 32 and len(codes) <= 4096:
                assert got is next(c for c in codes if c == text)  # the vocabulary's own string, no new one
        listed = scan.scan.native(scan.scan.LIST, scan.scan.SET, f"{text}+{text}", 0, 0, codes)
        assert listed == ((text, text) if text in codes and text else None), text


HEAD_LINES = [
    "RW1 HO ops-1 from=ops to=lead re=lead-4 item=gh:a/b#1 ask=FIX // core: no rule reads a head slot",
    "RW1 ST payer-1 from=payer to=auditor re=auditor-3 item=inv:Q-1 p=pay amt=14970.29 kind=GROSS cur=GBP vat=623.76 "
    "net=14346.53 src=email:615991",  # pay's ST: a rule's condition reads item, so the head stays in the values
    "RW1 ST extractor-1 re=reviewer-1 p=clin from=extractor to=record item=sx:chest-pain act=OBS pol=POS cert=CERT "
    "subj=PT time=CUR src=doc:dc-0412#l4 // chest pain.",  # clin's ST: a rule only its closure decides
]


@pytest.mark.parametrize("line", HEAD_LINES, ids=["apart", "rule-condition", "rule-closure"])
def test_the_head_slots_read_alike_whether_kept_apart_or_in_the_rules_values(scan, line: str) -> None:
    """re, from, to and item are kept out of the values dict on a plan no rule of which reads them there, and left
    in it for the rules otherwise: the line reads alike either way, and a head slot written twice, or a missing
    sender or receiver, is left to Python."""
    receiver = BUNDLED
    assert settles(scan, line, receiver) and settles_quietly(scan, line, receiver)
    head, _, tail = line.partition(" // ")
    tokens = head.split(" ")
    for key in ("re", "from", "to", "item"):
        token = next(t for t in tokens if t.startswith(key + "="))
        for changed in (head + " " + token, " ".join(t for t in tokens if t != token)):
            changed += " // " + tail if tail else ""
            settles(scan, changed, receiver)
            if changed.count(f" {key}=") == 2 or key in ("from", "to"):
                assert scan.scan.accept(changed, receiver) is None and scan.scan.form(changed, receiver) is None


@given(st.text(alphabet="0123456789-.:/+dTZYNab\u0663é", max_size=16))
@settings(max_examples=EXAMPLES * 5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_generated_values_agree_with_every_python_decoder(scan, text: str) -> None:
    for type_name, kind in NATIVE_TYPES.items():
        _agree_native(scan, kind, "KEEP", compile_type(type_name, {}).decode, text)
        _agree_native(scan, "LIST", kind, compile_type(f"list:{type_name}", {}).decode, text)
    _agree_native(scan, "INT", "KEEP", compile_type("int:-50-50", {}).decode, text, -50, 50)


# ---- whole lines ------------------------------------------------------------

def test_every_conformance_line_agrees(scan) -> None:
    lines = conformance_lines()
    settled = sum(settles(scan, line, receiver) for line in lines for receiver in RECEIVERS)
    assert settled > 50


def test_the_realistic_corpus_is_settled_by_the_scanner_alone(scan) -> None:
    lines = _bench.corpora(["realistic"], 3000, False)["realistic"]
    receiver = Receiver.load(["pay"])
    settled = sum(settles(scan, line, receiver) for line in lines)
    assert settled / len(lines) >= SETTLED_FLOOR
    assert sum(settles(scan, line, BUNDLED) for line in lines[:500]) / 500 >= SETTLED_FLOOR


def test_the_benchmark_corpus_is_settled_by_the_scanner_alone(scan) -> None:
    receiver = Receiver.load(["pay"])
    assert all(settles(scan, line, receiver) for line in corpus(300))


def _written_lines() -> list[str]:
    """Every distinct RW1 line written in the conformance cases, the tests' sources, the examples and the docs."""
    import ast

    found = set(conformance_lines())
    for path in sorted((ROOT / "tests").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("RW1"):
                found.update(node.value.splitlines())
    for path in [*ROOT.glob("examples/**/*.rw1"), *ROOT.glob("examples/**/*.log"), *ROOT.glob("docs/*.md"),
                 ROOT / "README.md"]:
        found.update(m.group(0).rstrip() for m in re.finditer(r"RW1 [A-Z]{2} [^`\n]*", path.read_text(encoding="utf-8")))
    return sorted(found)


def test_every_line_the_python_accept_path_takes_is_settled_by_the_scanner(scan) -> None:
    """Two paths, not three: no valid line needs a compiled Python accept path behind the scanner, because the
    scanner settles every line the Python accept path takes (a line it is not sure of is one to refuse)."""
    lines = _written_lines()
    assert len(lines) > 1000
    lines += corpus(2000) + _bench.corpora(["realistic"], 2000, False)["realistic"]
    taken = 0
    for receiver in RECEIVERS:
        for line in lines:
            if python_path.accept(line, receiver, 3) is not None:
                taken += 1
                assert scan.scan.accept(line, receiver, 3) is not None, (line, receiver.names)
                assert scan.scan.form(line, receiver) is not None, (line, receiver.names)
            if python_path.accept_quiet(line, receiver, 3) is not None:
                assert scan.scan.accept(line, receiver, 3, None, True) is not None, (line, receiver.names)
    assert taken > 10000


def _hostile_variants(line: str) -> list[str]:
    out = []
    for piece in HOSTILE + INVISIBLE:
        for at in (line.find("=") + 1, line.rfind("=") + 1, line.find(" // ") + 4 if " // " in line else len(line),
                   line.find(" ") + 1, len(line)):
            out.append(line[:at] + piece + line[at:])
    return out


def test_hostile_realistic_lines_agree(scan) -> None:
    lines = _bench.corpora(["realistic"], 400, False)["realistic"]
    for line in lines[:120]:
        for variant in _hostile_variants(line):
            for receiver in RECEIVERS[:2]:
                settles(scan, variant, receiver)


def test_long_and_wide_lines_agree(scan) -> None:
    base = "RW1 HO a-1 from=a to=b item=x ask=DRAFT"
    lines = [base + " x_big=" + "v" * 65536, base + " item2=" + "é" * 65536, base + " // " + "w " * 32768,
             base + " // " + ("w " * 32768).rstrip(), base + "".join(f" x_{i}=v" for i in range(6000)),
             base + "".join(f" x_{i}=v" for i in range(5999)) + " x_0=w", base + " // " + "w" * 300,
             base + " // " + "w" * 301, base + " keep=" + "+".join(["a"] * 6000), base + " pct=" + "9" * 5000,
             base + " x_v=" + "\U0001f600" * 40000]
    for line in lines:
        for receiver in RECEIVERS[:3]:
            settles(scan, line, receiver)
    assert scan.scan.accept(lines[0], BUNDLED) is not None
    assert scan.scan.accept(lines[4], BUNDLED) is not None and scan.scan.accept(lines[5], BUNDLED) is None
    assert scan.scan.accept(lines[6], BUNDLED) is not None and scan.scan.accept(lines[7], BUNDLED) is None


@FUZZ
@given(messages(), st.sampled_from(RECEIVERS))
def test_generated_valid_lines_agree(scan, message, receiver) -> None:
    settles(scan, message.to_line(), receiver)


#: the two ways a line is read: loads (a verdict and a message) and the quiet path (a message only where the full
#: check has nothing at all to say)
READINGS = pytest.mark.parametrize("reading", ["loads", "quiet"])


def _settles_as(reading: str, scan: scanner_module.Scanner, line: str, receiver: Receiver) -> None:
    (settles if reading == "loads" else settles_quietly)(scan, line, receiver)


@READINGS
@FUZZ
@given(mutated_lines(), st.sampled_from(RECEIVERS))
def test_mutated_lines_agree(scan, reading, line, receiver) -> None:
    _settles_as(reading, scan, line, receiver)


@READINGS
@FUZZ
@given(messages(), st.sampled_from(RECEIVERS), st.data())
def test_hostile_values_agree(scan, reading, message, receiver, data) -> None:
    line = message.to_line()
    pos = data.draw(st.integers(0, len(line)))
    piece = data.draw(st.sampled_from(HOSTILE + INVISIBLE + PIECES))
    _settles_as(reading, scan, line[:pos] + piece + line[pos:], receiver)


def test_what_the_scanner_leaves_to_python(scan) -> None:
    noted = "RW1 HO a-1 from=a to=b item=x ask=DRAFT colour=red"  # an unknown key: kept, with a note
    assert settles(scan, noted, BUNDLED)
    required_by_clin = "RW1 ST a-1 from=a to=b item=x pol=FULL"  # clin requires pol: a refusal where clin is held
    assert scan.scan.accept(required_by_clin, BUNDLED) is None and not check_line(required_by_clin, BUNDLED).valid
    assert settles(scan, required_by_clin, Receiver())
    unheld = "RW1 ST a-1 p=nosuch from=a to=b item=x"
    assert scan.scan.accept(unheld, BUNDLED) is None
    sums = "RW1 ST payer-1 p=pay from=payer to=scheduler item=inv:MD-1 amt=120.00 net=100.00 vat=20.00 cur=GBP kind=GROSS src=email:7"
    pay = Receiver.load(["pay"])
    assert settles(scan, sums, pay)
    assert scan.scan.accept(sums.replace("amt=120.00", "amt=121.00"), pay) is None  # a rule: net + vat = amt
    assert scan.scan.accept(sums.replace("from=payer", "from=mallory").replace("payer-1", "mallory-1"), pay) is None


def test_a_noted_line_is_not_settled_quietly(scan) -> None:
    """The full pass notes an unknown key and a slot of another type: not a line the quiet attempt takes."""
    clean = "RW1 HO a-1 from=a to=b item=x ask=DRAFT"
    assert settles_quietly(scan, clean, BUNDLED) and settles_quietly(scan, clean + " x_ref=7", BUNDLED)
    for noted in (clean + " colour=red", clean + " pol=FULL", clean + " amt=5.00"):
        assert check_line(noted, Receiver()).findings != ()
        assert scan.scan.accept(noted, Receiver(), 1, "f", True) is None, noted
    assert settles(scan, clean + " colour=red", BUNDLED)  # not quiet: taken, its note check_line's to write
    assert scan.scan.accept(clean, BUNDLED, 4, "f.rw1", True).source.file == "f.rw1"


def test_every_conformance_line_agrees_quietly(scan) -> None:
    lines = conformance_lines()
    assert sum(settles_quietly(scan, line, receiver) for line in lines for receiver in RECEIVERS) > 50


def test_the_realistic_corpus_agrees_quietly(scan) -> None:
    lines = _bench.corpora(["realistic"], 1500, False)["realistic"]
    pay = Receiver.load(["pay"])
    settled = sum(settles_quietly(scan, line, pay) for line in lines)
    assert settled / len(lines) >= SETTLED_FLOOR * 0.9  # the corpus's noted lines are the Python path's




def _stream(monkeypatch: pytest.MonkeyPatch, quiet, data: bytes, receiver: Receiver, quiet_first: bool) -> list[tuple]:
    """Every line of a stream as validate_stream gives it, the quiet attempt being ``quiet``."""
    monkeypatch.setattr(stream_module, "accept_quiet", quiet)
    results = stream_module.validate_stream(io.BytesIO(data), receiver, file="s.rw1", quiet_first=quiet_first)
    return [(r.text, r.message, r.message.source if r.message else None, r.findings, r.line_number) for r in results]


def _stream_corpus() -> bytes:
    """Realistic lines, the same with notes and refusals, hostile variants, every conformance line; CR and LF ends."""
    realistic = _bench.corpora(["realistic"], 600, False)["realistic"]
    lines = realistic + conformance_lines() + [""]
    lines += [line.replace(" to=", " colour=red to=", 1) for line in realistic[:40]]  # an unknown key: a note
    lines += [line.replace(" to=", " x_ref=7 to=", 1) for line in realistic[:40]]  # an extension: nothing to say
    lines += [line.replace(" to=", " to=b to=", 1) for line in realistic[:40]]  # a repeated key: a refusal
    lines += [variant for line in realistic[:8] for variant in _hostile_variants(line)]
    return "\n".join(lines).encode("utf-8", "surrogatepass") + b"\rRW1 ST a-1 from=a to=b item=x\r\n"


@pytest.mark.parametrize("receiver", RECEIVERS[:3], ids=["bundled", "core", "first-profile"])
def test_a_stream_read_with_the_scanner_first_is_the_stream_read_by_python(scan, monkeypatch, receiver) -> None:
    """Same verdict, message, source and findings for every line, whichever path takes it first."""
    data = _stream_corpus()
    with_scanner = _stream(monkeypatch, scanner_module.quiet_with(scan, python_path.accept_quiet), data, receiver, True)
    by_python = _stream(monkeypatch, python_path.accept_quiet, data, receiver, True)
    full_pass = _stream(monkeypatch, python_path.accept_quiet, data, receiver, False)
    assert len(with_scanner) == len(by_python) == len(full_pass) > 1000
    assert with_scanner == by_python == full_pass
    assert sum(scan.scan.accept(text, receiver, 1, None, True) is not None for text, *_ in with_scanner) > 500


def test_a_line_that_is_not_a_str_is_a_type_error(scan) -> None:
    for value in (None, 5, b"RW1 ST a-1 from=a to=b item=x"):
        with pytest.raises(TypeError, match="str object expected"):
            scan.scan.accept(value, BUNDLED)


def test_the_package_reads_lines_with_the_scanner_where_it_is_built() -> None:
    """The path the environment asks for: pure with RW1_PURE set, else the scanner wherever it is built (CI sets
    RW1_EXPECT_COMPILED=1 and builds it, so there it must be in use)."""
    import rogerwilco
    from rogerwilco.core import speedups

    forced_pure = os.environ.get("RW1_PURE", "") not in ("", "0")
    expected = os.environ.get("RW1_EXPECT_COMPILED", "") not in ("", "0")
    if forced_pure:
        assert (speedups.compiled, speedups.active, speedups.reason) == (False, "pure", "RW1_PURE is set")
        assert speedups.loads_line is python_path.loads_line
    elif expected:
        assert (speedups.compiled, speedups.active, speedups.reason) == (True, "compiled", ""), \
            "RW1_EXPECT_COMPILED is set: run python hatch_build.py --inplace"
        assert speedups.loads_line is not python_path.loads_line
    else:
        assert speedups.compiled == (importlib.util.find_spec(speedups.COMPILED_MODULE) is not None)
    assert speedups.active == ("compiled" if speedups.compiled else "pure")
    assert (speedups.reason == "") == speedups.compiled
    assert (speedups.scanning, speedups.scan_reason) == (speedups.compiled, speedups.reason)
    assert speedups.implementation is python_path and rogerwilco.speedups is speedups


def test_a_scanner_built_from_other_sources_is_left_unused(scan, monkeypatch) -> None:
    """A build of another _scan.c (a clone edited since ``python hatch_build.py --inplace``) is not used: the
    package reads lines on the Python path, and says why."""
    import types

    sources = "".join((ROOT / "rogerwilco/core" / name).read_text(encoding="utf-8") for name in scanner_module.SOURCES)
    assert scan.scan.BUILT_FROM == scanner_module.source_stamp(sources), "stale: python hatch_build.py --inplace"
    assert scanner_module.built_from_here(scan.scan)
    stale = types.SimpleNamespace(BUILT_FROM=scanner_module.source_stamp(sources + "\n"))
    assert not scanner_module.built_from_here(stale)
    monkeypatch.setattr(scanner_module.importlib, "import_module", lambda name: stale)
    assert scanner_module.load() == (None, "the C scanner was built from another _scan.c (python hatch_build.py --inplace)")


# ---- JSON text: json.dumps's, to the character ---------------------------------

ANY_CHARACTER = st.characters(blacklist_categories=())  # surrogates too
JSON_TEXTS = st.text(ANY_CHARACTER) | st.lists(st.sampled_from(
    ["\u2028", "\u2029", "\x85", "\x7f", "\x00", "\x1f", "\\", '"', "\ud800", "\udfff", "\U0001f600", "\U0010ffff",
     "\uffff", "\U00010000", "\ud83d\ude00", "\u00e9", "/", "\b\f\n\r\t"] + INVISIBLE)).map("".join)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**63 - 1) | JSON_TEXTS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(JSON_TEXTS, inner, max_size=4), max_leaves=24)


def test_the_json_text_of_every_code_point_is_json_dumps(scan) -> None:
    everything = "".join(map(chr, range(0x110000)))
    assert scan.scan.dumps(everything) == json.dumps(everything, ensure_ascii=True)
    for c in map(chr, range(0x3000)):
        assert scan.scan.dumps(c) == json.dumps(c, ensure_ascii=True), hex(ord(c))


@FUZZ
@given(JSON_VALUES)
def test_the_json_text_of_a_value_is_json_dumps(scan, value) -> None:
    """str (controls, U+2028, past the BMP, lone surrogates), int, bool, None, lists and str-keyed dicts of them."""
    assert scan.scan.dumps(value) == json.dumps(value, ensure_ascii=True)


@pytest.mark.parametrize("value", [(1, 2), {"a": ("x", "\u00e9")}, [(), ("a", ("b",))]])
def test_a_tuple_is_written_as_json_dumps_writes_it_a_list(scan, value) -> None:
    """A list slot's value as the scan decodes it (a tuple), written where it stands in a record's row."""
    assert scan.scan.dumps(value) == json.dumps(value, ensure_ascii=True)
    assert scan.scan.compact(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize("value", [1.5, [1, 2.0], {"a": float("nan")}, {1: "a"}, {"a": {2: 3}}, 2**63, -(2**63) - 1,
                                   {"a": (1, 2.5)}, type("Text", (str,), {})("x"), type("Number", (int,), {})(3)])
def test_a_value_the_json_text_is_not_sure_of_goes_to_json_dumps(scan, value) -> None:
    assert scan.scan.dumps(value) is None
    assert speedups.json_text(value) == json.JSONEncoder(ensure_ascii=True).encode(value)


@FUZZ
@given(st.lists(st.tuples(JSON_TEXTS, JSON_VALUES), max_size=24, unique_by=lambda pair: pair[0]))
def test_the_json_text_of_keys_and_values_is_json_dumps_of_their_dict(scan, pairs) -> None:
    keys, values = tuple(k for k, _ in pairs), tuple(v for _, v in pairs)
    assert scan.scan.dumps_object(keys, values) == json.dumps(dict(pairs), ensure_ascii=True)


@pytest.mark.parametrize("keys, values", [(("a", "b"), ("x",)), (["a"], ("x",)), (("a",), ["x"]), ((1,), ("x",)),
                                          (("a",), (1.5,)), (("a", "b"), ("x", {"c": 2.5}))])
def test_keys_and_values_the_json_text_is_not_sure_of(scan, keys, values) -> None:
    assert scan.scan.dumps_object(keys, values) is None


def test_the_json_text_nests_as_deep_as_a_json_form_and_more(scan) -> None:
    value: object = "x"
    for _ in range(16):
        value = [value]
    assert scan.scan.dumps(value) == json.dumps(value)
    assert scan.scan.dumps([value]) is None  # past JSON_DEPTH: json.dumps writes it


def test_the_json_text_of_every_conformance_form_is_json_dumps(scan) -> None:
    forms = [scan.scan.form(line, receiver) for line in conformance_lines() for receiver in RECEIVERS]
    forms = [form for form in forms if form is not None]
    assert len(forms) > 100
    for form in forms:
        assert scan.scan.dumps(form) == json.dumps(form, ensure_ascii=True)


# ---- Parquet's json column: json.dumps(ensure_ascii=False), compact ---------------

def compact_dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def has_surrogate(value: object) -> bool:
    if isinstance(value, str):
        return any("\ud800" <= c <= "\udfff" for c in value)
    if isinstance(value, list):
        return any(map(has_surrogate, value))
    if isinstance(value, dict):
        return any(has_surrogate(k) or has_surrogate(v) for k, v in value.items())
    return False


def test_the_compact_text_of_every_code_point_is_json_dumps(scan) -> None:
    everything = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    assert scan.scan.compact(everything) == compact_dumps(everything)
    for c in map(chr, range(0x3000)):
        want = None if "\ud800" <= c <= "\udfff" else compact_dumps(c)
        assert scan.scan.compact(c) == want, hex(ord(c))


@FUZZ
@given(JSON_VALUES)
def test_the_compact_text_of_a_value_is_json_dumps_or_not_sure_of_a_surrogate(scan, value) -> None:
    """Compact separators, every character past ASCII as itself; a lone surrogate (UTF-8 has none) is not sure."""
    assert scan.scan.compact(value) == (None if has_surrogate(value) else compact_dumps(value))


@pytest.mark.parametrize("value", [1.5, [1, 2.0], {"a": float("nan")}, {1: "a"}, {"a": {2: 3}}, 2**63, {"a": (1, 2.5)},
                                   "\ud800", {"\udfff": 1}, type("Text", (str,), {})("x")])
def test_a_value_the_compact_text_is_not_sure_of(scan, value) -> None:
    assert scan.scan.compact(value) is None


FORM_VALUES = st.none() | st.booleans() | st.integers(-5, 5) | JSON_TEXTS | st.floats(allow_nan=False)
FORMS = st.none() | st.integers() | st.dictionaries(
    st.sampled_from(["v", "type", "id", "from", "to", "re", "item", "tail", "slots", "other"]) | JSON_TEXTS,
    FORM_VALUES | JSON_VALUES, max_size=10,
) | st.builds(lambda form, slots: {**form, "slots": slots},
              st.dictionaries(st.sampled_from(["v", "type", "id", "tail"]), JSON_TEXTS, max_size=4),
              st.none() | JSON_VALUES | st.dictionaries(JSON_TEXTS, JSON_VALUES | st.floats(), max_size=4))


@FUZZ
@given(st.lists(FORMS, max_size=12), st.lists(st.sampled_from(["v", "type", "id", "tail", "slots", "x"]), max_size=6))
def test_the_struct_columns_are_the_forms_values_or_not_sure(scan, forms, keys) -> None:
    """Each sure form gives forms[i].get(key) and its slots' compact text; anything else is listed, and None."""
    columns, unsure = scan.scan.struct_columns(forms, tuple(keys))
    assert len(columns) == len(keys) + 1 and all(len(column) == len(forms) for column in columns)
    for i, form in enumerate(forms):
        row = [column[i] for column in columns]
        if i in unsure:
            assert row == [None] * (len(keys) + 1)
            slots = form.get("slots") if isinstance(form, dict) else None
            assert (not isinstance(form, dict) or not (slots is None or type(slots) is dict)
                    or scan.scan.compact(slots) is None)
        elif form is None:
            assert row == [None] * (len(keys) + 1)
        else:
            assert type(form) is dict
            assert row[:-1] == [form.get(key) for key in keys]
            assert all(a is b for a, b in zip(row[:-1], [form.get(key) for key in keys]))
            assert row[-1] == compact_dumps(form.get("slots") or {})
    assert unsure == sorted(set(unsure))


def test_a_key_that_runs_code_cannot_pull_the_forms_from_under_the_struct_columns(scan) -> None:
    """A form's key whose __eq__ runs on a hash collision with "slots" empties the list and the form: the
    columns are still those of the forms as they were given (each held while it is read)."""
    forms: list = []
    held: list = []

    class Colliding:
        def __hash__(self) -> int:
            return hash("slots")

        def __eq__(self, other: object) -> bool:
            forms.clear()
            for form in held:  # (empty while the form is built)
                form.clear()
            return False

    first = {Colliding(): 1, "v": "RW1", "slots": {"a": "b"}}
    held.append(first)
    forms.extend([first, {"v": "RW1", "type": "HO"}] + [{"v": str(n)} for n in range(50)])
    columns, unsure = scan.scan.struct_columns(forms, ("v", "type"))
    assert len(columns[0]) == 52 and columns[0][1:4] == ["RW1", "0", "1"] and columns[1][1] == "HO"
    assert forms == [] and first == {}  # the key's code ran


@pytest.mark.parametrize("args", [((), ("v",)), ([], ["v"]), ([], (1,)), ([{}],)])
def test_the_struct_columns_take_a_list_and_a_tuple_of_str(scan, args) -> None:
    with pytest.raises(TypeError):
        scan.scan.struct_columns(*args)


# ---- memory, under valgrind --------------------------------------------------

MEMCHECK_LINES = int(os.environ.get("RW1_SCAN_VALGRIND_LINES", "60"))
_MEMCHECK_CHILD = """
import importlib, sys
import rogerwilco.core
rogerwilco.core.__path__.append(sys.argv[2])
from rogerwilco.core import scanner
from rogerwilco.core.vocab import Receiver
sys.path.insert(0, "benchmarks")
from realistic_corpus import realistic
from parse_bench import REFUSED_KINDS
scan = scanner.Scanner(importlib.import_module("rogerwilco.core._scan"))
receiver = Receiver.all_bundled()
lines = realistic(int(sys.argv[1]))
base = "RW1 HO a-1 from=a to=b item=x ask=DRAFT"
lines += [base + " x_big=" + "v" * 65536, base + " // " + "w" * 301, base + "".join(f" x_{i}=v" for i in range(6000)),
          base + " keep=a++b", base + " pct=" + "9" * 40, base + " pct=\\u0663", base + " x=\\ud800", base + "  to=b",
          base + "".join(f" x_{i}=v" for i in range(300)) + " x_299=w", base + " to=b // x  y", base + " //x"]
lines += [line[:n] for line in lines[:5] for n in range(0, len(line), 7)]
lines += [line.replace(" ", "  ", 1 + n % 4) for n, line in enumerate(lines[:20])]
lines += [broken for line in lines[:20] for breaking in REFUSED_KINDS.values() if (broken := breaking(line))]
settled = sum(scan.scan.accept(line, receiver, 1) is not None for line in lines)
quiet = sum(scan.scan.accept(line, receiver, 1, "f.rw1", True) is not None for line in lines)
formed = sum(scan.scan.form(line, receiver) is not None for line in lines)
values = lines + [scan.scan.form(line, receiver) for line in lines]
values += [["\\ud800\\U0001f600\\u2028\\x00\\x7f", {"k\\udfff": [None, True, -2**63, 2**63]}], {1: 2}, 1.5]
for n in range(20):
    values.append(values[-1 - n % 3])
    values[-1] = [values[-1]] * (1 + n % 2)
texts = sum(scan.scan.dumps(value) is not None for value in values)
texts += sum(scan.scan.dumps_object(("text", "json", "n"), (line, value, n)) is not None
             for n, (line, value) in enumerate(zip(lines, values[len(lines):])))
texts += sum(scan.scan.compact(value) is not None for value in values)
columns, unsure = scan.scan.struct_columns(values[len(lines):] + [None, {"slots": 1.5}, {"slots": values[-1]}, 7],
                                           ("v", "type", "id", "tail"))
texts += len(columns[-1]) - len(unsure)
found = [scan.scan.fault(line, receiver) for line in lines]
import json
walks = [json.dumps({"m": line, "k~/": [line, {"n": line}]}, ensure_ascii=n % 2 == 0) for n, line in enumerate(lines)]
walks += ["[" * 600 + "]" * 600, '{"a": "RW1', '{"a": 1}}', '{"a\\\\u0041": "RW1"}', "[" * 300 + '"RW"' + "]" * 300]
strings = [scan.scan.strings(text, at) for text in walks for at in (0, 1, len(text))]
stamps = ["2026-10-01T00:00:17Z", "2026-10-01T00:00:17.017Z x", "2026-10-01 00:00:17,123456789z",
          "2026-02-30T00:00:00Z", "2026-10-01T00:00:1",
          "\u0663026-10-01T00:00:17Z", "2026-10-01T00:00:17.1234567890Z", ""] + [line[:30] for line in lines]
times = sum(scan.scan.utc_time(stamp, n, whole) is not None for stamp in stamps for n in (len(stamp), 20, 0)
            for whole in (False, True))
assert times == 7  # the first whole and as a prefix, at its length and at 20; the second as a prefix; the third both
assert sum(found is not None for found in strings) >= len(lines)
from rogerwilco.io.records import COLUMNS
logs = [f"2026-10-01T00:00:{n % 60:02d}Z INFO {line}" for n, line in enumerate(lines)]
logs += ["x: " + line for line in lines[:50]] + ["{" + line for line in lines[:5]] + ["`" + line for line in lines[:5]]
cells = scan.scan.Columns()
whole = sum(scan.scan.line_row(text, receiver, COLUMNS, "f.log", n, 2) is not None for n, text in enumerate(logs))
rows = sum(scan.scan.row(line, receiver, COLUMNS, "f.log", n, 1, None, None, 2) is not None
           for n, line in enumerate(lines))
assert whole == sum(cells.line(text, receiver, "f.log", n) is not None for n, text in enumerate(logs)) > 0
assert rows == sum(cells.candidate(line, receiver, "f\\udc80", n, 1, "/m", None) is not None
                   for n, line in enumerate(lines)) > 0
cells.record(("diagnostic", "f\\udc80", 1, 2, None, "x\\ud800", None, None, None, None, None, None, "UNK", "syntax",
              "", "m", True), None, -5)
cells.record(("message", "f", 1, 2, "/m", "t", "HO", "a-1", "a", "b", None, "x", None, None, None, None, False),
             ("RW1",) * 7 + ('{"k":"\\udfff"}', None), None)
buffers = cells.buffers()
assert buffers[0] == cells.rows == whole + rows + 2, (buffers[0], whole, rows)
checks = sum(fault is not None and fault[0] >= scan.scan.FAULT_VALUE for fault in found)
faults = sum(fault is not None for fault in found)
# the control: CPython 3.11 makes a zero from four zero bytes without writing its digit, and a collection an
# allocation of the scanner sets off meets it in a young list (not the scanner's error: scanner_errors)
import gc
gc.collect()
gc.set_threshold(1)
held = [int.from_bytes(bytes(4), "little")]
scan.scan.fault(base + " ask=DRAFTED", receiver)
gc.set_threshold(700)
print("settled", settled, "of", len(lines), "quietly", quiet, "as JSON forms", formed, "as JSON texts", texts,
      "checks", checks, "faults", faults)
"""


def scanner_errors(report: str, module_file: str) -> list[str]:
    """The memcheck errors the scanner's extension makes: one of its frames before any interpreted frame.

    CPython itself earns a few under memcheck, in every run, and they are
    not the scanner's: 3.11 reads the digit of a zero it made without one
    (``int.from_bytes`` on a .pyc header, ``int("0")``), so the small int
    it hands back is, to valgrind, an uninitialised pointer; one reached
    through a Python decoder the scanner called has an interpreted frame
    between the error and the scanner's frame. valgrind names the
    scanner's frames by file. A collection that an allocation of the
    scanner's set off walks the whole heap: what it finds there is the
    scanner's only where the value was made by the scanner (the origin
    ``--track-origins=yes`` reports).
    """
    name = Path(module_file).name
    frame_line = r"^==\d+==\s+(?:at|by) 0x[0-9A-F]+: (.*)$"
    found = []
    for block in re.split(r"\n==\d+== \n", report):
        error, _, origin = block.partition("Uninitialised value was created by")
        collecting = False
        for frame in re.findall(frame_line, error, re.MULTILINE):
            if name in frame:
                if not collecting or not origin or name in origin:
                    found.append(block)
                break
            if "_PyEval_EvalFrameDefault" in frame:
                break
            collecting = collecting or "gc_collect_main" in frame
    return found


def test_memcheck(scan) -> None:
    """A sample through the scanner under valgrind memcheck: no invalid read or write, no uninitialised value."""
    valgrind = shutil.which("valgrind")
    assert valgrind is not None, "valgrind is needed for this test (apt-get install valgrind)"
    module_file = scan.scan.__file__
    env = {**os.environ, "PYTHONMALLOC": "malloc", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([valgrind, "--tool=memcheck", "--leak-check=no", "--track-origins=yes", "-q",
                           sys.executable, "-c", _MEMCHECK_CHILD,
                           str(MEMCHECK_LINES), str(Path(module_file).parent)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=HANG)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.startswith("settled "), proc.stdout
    assert int(proc.stdout.split()[1]) >= MEMCHECK_LINES * SETTLED_FLOOR
    assert int(proc.stdout.split()[-1]) >= 20  # the first faults were read under memcheck too
    assert int(proc.stdout.split()[-3]) >= 20  # refusals by the checks among them
    assert scanner_errors(proc.stderr, module_file) == []
    if sys.version_info[:2] == (3, 11):  # the control's report: there, and not counted
        walks = [block for block in re.split(r"\n==\d+== \n", proc.stderr)
                 if "gc_collect_main" in block and Path(module_file).name in block and "_PyLong_New" in block]
        assert walks, proc.stderr[-3000:]


def test_a_scanner_error_is_found_in_a_memcheck_report() -> None:
    frame = "==7==    by 0x4A: accept (in /x/rogerwilco/core/_scan.cpython-311-x86_64-linux-gnu.so)"
    report = (f"==7== Invalid read of size 4\n==7==    at 0x1B: PyUnicode_Substring (unicodeobject.c:9)\n{frame}\n"
              "==7== \n==7== Use of uninitialised value of size 8\n==7==    at 0x2C: get_small_int (longobject.c:62)\n"
              f"==7==    by 0x3D: _PyEval_EvalFrameDefault (ceval.c:1)\n{frame}\n==7== \n")
    found = scanner_errors(report, "/y/_scan.cpython-311-x86_64-linux-gnu.so")
    assert len(found) == 1 and "Invalid read" in found[0]


def test_a_collection_the_scanner_set_off_is_its_error_only_where_it_made_the_value() -> None:
    """The collector walks the whole heap: an uninitialised pointer it meets is the scanner's if the scanner made it."""
    frame = "==7==    by 0x4A: fault (in /x/rogerwilco/core/_scan.cpython-311-x86_64-linux-gnu.so)"
    walk = ("==7== Use of uninitialised value of size 8\n==7==    at 0x1B: visit_decref (gcmodule.c:452)\n"
            "==7==    by 0x2C: gc_collect_main (gcmodule.c:1226)\n==7==    by 0x3D: PyType_GenericAlloc (typeobject.c:1148)\n"
            f"{frame}\n==7==  Uninitialised value was created by a heap allocation\n==7==    at 0x5E: malloc (in vg.so)\n")
    cpython = walk + "==7==    by 0x6F: _PyLong_New (longobject.c:161)\n==7==    by 0x70: int_from_bytes (longobject.c.h:389)\n"
    ours = walk + f"==7==    by 0x71: PyTuple_New (tupleobject.c:9)\n{frame}\n"
    module = "/y/_scan.cpython-311-x86_64-linux-gnu.so"
    assert scanner_errors(cpython + "==7== \n", module) == []
    assert scanner_errors(ours + "==7== \n", module) == [ours.rstrip("\n")]
    assert len(scanner_errors(walk.split("==7==  Uninit")[0], module)) == 1  # no origin told: counted


MONEY = st.builds(lambda sign, whole, cents: f"{sign}{whole}.{cents:02d}", st.sampled_from(["", "-"]),
                  st.integers(0, 10**20), st.integers(0, 99))


@FUZZ
@given(MONEY, MONEY, MONEY, st.booleans())
def test_the_sum_rule_decides_as_decimal_arithmetic(scan, net: str, vat: str, amt: str, balanced: bool) -> None:
    """net + vat = amt, natively where the numbers fit in 17 digits and by the rule's closure beyond."""
    from decimal import Decimal

    if balanced:
        amt = f"{Decimal(net) + Decimal(vat):.2f}"
    pay = Receiver.load(["pay"])
    line = (f"RW1 ST payer-1 p=pay from=payer to=scheduler item=inv:MD-1 amt={amt} net={net} vat={vat} "
            "cur=GBP kind=GROSS src=email:7")
    assert (scan.scan.accept(line, pay) is not None) == (python_path.accept(line, pay) is not None), line
    settles(scan, line, pay)
    refuses_alike(scan, line, pay)


RULED = "RW1 ST payer-1 p=pay from=payer to=scheduler item=inv:MD-1 amt=120.00 net=100.00 vat=20.00 cur=GBP kind=GROSS"


@pytest.mark.parametrize("line", [
    RULED.replace("amt=120.00", "amt=121.00") + " src=email:7",  # net + vat is not amt
    RULED,  # an invoice's status without the src= it must carry
    RULED.replace("amt=120.00", "amt=121.00"),  # both: the rules' first finding first
    RULED.replace("amt=120.00", "amt=121.00") + " src=email:7 colour=red",  # and a note
])
def test_a_line_only_a_rule_refuses_is_worded_without_the_accept_path(scan, line) -> None:
    """The scanner names a rule that does not hold; Python words it from the line, as the full pass does, and the
    accept path (which would only decline the line again) is never asked."""
    pay = Receiver.load(["pay"])
    assert scan.scan.fault(line, pay)[0] == scan.scan.FAULT_RULE
    assert scanner_module.fault_error(scan, line, scan.scan.fault(line, pay), pay, 3) is not None

    def never(*args):
        raise AssertionError("the accept path was asked")

    same_error(_refusal(scanner_module.loads_with(scan, never), line, pay),
               _refusal(python_path.loads_line, line, pay))


@pytest.mark.parametrize("first", ["column", "token", "message", "args", "repr", "pickle", "caret", "findings"])
def test_a_rule_refusal_reads_as_the_pure_one_whichever_is_read_first(scan, first) -> None:
    """A rule's refusal is worded when first read (the scanner's verdict first): whatever is read first, the rest
    follow as in Python, for each way a rule fails (a sum, a required slot, both)."""
    readers = {"column": lambda e: e.column, "token": lambda e: e.token, "message": lambda e: e.message,
               "args": lambda e: e.args, "repr": repr, "pickle": own_pickle, "caret": lambda e: e.caret(),
               "findings": lambda e: e.findings}
    pay = Receiver.load(["pay"])
    loads = scanner_module.loads_with(scan, python_path.loads_line)
    for line in [RULED.replace("amt=120.00", "amt=121.00") + " src=email:7", RULED, RULED.replace("amt=120.00", "amt=1.00")]:
        fault = scan.scan.fault(line, pay)
        assert fault[0] == scan.scan.FAULT_RULE and isinstance(fault[3], int), fault
        got = _refusal(loads, line, pay)
        assert "_word" in vars(got)  # not worded yet
        readers[first](got)
        same_error(got, _refusal(python_path.loads_line, line, pay))


def test_the_rule_the_scanner_names_is_the_first_that_fails(scan) -> None:
    """fault() names the index of the first rule of the type's that does not hold: the sum's alone, the invoice's
    src= before the sum when both fail."""
    pay = Receiver.load(["pay"])
    ids = [rule.id for rule in pay.vocabulary("pay").types["ST"].rules]
    named = {line: ids[scan.scan.fault(line, pay)[3]]
             for line in (RULED.replace("amt=120.00", "amt=121.00") + " src=email:7", RULED,
                          RULED.replace("amt=120.00", "amt=121.00"))}
    assert list(named.values()) == ["pay-net-vat-sum", "pay-invoice-line", "pay-invoice-line"], named


def test_a_rule_the_checks_find_holding_is_worded_by_the_full_pass(scan) -> None:
    """Where Python finds no refusal of the rule the scanner named (never, while the two check rules alike), the
    error still reads as what the full pass finds, and says so where the full pass finds nothing."""
    pay = Receiver.load(["pay"])
    balanced = RULED + " src=email:7"
    sum_rule = [rule.id for rule in pay.vocabulary("pay").types["ST"].rules].index("pay-net-vat-sum")
    wrong_id = balanced.replace("ST payer-1", "ST other-1")  # refused for its id, not a rule
    error = semantics.rule_refusal(wrong_id, pay, 3, sum_rule)
    assert isinstance(error, RefusedError)
    same_error(error, _refusal(python_path.loads_line, wrong_id, pay))
    error = semantics.rule_refusal(balanced, pay, 3, sum_rule)
    assert error.message == "refused on a rule the checks find holding: net + vat = amt exactly when all three are given"
    assert semantics.rule_refusal("RW1 ST payer-1 p=pay from=payer to=scheduler item=x", pay, 3, 99) is None


def test_a_value_a_python_decoder_refused_is_worded_by_what_its_error_said(scan) -> None:
    """fault() hands over what the decoder's ValueError said, which words the refusal without a second decoding,
    except on a profile's agent slot, closed by a decoder of the scanner's plans: no words (Python decodes it)."""
    line = "RW1 ST a-1 from=a to=b item=x pct=40 eta=20261301"
    fault = scan.scan.fault(line, BUNDLED)
    assert fault[0] == scan.scan.FAULT_VALUE and fault[3] == _refusal(python_path.loads_line, line, BUNDLED).message
    said = semantics.scanned_refusal(line, "value", fault[1], fault[2], BUNDLED, 3, "what the decoder said")
    assert said.message == "what the decoder said" and said.token == "eta=20261301"
    pay = Receiver.load(["pay"])
    closed = "RW1 HO payer-1 p=pay from=payer to=scheduler item=inv:MD-1 ask=PAY keep=payer+mallory"
    kind, column, end, said = scan.scan.fault(closed, pay)
    assert kind == scan.scan.FAULT_VALUE and said is None  # the plan's closed list refused mallory: its own words
    assert semantics.scanned_refusal(closed, "value", column, end, pay, 3, said) is None  # the full pass words it
    error = _refusal(scanner_module.loads_with(scan, python_path.loads_line), closed, pay)
    same_error(error, _refusal(python_path.loads_line, closed, pay))
    assert "mallory is not an agent" in error.message


def test_a_rule_after_an_earlier_refusal_the_scanner_does_not_check_goes_to_the_full_pass(scan) -> None:
    """An agent a profile that names its agents does not know is refused before any rule: Python leaves the line
    to the full pass, which words the agent."""
    pay = Receiver.load(["pay"])
    vocab = pay.vocabulary("pay")
    assert vocab.agents is not None and "mallory" not in vocab.agents
    line = RULED.replace("amt=120.00", "amt=121.00").replace("to=scheduler", "to=mallory") + " src=email:7"
    fault = scan.scan.fault(line, pay)
    if fault is not None:
        assert scanner_module.fault_error(scan, line, fault, pay, 3) is None
    error = _refusal(scanner_module.loads_with(scan, python_path.loads_line), line, pay)
    same_error(error, _refusal(python_path.loads_line, line, pay))
    assert "mallory is not an agent" in str(error)


def test_reading_lines_again_and_again_holds_no_memory(scan) -> None:
    """Every reference the scanner takes it gives back: accepted, refused and handed-on lines, repeated, hold nothing."""
    import gc
    import tracemalloc

    pay = Receiver.load(["pay"])
    lines = _bench.corpora(["realistic"], 200, False)["realistic"]
    lines += [line.replace(" to=", " to=b to=", 1) for line in lines[:50]]  # a repeated key
    lines += [line.replace(" from=", " colour=red from=", 1) for line in lines[:50]]  # an unknown key, kept
    lines += [line.replace(" item=", " pct=7x item=", 1) for line in lines[:50]]  # a decoder's ValueError
    lines += [line + " keep=a++b" for line in lines[:20]] + [line + " pol=FULL" for line in lines[:20]]

    def read() -> None:
        for receiver in (pay, BUNDLED):
            for line in lines:
                scan.scan.accept(line, receiver, 1)
                scan.scan.form(line, receiver)

    read()
    read()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(20):
            read()
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 64 * 1024  # a leaked reference per line would be 20 x 1,500 lines of it


def test_a_refused_line_leaves_nothing_for_the_collector(scan) -> None:
    """A refusal ``loads`` raises is freed when the caller lets it go: no reference cycle (an error held by a
    frame its own traceback holds) that only the cyclic collector frees, at about a valid line's cost again."""
    import gc

    loads = scanner_module.loads_with(scan, python_path.loads_line)
    refused = ["RW1 HO ops-1 from=ops  to=builder item=jira:OPS-7 ask=FIX",  # a syntax fault
               "RW1 HO ops-1 from=ops to=builder item=jira:OPS-7 ask=FIXQ",  # a code no profile has
               "RW1 HO ops-1 from=ops to=builder ask=FIX to=qa",  # a repeated key
               "RW1 ST ops-2 from=ops to=fin item=inv:A-1 p=pay amt=10.00 cur=GBP kind=GROSS net=8.00 vat=2.01"
               " src=email:1"]  # a rule (net + vat = amt) that does not hold
    gc.collect()
    gc.disable()
    try:
        for _ in range(3):
            for line in refused:
                for read in (loads, speedups.loads_line):
                    with pytest.raises(RW1Error):
                        read(line, BUNDLED)
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_a_type_beyond_the_scanners_tables_is_left_to_python(scan) -> None:
    """A profile with a key longer than 64 characters, or more than 512 keys on a type: its lines go to Python."""
    long_key = ("k" * 65, scan.scan.KEEP, scan.scan.KEEP, False, None, None, 0, 0, True)
    with pytest.raises(ValueError):
        scan.scan.make_plan("ST", None, (long_key,), (), 300)
    many = tuple((f"k{i}", scan.scan.KEEP, scan.scan.KEEP, False, None, None, 0, 0, True) for i in range(513))
    with pytest.raises(ValueError):
        scan.scan.make_plan("ST", None, many, (), 300)
    assert scan.scan.make_plan("ST", None, many[:512], (), 300) is not None

    class Refusing:
        def __getattr__(self, name):
            return getattr(scan.scan, name)

        def make_plan(self, *args):
            raise ValueError("too many keys for one plan")

    assert scanner_module.compile_plans(Refusing(), Receiver().vocabulary()) == {}


def test_a_profile_of_hundreds_of_slots_is_read_by_the_scanner(scan) -> None:
    """A type with 300 keys past the core's fits the scanner's tables: its lines are not handed to Python."""
    wide = {"profile": "wide", "version": "0.1", "extends": "RW1",
            "slots": [{"key": f"w{i}", "type": "int:0-99", "on": ["ST"], "required": False} for i in range(300)]}
    receiver = Receiver.load([wide])
    line = "RW1 ST a-1 p=wide from=a to=b item=x " + " ".join(f"w{i}={i % 100}" for i in range(0, 300, 7))
    message = scan.scan.accept(line, receiver, 1)
    assert message is not None and message == python_path.accept(line, receiver, 1)
    assert message.slots["w287"] == 87
    assert scan.scan.accept(line.replace("w287=87", "w287=100"), receiver, 1) is None  # out of its range


# ---- a refused line's first fault ----------------------------------------------

def _refusal(loads, line: str, receiver: Receiver):
    """The error ``loads`` raises for a line (None where it takes the line)."""
    try:
        loads(line, receiver, 3)
    except RW1Error as exc:
        return exc
    return None


def own_pickle(error: RW1Error) -> bytes:
    """The error pickled by its own ``__reduce__``, whatever another library registered for its class: Dask's
    distributed registers tblib's reducer (which pickles the traceback too) for an error class one of its tasks
    raised, as the records' Dask route in tests/test_records_routes.py does."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer)
    pickler.dispatch_table = {}
    pickler.dump(error)
    return buffer.getvalue()


def same_error(got: RW1Error | None, want: RW1Error | None) -> None:
    """Two errors alike as any caller sees them: class, str, repr, args, every public attribute, the findings
    and the caret, pickled or not, and how they were raised (a cause, a context)."""
    assert (got is None) == (want is None), (got, want)
    if got is None or want is None:
        return
    assert type(got) is type(want), (got, want)
    assert (str(got), repr(got), got.args, got.caret()) == (str(want), repr(want), want.args, want.caret())
    public = {name for error in (got, want) for name in vars(error) if not name.startswith("_")}
    assert public >= {"message", "why", "token", "column", "line", "text"}
    for name in sorted(public | {"findings"}):
        assert getattr(got, name) == getattr(want, name), (name, getattr(got, name), getattr(want, name))
    assert [type(got.__cause__), type(got.__context__), got.__suppress_context__] == \
        [type(want.__cause__), type(want.__context__), want.__suppress_context__]
    again = pickle.loads(own_pickle(got))
    assert type(again) is type(want) and vars(again) == {**vars(want), "_findings": want.findings, "_diagnose": None}


def refuses_alike(scan: scanner_module.Scanner, line: str, receiver: Receiver) -> bool:
    """The property: a line the scanner declines is refused through its first fault (where the scanner is sure of
    it) with the very error the pure path raises; returns whether the scanner's fault decided it.

    The package's own ``loads_line`` (the compiled accept path where it is built) is held to the same error.
    """
    want = _refusal(python_path.loads_line, line, receiver)
    got = _refusal(scanner_module.loads_with(scan, python_path.loads_line), line, receiver)
    same_error(got, want)
    same_error(_refusal(speedups.loads_line, line, receiver), want)
    fault = scan.scan.fault(line, receiver)
    if fault is None:
        return False
    assert want is not None, line  # the scanner never names a fault in a line the pure path takes
    assert scan.scan.accept(line, receiver, 3) is None
    error = scanner_module.fault_error(scan, line, fault, receiver, 3)
    if error is None:  # Python does not find the refusal the scanner saw: the full pass decides
        return False
    same_error(error, want)
    return True


def _faulty(line: str) -> list[str]:
    """A valid line broken the common ways: spaces, repeated keys, slots and marks the grammar stops at."""
    head, mark, tail = line.partition(" // ")
    first, last = head.find(" ", 8), head.rfind(" ")
    slots = head.split(" ")[3:]
    broken = [line.replace(" to=", "  to=", 1), line + " ", " " + line, line.replace(" ", "  ", 3), head + " //",
              head + " //x", head + " // ", head + " //  x", head + " k=", head + " K=v", head + " k", head + " =v",
              head + " 9=v", head + " k=v\tw", head[:first] + " " + head[first:], head + " //" + (" " + tail if mark else ""),
              line.replace(" from=", " x=1 x=2 from=", 1), line.replace(" to=", " to=b to=", 1),
              head[:last] + " x_a=1" + head[last:] + " x_a=2" + mark + tail, line + " x=\n", line + "\n"]
    broken += [head + f" {slot}" + mark + tail for slot in slots[:3]]  # a key given twice, as written
    broken += [head.replace(" ", "  to=b ", 1) + mark + tail, head + " to=b  //  " + tail]
    if mark:
        broken += [head + " // " + tail + " ", head + " // \u200d" + tail, head + "  // " + tail, head + " //" + tail]
    return broken + _refused(line)


def _refused(line: str) -> list[str]:
    """A valid line refused by the checks (parse_bench's kinds: an unknown code, a missing slot, a bad value, an
    id not ``<from>-<n>``, a profile rule), and with two of those faults, the earlier in D10's order first."""
    broken = [b for breaking in _bench.REFUSED_KINDS.values() if (b := breaking(line)) is not None]
    both = _bench._id_not_from(_bench._missing_slot(line) or line)
    code = _bench._unknown_code(line)
    return broken + [b for b in (both, code and _bench._bad_value(code), code and _bench._missing_slot(code),
                                 code and _bench._id_not_from(code)) if b is not None]


def test_a_refused_line_is_refused_by_its_first_fault_as_the_pure_path_refuses_it(scan) -> None:
    decided = 0
    lines = [*corpus(24), *_bench.corpora(["realistic"], 40, False)["realistic"]]
    for i, line in enumerate(lines):
        for broken in _faulty(line):
            decided += refuses_alike(scan, broken, RECEIVERS[i % len(RECEIVERS)])
    assert decided > len(lines) * 15  # most of those lines the scanner's fault decides


def test_every_conformance_line_is_refused_alike(scan) -> None:
    lines = conformance_lines()
    decided = sum(refuses_alike(scan, line, receiver) for line in lines for receiver in RECEIVERS)
    decided += sum(refuses_alike(scan, broken, BUNDLED) for line in lines[::7] for broken in _faulty(line))
    assert decided > 100


def test_hostile_realistic_lines_are_refused_alike(scan) -> None:
    lines = _bench.corpora(["realistic"], 200, False)["realistic"]
    for i, line in enumerate(lines[:24]):
        for variant in _hostile_variants(line):
            refuses_alike(scan, variant, RECEIVERS[i % 2])


def test_long_and_wide_refused_lines_are_refused_alike(scan) -> None:
    base = "RW1 HO a-1 from=a to=b item=x ask=DRAFT"
    lines = [base + "".join(f" x_{i}=v" for i in range(5999)) + " x_0=w",  # a repeat past the keys remembered
             base + "".join(f" x_{i}=v" for i in range(100)) + " x_7=w", base + " x_big=" + "v" * 65536 + "  to=b",
             base + " // " + "w " * 32768, base + " x_v=" + "\U0001f600" * 40000 + " x_v=1"]
    assert [scan.scan.fault(line) is not None for line in lines] == [False, True, True, True, True]
    for line in lines:
        for receiver in RECEIVERS[:2]:
            refuses_alike(scan, line, receiver)


@READINGS
@FUZZ
@given(mutated_lines(), st.sampled_from(RECEIVERS))
def test_mutated_lines_are_refused_alike(scan, reading, line, receiver) -> None:
    refuses_alike(scan, line if reading == "loads" else line.replace(" ", "  ", 1), receiver)


@FUZZ
@given(messages(), st.sampled_from(RECEIVERS), st.data())
def test_hostile_values_are_refused_alike(scan, message, receiver, data) -> None:
    line = message.to_line()
    pos = data.draw(st.integers(0, len(line)))
    piece = data.draw(st.sampled_from(HOSTILE + INVISIBLE + PIECES))
    refuses_alike(scan, line[:pos] + piece + line[pos:], receiver)


class _Misplaced:
    """The scanner with its faults moved by one column, or a repeat named a syntax fault."""

    def __init__(self, scan: ModuleType, shift: int, kind: int | None = None) -> None:
        self.real, self.shift, self.kind = scan, shift, kind

    def __getattr__(self, name: str):
        return getattr(self.real, name)

    def fault(self, text: str, receiver=None):
        found = self.real.fault(text, receiver)
        if found is None:
            return None
        kind, column, detail, reason = found
        if self.kind is None:
            return kind, column + self.shift, detail, reason
        # the other kind, with a detail of its kind: an expected terminal, or where the slot ends
        detail = self.real.EXPECT_SLOT_OR_MARK if self.kind == self.real.FAULT_SYNTAX else column + 2
        return self.kind, column, detail, None


# The kind _Misplaced names a line's fault, and the line: a repeat named a syntax fault, a syntax fault named a
# repeat, and lines with two refusals by the checks named by the later one (D10's order): a refused value before a
# wrong id, a wrong id before a missing slot. (A fault Python does not find where the scanner says, it leaves to the
# full pass: only a real refusal named out of order could word the wrong error.)
MISNAMED = {0: "RW1 HO a-1 from=a to=b item=x ask=DRAFT to=c", 1: "RW1 HO a-1 from=a to=b item=x ask=DRAFT Ask=PAY",
            3: "RW1 HO b-1 from=a item=x ask=DRAFTQ", 4: "RW1 HO b-1 from=a item=x ask=DRAFT"}


@pytest.mark.parametrize("shift, kind", [(1, None), (-1, None), (0, 0), (0, 1), (0, 3), (0, 4)])
def test_the_property_catches_a_fault_named_wrong(scan, shift, kind) -> None:
    wrong = scanner_module.Scanner.__new__(scanner_module.Scanner)
    wrong.scan, wrong.expected, wrong.refusals = _Misplaced(scan.scan, shift, kind), scan.expected, scan.refusals
    line = MISNAMED[1] if kind is None else MISNAMED[kind]
    with pytest.raises(AssertionError):
        refuses_alike(wrong, line, BUNDLED)
    assert refuses_alike(scan, line, BUNDLED)


@pytest.mark.parametrize("first", ["column", "token", "message", "args", "repr", "pickle", "caret", "findings"])
def test_a_faulted_error_reads_as_the_pure_one_whichever_is_read_first(scan, first) -> None:
    """The syntax error of a fault is worded when first read: whatever is read first, the rest follow as in Python."""
    readers = {"column": lambda e: e.column, "token": lambda e: e.token, "message": lambda e: e.message,
               "args": lambda e: e.args, "repr": repr, "pickle": own_pickle, "caret": lambda e: e.caret(),
               "findings": lambda e: e.findings}
    loads = scanner_module.loads_with(scan, python_path.loads_line)
    for line in ["RW1 HO a-1 from=a  to=b item=x ask=DRAFT", "RW1 HO a-1 from=a to=b item=x ask=DRAFT Ask=PAY",
                 "RW1 HO a-1 from=a to=b item=x ask=DRAFT //x", "RW1 HO a-1 from=a to=b x=1 x=2 item=x ask=DRAFT",
                 *list(MISNAMED.values())[2:], "RW1 HO a-1 from=a item=x ask=DRAFT"]:
        assert scan.scan.fault(line, BUNDLED) is not None
        got = _refusal(loads, line, BUNDLED)
        readers[first](got)
        same_error(got, _refusal(python_path.loads_line, line, BUNDLED))


@pytest.mark.parametrize("line", [
    "RW1 HO a-1 from=a to=b item=x ask=DRAFTQ pri=9",  # an unknown code before a value out of range
    "RW1 AN a-1 re=b-1 from=a to=b val=plain pri=9",  # a slot of another type, its value refused
    "RW1 ST a-1 from=a to=b item=x pct=40 eta=20261301",  # a date in month 13
    "RW1 HO b-1 from=a item=x ask=DRAFT",  # an id not <from>-<n>, before the missing to=
    "RW1 HO a-1 from=a item=x ask=DRAFT // no receiver",  # a missing slot
    "RW1 HO a-1",  # no slots at all: the first required one missing
    "RW1 HO extractor-1 p=pay from=extractor to=payer item=inv:MD-1 ask=PAY sup=m amt=5,00 cur=GBP kind=GROSS",
    # an agent pay does not name is refused before the id: the full pass words it, not the scanner's fault
    "RW1 ST x-1 p=pay from=bob to=payer item=jira:OPS-1 pct=40",
])
def test_a_refusal_by_the_checks_is_named_by_the_scanner_as_the_pure_path_names_it(scan, line) -> None:
    """Issue 33: a refused value, a wrong id and a missing slot are refused through the scanner's first fault, not
    the compiled accept path and the full pass, with the pure path's error."""
    decided = refuses_alike(scan, line, BUNDLED)
    assert decided == ("from=bob" not in line), line


# ---- the string values of a JSON line (scan's frames) -------------------------------------------------------

from rogerwilco.io.scan import frames as frames_module  # noqa: E402

JSON_KEYS = st.text(alphabet=st.sampled_from(list('ab~/RW "\\é\u2028\x01') + ["\U0001f600"]), max_size=4)
JSON_TEXTS = st.one_of(st.text(max_size=6), st.sampled_from(["RW1 HO a-1 from=a", "xRWy", "\\u", "RW", "R", "W"]),
                       st.text(alphabet=st.sampled_from(list('RW\\u"~/ é\ud800\U0001f600')), max_size=8))
JSON_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), JSON_TEXTS)
JSON_VALUES = st.recursive(JSON_LEAVES, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                                  st.dictionaries(JSON_KEYS, inner, max_size=4)),
                           max_leaves=24)
JSON_CONTAINERS = st.one_of(st.lists(JSON_VALUES, max_size=5), st.dictionaries(JSON_KEYS, JSON_VALUES, max_size=5))


def python_strings(line: str, at: int) -> list[tuple[str, str, int]] | None:
    """What scan's frames find without the C scanner (the reference the C walk is held to)."""
    return frames_module._read_strings(line, at, json.loads(line[at:]))


def keys_of(value: object) -> list[str]:
    if isinstance(value, dict):
        return [*value, *(key for member in value.values() for key in keys_of(member))]
    if isinstance(value, list):
        return [key for member in value for key in keys_of(member)]
    return []


@settings(FUZZ, max_examples=EXAMPLES * 10)
@given(JSON_CONTAINERS, st.booleans(), st.sampled_from([(", ", ": "), (",", ":"), (" , ", " : ")]),
       st.sampled_from(["", "2026-10-01T00:00:00Z INFO [a] ", "  "]))
def test_the_string_values_of_a_json_line_are_found_in_c_as_python_finds_them(scan, value, ascii: bool,
                                                                              separators: tuple[str, str],
                                                                              prefix: str) -> None:
    """Pointer, raw body and column of each string value that may hold a message, as Python finds them; not sure
    (None) exactly where a key is written with an escape."""
    line = prefix + json.dumps(value, ensure_ascii=ascii, separators=separators)
    native = scan.scan.strings(line, len(prefix))
    escaped = any(json.dumps(key, ensure_ascii=ascii)[1:-1] != key for key in keys_of(value))
    assert (native is None) == escaped, line
    if native is not None:
        assert native == python_strings(line, len(prefix)), line


@pytest.mark.parametrize("line", [
    '{"a": "RW1 x", "a": "RW2 y"}',  # a repeated key: the parsed object holds it once, the text twice
    '{"a~/b": ["x", {"c": "RW1 HO"}, "\\u0052W1"], "d": "RW"}',
    '[["RW"], "RW", {"k": {"j": ["\\\\u"]}}]',
    '  {"x": [NaN, -Infinity, 1e5, true, null, "RW"]}  ',
    '{"k": "\\"RW", "é": "RW1 é", "\U0001f600": ["RW"]}',
    '[{}, [], {"a": []}, "RW"]',
    "[" * 300 + '"RW", {"k": "RW"}, ' * 40 + '"RW"' + "]" * 300,  # deep: each pointer made from its container's
    '"RW1 ST a-1"',  # no container: the empty pointer
])
def test_a_json_line_the_walk_lines_up_with_or_not_gives_pythons_strings(scan, line: str) -> None:
    assert scan.scan.strings(line, 0) == python_strings(line, 0)


@pytest.mark.parametrize("line, at", [
    ('{"a\\u0041": "RW1"}', 0),  # a key written with an escape: its pointer needs the key decoded
    ('{"a": "RW1', 0),  # a string left open
    ('{"a": 1}}', 0),  # a close with nothing open
    ("[" * 600 + "]" * 600, 0),  # nesting past the walk's bound
    ('{"a": "RW"}', 12),  # past the text's end
    ('{"a": "RW"}', -1),
])
def test_the_c_walk_of_a_json_text_is_not_sure_where_it_cannot_be(scan, line: str, at: int) -> None:
    assert scan.scan.strings(line, at) is None


def test_a_json_lines_frames_are_the_same_with_the_c_walk_and_without(scan, monkeypatch) -> None:
    lines = ['{"ts": "2026-10-01T00:00:00Z", "event": {"msg": "RW1 ST a-1 from=a to=b item=x pct=40"}}',
             '[{"m": "RW1 HO a-1 from=a to=b item=x ask=DRAFT"}, "RW1 AN b-2 re=a-1 from=b to=a item=x val=Y"]',
             '2026-10-01 INFO [w] {"msg": "\\u0052W1 ST w-3 from=w to=v item=x pct=10", "k~/": "RW1"}',
             '{"a": "RW1 x", "a": "RW1 ST a-1 from=a to=b item=x pct=40"}']
    monkeypatch.setattr(frames_module, "_NATIVE_STRINGS", scan.scan.strings)
    native = [frames_module.frames_of(line) for line in lines]
    monkeypatch.setattr(frames_module, "_NATIVE_STRINGS", None)
    assert native == [frames_module.frames_of(line) for line in lines]
    assert all(native)


# ---- a log line's time (scan's ts column) -------------------------------------------------------------------

from rogerwilco.io.scan import timestamps as timestamps_module  # noqa: E402

TIME_TEXTS = st.builds(
    lambda y, mo, d, sep, h, mi, s, frac, zone, tail: f"{y:04d}-{mo:02d}-{d:02d}{sep}{h:02d}:{mi:02d}:{s:02d}{frac}"
                                                       f"{zone}{tail}",
    st.integers(0, 9999), st.integers(0, 13), st.integers(0, 32), st.sampled_from(["T", " ", "t"]),
    st.integers(0, 25), st.integers(0, 61), st.integers(0, 61),
    st.one_of(st.just(""), st.builds(lambda sep, digits: sep + digits, st.sampled_from([".", ","]),
                                     st.text("0123456789\u0663", max_size=11))),
    st.sampled_from(["Z", "z", "", "+00:00", " Z", "UTC", "+02:00", "Zz"]),
    st.sampled_from(["", " INFO [a] x", "1", "\u0663", "Z", ".5", " "]))
# the form the C scanner reads: anything else is Python's
_UTC_FORM = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]{1,9})?[Zz](?![0-9])")


def python_time(text: str, whole: bool) -> tuple[object, bool]:
    """The time scan's Python reads: a prefix's (prefix_time) or a JSON field's whole text (parse_time_text)."""
    if whole:
        return timestamps_module.parse_time_text(text)
    return timestamps_module.prefix_time(text)


@settings(FUZZ, max_examples=EXAMPLES * 10)
@given(st.one_of(TIME_TEXTS, st.text(max_size=40)), st.integers(0, 45), st.booleans())
def test_a_time_in_utc_is_read_in_c_as_python_reads_it(scan, monkeypatch, text: str, cut: int, whole: bool) -> None:
    """The same datetime (instant, fields and zone) wherever C is sure; sure of every time in the form it reads."""
    monkeypatch.setattr(timestamps_module, "_NATIVE_TIME", None)  # the reading of Python alone
    text = text[:cut] if cut < len(text) else text
    native = scan.scan.utc_time(text, len(text), whole)
    python, bad = python_time(text, whole)
    if native is not None:
        assert not bad and python is not None, text
        assert (native.isoformat(), native.tzinfo) == (python.isoformat(), python.tzinfo), text
    form = _UTC_FORM.fullmatch(text) if whole else _UTC_FORM.match(text)
    if form is not None and python is not None and text[17:19] != "60":
        assert native is not None, text


def test_a_line_time_in_the_commonest_form_is_cs_and_any_other_pythons(scan, monkeypatch) -> None:
    lines = ["2026-10-01T00:00:17.017Z INFO [builder] RW1 ST b-1", "2026-10-01 00:00:17,5z RW1 ST b-1",
             "2026-10-01T00:00:17.123456789Z RW1", "2026-10-01T00:00:60Z RW1", "2026-02-30T00:00:00Z RW1",
             "2026-10-01T02:00:17+02:00 RW1", "Oct  1 00:00:17 host RW1", "[01/Oct/2026:00:00:17 +0000] RW1"]
    clock = timestamps_module.Clock()
    monkeypatch.setattr(timestamps_module, "_NATIVE_TIME", scan.scan.utc_time)
    native = [clock.line_time(line, line.index("RW1")) for line in lines]
    monkeypatch.setattr(timestamps_module, "_NATIVE_TIME", None)
    python = [clock.line_time(line, line.index("RW1")) for line in lines]
    assert native == python and [ts is None for ts in native] == [False] * 3 + [False, True, False, True, False]


@FUZZ
@given(st.lists(messages().map(lambda m: m.to_line()) | mutated_lines() | st.sampled_from(HOSTILE), max_size=8),
       st.sampled_from(RECEIVERS))
def test_the_batch_iterator_in_c_gives_what_the_python_batch_path_gives(scan, lines, receiver) -> None:
    # scan.forms reads every line in C and hands a line it is not sure of to the Python path, numbered from 1
    json_forms = scanner_module.forms_with(scan, python_path.json_form, python_path.form_or_result)
    got = list(json_forms(lines, receiver))
    want = list(python_path.json_forms(lines, receiver))
    assert got == want
    for mine, theirs in zip(got, want):
        if isinstance(mine, dict):  # value types too (a list, not a tuple; an int, not a str)
            assert [(k, type(v)) for k, v in mine["slots"].items()] == [
                (k, type(v)) for k, v in theirs["slots"].items()]


def test_the_batch_iterator_in_c_numbers_lines_and_passes_errors_on(scan) -> None:
    json_forms = scanner_module.forms_with(scan, python_path.json_form, python_path.form_or_result)
    lines = ["RW1 HO a-1 from=a to=b item=x ask=DRAFT", "RW1 HO a-2 from=a to=b", "not a line",
             "RW1 HO a-3 from=a to=b item=x ask=DRAFT // done"]
    got = list(json_forms(lines, Receiver()))
    assert [type(item).__name__ for item in got] == ["dict", "LineResult", "LineResult", "dict"]
    assert [got[1].line_number, got[2].line_number] == [2, 3]  # the line numbers of the refused lines
    assert got[3]["id"] == "a-3" and got[3]["tail"] == "done"

    def broken():
        yield lines[0]
        raise OSError("the disk went away")

    forms = json_forms(broken(), Receiver())
    assert next(forms)["id"] == "a-1"
    with pytest.raises(OSError, match="the disk went away"):
        next(forms)
    assert list(forms) == []  # done for good after an error, as a generator that raised
    with pytest.raises(TypeError, match="str object expected; got bytes"):
        list(json_forms([b"RW1 HO a-1 from=a to=b item=x ask=DRAFT"], Receiver()))
    # an iterator that holds itself is collected (the iterator takes part in the cyclic collector)
    import gc
    import weakref

    class Lines(list):
        pass

    held = Lines(lines)
    forms = json_forms(held, Receiver())
    held.append(forms)
    ref = weakref.ref(held)
    del held, forms
    gc.collect()
    assert ref() is None
