"""Lark is reached through rogerwilco.core._lark alone, within the major version tested."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import lark

from rogerwilco.core import _lark
from rogerwilco.core.syntax import grammar_text

ROOT = Path(__file__).resolve().parent.parent
WRAPPER = ROOT / "rogerwilco" / "core" / "_lark.py"


def _imports_lark(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name == "lark" or a.name.startswith("lark.") for a in node.names):
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and (
                node.module == "lark" or node.module.startswith("lark.")):
            lines.append(node.lineno)
    return lines


def test_no_module_but_the_wrapper_imports_lark():
    offenders = []
    for folder in ("rogerwilco", "tests", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path == WRAPPER or path == Path(__file__).resolve() or "node_modules" in path.parts:
                continue  # (node_modules: what npm installs for the editor tests, not this package's code)
            offenders += [f"{path.relative_to(ROOT)}:{n}" for n in _imports_lark(path)]
    assert offenders == []


def test_the_wrapper_is_found_by_the_scan():
    # The scan above is live: it sees the wrapper's own imports.
    assert len(_imports_lark(WRAPPER)) == 3


def test_the_lark_requirement_is_bounded_to_the_tested_major():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    found = re.search(r'"lark>=([0-9.]+),<([0-9]+)"', text)
    assert found, "pyproject.toml: lark needs a lower and an upper bound"
    assert int(found.group(2)) == _lark.TESTED_MAJOR + 1
    assert int(lark.__version__.split(".")[0]) == _lark.TESTED_MAJOR


def test_the_grammar_file_tree_lists_the_rules_and_terminals_as_written():
    tree = _lark.grammar_file_tree(grammar_text())
    terms = {str(item.children[0]) for item in tree.children if item.data == "term"}
    rules = {str(child) for item in tree.children if item.data == "rule"
             for child in item.children if isinstance(child, _lark.Token) and child.type == "RULE"}
    assert {"VERSION", "TYPE", "MSGID", "SLOT", "TAIL"} <= terms
    assert "start" in rules


def test_a_rule_tree_is_the_ebnf_of_that_rule():
    tree = _lark.rule_tree(grammar_text(), "start")
    assert tree.data == "expansions"
    used = {str(v) for v in tree.scan_values(lambda v: isinstance(v, _lark.Token) or hasattr(v, "name"))}
    assert any("VERSION" in u for u in used)


def test_the_parser_reads_a_line_and_raises_lark_errors_the_wrapper_names():
    parser = _lark.lalr_parser(grammar_text())
    assert parser.parse("RW1 HO a-1 from=a to=b // hi") is not None
    try:
        parser.parse("RW1 HO a-1 from=a  to=b")
    except _lark.UnexpectedInput as exc:
        assert isinstance(exc, (_lark.UnexpectedCharacters, _lark.UnexpectedToken, _lark.UnexpectedEOF))
    else:
        raise AssertionError("two spaces in a row parsed")
