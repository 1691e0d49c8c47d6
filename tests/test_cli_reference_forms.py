"""The reference codec's command forms (``rogerwilco`` 0.3.0) beside this package's own, with its exit codes.

0 valid (or the check passes), 1 an error found, 2 usage. A line given where
a file goes, a file where a line goes, and malformed JSON are named, never
read as something else.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import rogerwilco as rw
from rogerwilco.front.cli import main

HO = "RW1 HO research-01 from=research to=writer item=gh:crox/site#42 ask=DRAFT due=20261002"
RB_BAD = "RW1 RB writer-1 re=research-01 from=writer to=research item=gh:crox/site#42 ask=FIX due=20261002"
RECORD = {"sup": "marlow", "amt": "5400.00", "cur": "GBP", "kind": "GROSS", "acct": "40-12-88/61102938",
          "paid": "20261002", "ref": "MD-2026-057", "apref": "FD-0929"}
PAY_HO = ("RW1 HO scheduler-1 p=pay from=scheduler to=payer item=inv:MD-2026-057 ask=PAY rb=exec sup=marlow "
          "amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 apref=FD-0929")


def test_validate_takes_a_line(capsys):
    assert main(["validate", HO]) == 0
    assert "1 line, 1 valid, 0 refused" in capsys.readouterr().out
    assert main(["validate", HO.replace("DRAFT", "DANCE")]) == 1
    assert "ask=DANCE" in capsys.readouterr().out


def test_validate_strict_fails_on_a_note(capsys):
    assert main(["validate", HO + " zz=1"]) == 0
    assert main(["validate", "--strict", HO + " zz=1"]) == 1


def test_validate_still_takes_a_file(tmp_path, capsys):
    stream = tmp_path / "a.rw1"
    stream.write_text(HO + "\n", encoding="utf-8")
    assert main(["validate", str(stream)]) == 0


def test_a_line_is_a_line_even_where_a_file_of_that_name_exists(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / HO.replace("/", "_")).write_text("not a message\n", encoding="utf-8")
    line = HO.replace("/", "_")
    assert main(["validate", line]) == 0
    assert f"give ./{line}" in capsys.readouterr().err
    assert main(["validate", f"./{line}"]) == 1  # the file, read as a file


def test_text_that_is_neither_a_line_nor_a_file_is_named(capsys):
    assert main(["validate", "RW1 HO broken-but-no-file"]) == 1  # a line: read as one, refused
    assert main(["validate", "no such file.rw1"]) == 2
    assert "no such file.rw1" in capsys.readouterr().err


def test_check_rb_in_order(capsys):
    rb = rw.make_rb(HO, "writer-1")
    assert main(["check-rb", HO, rb]) == 0
    assert main(["check-rb", HO, RB_BAD]) == 1
    assert main(["check-rb", "--expect-acc", "len:120w", HO, rb]) == 1  # no acc= on the RB: a gap
    assert main(["check-rb", "RW1 HO broken", rb]) == 1  # as the reference: an error found


@pytest.mark.parametrize("argv,said", [
    (["check-rb", HO], "takes 2 arguments, got 1"),
    (["check-rb", HO, RB_BAD, "--ho", HO], "not both (--ho)"),
    (["check-rb"], "needs --ho and --rb"),
    (["make-rb", HO, "writer-1", "extra"], "takes 2 arguments, got 3"),
])
def test_reference_forms_with_the_wrong_arguments_are_usage_errors(argv, said, capsys):
    assert main(argv) == 2
    assert said in capsys.readouterr().err


def test_a_file_where_a_line_goes_is_named(capsys):
    spec = str(Path(__file__).resolve().parents[1] / "examples" / "spec-section8.rw1")
    for argv in (["check-rb", spec, RB_BAD], ["digest", spec], ["to-json", spec], ["make-rb", spec, "writer-1"]):
        assert main(argv) == 2, argv
        assert "is a file, not a line" in capsys.readouterr().err


def test_make_rb_in_order(capsys):
    assert main(["make-rb", HO, "writer-1"]) == 0
    made = capsys.readouterr().out.strip()
    assert made == rw.make_rb(HO, "writer-1") and " h=" in made
    assert main(["make-rb", "--no-hash", HO, "writer-2"]) == 0
    assert " h=" not in capsys.readouterr().out
    assert main(["make-rb", HO, "writer-03"]) == 0
    assert capsys.readouterr().out.startswith("RW1 RB writer-03 re=research-01 ")
    assert main(["make-rb", HO, "bob-1"]) == 1
    assert "must be <from>-<n>" in capsys.readouterr().err


def test_check_ho_in_order_with_record_json(capsys):
    assert main(["check-ho", PAY_HO, json.dumps(RECORD)]) == 0
    assert main(["check-ho", PAY_HO, json.dumps(RECORD | {"acct": "40-12-88/61102983"})]) == 1


def test_check_ho_names_where_the_record_json_breaks(capsys):
    assert main(["check-ho", PAY_HO, '{"acct": "40-12-88/61102938",}']) == 1
    assert "not JSON" in (err := capsys.readouterr().err) and "line 1 column 30" in err
    assert main(["check-ho", PAY_HO, "[1]"]) == 1
    assert "JSON object" in capsys.readouterr().err


def test_check_ho_names_a_file_where_the_record_json_goes(tmp_path, capsys):
    record = tmp_path / "record.json"
    record.write_text(json.dumps(RECORD), encoding="utf-8")
    assert main(["check-ho", PAY_HO, str(record)]) == 2
    assert "is a file, not a record" in capsys.readouterr().err
    assert main(["check-ho", "--line", PAY_HO, "--record", str(record)]) == 0  # the package's own form reads it


def test_check_dn_in_order_with_rb(capsys):
    dn = "RW1 DN writer-2 re=research-01 from=writer to=research item=gh:crox/site#42 out=OK"
    rb = rw.make_rb(HO, "writer-1")
    assert main(["check-dn", HO, dn, "--rb", rb]) == 0
    assert main(["check-dn", HO, dn.replace("re=research-01", "re=research-9")]) == 1


def test_to_json_and_from_json(capsys):
    assert main(["to-json", HO]) == 0
    form = capsys.readouterr().out
    assert json.loads(form) == json.loads(rw.to_json(HO))
    assert main(["from-json", form]) == 0
    assert capsys.readouterr().out.strip() == HO
    assert main(["to-json", HO.replace("DRAFT", "DANCE")]) == 1
    assert "ask=DANCE" in capsys.readouterr().err


def test_from_json_names_where_the_json_breaks(capsys):
    assert main(["from-json", '{"type": "HO",\n "id": }']) == 1
    assert "line 2 column 8" in capsys.readouterr().err


def test_digest_of_a_refused_line_exits_1(capsys):
    assert main(["digest", HO]) == 0
    assert capsys.readouterr().out.strip() == rw.digest(HO)
    assert main(["digest", "garbage"]) == 1


def test_legend_and_lint_keep_the_reference_names(tmp_path, capsys):
    assert main(["legend", "--profile", "pay"]) == 0
    assert "pay" in capsys.readouterr().out
    stream = tmp_path / "a.rw1"
    dn = "RW1 DN writer-2 re=research-01 from=writer to=research item=gh:crox/site#42 out=OK"
    stream.write_text("\n".join([HO, rw.make_rb(HO, "writer-1"), dn]) + "\n", encoding="utf-8")
    assert main(["lint", str(stream)]) == 0
    stream.write_text("\n".join([HO.replace("DRAFT", "DANCE"), dn]) + "\n", encoding="utf-8")
    assert main(["lint", str(stream)]) == 1


def test_no_traceback_reaches_the_user():
    proc = subprocess.run([sys.executable, "-m", "rogerwilco", "check-ho", PAY_HO, "{"], capture_output=True, text=True)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr and proc.stderr.startswith("rogerwilco:")


def test_version_says_which_rogerwilco_this_is_in_one_line():
    proc = subprocess.run([sys.executable, "-m", "rogerwilco", "--version"], capture_output=True, text=True,
                          env={"COLUMNS": "40", "PATH": ""})
    assert proc.returncode == 0
    assert proc.stdout == (f"rogerwilco {rw.__version__}: the RW1 reference implementation, successor to the "
                           "rogerwilco 0.3.0 reference codec\n")
    assert tuple(int(x) for x in rw.__version__.split(".")[:2]) > (0, 3)


@pytest.mark.parametrize("command", ["lint", "check-thread"])
def test_a_line_where_lint_or_check_thread_wants_a_file_is_named(command, capsys):
    assert main([command, HO]) == 2
    assert "is a line, not a file" in capsys.readouterr().err
