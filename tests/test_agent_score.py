"""conformance --agent: an agent's replies scored against agent-behaviour cases.

The published cases are the six ``"kind": "agent"`` lines of the reference
codec's ``tests/conformance.jsonl`` (downloaded, never vendored: found through
``RW1_REFERENCE_DIR``, the unpacked wheel's ``rogerwilco`` folder, else the
usual unpack location); this package's own are ``conformance/agent/cases.jsonl``.
Replies are built from each case, right and then wrong in one way at a time.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rogerwilco.front.agentscore import AgentCase, default_cases, load_cases, score
from rogerwilco.front.cli import main

from tests.reference import reference_dir  # noqa: E402
PUBLISHED = reference_dir() / "tests" / "conformance.jsonl"


def right_reply(case: AgentCase, n: int = 1) -> str:
    """A reply meeting every field of ``case``."""
    kind = case.reply_types[0]
    slots = dict(case.reply_slots)
    slots.setdefault("from", case.you)
    if kind == "AN" and case.val_in:
        slots.setdefault("val", case.val_in[0])
    if kind == "UN" and case.why_in:
        slots.setdefault("why", case.why_in[0])
    if case.acc_keys_required:
        slots["acc"] = case.expect_acc or "+".join(f"{k}:x" for k in case.acc_keys_required)
    order = ["re", "from", "to", "item"]
    tokens = [f"{k}={slots[k]}" for k in order if k in slots] + [f"{k}={v}" for k, v in slots.items() if k not in order]
    return f"RW1 {kind} {case.you}-{n} {' '.join(tokens)}"


def write_replies(path: Path, replies: dict[str, str]) -> Path:
    path.write_text("".join(json.dumps({"id": k, "reply": v}) + "\n" for k, v in replies.items()), encoding="utf-8")
    return path


def agent(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["conformance", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_published_file_holds_six_agent_cases_and_right_replies_pass_them_all(tmp_path, capsys):
    cases = load_cases([PUBLISHED])
    assert [c.id for c in cases] == ["a01", "a02", "a03", "a04", "a05", "a06"]
    replies = write_replies(tmp_path / "r.jsonl", {c.id: right_reply(c, i) for i, c in enumerate(cases, 1)})
    code, out, err = agent(capsys, "--agent", str(replies), "--cases", str(PUBLISHED))
    assert code == 0 and err == ""
    assert out.splitlines() == [f"PASS {c.id}" for c in cases] + ["6 of 6 agent cases passed"]


def test_our_own_cases_are_the_default_and_right_replies_pass_them(tmp_path, capsys):
    cases = load_cases([default_cases()])
    assert len(cases) >= 5 and all(c.id.startswith("rw-") for c in cases)
    replies = write_replies(tmp_path / "r.jsonl", {c.id: right_reply(c, i) for i, c in enumerate(cases, 1)})
    code, out, _ = agent(capsys, "--agent", str(replies))
    assert code == 0 and out.rstrip().endswith(f"{len(cases)} of {len(cases)} agent cases passed")


def test_both_suites_score_together(tmp_path, capsys):
    cases = load_cases([PUBLISHED, default_cases()])
    replies = write_replies(tmp_path / "r.jsonl", {c.id: right_reply(c, i) for i, c in enumerate(cases, 1)})
    code, out, _ = agent(capsys, "--agent", str(replies), "--cases", str(PUBLISHED), "--cases", str(default_cases()))
    assert code == 0 and out.rstrip().endswith(f"{len(cases)} of {len(cases)} agent cases passed")


def _by_id(case_id: str) -> AgentCase:
    return next(c for c in load_cases([PUBLISHED, default_cases()]) if c.id == case_id)


@pytest.mark.parametrize("case_id, change, reason", [
    ("a05", lambda r: "RW1 RB reviewer-1 re=lead-05 from=reviewer to=lead item=gh:acme/app#15 ask=BUILD due=20261003",
     "expected UN, got RB"),
    ("a01", lambda r: r.replace("due=20261003", "due=20261004"), "due= expected '20261003', got '20261004'"),
    ("a01", lambda r: r.replace("reviewer-1 re=lead-01 from=reviewer", "writer-1 re=lead-01 from=writer"),
     "from= expected 'reviewer'"),
    ("a02", lambda r: r.replace("why=UNK", "why=BUSY"), "why= expected 'UNK', got 'BUSY'"),
    ("a04", lambda r: r.replace("val=Y", "val=MAYBE"), "val= expected one of Y, N, got 'MAYBE'"),
    ("a04", lambda r: r.replace("RW1 AN", "RW1 UN") .replace("val=Y", "why=BUSY"), "why= expected one of NOCTX"),
    ("a05", lambda r: r.replace("why=NOCAP", "why=NOCTX"), "why= expected one of NOCAP, SCOPE, got 'NOCTX'"),
    ("a06", lambda r: r.split(" acc=")[0], "the sender asked for rb=acc and the reply has no acc="),
    ("a06", lambda r: r.split(" acc=")[0] + " acc=scope:correctness", "acc= lacks the keys must"),
    ("a01", lambda r: r.replace("ask=REVIEW", "ask=REVIEWW"), "the reply is not a valid line: unknown ask code"),
    ("rw-a03", lambda r: r.replace("val=KEEP", "val=DELETE"), "val= expected one of KEEP, DROP, got 'DELETE'"),
])
def test_a_reply_wrong_in_one_way_fails_with_that_reason(tmp_path, capsys, case_id, change, reason):
    case = _by_id(case_id)
    wrong = change(right_reply(case))
    assert wrong != right_reply(case)
    replies = write_replies(tmp_path / "r.jsonl", {case_id: wrong})
    code, out, _ = agent(capsys, "--agent", str(replies), "--cases", str(PUBLISHED), "--cases", str(default_cases()))
    assert code == 1
    line = next(x for x in out.splitlines() if x.startswith(f"FAIL {case_id}:"))
    assert reason in line, line
    assert f"  reply: {wrong}" in out
    assert out.count("FAIL ") == len(load_cases([PUBLISHED, default_cases()]))  # every other case has no reply
    assert out.rstrip().endswith(f"0 of {len(load_cases([PUBLISHED, default_cases()]))} agent cases passed")


def test_a_missing_reply_fails_its_case_and_a_reply_to_no_case_is_noted(tmp_path, capsys):
    cases = load_cases([PUBLISHED])
    replies = {c.id: right_reply(c, i) for i, c in enumerate(cases, 1) if c.id != "a03"}
    replies["z99"] = "RW1 AK reviewer-9 re=lead-01 from=reviewer to=lead"
    code, out, _ = agent(capsys, "--agent", str(write_replies(tmp_path / "r.jsonl", replies)), "--cases", str(PUBLISHED))
    assert code == 1
    assert "FAIL a03: no reply" in out and "NOTE replies to no case: z99" in out
    assert out.rstrip().endswith("5 of 6 agent cases passed")


@pytest.mark.parametrize("text, said", [
    ('{"id": "a01", "reply": "RW1 AK a-1 re=b-1 from=a to=b"}\n{"id": "a02", "reply": \n', "line 2: not JSON"),
    ('["a01", "RW1 AK a-1 re=b-1 from=a to=b"]\n', "line 1: expected a JSON object, got list"),
    ('{"id": "a01"}\n', "line 1: 'reply' is expected to be a string, got missing"),
    ('{"id": 1, "reply": "x"}\n', "line 1: 'id' is expected to be a string, got a int"),
    ('{"id": "a01", "reply": "x"}\n\n{"id": "a01", "reply": "y"}\n', "line 3: a second reply to case 'a01' (the first is on line 1)"),
])
def test_a_malformed_replies_file_names_the_line_and_the_problem_and_exits_2(tmp_path, capsys, text, said):
    path = tmp_path / "replies.jsonl"
    path.write_text(text, encoding="utf-8")
    code, out, err = agent(capsys, "--agent", str(path), "--cases", str(PUBLISHED))
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert f"{path}: {said}" in err and "Traceback" not in err


def test_a_malformed_case_file_and_one_with_no_agent_case_exit_2(tmp_path, capsys):
    replies = write_replies(tmp_path / "r.jsonl", {})
    bad = tmp_path / "cases.jsonl"
    bad.write_text('{"id": "x1", "kind": "agent", "incoming": "RW1 AK a-1 re=b-1 from=b to=a", "you": "a"}\n',
                   encoding="utf-8")
    code, _, err = agent(capsys, "--agent", str(replies), "--cases", str(bad))
    assert code == 2 and f"{bad}: line 1: 'reply_type' is expected to be a string, got missing" in err
    bad.write_text('{"id": "c1", "kind": "parse", "line": "RW1 AK a-1 re=b-1 from=b to=a"}\n', encoding="utf-8")
    code, _, err = agent(capsys, "--agent", str(replies), "--cases", str(bad))
    assert code == 2 and "no agent case" in err
    code, _, err = agent(capsys, "--agent", str(replies), "--cases", str(PUBLISHED), "--cases", str(PUBLISHED))
    assert code == 2 and "case id 'a01' is also at" in err


def test_scores_are_values_with_every_reason():
    case = _by_id("a06")
    wrong = right_reply(case).replace("reviewer-1 re=lead-06 from=reviewer", "writer-1 re=lead-06 from=writer")
    wrong = wrong.split(" acc=")[0]
    [result] = score([case], {"a06": wrong})
    assert not result.passed and len(result.reasons) == 2
