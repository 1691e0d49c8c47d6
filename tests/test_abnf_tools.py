"""The ABNF works in mainstream tools, and means what the grammar means.

Parsers are built from the ABNF that ``rogerwilco grammar --abnf`` prints
(and ``grammar/rw1.abnf`` ships) by two independent ABNF tools:

* the Python ``abnf`` package (its own RFC 5234 reader; the ``interop``
  extra);
* apg-js, from npm (``tests/js``, installed by ``npm ci``): a parser
  generator whose alternations take the first match and whose repetitions
  are greedy, so any rule whose meaning depended on backtracking (an
  ``agent "-" 1*digit`` message id) would fail there.

Each must accept exactly the lines the Lark grammar accepts, across every
line of the conformance suite and a few thousand generated lines, valid and
broken. The ABNF's lines end in CRLF, as RFC 5234 asks.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from abnf.parser import ParseError, Rule

from rogerwilco.core.abnf import render
from rogerwilco.front.testing import RequestGenerator
from tests.jstools import run_node
from tests.test_abnf import conformance_lines, lark_accepts

ROOT = Path(__file__).resolve().parents[1]


@lru_cache(maxsize=1)
def inputs() -> tuple[str, ...]:
    """Every line of the suite, and generated lines: valid ones and mutations with one to three faults."""
    generator = RequestGenerator(seed=13)
    generated = []
    for _ in range(1500):
        line, profile = generator.valid_line()
        generated.append(line)
        generated.append(generator.mutate(line, profile, generator.rng.choice((1, 1, 2, 3))))
    return tuple(sorted(set(conformance_lines()) | set(generated)))


@lru_cache(maxsize=1)
def grammar_truth() -> tuple[bool, ...]:
    return tuple(lark_accepts(line) for line in inputs())


def test_the_abnf_ends_its_lines_in_crlf_and_ships_as_a_file():
    text = render()
    assert text.endswith("\r\n")
    assert "\n" not in text.replace("\r\n", "")
    shipped = ROOT / "grammar" / "rw1.abnf"
    assert shipped.read_bytes().decode("utf-8") == text, "run: rogerwilco grammar --abnf > grammar/rw1.abnf"


def test_the_inputs_hold_both_kinds_of_line():
    truth = grammar_truth()
    assert len(truth) > 2000
    assert sum(truth) > 500 and len(truth) - sum(truth) > 500


def test_the_python_abnf_package_accepts_exactly_the_grammars_lines():
    class RW1(Rule):
        pass

    RW1.load_grammar(render(), strict=True)
    line = RW1("line")

    def accepts(text: str) -> bool:
        try:
            line.parse_all(text)
            return True
        except ParseError:
            return False

    disagreements = [text for text, want in zip(inputs(), grammar_truth()) if accepts(text) != want]
    assert disagreements == []


def test_a_parser_apg_js_builds_from_the_abnf_accepts_exactly_the_grammars_lines(tmp_path):
    grammar = tmp_path / "rw1.abnf"
    grammar.write_bytes(render().encode("utf-8"))
    lines = tmp_path / "lines.json"
    lines.write_text(json.dumps(list(inputs()), ensure_ascii=True), encoding="utf-8")
    accepted = run_node("abnf_accepts.js", str(grammar), str(lines))
    assert len(accepted) == len(inputs())
    disagreements = [text for text, got, want in zip(inputs(), accepted, grammar_truth()) if got != want]
    assert disagreements == []


def test_apg_js_would_catch_a_message_id_that_needs_backtracking(tmp_path):
    """The guard works: the old form of msgid, "agent hyphen digits", reads no line in apg-js."""
    old = render().replace(
        next(line for line in render().split("\r\n") if line.startswith("msgid = ")),
        "msgid = agent \"-\" 1*rw-digit")
    assert "msgid = agent \"-\" 1*rw-digit" in old
    grammar = tmp_path / "old.abnf"
    grammar.write_bytes(old.encode("utf-8"))
    lines = tmp_path / "lines.json"
    sample = ["RW1 HO a-1 from=a to=b item=x ask=DRAFT", "RW1 AN a-b-2 re=c-1 from=a-b to=c val=Y"]
    lines.write_text(json.dumps(sample), encoding="utf-8")
    assert run_node("abnf_accepts.js", str(grammar), str(lines)) == [False, False]
    assert all(lark_accepts(line) for line in sample)
