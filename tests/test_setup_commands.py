"""The README's two set-up commands, proven here rather than only by ``.ci/run``.

* The test command ("install everything and pass the tests") is the one CI
  runs: the same virtual environment step, the same install (``-e '.[dev]'``)
  and ``python -m pytest`` with no flag that would select or skip tests.
  ``.ci/run`` runs it for real, on every supported Python.
* The first command ("install and validate the spec's example stream") runs
  here, word for word but for where the packages come from: a fresh virtual
  environment (no system site-packages), ``pip install -e .`` of this clone,
  and the ``rogerwilco`` script it installs, run from the clone's root. A test
  must not download, so the dependencies pip would fetch from PyPI are the
  same distributions already installed for the tests, and only they: the
  closure of ``[project].dependencies`` (markers evaluated) is linked into a
  directory the fresh environment sees through a ``.pth`` file, and during the
  install, without build isolation, the closure of ``[build-system].requires``
  too, removed once the install is done. ``pip check`` then proves the
  package's declared dependencies are met by exactly that closure, and the
  fresh interpreter cannot import anything else the test environment holds
  (``pytest``, ``hypothesis``), so an undeclared import fails here. The pip
  that installs is the test environment's own, run against the fresh
  interpreter (``pip --python``), which saves the four seconds ``ensurepip``
  takes; the install itself, the build backend and the script are the real
  ones.
"""

from __future__ import annotations

import importlib.metadata as md
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from tests.bounds import HANG

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
CI = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def setup_commands() -> list[list[list[str]]]:
    """The README's set-up commands, each as its steps (split on ``&&``), each step as words."""
    section = README.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```\w*\n(.*?)^```", section, re.S | re.M)
    assert len(blocks) == 2, "the set-up section holds two commands"
    return [[shlex.split(step) for step in block.strip().split("&&")] for block in blocks]


def ci_steps() -> dict[str, list[list[str]]]:
    """What ``.ci/run`` does in its fresh environment: make it, install, run the tests (and any other step)."""
    steps: dict[str, list[list[str]]] = {}
    for line in CI.splitlines():
        words = shlex.split(line.strip(), comments=True)
        if "-m" not in words:
            continue
        module = words[words.index("-m") + 1]
        rest = words[words.index("-m") + 2:]
        if module == "pip" and rest[:1] == ["install"] and "--upgrade" not in rest:
            steps.setdefault("install", []).append([w for w in rest[1:] if w not in ("--quiet", "-q")])
        elif module == "pytest":
            steps.setdefault("pytest", []).append(rest[:rest.index("2>&1")] if "2>&1" in rest else rest)
        elif module != "pip":
            steps.setdefault(module, []).append(rest)
    return steps


# --------------------------------------------------------------------------
# the test command is CI's


def test_the_readme_test_command_is_the_one_ci_runs():
    _, tests = setup_commands()
    system, venv, install, run = tests
    # the system programs the browser and store tests drive, installed by the script CI runs too
    assert system == [".ci/system-packages"] and "\n.ci/system-packages\n" in CI
    assert (ROOT / ".ci" / "system-packages").stat().st_mode & 0o111
    assert venv[1:3] == ["-m", "venv"] and venv[0].startswith("python3")
    assert install[0].endswith("/pip") and install[1] == "install"
    ci = ci_steps()
    assert {"venv", "install", "pytest"} <= set(ci), ci
    assert install[2:] == ["-e", ".[dev]"] and ["-e", ".[dev]"] in ci["install"]
    assert run[0].endswith("/python") and run[1:3] == ["-m", "pytest"] and run[3:] == []
    # one test run, with only flags that change no outcome: no plugin cache, and a list of skips (which fail the run)
    (pytest_args,) = ci["pytest"]
    assert set(pytest_args) <= {"-p", "no:cacheprovider", "-rs", "-q"}, pytest_args
    assert "skipped" in CI and "exit 1" in CI


def test_the_readme_says_ci_runs_it():
    section = README.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    assert "`.ci/run`" in section


# --------------------------------------------------------------------------
# the install-and-run command, in a fresh environment


def _closure(requirements: list[str], extras: tuple[str, ...] = ()) -> list[md.Distribution]:
    """The installed distributions that meet ``requirements`` and theirs, markers evaluated for this Python."""
    seen: dict[str, md.Distribution] = {}
    todo = [(Requirement(r), extras) for r in requirements]
    while todo:
        req, wanted = todo.pop()
        env = default_environment()
        if req.marker is not None and not any(req.marker.evaluate({**env, "extra": e}) for e in (wanted or ("",))):
            continue
        key = re.sub(r"[-_.]+", "-", req.name).lower()
        if key in seen:
            continue
        dist = md.distribution(req.name)
        assert dist.version in req.specifier or not req.specifier, (req, dist.version)
        seen[key] = dist
        todo += [(Requirement(r), tuple(req.extras)) for r in dist.requires or ()]
    return list(seen.values())


def _link(dists: list[md.Distribution], into: Path) -> Path:
    """A directory holding links to the distributions' top-level files and their metadata, and nothing else."""
    into.mkdir()
    for dist in dists:
        site = Path(dist.locate_file(""))
        tops = {Path(str(f)).parts[0] for f in dist.files or () if not str(f).startswith("..")}
        for top in tops:
            if top == "__pycache__" or not (site / top).exists():
                continue
            if not (into / top).exists():
                os.symlink(site / top, into / top)
    return into


def _editable_requires() -> list[str]:
    """What the build backend asks for to build an editable wheel (pip installs it under build isolation)."""
    backend = PYPROJECT["build-system"]["build-backend"]
    code = f"import json, {backend} as b; print(json.dumps(b.get_requires_for_build_editable()))"
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def test_the_readme_install_and_run_command_works_in_a_fresh_environment(tmp_path):
    install_and_run, _ = setup_commands()
    venv_step, install_step, run_step = install_and_run
    assert venv_step[1:] == ["-m", "venv", ".venv"]
    assert install_step[1:] == ["install", "-e", "."]
    assert run_step[0] == ".venv/bin/rogerwilco"

    venv = tmp_path / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=HANG)
    python = venv / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    runtime = _link(_closure(PYPROJECT["project"]["dependencies"]), tmp_path / "runtime")
    build = _link(_closure(PYPROJECT["build-system"]["requires"] + _editable_requires()), tmp_path / "build")
    (Path(purelib) / "runtime-deps.pth").write_text(f"{runtime}\n", encoding="utf-8")
    build_pth = Path(purelib) / "build-deps.pth"
    build_pth.write_text(f"{build}\n", encoding="utf-8")

    env = {"PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}", "HOME": str(tmp_path),
           "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1", "LC_ALL": "C.UTF-8"}
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    proc = subprocess.run([*pip, *install_step[1:], "--no-build-isolation", "--no-deps", "-q"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=HANG)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    build_pth.unlink()

    check = subprocess.run([*pip, "check"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=HANG)
    assert check.returncode == 0, check.stdout + check.stderr  # the declared dependencies are exactly what is there
    isolated = subprocess.run([str(python), "-c", "import rogerwilco, sys\n"
                               "for name in ('pytest', 'hypothesis', 'hatchling'):\n"
                               "    try:\n        __import__(name)\n    except ImportError:\n        continue\n"
                               "    sys.exit(name + ' is importable')\n"
                               "print(rogerwilco.__file__)"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert isolated.returncode == 0, isolated.stdout + isolated.stderr
    assert Path(isolated.stdout.strip()).resolve().is_relative_to(ROOT)  # -e: the clone's own source

    script = venv / "bin" / "rogerwilco"
    run = subprocess.run([str(script), *run_step[1:]], cwd=ROOT, env=env, capture_output=True, text=True, timeout=HANG)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = [ln for ln in (ROOT / run_step[-1]).read_bytes().splitlines()]
    assert re.search(rf"\b{len(lines)} lines, {len(lines)} valid, 0 refused\b", run.stdout + run.stderr), run.stdout


def test_a_fresh_environment_without_the_dependencies_fails(tmp_path):
    """The control: the fresh environment sees nothing of the test environment unless linked in."""
    venv = tmp_path / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=HANG)
    proc = subprocess.run([str(venv / "bin" / "python"), "-c", "import lark"], cwd=tmp_path,
                          env={"PATH": os.environ.get("PATH", "")}, capture_output=True, text=True)
    assert proc.returncode != 0 and "No module named 'lark'" in proc.stderr


@pytest.mark.parametrize("text,problem", [
    ("```text\npython3 -m venv .venv && .venv/bin/pip install -e . && x\n```\n", "two commands"),
])
def test_a_readme_without_its_two_commands_is_caught(monkeypatch, text, problem):
    monkeypatch.setattr(sys.modules[__name__], "README", "## Set-up\n\n" + text)
    with pytest.raises(AssertionError, match=problem):
        setup_commands()


# --------------------------------------------------------------------------
# Every documented install line installs this package, not the 0.3.0 codec.
#
# `rogerwilco` 0.3.0 on the package index is the reference codec this package
# succeeds; until a release of this package is there, a bare
# `pip install rogerwilco[...]` (or `pipx run rogerwilco`, `uvx rogerwilco`)
# would fetch that codec, without this package's commands or extras. So every
# install line of the docs, the examples and the workflow names its source:
# this repository (`rogerwilco[...] @ git+https://github.com/croxio/rogerwilco`),
# a local wheel (`@ file:...`), or a clone (`.`, `-e .`, `'.[dev]'`).

REPOSITORY = "git+https://github.com/croxio/rogerwilco"
_DOCUMENTED = ["README.md", "conformance/README.md", ".pre-commit-hooks.yaml", "docs/*.md", "examples/**/*.md",
               "examples/**/*.yml", "examples/**/*.yaml", "examples/**/*.py", "examples/**/*.sh", "benchmarks/*.py"]
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
_SPAN = re.compile(r"(`{1,2})([^`]{1,400}?)\1")
_INSTALLER = re.compile(r"(?:\bpython3? -m pip|\bpip3?|\buv pip|\buv tool|\bpipx|\buvx)\s+(?:install|run|--from|[^\s]+)")


def _segments(path: Path) -> list[str]:
    """The places a command can be written in a file: each line of a code block or of a non-Markdown file, and
    each inline code span of prose (its line breaks joined)."""
    text = path.read_text(encoding="utf-8")
    lines: list[str] = []
    if path.suffix == ".md":
        for block in _FENCE.finditer(text):
            lines += block.group(0).splitlines()
        prose = _FENCE.sub("", text)
    else:
        lines = text.splitlines()
        prose = text
    return lines + [" ".join(m.group(2).split()) for m in _SPAN.finditer(prose)]


def install_lines() -> list[tuple[str, str]]:
    """(file, command) for every install command the docs, examples and workflows write."""
    found = []
    for pattern in _DOCUMENTED:
        for path in sorted(ROOT.glob(pattern)):
            if "node_modules" in path.parts or not path.is_file():
                continue
            for segment in _segments(path):
                for m in _INSTALLER.finditer(segment):
                    found.append((str(path.relative_to(ROOT)), segment[m.start():].split("#", 1)[0].strip()))
    return found


def requirements_of(command: str) -> list[str]:
    """The requirements an install command names (what pip, pipx or uv would fetch), as written."""
    try:
        words = shlex.split(command.replace("`", " "))
    except ValueError:  # an unbalanced quote: an excerpt, not a command
        return []
    out: list[str] = []
    for i, word in enumerate(words):
        if word in ("--spec", "--from") and i + 1 < len(words):
            out.append(words[i + 1])
    if out:
        return out
    verbs = ("install", "run")
    start = next((i + 1 for i, w in enumerate(words) if w in verbs), None)
    if start is None and words and words[0] == "uvx":
        start = 1
    if start is None:
        return []
    taken = []
    for word in words[start:]:
        if word in ("&&", "||", ";", "|"):
            break
        if word.startswith("-"):
            continue
        taken.append(word)
        if words[start - 1] == "run" or words[0] == "uvx":
            break  # pipx run APP args / uvx APP args: only the app is fetched
    return taken


def problem_of(requirement: str) -> str | None:
    """Why a requirement would not install this package, or None."""
    name = re.match(r"rogerwilco(?=$|[\[\s@=<>!~;])", requirement)
    if name is None:
        return None  # another package, or a local path (., '.[dev]', dist/....whl)
    if f"@ {REPOSITORY}" in requirement or "@ file:" in requirement:
        return None
    return "names rogerwilco without its source: the package index has the 0.3.0 reference codec under that name"


def test_every_documented_install_line_installs_this_package():
    lines = install_lines()
    bad = [(f, c, r, problem_of(r)) for f, c in lines for r in requirements_of(c) if problem_of(r)]
    assert bad == [], "\n".join(f"{f}: {c!r}: {r!r} {p}" for f, c, r, p in bad)
    named = [r for _, c in lines for r in requirements_of(c) if r.startswith("rogerwilco")]
    assert len(named) >= 20, named  # the check reads the lines it is about
    commands = " ".join(c for _, c in lines)
    assert "pipx run --spec" in commands and "uvx --from" in commands


@pytest.mark.parametrize("command,bad", [
    ("pip install rogerwilco", True),
    ("pip install 'rogerwilco[mcp]'", True),
    ("python -m pip install -U rogerwilco==0.4.0", True),
    ("pipx run --spec 'rogerwilco[mcp]' rogerwilco mcp", True),
    ("uvx rogerwilco validate x.rw1", True),
    ("uvx --from 'rogerwilco[mcp]' rogerwilco mcp", True),
    (f"pip install 'rogerwilco[mcp] @ {REPOSITORY}'", False),
    (f"uvx --from 'rogerwilco[mcp] @ {REPOSITORY}' rogerwilco mcp", False),
    ("pip install -e '.[dev]'", False),
    ("pip install 'rogerwilco[mcp] @ file:///tmp/dist/rogerwilco-0.4.0-py3-none-any.whl'", False),
    ("pip install lark-js", False),
])
def test_the_install_line_check_tells_the_forms_apart(command, bad):
    assert any(problem_of(r) for r in requirements_of(command)) is bad


def test_the_docs_say_which_rogerwilco_is_which():
    text = README.split("## Installing, and which rogerwilco you have", 1)[1].split("\n## ", 1)[0]
    assert "0.3.0" in text and "reference codec" in text and "rogerwilco --version" in text
    assert f"@ {REPOSITORY}" in text
