"""Docs that cannot drift: every command and snippet of the docs runs against shipped files.

See ``docs/snippets.py`` for the rules a block follows; ``python
docs/snippets.py --write`` regenerates the outputs quoted in console blocks.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("doc_snippets", ROOT / "docs" / "snippets.py")
snippets = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(snippets)  # type: ignore[union-attr]

BLOCKS = list(snippets.blocks())
RUN = [b for b in BLOCKS if b.lang in ("sh", "console", "python")]
BAD = ("internal error", "Traceback", "No such file", "cannot read", "not found")


@pytest.fixture(scope="module")
def where(tmp_path_factory):
    return snippets.scratch(tmp_path_factory.mktemp("docs"))


def test_there_are_runnable_snippets_in_every_doc_that_names_a_command():
    assert len([b for b in RUN if b.lang == "console"]) >= 3
    assert len([b for b in RUN if b.lang == "sh"]) >= 5
    assert len([b for b in RUN if b.lang == "python"]) >= 5


@pytest.mark.parametrize("block", [b for b in BLOCKS], ids=[b.where for b in BLOCKS])
def test_commands_are_in_blocks_that_run(block):
    assert snippets.stray_commands(block) == [], f"{block.where}: tag the block sh or console, or write a synopsis"


PATH = re.compile(r"(?<![\w/.-])((?:examples|profiles|docs|benchmarks|conformance|grammar)/[\w./*-]*[\w*])")


def test_every_repository_path_the_docs_name_ships():
    missing = set()
    for path in snippets.doc_files():
        for name in PATH.findall(path.read_text(encoding="utf-8")):
            if not list(ROOT.glob(name)):
                missing.add(f"{path.relative_to(ROOT)}: {name}")
    assert not missing, sorted(missing)


@pytest.mark.parametrize("block", [b for b in RUN if b.lang == "sh"], ids=[b.where for b in RUN if b.lang == "sh"])
def test_shell_snippets_run(block, where):
    proc = snippets.run_shell(block.body, where)
    out = proc.stdout + proc.stderr
    assert not any(bad in out for bad in BAD), f"{block.where}:\n{out[-3000:]}"


CONSOLE = [(b, cmd, out) for b in RUN if b.lang == "console" for cmd, out in snippets.console_pairs(b.body)]


@pytest.mark.parametrize("block,command,expected", CONSOLE, ids=[f"{b.where} {c[:40]}" for b, c, _ in CONSOLE])
def test_console_outputs_are_what_the_command_prints(block, command, expected, where):
    assert snippets.console_output(command, where) == expected, (
        f"{block.where}: the output quoted for `{command}` is stale; run python docs/snippets.py --write")


@pytest.mark.parametrize("block", [b for b in RUN if b.lang == "python"], ids=[b.where for b in RUN if b.lang == "python"])
def test_python_snippets_run(block, tmp_path):
    script = tmp_path / "snippet.py"
    script.write_text(block.body, encoding="utf-8")
    proc = snippets.run_shell(f"python {script}", snippets.scratch(tmp_path / "cwd"))  # a directory of its own: snippets write files
    assert proc.returncode == 0, f"{block.where}:\n{proc.stderr[-3000:]}"
