"""The acc= slot type and the criteria parser are one definition (issue 11 item 6).

A line ``validate`` accepts never makes a check fail with an exception: the
constraint that ``acc=1x:plain`` carries (a key outside the closed set) is a
key to the readback check as it is to the slot type, noted and not compared.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rogerwilco.front.adapter import handle
from rogerwilco.front.cli import main
from rogerwilco.checks.comprehension import CriteriaError, parse_criteria
from rogerwilco.core.errors import RW1Error
from rogerwilco.io.lint import lint_paths
from rogerwilco.front.mcp_server import call
from rogerwilco.checks.readback import check_dn, check_rb
from rogerwilco.core.semantics import check_line
from rogerwilco.core.slottypes import compile_type
from rogerwilco.checks.thread import check_thread

HO = "RW1 HO s-1 from=s to=r item=d ask=DRAFT rb=acc acc=1x:plain"
RB = "RW1 RB r-1 re=s-1 from=r to=s item=d ask=DRAFT acc=1x:plain"
DN = "RW1 DN r-2 re=s-1 from=r to=s item=d out=OK"
ODD_KEYS = ("1x", "reading-level", "Len", "a.b", "é", "x_k", "9")


def test_the_issue_line_is_valid_and_every_check_answers_with_findings():
    assert check_line(HO).valid and check_line(RB).valid
    report = check_rb(HO, RB)
    assert report.passed
    check_dn(HO, DN, RB)
    check_thread([HO, RB, DN])


@pytest.mark.parametrize("argv", [
    ["check-rb", "--ho", HO, "--rb", RB],
    ["check-dn", "--ho", HO, "--dn", DN, "--rb", RB],
])
def test_the_cli_checks_give_no_internal_error(argv, capsys):
    code = main(argv)
    err = capsys.readouterr().err
    assert "internal error" not in err and code in (0, 1)


def test_check_thread_and_lint_on_a_file_give_no_internal_error(tmp_path, capsys):
    path = tmp_path / "log.rw1"
    path.write_text("\n".join([HO, RB, DN, "RW1 HO s-3 from=s to=r item=e ask=FIX pri=9"]) + "\n", encoding="utf-8")
    for argv in (["check-thread", str(path)], ["lint", str(path)]):
        code = main(argv)
        captured = capsys.readouterr()
        assert "internal error" not in captured.err and code in (0, 1), argv
    findings = [f for _, found in lint_paths([str(path)]) for f in found]
    assert any(f.line == 4 for f in findings)  # the file's other findings are not hidden


def test_the_adapter_and_mcp_answer():
    got = handle({"op": "check-rb", "ho": HO, "rb": RB})
    assert got["ok"] is True and got["passed"] is True
    got = handle({"op": "check-thread", "lines": [HO, RB, DN]})
    assert got["ok"] is True
    result, is_error = call("check_rb", {"ho": HO, "rb": RB})
    assert is_error is False and result["ok"] is True


@given(st.sampled_from(ODD_KEYS) | st.text(min_size=1, max_size=6), st.text(min_size=1, max_size=6))
@settings(max_examples=300, deadline=None)
def test_the_slot_type_and_the_parser_accept_exactly_the_same_items(key, value):
    item = f"{key}:{value}"
    acc = compile_type("constraint", {})  # one acc= item
    try:
        acc.decode(item)
        typed = True
    except ValueError:
        typed = False
    try:
        parsed = parse_criteria([item])
    except CriteriaError as exc:
        assert isinstance(exc, RW1Error)  # the package's own error
        assert typed is False, item
    else:
        assert typed is True, item
        written_key, _, written_value = item.partition(":")  # the key ends at the first ':'
        assert parsed[0].key == written_key.lower() and parsed[0].value == written_value


def test_a_bad_expected_criterion_is_the_packages_error():
    with pytest.raises(RW1Error):
        check_rb(HO, RB, expect_acc="no-colon")
    assert main(["check-rb", "--ho", HO, "--rb", RB, "--expect-acc", "no-colon"]) == 2
