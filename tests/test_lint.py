"""lint: every rule fires on its case and stays quiet on the clean twin; selection, config, exits."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rogerwilco.front.cli import main
from rogerwilco.core.errors import RW1Error
from rogerwilco.io.lint import RULES, lint_stream, selected_rules
from rogerwilco.io.lint_config import load_config
from rogerwilco.front.render import make_console
from rogerwilco.front.render.lint import finding_text
from rogerwilco.io.sarif import escape_data, escape_property, github_annotation

NOW = "20261010T0000Z"


@pytest.mark.parametrize("code", list(RULES))
def test_rule_fires_on_its_case(code):
    findings = lint_stream(RULES[code].bad.split("\n"), now=NOW)
    assert code in {f.code for f in findings}


@pytest.mark.parametrize("code", list(RULES))
def test_rule_is_quiet_on_its_clean_twin(code):
    assert lint_stream(RULES[code].good.split("\n"), now=NOW) == []


def test_time_rules_need_a_now():
    bad = RULES["RW106"].bad.split("\n")
    assert {f.code for f in lint_stream(bad)} == set()
    assert {f.code for f in lint_stream(bad, now="20261001T0000Z")} == set()  # still in time
    assert {f.code for f in lint_stream(bad, now=NOW)} == {"RW106"}
    with pytest.raises(RW1Error):
        lint_stream(bad, now="yesterday")


def test_ids_per_sender():
    lines = ["RW1 ST ops-2 from=ops to=b item=x:1", "RW1 ST b-1 from=b to=ops item=x:1",
             "RW1 ST ops-3 from=ops to=b item=x:1", "RW1 ST ops-03 from=ops to=b item=x:1",
             "RW1 ST ops-3 from=ops to=b item=x:1"]
    findings = lint_stream(lines, select=["RW100", "RW101"])
    # ops-03 respells ops-3 (not forward); the exact repeat of ops-3 is one message delivered twice
    assert [(f.code, f.line, f.token) for f in findings] == [("RW101", 4, "ops-03")]
    lines.append("RW1 ST ops-3 from=ops to=b item=x:9")
    assert [(f.code, f.line) for f in lint_stream(lines, select=["RW100"])] == [("RW100", 6)]


def test_a_refused_or_cancelled_or_reissued_handoff_needs_no_readback():
    ho = "RW1 HO ops-1 from=ops to=b item=x:1 ask=FIX"
    for reply in ("RW1 UN b-1 re=ops-1 from=b to=ops why=BUSY",
                  "RW1 CX ops-2 re=ops-1 from=ops to=b item=x:1 why=TIMEOUT",
                  "RW1 HO ops-2 re=ops-1 from=ops to=b item=x:1 ask=FIX"):
        assert not any(f.code == "RW103" and f.key == "ops-1" for f in lint_stream([ho, reply]))
    # an RB from someone other than the receiver is no readback
    stranger = "RW1 RB c-1 re=ops-1 from=c to=ops item=x:1 ask=FIX"
    assert any(f.code == "RW103" for f in lint_stream([ho, stranger]))


def test_question_refused_with_un_is_answered():
    aq = "RW1 AQ w-1 from=w to=r need=YESNO"
    assert not [f for f in lint_stream([aq, "RW1 UN r-1 re=w-1 from=r to=w why=SCOPE"]) if f.code == "RW104"]


def test_select_and_ignore_by_code_and_prefix():
    assert selected_rules() == frozenset(RULES)
    assert selected_rules(["RW1"]) == {c for c in RULES if c.startswith("RW1")}
    assert selected_rules(["RW1"], ["RW10"]) == {c for c in RULES if c.startswith("RW11")} >= {"RW110"}
    assert selected_rules(["RW105"], ["RW1"]) == {"RW105"}  # the more specific select wins
    assert selected_rules(["RW105"], ["RW105"]) == frozenset()  # a tie: the ignore wins
    assert selected_rules(None, ["ALL"]) == frozenset()
    with pytest.raises(RW1Error):
        selected_rules(["RW999"])
    with pytest.raises(RW1Error):
        selected_rules(["E501"])


def test_line_findings_carry_place_and_token():
    (f,) = lint_stream(io.BytesIO(b"\nRW1 HO ops-1 from=ops to=b item=x:1 ask=FIXX\n"), file="m.rw1", select=["RW0"])
    assert (f.code, f.file, f.line, f.column, f.token) == ("RW003", "m.rw1", 2, 37, "ask=FIXX")


def test_text_report_has_a_caret_under_the_token():
    (f,) = lint_stream(["RW1 HO ops-1 from=ops to=b item=x:1 ask=FIXX"], select=["RW003"])
    buf = io.StringIO()
    make_console(buf, width=200, color=False).print(finding_text(f))
    lines = buf.getvalue().splitlines()
    assert lines[0].startswith("<stream>:1:37: RW003 [unknown-code] ask=FIXX")
    assert lines[2].index("^") == lines[1].index("ask=FIXX") and lines[2].count("^") == len("ask=FIXX")


def test_fingerprints_do_not_move_with_the_line():
    lines = ["RW1 HO ops-1 from=ops to=b item=x:1 ask=FIXX"]
    before = lint_stream(lines, file="a.rw1")
    after = lint_stream(["RW1 ST z-1 from=z to=b item=x:2"] + lines, file="a.rw1")
    assert {f.fingerprint() for f in before} <= {f.fingerprint() for f in after}
    assert before[0].line == 1 and [f for f in after if f.code == "RW003"][0].line == 2


def test_github_annotations_escape_everything_that_could_break_the_command():
    assert escape_data("100% a\r\nb") == "100%25 a%0D%0Ab"
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"
    (f,) = lint_stream(["RW1 HO ops-1 from=ops to=b item=x:1 ask=FIXX"], file="dir,x:y.rw1", select=["RW003"])
    line = github_annotation(f)
    assert line == ("::error file=dir%2Cx%3Ay.rw1,line=1,endLine=1,col=37,endColumn=45,title=rogerwilco (RW003)"
                    "::ask=FIXX: unknown ask code (did you mean FIX?)")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(
    st.sampled_from([r.bad for r in RULES.values()] + [r.good for r in RULES.values()]).map(lambda s: s.split("\n")[0]),
    st.text(max_size=80),
), max_size=12))
def test_any_stream_gives_findings_never_an_exception(lines):
    lines = [line.replace("\n", " ").replace("\r", " ") for line in lines]
    for f in lint_stream(lines, now=NOW):
        assert f.code in RULES and f.level in ("error", "warning") and f.line >= 1
        assert "\n" not in github_annotation(f)


# ---- configuration and the command ------------------------------------------------------


def test_config_is_read_from_pyproject(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.rogerwilco.lint]\nselect = ["RW0"]\nignore = ["RW003"]\n', encoding="utf-8")
    config = load_config(path)
    assert (config.select, config.ignore, config.root) == (("RW0",), ("RW003",), tmp_path.resolve())
    path.write_text('[tool.rogerwilco.lint]\nselekt = ["RW0"]\n', encoding="utf-8")
    with pytest.raises(RW1Error, match="selekt"):
        load_config(path)
    assert load_config(None).select is None


def lint(capsys, *argv):
    code = main(["lint", *argv])
    return (code, *capsys.readouterr())


def test_cli_exit_codes(capsys, tmp_path):
    clean = tmp_path / "clean.rw1"
    clean.write_text(RULES["RW103"].good + "\n", encoding="utf-8")
    bad = tmp_path / "bad.rw1"
    bad.write_text(RULES["RW105"].bad + "\n", encoding="utf-8")
    assert lint(capsys, "--no-config", str(clean))[0] == 0
    code, out, _ = lint(capsys, "--no-config", str(bad))
    assert code == 1 and "RW105" in out
    assert lint(capsys, "--no-config", "--exit-zero", str(bad))[0] == 0
    assert lint(capsys, "--no-config", "--ignore", "RW105", str(bad))[0] == 0
    code, _, err = lint(capsys, "--no-config", "--select", "RW9", str(bad))
    assert code == 2 and "RW9" in err
    code, _, err = lint(capsys, "--no-config", str(tmp_path / "missing.rw1"))
    assert code == 2 and "Traceback" not in err


def test_cli_uses_the_nearest_pyproject(capsys, tmp_path, monkeypatch):
    bad = tmp_path / "bad.rw1"
    bad.write_text(RULES["RW105"].bad + "\n", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.rogerwilco.lint]\nignore = ["RW105"]\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert lint(capsys, str(bad))[0] == 0
    assert lint(capsys, "--no-config", str(bad))[0] == 1
    (tmp_path / "pyproject.toml").write_text('[tool.rogerwilco.lint]\nignore = "RW105"\n', encoding="utf-8")
    assert lint(capsys, str(bad))[0] == 2


def test_cli_json_and_github_formats(capsys, tmp_path):
    bad = tmp_path / "bad.rw1"
    bad.write_text(RULES["RW108"].bad + "\n", encoding="utf-8")
    code, out, _ = lint(capsys, "--no-config", "-f", "json-lines", str(bad))
    rows = [json.loads(x) for x in out.splitlines()]
    # the finding sits on the DN that reports the act after the cancel, caret under its id
    assert code == 1 and [r["code"] for r in rows] == ["RW108"] and (rows[0]["line"], rows[0]["column"]) == (4, 8)
    assert (rows[0]["token"], rows[0]["key"]) == ("builder-3", "ops-1")
    code, out, _ = lint(capsys, "--no-config", "-f", "github", str(bad))
    assert code == 1 and out.startswith("::error file=") and "title=rogerwilco (RW108)" in out


def test_list_rules(capsys):
    code, out, _ = lint(capsys, "--list-rules")
    assert code == 0 and all(code_ in out for code_ in RULES)


def test_the_docs_list_every_rule_with_its_examples():
    from pathlib import Path

    doc = (Path(__file__).parent.parent / "docs" / "lint.md").read_text(encoding="utf-8")
    for rule in RULES.values():
        assert f"### {rule.code} {rule.name}" in doc
        assert f"```\n{rule.bad}\n```" in doc and f"```\n{rule.good}\n```" in doc


def test_github_annotations_show_other_line_breakers_and_controls_as_escapes():
    assert escape_data("a\u2028b\x1b[31m\x85c") == "a\\u2028b\\x1b[31m\\x85c"


# ---- review fixes: anchors, fingerprints, directories, terminators ----------------------

HO = "RW1 HO ops-1 from=ops to=builder item=jira:OPS-7 ask=FIX"
RB = "RW1 RB builder-1 re=ops-1 from=builder to=ops item=jira:OPS-7 ask=FIX"


@pytest.mark.parametrize("code,line,token", [
    ("RW105", 4, "builder-3"),  # the second close
    ("RW108", 4, "builder-3"),  # the DN after the cancel
    ("RW109", 3, "auditor-1"),  # the CX from the wrong party
    ("RW110", 3, "ops-2"),  # the CX nobody answered
])
def test_a_cross_message_finding_sits_on_the_message_that_breaks_the_rule(code, line, token):
    lines = RULES[code].bad.split("\n")
    (f,) = [f for f in lint_stream(lines, now=NOW) if f.code == code]
    assert (f.line, f.token, f.key, f.text) == (line, token, "ops-1", lines[line - 1])
    assert f.column == lines[line - 1].index(" " + token) + 2
    buf = io.StringIO()
    make_console(buf, width=300, color=False).print(finding_text(f))
    shown = buf.getvalue().splitlines()
    assert shown[2].index("^") == shown[1].index(token) and shown[2].count("^") == len(token)


def test_distinct_offenders_have_distinct_fingerprints_that_survive_unrelated_lines():
    lines = [HO, RB, "RW1 CX auditor-1 re=ops-1 from=auditor to=builder item=jira:OPS-7 why=REVOKED",
             "RW1 CX auditor-2 re=ops-1 from=auditor to=builder item=jira:OPS-7 why=REVOKED"]
    found = [f for f in lint_stream(lines) if f.code == "RW109"]
    assert [(f.line, f.token) for f in found] == [(3, "auditor-1"), (4, "auditor-2")]
    assert len({f.fingerprint() for f in found}) == 2
    moved = lint_stream(["RW1 ST z-1 from=z to=q item=x:2"] + lines[:2] + ["RW1 ST z-2 from=z to=q item=x:3"] + lines[2:])
    assert {f.fingerprint() for f in found} == {f.fingerprint() for f in moved if f.code == "RW109"}


def test_the_same_broken_line_twice_gives_two_fingerprints():
    bad = "RW1 HO ops-1 from=ops to=b item=x:1 ask=FIXX"
    found = lint_stream([bad, "RW1 ST q-1 from=q to=b item=x:1", bad], select=["RW003"])
    assert [f.line for f in found] == [1, 3] and len({f.fingerprint() for f in found}) == 2
    assert found[0].fingerprint() == lint_stream([bad], select=["RW003"])[0].fingerprint()


def test_lint_walks_a_directory(capsys, tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "two.rw1").write_text(RULES["RW105"].bad + "\n", encoding="utf-8")
    (tmp_path / "one.rw1").write_text(RULES["RW003"].bad + "\n", encoding="utf-8")
    code, out, err = lint(capsys, "--no-config", "-f", "json-lines", str(tmp_path))
    rows = [json.loads(x) for x in out.splitlines()]
    assert code == 1 and "Is a directory" not in err
    assert [(r["file"], r["code"]) for r in rows] == [(str(tmp_path / "b" / "two.rw1"), "RW105"),
                                                     (str(tmp_path / "one.rw1"), "RW003")]
    code, out, _ = lint(capsys, "--no-config", "-f", "sarif", str(tmp_path))
    assert code == 1 and len(json.loads(out)["runs"][0]["results"]) == 2


def test_lines_given_as_strings_lose_their_terminator():
    clean = RULES["RW103"].good.split("\n")
    for ending in ("\n", "\r\n"):
        assert lint_stream([line + ending for line in clean]) == []


# One root cause, one finding: a refused HO is the finding; its readback echoing the refused code follows
# from it, and a reply naming it names a message that was sent.

REFUSED_HO = ["RW1 HO ops-1 from=ops to=builder item=jira:OPS-7 ask=DEPLOY",
              "RW1 RB builder-1 re=ops-1 from=builder to=ops item=jira:OPS-7 ask=DEPLOY",
              "RW1 DN builder-2 re=ops-1 from=builder to=ops item=jira:OPS-7 out=OK"]


@pytest.mark.parametrize("embedded", [False, True])
def test_a_reply_to_a_refused_message_names_a_message(embedded):
    findings = lint_stream(REFUSED_HO, embedded=embedded)
    assert [(f.code, f.line, f.cause) for f in findings] == [("RW003", 1, None), ("RW003", 2, "line 1 RW003")]


def test_a_refused_id_anchors_its_replies_in_every_part_of_the_stream():
    from rogerwilco.core.semantics import check_line
    from rogerwilco.core.vocab import Receiver
    from rogerwilco.io.lint import stream_findings

    lines = [*REFUSED_HO[2:], "RW1 ST ops-2 from=ops to=builder item=jira:OPS-8"]
    messages = (check_line(text, None, line_number=i) for i, text in enumerate(lines, 1))
    found = stream_findings(messages, "f.rw1", receiver=Receiver.all_bundled(), now=None, enabled=selected_rules(),
                            batch_lines=1, refused={"ops-1"})
    assert found == []


def test_a_consequence_is_told_in_every_format(capsys, tmp_path):
    bad = tmp_path / "bad.rw1"
    bad.write_text("\n".join(REFUSED_HO) + "\n", encoding="utf-8")
    code, out, _ = lint(capsys, "--no-config", str(bad))
    assert code == 1 and "[follows from line 1 RW003]" in out
    assert "2 findings in 1 file (1 root cause, 1 consequence)" in out and "RW102" not in out
    code, out, _ = lint(capsys, "--no-config", "-f", "json-lines", str(bad))
    assert [json.loads(x)["cause"] for x in out.splitlines()] == [None, "line 1 RW003"]
    code, out, _ = lint(capsys, "--no-config", "-f", "github", str(bad))
    assert "[follows from line 1 RW003]" in out.splitlines()[1] and "add p=deploy" in out.splitlines()[0]
    code, out, _ = lint(capsys, "--no-config", "-f", "sarif", str(bad))
    messages = [r["message"]["text"] for r in json.loads(out)["runs"][0]["results"]]
    assert "add p=deploy" in messages[0] and messages[1].endswith("[follows from line 1 RW003]")


@pytest.mark.parametrize("spooled", [False, True])
def test_check_thread_gives_a_reply_to_a_refused_line_no_second_finding(spooled):
    from rogerwilco.checks.thread import check_thread, check_thread_spooled

    if spooled:
        with check_thread_spooled(REFUSED_HO, now=NOW, batch_lines=1) as report:
            kinds = [f.kind for f in report.report().findings]
    else:
        kinds = [f.kind for f in check_thread(REFUSED_HO, now=NOW).findings]
    assert kinds == ["form", "form"]


@pytest.mark.parametrize("code,kind,line,token", [
    ("RW111", "act-before-wilco", 3, "builder-2"),  # the DN after a readback that failed
    ("RW112", "two-owners", 3, "ops-2"),  # the HO of an item handed to another agent in an open handoff
    ("RW113", "confirm-void", 3, "ops-2"),  # the go-ahead to a readback that failed
    ("RW114", "confirm-without-readback", 2, "ops-2"),  # the go-ahead before any readback
    ("RW116", "not-owner", 2, "builder-1"),  # the HO of an item offered and not read back
    ("RW117", "read-back", 4, "builder-2"),  # the readback of a re-send not traced to the one read back
])
def test_the_thread_checks_wrong_act_findings_are_lint_rules(code, kind, line, token):
    from rogerwilco.io.lint import THREAD_KINDS

    assert THREAD_KINDS[kind] == code
    lines = RULES[code].bad.split("\n")
    (f,) = [f for f in lint_stream(lines, now=NOW) if f.code == code]
    assert (f.line, f.token, f.text) == (line, token, lines[line - 1])


def test_an_unanswered_question_has_the_severity_check_thread_gives_it():
    # no by=: a warning in lint, a note in check-thread; past its by= at --now: an error, a fail
    from rogerwilco.checks.thread import check_thread

    for by, now, code, level, severity in ((None, NOW, "RW104", "warning", "note"),
                                           ("20261020", NOW, "RW104", "warning", "note"),
                                           ("20261001", None, "RW104", "warning", None),
                                           ("20261001", NOW, "RW115", "error", "fail")):
        aq = "RW1 AQ writer-1 from=writer to=research need=TEXT" + (f" by={by}" if by else "") + " // tone?"
        (finding,) = lint_stream([aq], now=now)
        assert (finding.code, finding.level) == (code, level)
        if severity is not None:
            (unanswered,) = [f for f in check_thread([aq], now=now).findings if f.kind == "unanswered"]
            assert unanswered.severity == severity


def test_a_file_with_no_rw1_line_says_so(capsys, tmp_path):
    """No finding in a file with no RW1 line means nothing was checked: the summary counts such files, and a
    file named on the command line gets a note (a log read for the RW1 lines inside it: validate reads every
    line as a message)."""
    garbage = tmp_path / "notes.txt"
    garbage.write_text("hello world\nfoo bar RW\n", encoding="utf-8")
    empty = tmp_path / "empty.rw1"
    empty.write_text("\n\n", encoding="utf-8")
    code, out, err = lint(capsys, "--no-config", str(garbage))
    assert code == 0
    assert out.strip().splitlines()[-1] == "1 file checked, no findings, 1 file with no RW1 line"
    assert err.startswith(f"rogerwilco: note: {garbage} holds no RW1 line") and "rogerwilco validate" in err
    code, out, err = lint(capsys, "--no-config", "-f", "json", str(empty))
    assert (code, out) == (0, "[]\n") and err == f"rogerwilco: note: {empty} holds no RW1 line: it is empty or blank\n"
    bad = tmp_path / "bad.rw1"
    bad.write_text(RULES["RW003"].bad + "\n", encoding="utf-8")
    code, out, err = lint(capsys, "--no-config", str(tmp_path))  # a folder (its .rw1 files): counted, no note
    assert code == 1 and err == ""
    assert out.strip().splitlines()[-1] == ("1 finding in 2 files (1 root cause, 0 consequences): RW003 unknown-code 1, "
                                            "1 file with no RW1 line")
    code, out, err = lint(capsys, "--no-config", str(bad))
    assert code == 1 and err == "" and "with no RW1 line" not in out


@pytest.mark.parametrize("embedded", [False, True])
def test_lint_stream_counts_the_rw1_lines_and_the_messages(embedded):
    lines = [RULES["RW003"].bad, "", "noise", RULES["RW103"].good.split("\n")[0]]
    if embedded:
        lines = [f"2026-10-01T00:00:0{n}Z INFO {line}" for n, line in enumerate(lines)]
    counts: dict = {}
    lint_stream(io.BytesIO("\n".join(lines).encode()), file="x.log" if embedded else "x.rw1", counts=counts)
    # the stream reads every non-blank line (noise is a refused line there); the log the RW1 lines alone
    assert counts == ({"lines": 2, "messages": 1} if embedded else {"lines": 3, "messages": 1})
