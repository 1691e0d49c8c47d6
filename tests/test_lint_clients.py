"""lint as real clients read it: Microsoft's SARIF Multitool with GitHub's rule kinds, GitHub's workflow
schema for the documented workflow, and pre-commit running the hook in a repository of its own."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rogerwilco.io.lint import RULES
from tests.bounds import HANG

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "tests" / "tools" / "sarif"
MULTITOOL = TOOLS / "node_modules" / "@microsoft" / "sarif-multitool-linux" / "Sarif.Multitool"


@pytest.fixture(scope="module")
def multitool() -> Path:
    """The Multitool binary, installed from the lockfile on first use (npm ci; nothing global)."""
    if not MULTITOOL.exists():
        npm = shutil.which("npm")
        assert npm, "npm is needed to install the SARIF Multitool (tests/tools/sarif)"
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=TOOLS, check=True, capture_output=True, timeout=HANG)
    MULTITOOL.chmod(0o755)  # its own postinstall step does this; npm no longer runs install scripts by default
    return MULTITOOL


def _lint_sarif(cwd: Path, out: Path, *files: str) -> int:
    return subprocess.run([sys.executable, "-m", "rogerwilco", "lint", "--isolated", "-f", "sarif", "-o", str(out), *files],
                          cwd=cwd, capture_output=True, text=True, timeout=HANG).returncode


def _validate(multitool: Path, sarif: Path, tmp: Path) -> list[dict]:
    report = tmp / (sarif.stem + ".validation.sarif")
    done = subprocess.run([str(multitool), "validate", "--rule-kind", "Sarif;Gh;Ghas", "-o", str(report), str(sarif)],
                          capture_output=True, text=True, timeout=HANG, env={**os.environ, "DOTNET_CLI_TELEMETRY_OPTOUT": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(report.read_text(encoding="utf-8-sig"))["runs"][0]["results"]


def test_sarif_from_a_subfolder_passes_the_multitool_with_no_warnings(multitool, tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "convo").mkdir()
    (repo / "convo" / "bad.rw1").write_text("\n".join(RULES[c].bad for c in ("RW003", "RW010", "RW105")) + "\n",
                                            encoding="utf-8")
    (repo / "logs").mkdir()
    (repo / "logs" / "app.log").write_text("INFO sent RW1 HO ops-1 from=ops to=builder item=x ask=FIXX\n", encoding="utf-8")
    out = tmp_path / "lint.sarif"
    assert _lint_sarif(repo / "logs", out, "../convo/bad.rw1", "app.log") == 1
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert len(doc["runs"][0]["results"]) >= 4
    assert _validate(multitool, out, tmp_path) == []


def test_the_multitool_check_does_fail_on_a_report_that_lacks_what_github_reads(multitool, tmp_path):
    """The clean verdict above means something: the same check flags a report without informationUri."""
    (tmp_path / "bad.rw1").write_text(RULES["RW003"].bad + "\n", encoding="utf-8")
    out = tmp_path / "lint.sarif"
    _lint_sarif(tmp_path, out, "bad.rw1")
    doc = json.loads(out.read_text(encoding="utf-8"))
    del doc["runs"][0]["tool"]["driver"]["informationUri"]
    out.write_text(json.dumps(doc), encoding="utf-8")
    assert {r["ruleId"] for r in _validate(multitool, out, tmp_path)} >= {"SARIF2005"}


def _check_workflow(path: Path) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).parent / "check-jsonschema"
    return subprocess.run([str(exe), "--builtin-schema", "vendor.github-workflows", str(path)],
                          capture_output=True, text=True, timeout=HANG)


def test_the_documented_workflow_matches_githubs_workflow_schema(tmp_path):
    workflow = ROOT / "examples" / "ci" / "github-workflow.yml"
    done = _check_workflow(workflow)
    assert done.returncode == 0, done.stdout + done.stderr
    docs = (ROOT / "docs" / "lint.md").read_text(encoding="utf-8")
    assert workflow.read_text(encoding="utf-8").strip() in docs  # the docs show exactly the file that is checked
    broken = tmp_path / "broken.yml"
    broken.write_text(workflow.read_text(encoding="utf-8").replace("runs-on:", "run-on:"), encoding="utf-8")
    assert _check_workflow(broken).returncode != 0


def test_the_pre_commit_hook_in_a_repository_whose_pyproject_has_no_rogerwilco_section(tmp_path):
    """pre-commit builds the hook's own environment from this repository and runs it on staged files."""
    repo = tmp_path / "project"
    repo.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    (repo / "pyproject.toml").write_text('[project]\nname = "project"\nversion = "0"\n', encoding="utf-8")
    (repo / "good.rw1").write_text(RULES["RW103"].good + "\n", encoding="utf-8")
    (repo / "bad.rw1").write_text(RULES["RW003"].bad + "\n", encoding="utf-8")
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    exe = Path(sys.executable).parent / "pre-commit"

    def run(*files: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(exe), "try-repo", str(ROOT), "rogerwilco-lint", "--files", *files],
                              cwd=repo, capture_output=True, text=True, timeout=HANG, env=env)

    good = run("good.rw1")
    assert good.returncode == 0, good.stdout + good.stderr
    bad = run("bad.rw1")
    assert bad.returncode == 1 and "RW003" in bad.stdout, bad.stdout + bad.stderr
