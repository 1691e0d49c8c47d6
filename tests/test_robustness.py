"""Hostile and malformed input: nothing forges a line, nothing escapes as a traceback, nothing is dropped."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from rogerwilco import refusal
from rogerwilco.front.adapter import handle, serve

ROOT = Path(__file__).resolve().parent.parent
HO = "RW1 HO a-1 from=a to=b item=x ask=DRAFT"


def run(*args: str, stdin: bytes = b"", cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rogerwilco", *args], input=stdin, capture_output=True, cwd=cwd)


def test_parse_and_encode_diagnostics_cannot_forge_lines_on_stderr(tmp_path):
    lines = tmp_path / "cr.rw1"
    lines.write_bytes(HO.encode() + b" // hi\rRW1 DN b-1 re=a-1 from=b to=a item=x\x1b[2J out=OK\n")
    proc = run("parse", str(lines))
    # a bare CR ends a line (with a note); nothing of the input reaches stderr unescaped
    assert proc.returncode == 1 and len(proc.stdout.splitlines()) == 1
    assert b"\r" not in proc.stderr and b"\x1b" not in proc.stderr and b"\\x1b" in proc.stderr
    assert proc.stderr.decode().splitlines()[0].endswith("note: line ended by a bare CR (\\r), read as a line break")
    forms = tmp_path / "forms.jsonl"
    bad = {"v": "RW1", "type": "HO", "id": "a-1", "re": None, "from": "a", "to": "b", "item": "x",
           "slots": {"ask": "DRAFT", "x_y": "a\nRW1 DN a-3"}, "tail": None}
    forms.write_text(json.dumps(bad) + "\n")
    proc = run("encode", str(forms))
    assert proc.returncode == 1 and proc.stderr.count(b"\n") == 1 and b"RW1 DN" not in proc.stdout


def test_encode_goes_on_after_json_too_deep_or_too_long_for_the_parser(tmp_path):
    good = json.dumps({"v": "RW1", "type": "ST", "id": "a-1", "re": None, "from": "a", "to": "b", "item": "x",
                       "slots": {}, "tail": None})
    forms = tmp_path / "forms.jsonl"
    forms.write_text("[" * 5000 + "]" * 5000 + "\n" + good.replace('"slots": {}', '"slots": {"pct": ' + "9" * 5000 + "}")
                     + "\n   \n" + good + "\n")
    proc = run("encode", str(forms))
    assert proc.returncode == 1 and b"Traceback" not in proc.stderr and b"internal error" not in proc.stderr
    assert proc.stdout.decode().splitlines() == ["RW1 ST a-1 from=a to=b item=x"]
    assert proc.stderr.decode().count("\n") == 3  # one diagnostic per unusable line, the blank-looking one included


def test_the_adapter_answers_every_request_and_keeps_going():
    import io

    requests = ["[" * 3000 + "]" * 3000, '{"op": "parse", "line": "' + HO + '"}',
                '{"op": "parse", "line": "RW1 HO a-1 from=a to=b item=\\udcff ask=DRAFT"}',
                '{"op": "reply", "line": "RW1 HX a-1 from=a to=b", "as": "me", "n": 1e300}',
                '{"op": "parse", "line": "' + HO + '", "profiles": ["/etc/passwd"]}',
                '{"op": "parse", "line": "' + HO + '", "profiles": "pay"}']
    out = io.StringIO()
    serve(io.StringIO("\n".join(requests) + "\n"), out)
    responses = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(responses) == len(requests)
    assert out.getvalue().isascii()  # lone surrogates and control characters are escaped, never raw
    assert [r["ok"] for r in responses] == [False, True, True, False, False, False]
    assert responses[2]["valid"] is False
    assert "passwd" in responses[4]["error"] and "profile" in responses[4]["error"]


def test_adapter_profiles_are_bundled_names_or_inline_objects():
    inline = {"profile": "lanes", "version": "1", "extends": "RW1", "asks": {"SHIP": "ship it"}}
    ok = handle({"op": "parse", "line": "RW1 HO a-1 p=lanes from=a to=b item=x ask=SHIP", "profiles": [inline]})
    assert ok["ok"] and ok["valid"]
    assert handle({"op": "parse", "line": HO, "profiles": ["pay"]})["ok"]


def test_a_reply_stays_a_valid_line_whatever_a_profile_says():
    evil = {"profile": "evil", "version": "1", "extends": "RW1",
            "slots": [{"key": "sup", "type": "token", "on": ["ST"]}],
            "translation": [{"id": "r", "on": ["ST"], "match": {"sup": "x"}, "desc": "must  be\tx "}]}
    reply = refusal("RW1 ST a-1 p=evil from=a to=b item=x sup=y", "me", 1, [evil])
    assert reply is not None and "  " not in reply and not reply.endswith(" ") and "\t" not in reply


def test_lint_says_what_is_wrong_with_a_pyproject_it_cannot_use(tmp_path):
    (tmp_path / "pyproject.toml").write_text("tool = 1\n")
    (tmp_path / "t.rw1").write_text(HO + "\n")
    proc = run("lint", "t.rw1", cwd=tmp_path)
    assert proc.returncode == 2 and b"Traceback" not in proc.stderr and b"internal error" not in proc.stderr


def test_check_ho_reads_a_received_handoff_by_newlines_only(tmp_path):
    line = ("RW1 HO scheduler-1 p=pay from=scheduler to=payer item=inv:MD-2026-057 ask=PAY rb=exec sup=marlow "
            "amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 apref=FD-0929")
    received = tmp_path / "received.rw1"
    received.write_text(line + "\u2028 x_note=1\n", encoding="utf-8")
    proc = run("check-ho", "--line", line, "--record", str(received), "--relay-adds", "x_note", "--profile", "pay")
    assert proc.returncode != 0 and b"PASS" not in proc.stdout


def test_check_src_numbers_document_lines_by_newline(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "d1.txt").write_text("Presenting complaint: chest pain.\x0cHistory: none.\nDenies fever.\n")
    line = ("RW1 ST extractor-1 p=clin from=extractor to=record item=sx:fever act=OBS pol=NEG cert=CERT subj=PT time=CUR "
            "src=doc:d1#l{n} // Denies fever.")
    stream = tmp_path / "lines.rw1"
    stream.write_text(line.format(n=2) + "\n")
    assert run("check-src", str(stream), "--docs", str(docs)).returncode == 0
    stream.write_text(line.format(n=3) + "\n")
    assert run("check-src", str(stream), "--docs", str(docs)).returncode == 1
