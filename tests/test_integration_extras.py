"""An integration imported without its extra names the line that installs it.

Each import runs in a fresh interpreter in which a finder on ``sys.meta_path``
hides one package the extra brings, as if it were not installed; everything
else (the package itself, the other extras) is there as usual.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

HIDE = """
import importlib.abc, sys

class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == {hidden!r} or name.startswith({hidden!r} + "."):
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, NotInstalled())
try:
    import {module}
except ImportError as exc:
    print(type(exc).__name__, exc.name)
    print(exc)
else:
    print("imported")
"""

# (the module as the docs give it, a package its extra installs, the extra)
CASES = [
    ("rogerwilco.integrations.openai_agents", "agents", "openai-agents"),
    ("rogerwilco.integrations.pydantic_ai", "pydantic_ai", "pydantic-ai"),
    ("rogerwilco.integrations.langgraph", "langgraph", "langgraph"),
    ("rogerwilco.integrations.langgraph", "langchain_core", "langgraph"),
    ("rogerwilco.front.integrations.langgraph", "langgraph", "langgraph"),
]


@pytest.mark.parametrize("module, hidden, extra", CASES, ids=[f"{m.split('.')[-1]}-{h}" for m, h, _ in CASES])
def test_a_missing_extra_names_its_pip_install_line(module, hidden, extra):
    proc = subprocess.run([sys.executable, "-c", HIDE.format(module=module, hidden=hidden)], capture_output=True,
                          text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    kind, message = proc.stdout.split("\n", 1)
    assert kind.split()[0] in ("ImportError", "ModuleNotFoundError") and kind.split()[1] == hidden
    assert f"pip install 'rogerwilco[{extra}]'" in message
    assert module.split(".")[-1] in message and hidden in message


def test_with_every_extra_there_each_integration_imports():
    for module in sorted({m for m, _, _ in CASES}):
        proc = subprocess.run([sys.executable, "-c", HIDE.format(module=module, hidden="no_such_package")],
                              capture_output=True, text=True, cwd=ROOT)
        assert proc.stdout == "imported\n", proc.stderr
