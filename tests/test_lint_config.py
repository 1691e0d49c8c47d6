"""lint where people use it: configuration discovery, per-file ignores, file selection, baseline, exit policy."""

from __future__ import annotations

import io
import json
import sys

import pytest

from rogerwilco.front.cli import main
from rogerwilco.core.errors import RW1Error
from rogerwilco.io.lint import RULES, lint_stream
from rogerwilco.io.lint_config import discover, find_config, glob_match, load_config

BAD = RULES["RW003"].bad + "\n"  # one error: ask=FIXX
WARN = RULES["RW010"].bad + "\nRW1 RB builder-1 re=ops-1 from=builder to=ops item=jira:OPS-7 ask=FIX\n"  # one warning


def lint(capsys, *argv):
    code = main(["lint", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def rows(out: str) -> list[dict]:
    return [json.loads(x) for x in out.splitlines()]


# ---- discovery ---------------------------------------------------------------------------


def test_a_pyproject_without_the_section_is_passed_over(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[tool.rogerwilco.lint]\nignore = ["RW003"]\n', encoding="utf-8")
    sub = tmp_path / "pkg"
    sub.mkdir()
    (sub / "pyproject.toml").write_text('[project]\nname = "pkg"\n', encoding="utf-8")
    (sub / "bad.rw1").write_text(BAD, encoding="utf-8")
    monkeypatch.chdir(sub)
    assert find_config() == tmp_path / "pyproject.toml"
    code = main(["lint", "bad.rw1"])
    assert code == 0  # the root's ignore still holds in the sub-project


def test_rogerwilco_toml_is_found_and_read_from_its_lint_table(tmp_path, monkeypatch):
    (tmp_path / "rogerwilco.toml").write_text('[lint]\nselect = ["RW1"]\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    config = discover()
    assert config.path == tmp_path / "rogerwilco.toml" and config.select == ("RW1",)
    assert discover(isolated=True).select is None


def test_config_option_and_isolated(capsys, tmp_path, monkeypatch):
    (tmp_path / "bad.rw1").write_text(BAD, encoding="utf-8")
    other = tmp_path / "elsewhere.toml"
    other.write_text('[lint]\nignore = ["RW003"]\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert lint(capsys, "--config", str(other), "bad.rw1")[0] == 0
    (tmp_path / "pyproject.toml").write_text('[tool.rogerwilco.lint]\nignore = ["RW003"]\n', encoding="utf-8")
    assert lint(capsys, "bad.rw1")[0] == 0
    assert lint(capsys, "--isolated", "bad.rw1")[0] == 1


@pytest.mark.parametrize("text, words", [
    ('[tool.rogerwilco.lint]\nignore = "RW003"\n', ["ignore", "list of strings", "a string"]),
    ('[tool.rogerwilco.lint]\nfail-on = "sometimes"\n', ["fail-on", "error, warning, never"]),
    ('[tool.rogerwilco.lint]\nper-file-ignores = ["x"]\n', ["per-file-ignores", "table"]),
    ('[tool.rogerwilco.lint]\ncore-only = "yes"\n', ["core-only", "true or false"]),
    ('[tool.rogerwilco]\nlintt = {}\n', ["lintt"]),
    ('[tool.rogerwilco.lint\n', ["not valid TOML"]),
])
def test_a_malformed_configuration_names_file_key_and_expectation_and_exits_2(capsys, tmp_path, monkeypatch, text, words):
    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    (tmp_path / "ok.rw1").write_text(RULES["RW003"].good + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, _, err = lint(capsys, "ok.rw1")
    assert code == 2 and "pyproject.toml" in err and "Traceback" not in err
    for word in words:
        assert word in err


def test_a_bad_code_in_per_file_ignores_is_a_usage_error(capsys, tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[tool.rogerwilco.lint.per-file-ignores]\n"*.rw1" = ["RW9"]\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, _, err = lint(capsys, "-")
    assert code == 2 and "RW9" in err


# ---- per-file ignores and file selection ------------------------------------------------


def test_per_file_ignores_apply_by_glob(capsys, tmp_path, monkeypatch):
    (tmp_path / "archive" / "2025").mkdir(parents=True)
    (tmp_path / "archive" / "2025" / "old.rw1").write_text(BAD, encoding="utf-8")
    (tmp_path / "new.rw1").write_text(BAD, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.rogerwilco.lint.per-file-ignores]\n"archive/**" = ["RW003"]\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, _ = lint(capsys, "-f", "json-lines", ".")
    assert code == 1 and [r["file"].replace("\\", "/") for r in rows(out)] == ["./new.rw1"]


def test_a_folder_contributes_streams_logs_markdown_and_json_lines_only(capsys, tmp_path, monkeypatch):
    for name in ("a.rw1", "b.log", "c.md", "d.jsonl", "e.py", "f.js", "g.json"):
        (tmp_path / name).write_text(("x = 'RW1 HO ops-1 from=ops to=b item=x ask=FIXX'\n"), encoding="utf-8")
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "h.rw1").write_text(BAD, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, _ = lint(capsys, "--isolated", "-f", "json-lines", ".")
    assert sorted({r["file"][2:] for r in rows(out)}) == ["a.rw1", "b.log", "c.md", "d.jsonl"]
    # a file named explicitly is always linted
    code, out, _ = lint(capsys, "--isolated", "-f", "json-lines", "e.py")
    assert {r["file"] for r in rows(out)} == {"e.py"}


def test_include_and_extend_exclude_from_configuration(capsys, tmp_path, monkeypatch):
    (tmp_path / "keep").mkdir()
    (tmp_path / "skip").mkdir()
    (tmp_path / "keep" / "a.txt").write_text(BAD, encoding="utf-8")
    (tmp_path / "skip" / "b.txt").write_text(BAD, encoding="utf-8")
    (tmp_path / "rogerwilco.toml").write_text('[lint]\ninclude = ["*.txt"]\nextend-exclude = ["skip"]\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, _ = lint(capsys, "-f", "json-lines", ".")
    assert [r["file"][2:] for r in rows(out)] == ["keep/a.txt"]


@pytest.mark.parametrize("pattern, path, hit", [
    ("*.rw1", "a/b/c.rw1", True), ("a/*.rw1", "a/b/c.rw1", False), ("a/**/*.rw1", "a/b/c.rw1", True),
    ("a/**/*.rw1", "a/c.rw1", True), ("archive", "archive/x/y.log", True), ("logs/202?-*.log", "logs/2026-01.log", True),
    ("[ab].md", "b.md", True), ("[!ab].md", "b.md", False),
])
def test_globs(pattern, path, hit):
    assert glob_match(pattern, path, path.rsplit("/", 1)[-1]) is hit


# ---- embedded lines ----------------------------------------------------------------------


def test_lines_inside_a_log_are_linted_at_their_physical_column():
    log = [
        "2026-10-02T14:05:00Z INFO boot ok",
        "2026-10-02T14:05:01Z INFO sent RW1 HO ops-1 from=ops to=builder item=jira:OPS-7 ask=FIXX",
        '{"ts": 1, "msg": "RW1 HO ops-2 from=ops to=builder item=jira:OPS-8 ask=FIXX"}',
    ]
    found = lint_stream(log, file="app.log", select=["RW003"])
    assert [(f.line, f.column, f.token) for f in found] == [
        (2, log[1].index("ask=FIXX") + 1, "ask=FIXX"), (3, log[2].index("ask=FIXX") + 1, "ask=FIXX")]
    assert found[0].text == log[1]
    # the same text as an RW1 stream is three broken lines
    assert {f.code for f in lint_stream(log, file="app.rw1")} >= {"RW001"}


def test_findings_in_escaped_json_and_across_the_stream_land_on_their_physical_column():
    # where a candidate sits is kept on disk and read back for the findings alone: an escape before the
    # candidate moves its columns; a finding of the stream rules (never read back) lands on its line too
    log = ['{"ts": 1, "msg": "\\u00e9\\t RW1 HO ops-2 from=ops to=builder item=jira:OPS-8 ask=FIXX"}',
           '{"a": "RW1 HO ops-3 from=ops to=builder item=x ask=FIX", "b": "RW1 HO ops-3 from=ops to=builder item=y ask=FIX"}']
    found = {(f.code, f.line): f for f in lint_stream(log, file="app.log")}
    assert found[("RW003", 1)].column == log[0].index("ask=FIXX") + 1 and found[("RW003", 1)].text == log[0]
    never = found[("RW103", 2)]  # the first ops-3 (the second is the same id: RW100)
    assert never.column == log[1].index("RW1 HO ops-3") + 1 + len("RW1 HO ") and never.text == log[1]
    assert found[("RW100", 2)].column == log[1].rindex("ops-3") + 1


def test_stdin_filename_names_stdin_and_chooses_its_mode(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    text = "INFO sent RW1 HO ops-1 from=ops to=builder item=jira:OPS-7 ask=FIXX\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    code, out, _ = lint(capsys, "--isolated", "-f", "json-lines", "--select", "RW003", "--stdin-filename", "logs/app.log", "-")
    (row,) = rows(out)
    assert code == 1 and row["file"] == "logs/app.log" and row["column"] == text.index("ask=FIXX") + 1


# ---- exit policy, spans, output file -----------------------------------------------------


def test_fail_on(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "warn.rw1").write_text(WARN, encoding="utf-8")
    (tmp_path / "bad.rw1").write_text(BAD, encoding="utf-8")
    assert lint(capsys, "--isolated", "warn.rw1")[0] == 1  # warnings fail by default, as before
    assert lint(capsys, "--isolated", "--fail-on", "error", "warn.rw1")[0] == 0
    assert lint(capsys, "--isolated", "--fail-on", "error", "bad.rw1")[0] == 1
    assert lint(capsys, "--isolated", "--fail-on", "never", "bad.rw1")[0] == 0
    assert lint(capsys, "--isolated", "--exit-zero", "bad.rw1")[0] == 0
    (tmp_path / "rogerwilco.toml").write_text('[lint]\nfail-on = "error"\n', encoding="utf-8")
    assert lint(capsys, "warn.rw1")[0] == 0


@pytest.mark.parametrize("code", ["RW010", "RW011", "RW012"])
def test_every_warning_has_a_token_and_a_span(code):
    (f,) = [f for f in lint_stream(RULES[code].bad.split("\n"), select=[code])]
    assert f.token and f.column and f.end_column == f.column + len(f.token)
    assert f.text[f.column - 1:f.end_column - 1] == f.token


def test_output_file(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.rw1").write_text(BAD, encoding="utf-8")
    code, out, _ = lint(capsys, "--isolated", "-f", "sarif", "-o", "out/lint.sarif", "bad.rw1")
    assert code == 2  # the folder does not exist: a clear error, no traceback
    (tmp_path / "out").mkdir()
    code, out, _ = lint(capsys, "--isolated", "-f", "sarif", "-o", "out/lint.sarif", "bad.rw1")
    assert code == 1 and out == ""
    assert json.loads((tmp_path / "out" / "lint.sarif").read_text())["runs"][0]["results"]
    code, out, _ = lint(capsys, "--isolated", "-o", "report.txt", "bad.rw1")
    assert "RW003" in (tmp_path / "report.txt").read_text() and "RW003" not in out


# ---- baseline ----------------------------------------------------------------------------


def test_a_baseline_reports_only_new_findings(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "logs").mkdir()
    old = tmp_path / "logs" / "old.rw1"
    old.write_text(BAD, encoding="utf-8")
    code, _, err = lint(capsys, "--isolated", "--write-baseline", "baseline.json", "logs")
    assert code == 0 and "recorded 1 finding" in err
    assert lint(capsys, "--isolated", "--baseline", "baseline.json", "logs")[0] == 0
    # lines moving and running from another folder change nothing
    old.write_text("RW1 ST z-1 from=z to=q item=x:2\n" + BAD, encoding="utf-8")
    monkeypatch.chdir(tmp_path / "logs")
    assert lint(capsys, "--isolated", "--baseline", "../baseline.json", "old.rw1")[0] == 0
    # a new finding is reported, the old one is not
    old.write_text("RW1 ST z-1 from=z to=q item=x:2\n" + BAD + RULES["RW004"].bad + "\n", encoding="utf-8")
    code, out, _ = lint(capsys, "--isolated", "-f", "json-lines", "--baseline", "../baseline.json", "old.rw1")
    assert code == 1 and [r["code"] for r in rows(out)] == ["RW004"]


def test_a_baseline_from_another_rule_set_is_refused(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.rw1").write_text(BAD, encoding="utf-8")
    lint(capsys, "--isolated", "--write-baseline", "b.json", "bad.rw1")
    doc = json.loads((tmp_path / "b.json").read_text())
    doc["rules"] = "0" * 16
    (tmp_path / "b.json").write_text(json.dumps(doc))
    code, _, err = lint(capsys, "--isolated", "--baseline", "b.json", "bad.rw1")
    assert code == 2 and "another version of the rules" in err
    (tmp_path / "b.json").write_text("[]")
    code, _, err = lint(capsys, "--isolated", "--baseline", "b.json", "bad.rw1")
    assert code == 2 and "not a rogerwilco lint baseline" in err


def test_load_config_reads_every_key(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text(
        '[tool.rogerwilco.lint]\nselect = ["RW0"]\nignore = ["RW010"]\nprofiles = ["pay"]\ncore-only = false\n'
        'now = "20261010T0000Z"\nfail-on = "error"\nbaseline = "b.json"\ninclude = ["*.rw1"]\nexclude = ["old"]\n'
        'extend-exclude = ["older"]\n[tool.rogerwilco.lint.per-file-ignores]\n"x/*" = ["RW1"]\n', encoding="utf-8")
    c = load_config(path)
    assert (c.select, c.ignore, c.profiles, c.now, c.fail_on) == (("RW0",), ("RW010",), ("pay",), "20261010T0000Z", "error")
    assert c.baseline == tmp_path.resolve() / "b.json" and c.include == ("*.rw1",) and c.exclude == ("old", "older")
    assert c.per_file_ignores == (("x/*", ("RW1",)),) and c.ignored_for(str(tmp_path / "x" / "a.rw1")) == ("RW1",)
    with pytest.raises(RW1Error):
        load_config(tmp_path / "missing.toml")
