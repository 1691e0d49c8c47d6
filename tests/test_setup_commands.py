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
    venv, install, run = tests
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
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
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
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    build_pth.unlink()

    check = subprocess.run([*pip, "check"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stdout + check.stderr  # the declared dependencies are exactly what is there
    isolated = subprocess.run([str(python), "-c", "import rogerwilco, sys\n"
                               "for name in ('pytest', 'hypothesis', 'hatchling'):\n"
                               "    try:\n        __import__(name)\n    except ImportError:\n        continue\n"
                               "    sys.exit(name + ' is importable')\n"
                               "print(rogerwilco.__file__)"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert isolated.returncode == 0, isolated.stdout + isolated.stderr
    assert Path(isolated.stdout.strip()).resolve().is_relative_to(ROOT)  # -e: the clone's own source

    script = venv / "bin" / "rogerwilco"
    run = subprocess.run([str(script), *run_step[1:]], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = [ln for ln in (ROOT / run_step[-1]).read_bytes().splitlines()]
    assert re.search(rf"\b{len(lines)} lines, {len(lines)} valid, 0 refused\b", run.stdout + run.stderr), run.stdout


def test_a_fresh_environment_without_the_dependencies_fails(tmp_path):
    """The control: the fresh environment sees nothing of the test environment unless linked in."""
    venv = tmp_path / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
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
