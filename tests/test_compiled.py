"""The compiled accept path decides every line as the pure one does.

``rogerwilco.core._accept_c`` is ``accept.py`` compiled by mypyc
(hatch_build.py). Over every line of the conformance cases and of the
tests' own sources, the benchmark corpus, and generated, mutated and hostile
lines (control characters, non-ASCII digits, surrogates, 64 KiB lines), the
two modules give the same verdict and equal values, messages and JSON forms,
and ``loads`` raises the same error with the same words.

The compiled twin is the one the package imports when it is built (an
installed wheel, or ``python hatch_build.py --inplace`` in a clone); when it
is not, this module builds it into a temporary folder (mypyc and a C
compiler: the ``typecheck`` extra and the machine's). With
``RW1_EXPECT_COMPILED=1`` (CI sets it) a missing twin is a failure, and the
package must use it unless ``RW1_PURE`` is set.
"""

from __future__ import annotations

import ast
import importlib
import os
import sys
from pathlib import Path
from types import ModuleType

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rogerwilco
from rogerwilco import speedups
from rogerwilco.core import accept as pure
from rogerwilco.core.errors import RW1Error
from rogerwilco.core.vocab import Receiver

from .strategies import PIECES, messages, mutated_lines
from .test_accept import HOSTILE, conformance_lines, corpus

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = int(os.environ.get("ROGERWILCO_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES * 2, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
                                       HealthCheck.function_scoped_fixture])
RECEIVERS = (Receiver.all_bundled(), Receiver(), Receiver.load(["pay"]))
EXPECTED = os.environ.get("RW1_EXPECT_COMPILED", "") not in ("", "0")
FORCED_PURE = os.environ.get("RW1_PURE", "") not in ("", "0")


def _build_twin(tmp: Path) -> ModuleType:
    """Build the compiled twin of this clone's accept.py into tmp and import it from there."""
    sys.path.insert(0, str(ROOT))
    try:
        import hatch_build
    finally:
        sys.path.remove(str(ROOT))
    hatch_build.build_extensions(ROOT, tmp)
    import rogerwilco.core as core

    where = str(tmp / "rogerwilco" / "core")
    core.__path__.append(where)
    try:
        return importlib.import_module(speedups.COMPILED_MODULE)
    finally:
        core.__path__.remove(where)


@pytest.fixture(scope="module")
def twin(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    if speedups.compiled:
        return speedups.implementation
    try:
        module = importlib.import_module(speedups.COMPILED_MODULE)
    except ImportError:
        if EXPECTED:
            pytest.fail("RW1_EXPECT_COMPILED is set but rogerwilco.core._accept_c is not built "
                        f"({speedups.reason}): run python hatch_build.py --inplace")
        module = _build_twin(tmp_path_factory.mktemp("twin"))
    if getattr(module, "BUILT_FROM", None) != speedups.source_stamp((ROOT / "rogerwilco/core/accept.py").read_text("utf-8")):
        if EXPECTED:
            pytest.fail("the compiled twin was built from another accept.py: run python hatch_build.py --inplace")
        module = _build_twin(tmp_path_factory.mktemp("fresh"))
    return module


def test_the_twin_is_compiled_code(twin: ModuleType) -> None:
    assert twin is not pure
    assert Path(twin.__file__ or "").suffix in (".so", ".pyd")
    assert not hasattr(twin.accept_values, "__code__")  # a native function, not bytecode


def test_the_package_uses_the_path_the_environment_asks_for() -> None:
    if FORCED_PURE:
        assert (speedups.compiled, speedups.active) == (False, "pure")
        assert speedups.reason == "RW1_PURE is set"
        assert speedups.loads_line is pure.loads_line
    elif EXPECTED:
        assert (speedups.compiled, speedups.active, speedups.reason) == (True, "compiled", "")
        assert rogerwilco.speedups is speedups
        # CI builds the C scanner too: loads_line reads a line with it first, then through the compiled accept
        assert (speedups.scanning, speedups.scan_reason) == (True, "")
        assert speedups.loads_line is not pure.loads_line
        assert speedups.loads_line is not speedups.implementation.loads_line
    else:
        assert speedups.active == ("compiled" if speedups.compiled else "pure")
        assert (speedups.reason == "") == speedups.compiled


def _outcome(module: ModuleType, line: str, receiver: Receiver) -> object:
    try:
        return module.loads_line(line, receiver, 7)
    except RW1Error as exc:
        return (type(exc), str(exc), exc.to_json() if hasattr(exc, "to_json") else None)


def same(twin: ModuleType, line: str, receiver: Receiver) -> bool:
    """The property: both modules give the same verdict and equal results. Returns whether the line was accepted."""
    want = pure.accept_values(line, receiver)
    got = twin.accept_values(line, receiver)
    assert got == want, line
    if want is not None:
        assert [type(v) for v in got[1].values()] == [type(v) for v in want[1].values()]
    message, expected = twin.accept(line, receiver, 3, "f.rw1"), pure.accept(line, receiver, 3, "f.rw1")
    assert message == expected
    if expected is not None:
        assert type(message) is rogerwilco.Message
        assert attrs.asdict(message, recurse=False) == attrs.asdict(expected, recurse=False)
        assert list(message.slots.items()) == list(expected.slots.items())
        assert hash(message) == hash(expected)
    assert twin.json_form(line, receiver) == pure.json_form(line, receiver)
    assert _outcome(twin, line, receiver) == _outcome(pure, line, receiver)
    return want is not None


def lines_of_the_tests() -> list[str]:
    """Every string literal starting ``RW1`` in the tests' sources."""
    found: list[str] = []
    for path in sorted((ROOT / "tests").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("RW1"):
                found.extend(node.value.splitlines() or [node.value])
    assert len(found) > 200
    return found


def test_every_conformance_and_test_line_agrees(twin: ModuleType) -> None:
    lines = conformance_lines() + lines_of_the_tests() + corpus(300)
    accepted = sum(same(twin, line, receiver) for line in lines for receiver in RECEIVERS)
    assert accepted > 300  # the compiled path is exercised, not only refused to


@FUZZ
@given(messages(), st.sampled_from(RECEIVERS))
def test_generated_lines_agree(twin: ModuleType, message, receiver) -> None:
    same(twin, message.to_line(), receiver)


@FUZZ
@given(mutated_lines(), st.sampled_from(RECEIVERS))
def test_mutated_lines_agree(twin: ModuleType, line, receiver) -> None:
    same(twin, line, receiver)


@FUZZ
@given(messages(), st.sampled_from(RECEIVERS), st.data())
def test_hostile_lines_agree(twin: ModuleType, message, receiver, data) -> None:
    line = message.to_line()
    pos = data.draw(st.integers(0, len(line)))
    piece = data.draw(st.sampled_from(HOSTILE + PIECES + ["\x7f", "\u0660", "\udcff", "\ufeff", "\U0010ffff"]))
    same(twin, line[:pos] + piece + line[pos:], receiver)


@FUZZ
@given(st.text(min_size=0, max_size=40), st.sampled_from(RECEIVERS))
def test_arbitrary_text_after_a_valid_head_agrees(twin: ModuleType, text, receiver) -> None:
    same(twin, "RW1 ST a-1 from=a to=b item=x " + text, receiver)


def test_long_lines_agree(twin: ModuleType) -> None:
    base = "RW1 HO a-1 from=a to=b item=x ask=DRAFT"
    lines = [base + " x_big=" + "v" * 65536, base + " // " + ("w " * 32768).rstrip(), base + " // " + "w" * 65536,
             base + "".join(f" x_{i}=v" for i in range(6000)), base + " // " + "w" * 300, base + " // " + "w" * 301]
    assert sum(same(twin, line, receiver) for line in lines for receiver in RECEIVERS) >= 6


def test_the_batch_path_agrees(twin: ModuleType) -> None:
    lines = corpus(200) + conformance_lines()[:200]
    for receiver in RECEIVERS:
        got = list(twin.json_forms(lines, receiver))
        want = list(pure.json_forms(lines, receiver))
        assert [g if isinstance(g, dict) else (g.valid, g.findings) for g in got] == \
               [w if isinstance(w, dict) else (w.valid, w.findings) for w in want]
