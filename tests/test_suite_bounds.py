"""The suite waits on nothing for a fixed time shorter than CI's own limit (tests/bounds.py).

A busy machine makes a child process, a snippet or a queue slow, never wrong: a
wall-clock bound below CI's limit turns that slowness into a failure. The one
timeout a test may give as a number is the one it tests (``ToolStore.commit``'s
``timeout``, the executor's deadline).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.bounds import CI_LIMIT

TESTS = Path(__file__).resolve().parent
SNIPPETS = TESTS.parent / "docs" / "snippets.py"
UNDER_TEST = {"commit"}  # calls whose timeout is the behaviour a test checks


def _is_bound(name: str | None) -> bool:
    # a wait's limit; SQLite's ``busy_timeout=0`` (fail at once on a lock) is a behaviour tests check
    return name is not None and (name == "timeout" or name.endswith("timeout_seconds"))


def _called(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _short(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) and isinstance(value.value, (int, float)) and value.value < CI_LIMIT


def short_bounds(source: str) -> list[int]:
    """The lines of ``source`` giving a timeout as a number below CI's limit, as an argument or a default."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and _called(node) not in UNDER_TEST:
            lines += [node.lineno for kw in node.keywords if _is_bound(kw.arg) and _short(kw.value)]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args.args + node.args.kwonlyargs
            defaults = [None] * (len(node.args.args) - len(node.args.defaults)) + node.args.defaults
            defaults += node.args.kw_defaults
            lines += [node.lineno for arg, default in zip(args, defaults)
                      if default is not None and _is_bound(arg.arg) and _short(default)]
    return lines


def test_a_numeric_timeout_below_ci_limit_is_found():
    assert short_bounds("subprocess.run(['x'], timeout=120)\n") == [1]
    assert short_bounds("def run(x, timeout: float = 60):\n    pass\n") == [1]
    assert short_bounds("subprocess.run(['x'], timeout=HANG)\nstore.commit(t, e, timeout=0.2)\n") == []


def test_no_test_waits_a_fixed_time_shorter_than_ci():
    found = {f"{path.name}:{line}" for path in [*sorted(TESTS.rglob("*.py")), SNIPPETS]
             if "node_modules" not in path.parts for line in short_bounds(path.read_text(encoding="utf-8"))}
    assert not found, sorted(found)

