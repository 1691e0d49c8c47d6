"""What a new user meets in the API and the CLI (issue: the first five minutes).

Each test names the item of the issue it proves; the closing note lists them.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

import rogerwilco
import rogerwilco.checks.readback
from rogerwilco.front.cli import main

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "examples" / "spec-section8.rw1"
PAY = "RW1 HO scheduler-1 from=scheduler to=payer item=inv:1 p=pay ask=PAY amt=1.00 ccy=EUR acct=DE1 due=20260101"


# 1. One default for profiles -------------------------------------------------

def test_the_api_holds_the_bundled_profiles_by_default_as_the_cli_does(capsys):
    with SPEC.open("rb") as fh:
        api_valid = sum(r.message is not None for r in rogerwilco.load(fh))
    assert main(["validate", str(SPEC)]) == 0
    cli = capsys.readouterr().out
    assert f"{api_valid} valid, 0 refused" in cli and api_valid == 19
    assert rogerwilco.loads(PAY).profile == "pay"
    assert rogerwilco.check_line(PAY).valid


def test_a_receiver_that_wants_fewer_profiles_says_so_and_is_told_the_fix():
    with pytest.raises(rogerwilco.RefusedError) as info:
        rogerwilco.loads(PAY, ())
    text = str(info.value)
    assert "p=pay" in text and "profiles=['pay']" in text and "--profile pay" in text
    with pytest.raises(rogerwilco.RefusedError, match="p=zz .*profile object"):
        rogerwilco.loads(PAY.replace("p=pay", "p=zz"))
    assert rogerwilco.loads(PAY, ["pay"]).profile == "pay"


# 2. Verdicts that say what they checked (D12) --------------------------------

README_HO = ("RW1 HO research-01 from=research to=writer item=gh:crox/site#42 ask=DRAFT due=20261002 rb=acc "
             "keys=len+tone+must+no art=url:https://example.com/brief // hero copy")
README_RB = ("RW1 RB writer-01 re=research-01 from=writer to=research item=gh:crox/site#42 ask=DRAFT due=20261002 "
             "acc=len:120w+tone:plain+must:monday-problem+no:em-dash+fmt:md do=copy")
RESOLVED = (ROOT / "examples" / "readback" / "05-resolved-account.rw1").read_text().splitlines()


def test_a_pass_with_an_asked_tier_unchecked_says_so_and_strict_exits_1(capsys):
    assert main(["check-rb", "--ho", README_HO, "--rb", README_RB]) == 0
    verdict = capsys.readouterr().out.splitlines()[0]
    assert "WILCO" in verdict and "tier 4 not checked" in verdict and "--expect-acc" in verdict
    assert main(["check-rb", "--strict", "--ho", README_HO, "--rb", README_RB]) == 1
    capsys.readouterr()
    assert main(["check-rb", "--strict", "--ho", README_HO, "--rb", README_RB,
                 "--expect-acc", "len:120w+tone:plain+must:monday-problem+no:em-dash"]) == 0
    assert "passes every tier asked for" in capsys.readouterr().out


def test_a_resolved_value_without_a_record_leaves_tier_5_unchecked(capsys):
    report = rogerwilco.readback.check_rb(RESOLVED[0], RESOLVED[1])
    assert report.passed and report.unchecked == (5,) and report.resolved_unchecked == ("acct",)
    assert main(["check-rb", "--ho", RESOLVED[0], "--rb", RESOLVED[1], "-f", "json"]) == 0
    assert '"unchecked": [5]' in capsys.readouterr().out
    assert main(["check-rb", "--strict", "--ho", RESOLVED[0], "--rb", RESOLVED[1]]) == 1
    assert "tier 5 not checked" in capsys.readouterr().out
    record = str(ROOT / "examples" / "readback" / "05-record.json")
    assert main(["check-rb", "--strict", "--ho", RESOLVED[0], "--rb", RESOLVED[1], "--record", record]) == 1
    assert "VOID" in capsys.readouterr().out  # the record holds another account: a fail, not an unchecked


# 7. The traps ------------------------------------------------------------------

def test_tool_commands_refuse_a_store_that_does_not_exist(tmp_path, capsys):
    typo = tmp_path / "typo.db"
    assert main(["tool", "status", "--store", str(typo)]) == 2
    assert "no store at" in capsys.readouterr().err and not typo.exists()


def test_tool_commit_usage_says_exec_comes_last(capsys):
    with pytest.raises(SystemExit):
        main(["tool", "commit", "--help"])
    assert "--exec comes last" in capsys.readouterr().out


def test_an_in_doubt_statement_is_settled_by_hand_with_who_and_when(tmp_path, capsys):
    from tests.test_tool import HO, NOON

    from rogerwilco.front.tool import ToolRefused, ToolStore

    path = tmp_path / "store.db"
    store = ToolStore.open(path)
    prepared = store.prepare(HO, now=NOON)
    die = tmp_path / "die.py"
    die.write_text("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    with pytest.raises(ToolRefused):
        store.commit(prepared.token, [__import__("sys").executable, str(die)], now=NOON)
    assert store.status(prepared.token)[0].state == "in-doubt"
    assert main(["tool", "resolve", prepared.token, "--store", str(path), "--did-not-run",
                 "--note", "bank shows no payment", "--by", "ops-ana"]) == 0
    settled = store.status(prepared.token)[0]
    assert settled.state == "abandoned"
    assert "settled by hand by ops-ana at" in settled.detail and "did not run" in settled.detail
    assert "bank shows no payment" in settled.detail
    assert main(["tool", "resolve", prepared.token, "--store", str(path), "--ran", "--note", "x"]) == 1
    assert "not in doubt" in capsys.readouterr().err


def test_unknown_profile_names_list_the_bundled_ones(capsys):
    assert main(["validate", "--profile", "nosuch", "/dev/null"]) == 2
    assert "pay, clin, pform" in capsys.readouterr().err


def test_records_as_json_say_the_expected_type_in_words_never_a_repr(tmp_path, capsys):
    ho = ("RW1 HO scheduler-1 p=pay from=scheduler to=payer item=inv:MD-2026-057 ask=PAY rb=exec sup=marlow "
          "amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 apref=FD-0929")
    record = {"item": "inv:MD-2026-057", "sup": None, "amt": 5400, "cur": "GBP", "kind": "GROSS",
              "acct": "40-12-88/61102938", "paid": "20261002", "ref": "MD-2026-057", "apref": "FD-0929"}
    path = tmp_path / "record.json"
    path.write_text(__import__("json").dumps(record))
    assert main(["check-ho", "--line", ho, "--record", str(path)]) == 2
    err = capsys.readouterr().err
    assert 'amt: the record gives the number 5400; amt is an amount as a string, like "5400.00"' in err
    assert "sup: the record gives null" in err and "None" not in err
    record.update(sup="marlow", amt="5400.00")
    path.write_text(__import__("json").dumps(record))
    assert main(["check-ho", "--line", ho, "--record", str(path)]) == 0


def test_legend_takes_a_profile_name():
    from rogerwilco.core.legend import legend

    assert legend("pay", lean=True).startswith("RW1 legend, profile pay")
    assert legend().startswith("RW1 legend, core")


def test_counts_agree_with_their_nouns(tmp_path, capsys):
    one = tmp_path / "one.rw1"
    one.write_text("RW1 HO a-1 from=a to=b item=x ask=FIX\n")
    assert main(["validate", str(one)]) == 0
    assert "1 line, 1 valid, 0 refused, 0 notes" in capsys.readouterr().out


# 5. Input help -------------------------------------------------------------------

def test_a_trailing_cr_on_a_line_argument_is_stripped_with_a_note(capsys):
    assert main(["digest", "RW1 HO a-1 from=a to=b item=x ask=FIX\r"]) == 0
    out, err = capsys.readouterr()
    assert out.strip() == rogerwilco.loads("RW1 HO a-1 from=a to=b item=x ask=FIX").digest()
    assert "note:" in err and "CR" in err


@pytest.mark.parametrize("command", ["parse", "check-thread"])
def test_a_line_where_a_file_is_expected_is_recognised(command, capsys):
    assert main([command, "RW1 HO a-1 from=a to=b item=x ask=FIX"]) == 2
    err = capsys.readouterr().err
    assert "is a line, not a file" in err and "| rogerwilco" in err


def test_directories_and_compressed_files_point_to_scan(tmp_path, capsys):
    gz = tmp_path / "log.rw1.gz"
    gz.write_bytes(b"\x1f\x8b")
    assert main(["validate", str(tmp_path)]) == 2
    assert "rogerwilco scan" in capsys.readouterr().err
    assert main(["validate", str(gz)]) == 2
    assert "is compressed: `rogerwilco scan" in capsys.readouterr().err


def test_validate_on_a_terminal_says_it_is_reading_stdin(monkeypatch, capsys):
    class Terminal(io.StringIO):
        buffer = io.BytesIO(b"")

        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("sys.stdin", Terminal())
    assert main(["validate"]) == 0
    assert "reading lines from standard input" in capsys.readouterr().err


# 4. Output that fits ----------------------------------------------------------------

def _render(renderable, width: int) -> str:
    from rogerwilco.front.render import make_console

    out = io.StringIO()
    make_console(out, width=width, color=False).print(renderable)
    return out.getvalue()


def _reports():
    from rogerwilco.front.render.lint import rules_table
    from rogerwilco.front.render.readback import report_renderable
    from rogerwilco.front.render.thread import statements_table, thread_report
    from rogerwilco.checks.thread import check_thread
    from rogerwilco.front.tool import Statement

    long_item = "gh:crox/a-rather-long-repository-name#4242"
    ho = f"RW1 HO research-team-0001 from=research-team to=writer-team item={long_item} ask=DRAFT rb=acc"
    rb = (f"RW1 RB writer-team-0001 re=research-team-0001 from=writer-team to=research-team item={long_item}9 "
          "ask=DRAFT acc=len:120w")
    token = "tok-" + "9f" * 16
    statement = Statement(token=token, ho="scheduler-0001", item="inv:MD-2026-057-SUPPLIER-LONG", agent="payer",
                          state="in-doubt", exp="20261002T1200Z", values={}, rb=None, reply=None,
                          detail="executor started 2026-10-02T11:00:00 by process 4242; no result recorded",
                          started_at=None)
    return [
        (report_renderable(rogerwilco.readback.check_rb(ho, rb, expect_acc="len:150w")),
         [long_item, long_item + "9", "research-team-0001", "writer-team-0001"]),
        (thread_report(check_thread([ho, rb.replace("9 ", " ")], now="20261001T0000Z")),
         [long_item, "research-team-0001", "writer-team-0001"]),
        (statements_table([statement]), [token, "inv:MD-2026-057-SUPPLIER-LONG", "scheduler-0001"]),
        (rules_table(), []),
    ]


@pytest.mark.parametrize("width", [40, 80, 200])
def test_tables_fold_content_and_never_split_or_elide_a_token(width):
    for renderable, tokens in _reports():
        text = _render(renderable, width)
        lines = text.splitlines()
        assert all(len(line) <= width for line in lines), (width, max(lines, key=len))
        assert "\u2026" not in text  # nothing elided
        for token in tokens if width >= 80 else ():  # a token wider than the console itself must fold
            assert any(token in line for line in lines), (width, token, text)


def test_every_table_has_one_style():
    for renderable, _ in _reports():
        text = _render(renderable, 200)
        assert not any(ch in text for ch in "─│┃━┏┡╭"), text  # ASCII rules only


# 6. Help that teaches -----------------------------------------------------------------

def _subparsers():
    from rogerwilco.front.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return sub.choices


@pytest.mark.parametrize("name", sorted(_subparsers()))
def test_every_subcommand_help_has_a_description_two_examples_and_exit_codes(name):
    text = _subparsers()[name].format_help()
    description = _subparsers()[name].description or ""
    assert len(description.split()) >= 8, name
    examples = text.split("examples:", 1)[1].split("exit codes:", 1)[0]
    assert len([line for line in examples.splitlines() if line.strip().startswith("rogerwilco")]) >= 2
    assert "exit codes: 0" in text


def test_no_arguments_prints_a_quick_start_and_exits_0(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    assert "Quick start" in out and "rogerwilco validate examples/spec-section8.rw1" in out


def test_python_dash_m_with_no_arguments_prints_the_quick_start():
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "rogerwilco"], capture_output=True, cwd=ROOT)
    assert proc.returncode == 0 and b"Quick start" in proc.stdout


@pytest.mark.parametrize("shell", ["bash", "zsh", "tcsh", "fish"])
def test_completion_scripts_name_every_command(shell, capsys):
    assert main(["completion", shell]) == 0
    script = capsys.readouterr().out
    for name in _subparsers():
        assert name in script
    assert "expect-acc" in script and "resolve" in script


def test_the_bash_completion_script_is_valid_bash_and_completes(tmp_path, capsys):
    # sourced in bash, its completion function completes subcommands, verbs, options, choices and file names
    import shutil
    import subprocess

    bash = shutil.which("bash")
    assert bash is not None
    assert main(["completion", "bash"]) == 0
    (tmp_path / "handoff.rw1").write_text("")
    script = tmp_path / "c.bash"
    asks = [("rogerwilco", "val"), ("rogerwilco", "tool", "pr"), ("rogerwilco", "check-rb", "--str"),
            ("rogerwilco", "completion", "tc"), ("rogerwilco", "validate", str(tmp_path / "hand"))]
    calls = "".join(f"COMP_WORDS=({' '.join(words)}); COMP_CWORD={len(words) - 1}; COMP_LINE='{' '.join(words)}'; "
                    'COMPREPLY=(); _shtab_rogerwilco; echo "${COMPREPLY[@]}"\n' for words in asks)
    script.write_text(capsys.readouterr().out + "\n" + calls)
    proc = subprocess.run([bash, str(script)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["validate", "prepare", "--strict", "tcsh", str(tmp_path / "handoff.rw1")]
    assert "complete -o bashdefault -F _shtab_rogerwilco rogerwilco" in script.read_text()


def test_completion_without_shtab_names_the_install_line(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "shtab", None)
    assert main(["completion", "bash"]) != 0
    err = capsys.readouterr().err
    assert "pip install 'rogerwilco[completion]'" in err and "Traceback" not in err


def test_color_always_never_and_no_color(tmp_path, capsys, monkeypatch):
    bad = tmp_path / "bad.rw1"
    bad.write_text("RW1 HO a-1 from=a to=b item=x ask=FIXX\n")
    assert main(["--color", "always", "validate", str(bad)]) == 1
    assert "\x1b[" in capsys.readouterr().out
    assert main(["--color", "never", "validate", str(bad)]) == 1
    assert "\x1b[" not in capsys.readouterr().out
    monkeypatch.setenv("NO_COLOR", "1")
    assert main(["validate", str(bad)]) == 1
    assert "\x1b[" not in capsys.readouterr().out
    main(["--color", "auto", "validate", str(bad)])
    assert "\x1b[" not in capsys.readouterr().out


# 9. Agents ---------------------------------------------------------------------------------

def test_session_tools_have_titles_and_annotations_too():
    from rogerwilco.checks.endpoint import Endpoint
    from rogerwilco.front.mcp_server import TOOL_META, TOOLS, listed_tools, session_tools

    tools = {**TOOLS, **session_tools(Endpoint("x"))}
    assert set(tools) <= set(TOOL_META)
    listed = {t.name: t for t in listed_tools(tools)}
    assert listed["receive"].annotations.read_only_hint is False
    assert listed["owner"].annotations.read_only_hint is True
    assert "oneOf" not in listed["send"].input_schema and listed["tick"].annotations.read_only_hint is True


def test_a2a_agent_card_declares_the_extension_once():
    import a2a.types

    from rogerwilco.front.a2a import EXTENSION_URI, declare_extension

    card = {"name": "payer", "capabilities": {"streaming": False}}
    declare_extension(card, profiles=["pay"], line_only=True)
    declare_extension(card, profiles=["pay"], line_only=True)
    (entry,) = card["capabilities"]["extensions"]
    assert entry["uri"] == EXTENSION_URI and entry["params"] == {"profiles": ["pay"], "lineOnly": True}
    sdk = declare_extension(a2a.types.AgentCard(name="payer"), required=True)
    declare_extension(sdk, required=True)
    assert [e.uri for e in sdk.capabilities.extensions] == [EXTENSION_URI] and sdk.capabilities.extensions[0].required


def test_a2a_line_only_mode_reads_a_plain_text_part_and_says_it_was_not_cross_checked():
    from rogerwilco.front.a2a import from_a2a_dict, to_a2a_dict

    plain = {"role": "ROLE_USER", "parts": [{"text": PAY + "\n"}]}
    assert from_a2a_dict(plain).refusal.kind == "missing-part"  # the strict default is unchanged
    out = from_a2a_dict(plain, line_only=True)
    assert out.ok and out.message == rogerwilco.loads(PAY)
    assert [f.kind for f in out.findings if f.kind == "not-cross-checked"] == ["not-cross-checked"]
    bad = from_a2a_dict({"parts": [{"text": "RW1 HO a-1 from=a"}]}, line_only=True)
    assert not bad.ok and bad.refusal.kind == "form"
    both = from_a2a_dict(to_a2a_dict(PAY, message_id="m-1"), line_only=True)  # marked parts: cross-checked as ever
    assert both.ok and not any(f.kind == "not-cross-checked" for f in both.findings)
    chat = from_a2a_dict({"parts": [{"text": "please pay this:\n" + PAY}]}, line_only=True)
    assert not chat.ok  # only a part holding just the line is read


def _help_examples():
    from rogerwilco.front.commands._help import HELP, NOT_RUN

    return [(name, example) for name, (_, examples, _) in sorted(HELP.items()) if name not in NOT_RUN
            for example in examples]


@pytest.mark.parametrize("name,example", _help_examples(), ids=[e for _, e in _help_examples()])
def test_every_help_example_runs_against_shipped_files(name, example, tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("doc_snippets_help", ROOT / "docs" / "snippets.py")
    snippets = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(snippets)
    proc = snippets.run_shell(example, snippets.scratch(tmp_path / "cwd"))
    out = proc.stdout + proc.stderr
    assert proc.returncode in (0, 1), out[-2000:]
    assert not any(bad in out for bad in ("internal error", "Traceback", "No such file", "cannot read")), out[-2000:]
