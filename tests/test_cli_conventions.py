"""The CLI's conventions for CI: annotation paths from the workspace, JSON as an array or as lines, a column
for every finding, several files to validate, the exit status kept when the reader goes away."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_a_missing_slot_has_that_column_in_validate_and_parse_too(tmp_path, capsys):
    stream = tmp_path / "missing.rw1"
    stream.write_text("RW1 HO ops-1 from=ops to=builder ask=FIX // t\nRW1 AQ a-1 from=a to=b need=ENUM\n", encoding="utf-8")
    code, out, _ = run(capsys, "validate", str(stream))
    shown = out.splitlines()
    assert code == 1 and shown[0].startswith(f"{stream}:1:42: fail UNK [missing] item")
    assert shown[2] == " " * 43 + "^" and shown[3].startswith(f"{stream}:2:34: fail UNK [rule] opts")
    code, out, _ = run(capsys, "validate", "-f", "json", str(stream))
    assert [r["findings"][0]["column"] for r in map(json.loads, out.splitlines())] == [42, 34]
    code, _, err = run(capsys, "parse", str(stream))
    assert [line.split(": ")[0] for line in err.splitlines()] == [f"{stream}:1:42", f"{stream}:2:34"]


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


CLOSED_TWICE = "\n".join([
    "RW1 HO ops-1 from=ops to=builder item=jira:OPS-7 ask=FIX",
    "RW1 RB builder-1 re=ops-1 from=builder to=ops item=jira:OPS-7 ask=FIX",
    "RW1 DN builder-2 re=ops-1 from=builder to=ops item=jira:OPS-7 out=OK",
    "RW1 FL builder-3 re=ops-1 from=builder to=ops item=jira:OPS-7 why=ERR"]) + "\n"


def _codes_by_file(out: str, root: Path) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for f in json.loads(out):
        found.setdefault(Path(f["file"]).resolve().relative_to(root.resolve()).as_posix(), set()).add(f["code"])
    return found


def test_a_monorepo_linted_from_its_root_uses_each_file_nearest_configuration(tmp_path, monkeypatch, capsys):
    (tmp_path / "pyproject.toml").write_text('[tool.rogerwilco.lint]\nignore = ["RW003"]\n', encoding="utf-8")
    for project, ignored in (("pay", "RW105"), ("ops", "RW010")):
        (tmp_path / project).mkdir()
        (tmp_path / project / "pyproject.toml").write_text(f'[tool.rogerwilco.lint]\nignore = ["{ignored}"]\n',
                                                           encoding="utf-8")
        (tmp_path / project / "talk.rw1").write_text(CLOSED_TWICE + BAD.replace("ops-1", "ops-9") + " itme=1\n",
                                                     encoding="utf-8")
    (tmp_path / "top.rw1").write_text(CLOSED_TWICE + BAD.replace("ops-1", "ops-9") + " itme=1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # as pre-commit and CI run it
    code, out, _ = run(capsys, "lint", "-f", "json", "--select", "RW003,RW010,RW105", ".")
    assert code == 1
    assert _codes_by_file(out, tmp_path) == {"pay/talk.rw1": {"RW003", "RW010"}, "ops/talk.rw1": {"RW003", "RW105"},
                                             "top.rw1": {"RW010", "RW105"}}
    # one configuration for every file when it is named, or none with --isolated
    code, out, _ = run(capsys, "lint", "-f", "json", "--config", "pyproject.toml", "--select", "RW003,RW010,RW105", ".")
    assert set(map(frozenset, _codes_by_file(out, tmp_path).values())) == {frozenset({"RW010", "RW105"})}


def test_a_walked_folder_leaves_out_what_git_ignores(tmp_path, monkeypatch, capsys):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("generated/\n*.tmp.rw1\n", encoding="utf-8")
    for name in ("kept.rw1", "generated/out.rw1", "x.tmp.rw1", "sub/also.tmp.rw1", "sub/keep.rw1", "sub/drop.rw1"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(BAD + "\n", encoding="utf-8")
    (tmp_path / "sub" / ".gitignore").write_text("drop.rw1\n!also.tmp.rw1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path / "sub")  # the repository's .gitignore applies from a subfolder too
    code, out, _ = run(capsys, "lint", "-f", "json", "--isolated", "..")
    assert sorted(_codes_by_file(out, tmp_path)) == ["kept.rw1", "sub/also.tmp.rw1", "sub/keep.rw1"]
    code, out, _ = run(capsys, "lint", "-f", "json", "--isolated", "../generated/out.rw1")  # named: always linted
    assert sorted(_codes_by_file(out, tmp_path)) == ["generated/out.rw1"]
    (tmp_path / "pyproject.toml").write_text("[tool.rogerwilco.lint]\nrespect-gitignore = false\n", encoding="utf-8")
    code, out, _ = run(capsys, "lint", "-f", "json", "..")
    assert len(_codes_by_file(out, tmp_path)) == 6


# The CLI's manners: a usage error is one line that says what was meant; global options anywhere; the
# colour the environment asks for; help grouped by task.

@pytest.mark.parametrize("argv, said", [
    (["valdiate", "x.rw1"], "rogerwilco: error: argument COMMAND: invalid choice: 'valdiate' (did you mean validate?)"),
    (["lint", "--fromat", "json", "x.rw1"], "rogerwilco: error: unrecognized arguments: --fromat (did you mean --format?)"),
    (["lint", "-f", "jsno", "x.rw1"],
     "rogerwilco lint: error: argument --format/-f: invalid choice: 'jsno' (did you mean json?)"),
    (["completion", "bsh"], "rogerwilco completion: error: argument shell: invalid choice: 'bsh' (did you mean bash?)"),
    (["lint", "--bogus"], "rogerwilco: error: unrecognized arguments: --bogus (see `rogerwilco lint --help`)"),
])
def test_a_usage_error_is_one_line_with_what_was_meant(capsys, argv, said):
    with pytest.raises(SystemExit) as exited:
        main(argv)
    captured = capsys.readouterr()
    assert exited.value.code == 2 and captured.err == said + "\n" and captured.out == ""


def test_color_may_come_after_the_command(tmp_path, capsys, monkeypatch):
    bad = tmp_path / "bad.rw1"
    bad.write_text(BAD + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "validate", str(bad), "--color", "always")
    assert code == 1 and "\x1b[" in out
    assert "\x1b[" not in run(capsys, "--color", "always", "validate", str(bad), "--color", "never")[1]


@pytest.mark.parametrize("env, coloured", [({"FORCE_COLOR": "1"}, True), ({"NO_COLOR": "1"}, False),
                                           ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, False), ({}, False)])
def test_force_color_and_no_color_when_piped(tmp_path, capsys, monkeypatch, env, coloured):
    bad = tmp_path / "bad.rw1"
    bad.write_text(BAD + "\n", encoding="utf-8")
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for command in ("validate", "lint"):
        out = run(capsys, command, str(bad))[1]
        assert ("\x1b[" in out) is coloured, (command, env)
    assert "\x1b[" not in run(capsys, "--color", "never", "validate", str(bad))[1]


def test_the_help_groups_the_commands_by_task_and_says_which_check_to_use(capsys):
    from rogerwilco.front.cli import _COMMAND_MODULES

    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "Which check: `validate` for lines one by one" in out and "`check-thread` for one conversation" in out
    checks = out.index("check lines and conversations:")
    assert checks < out.index("  validate ") < out.index("  lint ") < out.index("  check-thread ") < out.index("convert lines:")
    assert all(f"\n  {name} " in out for name in _COMMAND_MODULES)  # every command, once grouped
    assert "other:" not in out


def test_parse_says_the_hint_on_its_refusal_line(tmp_path, capsys):
    bad = tmp_path / "bad.rw1"
    bad.write_text(BAD + "\n", encoding="utf-8")
    code, out, err = run(capsys, "parse", str(bad))
    assert code == 1 and out == "" and err == f"{bad}:1:37: UNK ask=FIXX: unknown ask code (did you mean FIX?)\n"


class _TerminalStdin:
    def isatty(self) -> bool:
        return True


def test_lint_and_scan_with_no_path_on_a_terminal_take_the_current_folder(tmp_path, monkeypatch, capsys):
    (tmp_path / "talk.rw1").write_text(BAD + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", _TerminalStdin())
    code, out, _ = run(capsys, "lint", "--isolated", "-f", "json-lines")
    assert code == 1 and json.loads(out)["file"] == os.path.join(".", "talk.rw1")
    code, out, _ = run(capsys, "scan", "--no-summary")
    assert code == 0 and json.loads(out)["file"].endswith("talk.rw1")


def test_validate_on_a_log_points_to_lint_and_scan(tmp_path, capsys):
    log = tmp_path / "app.log"
    log.write_text("2026-10-01 INFO sent RW1 ST a-1 from=a to=b item=x:1\n", encoding="utf-8")
    code, _, err = run(capsys, "validate", str(log))
    assert code == 1 and f"`rogerwilco lint {log}` or `rogerwilco scan {log}` finds the RW1 lines inside" in err
    stream = tmp_path / "bad.rw1"
    stream.write_text(BAD + "\n", encoding="utf-8")
    assert run(capsys, "validate", str(stream))[2] == ""  # a stream's refused line is just that
