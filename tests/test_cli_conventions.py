"""The CLI's conventions for CI: annotation paths from the workspace, JSON as an array or as lines, a column
for every finding, several files to validate, the exit status kept when the reader goes away."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from rogerwilco.front.cli import main
from rogerwilco.io.lint import lint_stream
from rogerwilco.io.sarif import github_annotation, workspace_path
from tests.bounds import HANG

ROOT = Path(__file__).resolve().parent.parent
BAD = "RW1 HO ops-1 from=ops to=b item=x:1 ask=FIXX"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    return (code, *capsys.readouterr())


def test_annotations_from_a_subfolder_resolve_from_the_workspace(tmp_path, monkeypatch, capsys):
    sub = tmp_path / "services" / "pay"
    sub.mkdir(parents=True)
    (sub / "bad.rw1").write_text(BAD + "\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    monkeypatch.chdir(sub)  # a step with working-directory: services/pay
    code, out, _ = run(capsys, "lint", "--no-config", "-f", "github", "bad.rw1")
    assert code == 1 and out.startswith("::error file=services/pay/bad.rw1,line=1,")
    (f,) = lint_stream([BAD], file="bad.rw1", select=["RW003"])
    assert github_annotation(f, workspace=str(tmp_path)).startswith("::error file=services/pay/bad.rw1,")
    assert workspace_path(str(tmp_path.parent / "elsewhere.rw1"), str(tmp_path)) == (tmp_path.parent / "elsewhere.rw1").as_posix()
    assert workspace_path("<stdin>", str(tmp_path)) == "<stdin>"


def test_json_is_one_array_and_json_lines_one_finding_a_line(tmp_path, capsys):
    bad = tmp_path / "bad.rw1"
    bad.write_text(BAD + "\n" + BAD.replace("ops-1", "ops-2") + "\n", encoding="utf-8")
    clean = tmp_path / "clean.rw1"
    clean.write_text("RW1 ST a-1 from=a to=b item=x:1\n", encoding="utf-8")
    code, out, _ = run(capsys, "lint", "--no-config", "-f", "json", "--select", "RW003", str(bad))
    assert code == 1 and [f["line"] for f in json.loads(out)] == [1, 2]
    assert json.loads(run(capsys, "lint", "--no-config", "-f", "json", str(clean))[1]) == []
    for name in ("json-lines", "jsonl"):
        code, out, _ = run(capsys, "lint", "--no-config", "-f", name, "--select", "RW003", str(bad))
        assert [json.loads(line)["line"] for line in out.splitlines()] == [1, 2]


def test_a_missing_slot_has_a_column_where_the_slot_would_go():
    (f,) = lint_stream(["RW1 HO ops-1 from=ops to=builder ask=FIX // t"], select=["RW005"])
    assert (f.code, f.token, f.column) == ("RW005", "item", 42)
    assert all(f.column for f in lint_stream(["RW1 HO ops-1", "RW1 garbage  x", "RW2 x"]))


def test_validate_takes_several_files_with_one_summary(tmp_path, capsys):
    first, second = tmp_path / "a.rw1", tmp_path / "b.rw1"
    first.write_text("RW1 ST a-1 from=a to=b item=x:1\n", encoding="utf-8")
    second.write_text(BAD + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "validate", str(first), str(second))
    assert code == 1 and f"{second}:1:" in out and out.rstrip().endswith("2 lines, 1 valid, 1 refused, 0 notes")
    assert run(capsys, "validate", str(first), str(first))[0] == 0


def test_the_exit_status_is_kept_when_the_reader_goes_away(tmp_path):
    stream = tmp_path / "many.rw1"
    stream.write_text("".join(BAD.replace("ops-1", f"ops-{i}") + "\n" for i in range(1, 5001)), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    for command in ("validate", "lint"):
        proc = subprocess.Popen([sys.executable, "-m", "rogerwilco", command, str(stream)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env)
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()  # | head -1
        proc.stdout.close()
        err = proc.stderr.read()
        assert proc.wait(timeout=HANG) == 1, (command, err)
        assert b"Traceback" not in err and b"Broken pipe" not in err
