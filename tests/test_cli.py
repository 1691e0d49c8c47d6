"""The core CLI: exit codes, formats, and no traceback ever."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rogerwilco.front.cli import main

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "examples" / "spec-section8.rw1"
HO = "RW1 HO research-01 from=research to=writer item=gh:crox/site#42 ask=DRAFT due=20261002 pri=2 conf=M keep=research // hero copy, 120 words, no em dashes"


def run(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rogerwilco", *args], input=stdin, capture_output=True, cwd=ROOT)


def test_validate_the_shipped_example_is_clean(capsys):
    assert main(["validate", str(SPEC)]) == 0
    assert "19 lines, 19 valid, 0 refused" in capsys.readouterr().out


def test_validate_reports_refusals_with_caret_and_exit_1(tmp_path, capsys):
    bad = tmp_path / "bad.rw1"
    bad.write_text("RW1 HO a-1 from=a to=b item=x ask=PAYY\n")
    assert main(["validate", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "bad.rw1:1:31: fail UNK [enum] ask=PAYY" in out
    assert out.splitlines()[2].strip() == "^" * len("ask=PAYY")


def test_validate_json_lines(tmp_path, capsys):
    bad = tmp_path / "mixed.rw1"
    bad.write_text(HO + "\nRW2 HO a-1 from=a to=b\n")
    assert main(["validate", "--format", "json", str(bad)]) == 1
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["valid"] for r in records] == [True, False]
    assert records[1]["findings"][0]["why"] == "VER" and records[1]["findings"][0]["token"] == "RW2"


def test_parse_then_encode_round_trips(capsys, tmp_path):
    assert main(["parse", str(SPEC)]) == 0
    forms = capsys.readouterr().out
    path = tmp_path / "forms.jsonl"
    path.write_text(forms)
    assert main(["encode", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 19
    assert lines[0] == SPEC.read_text().splitlines()[0]


def test_digest_and_reply(capsys):
    assert main(["digest", HO]) == 0
    assert capsys.readouterr().out.strip() == "c40bba4360dc"
    assert main(["reply", "--as", "writer", "--n", "9", "RW1 HO research-01 from=research to=writer item=x ask=PAYY"]) == 1
    assert capsys.readouterr().out.startswith("RW1 UN writer-9 re=research-01 from=writer to=research why=UNK // ask=PAYY ")
    assert main(["reply", "--as", "writer", "--n", "9", HO]) == 0
    assert capsys.readouterr().out == ""


def test_unreadable_input_and_usage_errors_exit_2_without_traceback():
    for args in (["validate", "/no/such/file"], ["digest", str(SPEC)], ["reply", "--as", "w", "--n", "1", "junk"],
                 ["validate", "--profile", "/no/profile.json", str(SPEC)], ["nosuchcommand"]):
        proc = run(*args)
        assert proc.returncode == 2, args
        assert b"Traceback" not in proc.stderr


def test_stdin_and_non_utf8_input():
    proc = run("validate", "-", stdin=b"RW1 HO a-1 from=a to=b item=x ask=DRAFT\n\xff\n")
    assert proc.returncode == 1
    assert b"<stdin>:2:1: fail UNK [encoding]" in proc.stdout
    assert b"Traceback" not in proc.stderr


def test_adapter_speaks_the_contract():
    requests = [
        {"op": "parse", "line": HO},
        {"op": "digest", "line": HO},
        {"op": "reply", "line": "RW1 HX a-1 from=a to=b", "as": "me", "n": 2},
        {"op": "nosuch"},
    ]
    proc = run("adapter", stdin=("\n".join(json.dumps(r) for r in requests) + "\nnot json\n").encode())
    responses = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert responses[0]["ok"] and responses[0]["json"]["slots"]["pri"] == 2
    assert responses[1] == {"ok": True, "h": "c40bba4360dc"}
    assert responses[2]["reply"].startswith("RW1 UN me-2 re=a-1 from=me to=a why=UNK // HX ")
    assert responses[3] == {"ok": False, "error": "unsupported"}
    assert responses[4]["ok"] is False


@pytest.mark.parametrize("args", [["--help"], ["validate", "--help"]])
def test_help(args, capsys):
    with pytest.raises(SystemExit) as info:
        main(args)
    assert info.value.code == 0
