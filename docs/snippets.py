"""Docs that cannot drift: find, run and regenerate the snippets of the docs.

Every fenced block of README.md, docs/*.md and the examples' READMEs (but the
ports', whose commands need their own toolchains and are run by their own
tests) is one of:

* ```` ```sh ````: shell commands a user runs; the tests run each block with
  bash in a scratch directory that sees the repository's ``examples/``,
  ``profiles/``, ``docs/`` and ``benchmarks/``; no command may fail to find a
  file or end in a traceback or "internal error";
* ```` ```console ````: ``$ command`` lines, each followed by its output as it
  is printed (80 columns, no colour); the tests run each command and compare
  the output exactly; ``python docs/snippets.py --write`` regenerates them;
* ```` ```python ````: code the tests run as it is, in the same directory; a
  value shown in a comment (``expr  # 'value'``, or ``# 'value'`` on the next
  line) that is a Python literal is asserted (``checked_python``);
* ```` ```text ````, ```` ```json ```` and the like: synopses
  (``rogerwilco check-rb --ho LINE ...``), transcripts, data, and the set-up
  commands that make a virtual environment and install (``.ci/run`` runs
  those, on a fresh clone); never run by the tests, on purpose;
* untagged blocks: never run, so a line in one that looks like a runnable
  command (``rogerwilco`` with no placeholder in capitals) is refused: tag
  the block ``sh`` or ``console`` to run it, or ``text`` to say it is not to.

Counts, limits and measured figures quoted in prose follow the rules of
``docs/figures.py`` (checked by ``tests/test_docs_figures.py``).

Run ``python docs/snippets.py`` to check, ``--write`` to regenerate the
outputs of every console block and every live figure in place.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
LINKED = ("examples", "profiles", "docs", "benchmarks", "conformance", "grammar")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


class Block(NamedTuple):
    path: Path
    line: int  # 1-based line of the opening fence
    lang: str
    body: str

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def doc_files() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    # the ports' READMEs speak of their own toolchains (node, npm); their own tests run them
    files += sorted(p for p in (ROOT / "examples").rglob("README.md")
                    if "node_modules" not in p.parts and "ports" not in p.relative_to(ROOT / "examples").parts)
    return files


def blocks(files: list[Path] | None = None) -> Iterator[Block]:
    for path in files or doc_files():
        text = path.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            yield Block(path, text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2))


def scratch(where: Path | None = None) -> Path:
    """A directory where snippets run: the repository's data folders linked in, nothing else."""
    where = Path(tempfile.mkdtemp(prefix="rw-docs-")) if where is None else where
    where.mkdir(parents=True, exist_ok=True)
    for name in LINKED:
        os.symlink(ROOT / name, where / name)
    return where


def environment() -> dict[str, str]:
    bindir = str(Path(sys.executable).parent)
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS")}
    env.update(PATH=bindir + os.pathsep + env.get("PATH", ""), COLUMNS="80", NO_COLOR="1", PYTHONIOENCODING="utf-8",
               PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""))
    return env


def run_shell(script: str, cwd: Path, timeout: float | None = None) -> subprocess.CompletedProcess:
    """``script`` run by bash in ``cwd``; ``timeout`` only when a caller bounds it (the tests bound it by CI's own limit)."""
    bash = shutil.which("bash") or "/bin/bash"
    return subprocess.run([bash, "-c", script], cwd=cwd, env=environment(), capture_output=True, text=True,
                          timeout=timeout)


def console_pairs(body: str) -> list[tuple[str, str]]:
    """``$ command`` and the output that follows it, for each command of a console block."""
    pairs: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            pairs.append((line[2:], []))
        elif pairs:
            pairs[-1][1].append(line)
    return [(cmd, "\n".join(out)) for cmd, out in pairs]


def console_output(command: str, cwd: Path) -> str:
    proc = run_shell(command + " 2>&1", cwd)
    return "\n".join(line.rstrip() for line in proc.stdout.rstrip("\n").splitlines())


def checked_python(body: str) -> str:
    """A python block with each value it shows in a comment turned into an assertion.

    ``expr  # 'value'`` and ``expr`` followed by a line ``# 'value'`` claim what
    the expression gives; when the comment is a Python literal (a string, a
    number, a tuple, a list...), the block the tests run asserts it.
    """
    import ast

    lines = body.splitlines()
    out: list[str] = []

    def literal(text: str) -> object:
        if "..." in text or "…" in text:  # an elided value claims only part of it
            return _NOT
        try:
            return ast.literal_eval(text.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return _NOT

    def expression(code: str) -> bool:
        try:
            tree = ast.parse(code.strip())
        except SyntaxError:
            return False
        return len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr) and not code.startswith((" ", "\t"))

    for i, line in enumerate(lines):
        code, _, comment = line.partition("  # ")
        below = lines[i + 1] if i + 1 < len(lines) else ""
        if comment and expression(code) and literal(comment) is not _NOT:
            out.append(f"assert ({code.strip()}) == ({comment.strip()}), {line.strip()!r}")
        elif not comment and below.startswith("# ") and expression(line) and literal(below[2:]) is not _NOT:
            out.append(f"assert ({line.strip()}) == ({below[2:].strip()}), {line.strip()!r}")
        else:
            out.append(line)
    return "\n".join(out) + "\n"


_NOT = object()


COMMAND = re.compile(r"^(?:\$ )?rogerwilco\s")
PLACEHOLDER = re.compile(r"\b[A-Z][A-Z_]{2,}\b|\[--|\|\s*$")


def stray_commands(block: Block) -> list[str]:
    """Lines of a block that is never run which look like a command a user would copy and run."""
    if block.lang:
        return []
    return [line for line in block.body.splitlines()
            if COMMAND.match(line) and not PLACEHOLDER.search(line.split("#", 1)[0])]


def regenerate() -> int:
    changed = 0
    for path in doc_files():
        text = path.read_text(encoding="utf-8")
        cwd = scratch()

        def fill(m: re.Match) -> str:
            if m.group(1) != "console":
                return m.group(0)
            out = []
            for command, _ in console_pairs(m.group(2)):
                out.append(f"$ {command}")
                out.append(console_output(command, cwd))
            return "```console\n" + "\n".join(out) + "\n```"

        new = FENCE.sub(fill, text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed += 1
            print(f"rewrote {path.relative_to(ROOT)}")
    return changed


def rewrite_figures() -> int:
    """The live figures of docs/figures.py, rewritten to today's values."""
    spec = importlib.util.spec_from_file_location("doc_figures", ROOT / "docs" / "figures.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["doc_figures"] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module.rewrite()


if __name__ == "__main__":
    if "--write" in sys.argv[1:]:
        regenerate()
        rewrite_figures()
    else:
        sys.exit(subprocess.call([sys.executable, "-m", "pytest", "-q", str(ROOT / "tests" / "test_docs.py"),
                                  str(ROOT / "tests" / "test_docs_figures.py")]))
