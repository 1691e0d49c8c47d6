"""Cold start: a CLI run loads only what it uses (benchmarks/startup.py times it).

What a run imports is asserted here, never how long it takes.
"""

from __future__ import annotations

import argparse
import importlib
import io
import subprocess
import sys

import pytest

from rogerwilco.front import cli
from rogerwilco.front.render import make_console
from rogerwilco.front.render.lines import finding_parts, finding_text, plain, summary_parts, summary_text
from rogerwilco.core.semantics import check_line

VALID = "RW1 HO research-01 from=research to=writer item=gh:crox/site#42 ask=DRAFT due=20261002 pri=2"


def test_the_command_table_names_every_subcommand_and_its_module() -> None:
    registered: dict[str, str] = {}
    for name in cli._command_module_names():
        sub = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(f"rogerwilco.front.commands.{name}").register(sub)
        for command in sub.choices:
            registered[command] = name
    assert registered == cli._COMMAND_MODULES


@pytest.mark.parametrize("argv,command", [
    (["validate", "x"], "validate"), (["--color", "never", "scan", "x"], "scan"), (["--color=never", "parse"], "parse"),
    (["--help"], None), (["--version"], "--version"), (["-h", "validate"], None), (["validate", "--version"], "validate"), ([], None), (["nonsense"], "nonsense"),
])
def test_the_subcommand_is_found_before_parsing(argv: list[str], command: str | None) -> None:
    assert cli._command_of(argv) == command


def test_a_parser_for_one_command_parses_it_as_the_full_parser_does() -> None:
    argv = ["validate", "--format", "json", "-q", "f.rw1"]
    assert vars(cli.build_parser("validate").parse_args(argv)) == vars(cli.build_parser().parse_args(argv))


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


def _after_validating_a_line(tmp_path, probe: str) -> str:
    """The last line ``probe`` prints after ``rogerwilco validate`` of one valid line, in a fresh interpreter
    (``code`` holds the command's exit status)."""
    path = tmp_path / "one.rw1"
    path.write_text(VALID + "\n", encoding="utf-8")
    out = _run("import sys\nfrom rogerwilco.front.cli import main\n" f"code = main(['validate', {str(path)!r}])\n" + probe)
    return out.splitlines()[-1]


def test_validating_a_valid_line_loads_neither_rich_nor_lark_nor_other_commands(tmp_path) -> None:
    last = _after_validating_a_line(
        tmp_path,
        "mods = sorted(m for m in sys.modules if m.split('.')[0] in ('rich', 'lark') or m.startswith('rogerwilco.front.commands.'))\n"
        "print(code, ' '.join(mods))\n")
    assert last == "0 rogerwilco.front.commands._common rogerwilco.front.commands._help rogerwilco.front.commands.lines"


def test_validating_a_valid_line_loads_no_module_it_does_not_use(tmp_path) -> None:
    """Not the accept path (loads binds it on first use), nor what importlib.abc, pkgutil and argparse's
    terminal width would pull in (importlib.resources, tempfile, shutil with bz2 and lzma), nor pathlib (with
    urllib.parse and ipaddress: the data files are found with os.path), nor what only a mistyped word, the help
    or the sum rule uses (difflib, textwrap, decimal), nor what only an ``exp`` time or a documented short path
    uses (datetime, importlib.util)."""
    unused = ("rogerwilco.core.accept", "rogerwilco.core.speedups", "importlib.resources", "tempfile", "shutil",
              "bz2", "lzma", "pkgutil", "pathlib", "urllib.parse", "ipaddress", "difflib", "textwrap", "decimal",
              "datetime", "importlib.util")
    assert _after_validating_a_line(tmp_path, f"print(code, [m for m in {unused!r} if m in sys.modules])\n") == "0 []"


def test_a_run_of_one_command_builds_only_that_commands_parser() -> None:
    """The lines module registers seven commands; a run of validate builds validate's parser alone."""
    sub = cli.build_parser("validate")._subparsers._group_actions[0]  # type: ignore[union-attr]
    assert list(sub.choices) == ["validate"]
    assert sorted(cli.build_parser()._subparsers._group_actions[0].choices) == sorted(cli._COMMAND_MODULES)  # type: ignore[union-attr]


def test_validating_an_ascii_line_compiles_only_the_ascii_regex(tmp_path) -> None:
    """The whole-line regex for any line spans all of Unicode and is costly to compile; an ASCII line needs only
    its ASCII form."""
    probe = ("from rogerwilco.core import syntax\n"
             "print(code, syntax.ascii_line_regex.cache_info().currsize, syntax.line_regex.cache_info().currsize)\n")
    assert _after_validating_a_line(tmp_path, probe) == "0 1 0"


def test_loads_binds_the_accept_path_on_first_use() -> None:
    out = _run("import sys, rogerwilco\n"
               "before = 'rogerwilco.core.speedups' in sys.modules\n"
               "from rogerwilco import loads\n"
               "m = loads('RW1 HO a-1 from=a to=b item=x ask=FIX')\n"
               "print(before, 'rogerwilco.core.speedups' in sys.modules, loads is rogerwilco.loads, loads.__name__, m.id)")
    assert out.strip() == "False True True loads a-1"


def test_the_first_loads_loads_no_module_it_does_not_use() -> None:
    """A program's first ``loads`` binds the accept path (and the C scanner where it is built), not pathlib (with
    urllib.parse and ipaddress) nor decimal, which only a sum rule the scanner leaves to Python uses."""
    unused = ("pathlib", "urllib.parse", "ipaddress", "decimal")
    out = _run("import sys, rogerwilco\n"
               f"rogerwilco.loads({VALID!r})\n"
               f"print('rogerwilco.core.speedups' in sys.modules, [m for m in {unused!r} if m in sys.modules])")
    assert out.strip() == "True []"


def test_importing_the_package_loads_no_scan_no_rich_no_lark() -> None:
    out = _run("import sys, rogerwilco\n"
               "print(sorted(m for m in sys.modules if m.split('.')[0] in ('rich', 'lark') or m.startswith('rogerwilco.io.scan')))")
    assert out.strip() == "[]"


@pytest.mark.parametrize("line", [
    VALID, VALID.replace("DRAFT", "DRAFTY"), VALID + " colour=red", "RW1 HO a-1 from=a  to=b", "RW1 HO a\x1b[31m-1",
    "RW1 HO a-1 from=a to=b item=x ask=DRAFT // caf\u00e9 \u4e2d\u6587 " + "w" * 200,
])
def test_a_plain_report_is_what_a_console_without_colour_writes(line: str) -> None:
    result = check_line(line, line_number=4)
    buffer = io.StringIO()
    console = make_console(buffer, color=False)
    expected: list[str] = []
    for finding in result.findings:
        console.print(finding_text(result, finding, "f.rw1"))
        expected.append(plain(finding_parts(result, finding, "f.rw1")))
    counts = {"lines": 1, "valid": int(result.message is not None), "refused": 0, "notes": 2}
    console.print(summary_text(counts))
    expected.append(plain(summary_parts(counts)))
    assert buffer.getvalue() == "".join(text + "\n" for text in expected)


@pytest.mark.parametrize("pattern", [
    "[!-~\u00a1-\u061b\u061d-\u167f\u1681-\u1fff\u200b-\u200d\u2010-\u2027\u2030-\u205e\u2060-\u2065\u206a-\u2fff"
    "\u3001-\ud7ff\ue000-\U0010ffff]",
    "[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]", "[0-9]", "[^a-z]", "[\\w.]", "[\\]a-]", "(?:[!-\U0010ffff])+",
    "(?:[a-z]|[0-9]|_)", "(?:(?:[!-~\u00a1-\U0010ffff]|[\u00a0\u3000]))+", "(?:[a-z]|\\w)", "(?:a|bc)", "(?:[ab]|(?:c|d))",
])
def test_a_compacted_character_class_holds_the_same_characters(pattern: str) -> None:
    import re

    from rogerwilco.core.syntax import compact_classes

    before, after = re.compile(pattern), re.compile(compact_classes(pattern))
    probes = set(range(0x3100)) | {c + d for c in (0xD7FF, 0xE000, 0xFFFF, 0x10FFFF, 0x1F600) for d in (-1, 0, 1)}
    for code in sorted(c for c in probes if 0 <= c <= sys.maxunicode):
        assert bool(before.fullmatch(chr(code))) == bool(after.fullmatch(chr(code))), hex(code)
