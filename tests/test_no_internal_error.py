"""No internal error, ever (issue: the new user, item 3).

Every subcommand is driven with broken input; the commands that need an
optional extra are run with that extra absent; output goes to an ASCII-only
stream. None may print "internal error" or a traceback: broken input exits
2 (or 1 for findings) with a message, a missing extra names its install
line, and characters the output encoding cannot hold come out as backslash
escapes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rogerwilco.front.cli import build_parser, main

ROOT = Path(__file__).resolve().parent.parent
NOWHERE = "/nonexistent/nothing.rw1"
BAD_LINE = "RW1 HO a-1 from=a"

BROKEN = {
    "adapter": None,  # reads stdin: driven in test_memory_bounds and test_fuzz
    "completion": ["completion", "ksh"],
    "conformance": ["conformance", "--", "/nonexistent/adapter"],
    "grammar": ["grammar", "--abnf", "extra-argument"],
    "parse": ["parse", NOWHERE],
    "encode": ["encode", NOWHERE],
    "validate": ["validate", NOWHERE],
    "digest": ["digest", BAD_LINE],
    "reply": ["reply", "--as", "b", "--n", "x", BAD_LINE],
    "lint": ["lint", NOWHERE],
    "mcp": ["mcp", "--no-such-option"],
    "lsp": ["lsp", "--no-such-option"],
    "legend": ["legend", "--profile", "nosuch"],
    "profile": ["profile", "check", NOWHERE],
    "check-src": ["check-src", NOWHERE, "--docs", NOWHERE],
    "check-rb": ["check-rb", "--ho", BAD_LINE, "--rb", BAD_LINE],
    "check-ho": ["check-ho", "--line", BAD_LINE, "--record", NOWHERE],
    "check-dn": ["check-dn", "--ho", BAD_LINE, "--dn", BAD_LINE],
    "make-rb": ["make-rb", "--ho", BAD_LINE, "--n", "1"],
    "scan": ["scan", NOWHERE],
    "schema": ["schema", "--profile", "nosuch"],
    "check-thread": ["check-thread", NOWHERE],
    "ledger": ["ledger", "status", "--ledger", NOWHERE],
    "report": ["report", NOWHERE, "-o", "/nonexistent/report.html"],
    "tool": ["tool", "status", "--store", NOWHERE],
    "to-json": ["to-json", BAD_LINE],
    "from-json": ["from-json", '{"v": "RW1", "type": "HO"'],
    "skill": ["skill", "--profile", "nosuch", "--out", NOWHERE],
}


def _subcommands() -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return sorted(sub.choices)


def test_every_subcommand_has_a_broken_input_case():
    assert sorted(BROKEN) == _subcommands()


@pytest.mark.parametrize("name", [n for n in sorted(BROKEN) if BROKEN[n] is not None])
def test_broken_input_gives_a_message_and_exit_2_never_an_internal_error(name, capsys):
    try:
        code = main(BROKEN[name])
    except SystemExit as exc:  # usage errors, as argparse gives them
        code = exc.code
    out, err = capsys.readouterr()
    assert code in (1, 2), (code, out, err)
    assert "internal error" not in out + err and "Traceback" not in out + err
    assert err.strip(), "a broken input is told why on stderr"


EXTRAS = [
    (["mcp"], ["mcp", "mcp.types", "mcp.server", "mcp.server.lowlevel", "mcp.server.stdio"], "rogerwilco[mcp]"),
    (["mcp"], ["anyio"], "rogerwilco[mcp]"),
    (["scan", "--output", "{tmp}/out.parquet", "{tmp}/log.txt"],
     ["pyarrow", "pyarrow.parquet"], "rogerwilco[parquet]"),
]


@pytest.mark.parametrize("argv,absent,hint", EXTRAS, ids=["mcp", "anyio", "parquet"])
def test_a_missing_extra_names_its_install_line(argv, absent, hint, monkeypatch, tmp_path, capsys):
    (tmp_path / "log.txt").write_text("RW1 HO a-1 from=a to=b item=x ask=FIX\n")
    for module in absent:
        monkeypatch.setitem(sys.modules, module, None)  # import now raises ImportError, as if not installed
    code = main([a.replace("{tmp}", str(tmp_path)) for a in argv])
    err = capsys.readouterr().err
    assert code == 2 and hint in err and "internal error" not in err, err


def test_any_other_missing_package_is_named_not_an_internal_error(monkeypatch, capsys):
    from rogerwilco.front.commands import lines

    def needs_a_package(args):
        import rogerwilco_no_such_package  # noqa: F401

    monkeypatch.setattr(lines, "cmd_digest", needs_a_package)
    assert main(["digest", "RW1 HO a-1 from=a to=b item=x ask=FIX"]) == 2
    assert "pip install rogerwilco_no_such_package" in capsys.readouterr().err


ASCII_CASES = [
    (["validate", "examples/spec-section8.rw1"], b""),
    (["validate", "-"], "RW1 HO a-1 from=a to=b item=x ask=FIXé // café ✓\n".encode()),
    (["parse", "-"], "RW1 HO a-1 from=a to=b item=x ask=FIX // café ✓ 😀\n".encode()),
    (["check-thread", "--now", "20261001T0000Z", "examples/spec-section8.rw1"], b""),
    (["legend", "--profile", "pay"], b""),
]


@pytest.mark.parametrize("argv,stdin", ASCII_CASES, ids=[" ".join(a[:1]) + str(i) for i, (a, _) in enumerate(ASCII_CASES)])
def test_output_to_an_ascii_stream_degrades_to_backslash_escapes(argv, stdin):
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "COLUMNS": "80"}
    proc = subprocess.run([sys.executable, "-m", "rogerwilco", *argv], input=stdin, capture_output=True, cwd=ROOT, env=env)
    assert proc.returncode in (0, 1), proc.stderr
    assert b"internal error" not in proc.stderr and b"Traceback" not in proc.stderr
    proc.stdout.decode("ascii")  # nothing the encoding cannot hold was written raw
    if "\u00e9".encode() in stdin:
        shown = proc.stdout + proc.stderr
        assert b"\\xe9" in shown or b"\\u00e9" in shown  # shown, as an escape
