"""A 0.3.0 program runs unchanged: the reference's API at the top level, and its own suite driven through it.

The reference codec (``rogerwilco`` 0.3.0) ships ``tests/conformance.jsonl``
and a runner that calls its codec by the names a program uses
(``parse``, ``encode``, ``check_rb_full``, ``check_ho``, ``check_dn``,
``check_thread``, ``digest``). :func:`run_reference_suite` does what that
runner does, call for call, with this package's top-level names in place of
the reference's module.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import rogerwilco as rw
from rogerwilco.errors import RW1Error
from tests.reference import reference_cases, reference_dir

#: cases that fail only on what other work settles, each with the reason; the list empties as that lands


def _verdict(c: dict[str, Any], problems: list[str], notes: list[str], fails: dict[str, list[str]]) -> None:
    ok = (not problems) if c["expect"] == "match" else bool(problems)
    if not ok:
        fails.setdefault(c["id"], []).append(f"expected {c['expect']}, problems={problems}")
    for field, said in (("problems_contain", problems), ("notes_contain", notes)):
        for needle in c.get(field, []):
            if not any(needle in p for p in said):
                fails.setdefault(c["id"], []).append(f"expected {needle!r} in {said}")


def run_reference_suite(cases: list[dict[str, Any]]) -> tuple[int, dict[str, list[str]]]:
    """(cases run, failures by case id), the reference runner's logic with ``rogerwilco`` as the codec."""
    fails: dict[str, list[str]] = {}
    n = 0
    for c in cases:
        kind, profile = c["kind"], c.get("profile")
        if kind == "parse":
            n += 1
            msg, errors, _ = rw.parse(c["line"], profile)
            if ((not errors) if c["expect"] == "valid" else bool(errors)) is False:
                fails.setdefault(c["id"], []).append(f"expected {c['expect']}, errors={errors}")
                continue
            for needle in c.get("errors_contain", []):
                if not any(needle in e for e in errors):
                    fails.setdefault(c["id"], []).append(f"expected an error with {needle!r}, got {errors}")
            if "json" in c and msg != c["json"]:
                fails.setdefault(c["id"], []).append(f"JSON form {json.dumps(msg)} is not {json.dumps(c['json'])}")
            if c["expect"] == "valid":
                back = rw.encode(msg, profile)
                again, errors, _ = rw.parse(back, profile)
                if errors or again != msg:
                    fails.setdefault(c["id"], []).append(f"round trip: {back} -> {errors or again}")
        elif kind == "readback":
            n += 1
            expect_acc = c["expect_acc"].split("+") if c.get("expect_acc") else None
            _verdict(c, *rw.check_rb_full(c["ho"], c["rb"], profile, expect_acc=expect_acc, now=c.get("now")), fails)
        elif kind == "presend":
            n += 1
            _verdict(c, *rw.check_ho(c["ho"], c["record"], profile), fails)
        elif kind == "done":
            n += 1
            _verdict(c, *rw.check_dn(c["ho"], c["dn"], profile, rb_line=c.get("rb")), fails)
        elif kind == "thread":
            n += 1
            _verdict(c, *rw.check_thread(c["lines"], profile, now=c.get("now")), fails)
    for c in cases:
        if c["kind"] == "digest":
            n += 1
            if rw.digest(c["line"]) != c["expect"]:
                fails.setdefault(c["id"], []).append(f"digest {rw.digest(c['line'])} is not {c['expect']}")
    return n, fails


def test_the_reference_suite_runs_through_the_top_level_names():
    n, fails = run_reference_suite(reference_cases())
    assert n == 99
    assert fails == {}, "\n".join(f"{k}: {v}" for k, v in fails.items())


def test_the_runner_catches_a_wrong_codec(monkeypatch):
    """The runner bites: a codec that refuses nothing fails the invalid cases."""
    real = rw.parse
    monkeypatch.setattr(rw, "parse", lambda line, profile=None: (real(line, profile)[0], [], []))
    _, fails = run_reference_suite([c for c in reference_cases() if c["id"] in ("c01", "c13", "c14")])
    assert sorted(fails) == ["c13", "c14"]


def test_the_reference_names_are_at_the_top_level():
    init = (reference_dir() / "__init__.py").read_text(encoding="utf-8")
    published = set(init.split("__all__ = [", 1)[1].split("]", 1)[0].replace('"', " ").replace(",", " ").split())
    assert published <= set(rw.__all__)
    assert all(hasattr(rw, name) for name in published)


HO = "RW1 HO research-01 from=research to=writer item=gh:crox/site#42 ask=DRAFT due=20261002"
PAY_HO = ("RW1 HO scheduler-1 p=pay from=scheduler to=payer item=inv:MD-2026-057 ask=PAY rb=exec sup=marlow "
          "amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 apref=FD-0929")


def test_the_shapes_are_the_references():
    msg, errors, warnings = rw.parse(HO)
    assert isinstance(msg, dict) and errors == [] and warnings == []
    assert rw.validate(HO) == [] and rw.validate(HO + " zz=1", strict=True) != []
    rb = rw.make_rb(HO, "writer-1")
    assert isinstance(rb, str) and rw.check_rb(HO, rb) == []
    problems, notes = rw.check_rb_full(HO, rb, None, expect_acc=None, now=None)
    assert (problems, notes) == ([], [])
    assert rw.check_ho(PAY_HO, {"acct": "40-12-88/61102983"}, "pay")[0] != []
    assert isinstance(rw.load_profile("pay"), dict) and isinstance(rw.load_core(), dict)
    assert rw.canonical(msg) == rw.canonical(dict(reversed(list(msg.items()))))
    assert len(rw.digest(HO)) == 12 and rw.digest(msg) == rw.digest(HO)
    assert len(rw.now_utc()) == len("20261012T1000Z") and rw.now_utc().endswith("Z")
    assert (rw.PROFILES / "pay.json").is_file() and rw.VERSION == "RW1"


def test_an_invalid_line_still_has_its_json_form_as_far_as_it_reads():
    msg, errors, _ = rw.parse(HO.replace("DRAFT", "DANCE"))
    assert errors and msg["id"] == "research-01" and msg["slots"]["ask"] == "DANCE"
    msg, errors, _ = rw.parse("hello")
    assert errors and msg["type"] is None


def test_form_error_catches_every_refusal():
    for call in (lambda: rw.to_json("RW1 HO nonsense"), lambda: rw.from_json('{"type": "HO",'),
                 lambda: rw.make_rb(HO, "bob-1"), lambda: rw.load_profile("no-such-profile"),
                 lambda: rw.encode({"type": "HO", "id": "a-1", "from": "a", "to": "b", "slots": {}})):
        with pytest.raises(rw.FormError):
            call()
    assert issubclass(rw.FormError, ValueError) and rw.FormError is RW1Error


def test_from_json_names_where_malformed_json_breaks():
    with pytest.raises(rw.FormError, match="line 2 column 8"):
        rw.from_json('{"type": "HO",\n "id": }')


def test_encode_takes_a_form_without_its_empty_members_as_the_reference_does():
    line = rw.encode({"type": "HO", "id": "a-1", "from": "a", "to": "b", "item": "x", "slots": {"ask": "FIX", "due": ""}})
    assert line == "RW1 HO a-1 from=a to=b item=x ask=FIX"


def test_make_rb_names_its_id_and_its_level():
    rb = rw.make_rb(HO, "writer-7", with_hash=False)
    assert rb.startswith("RW1 RB writer-7 re=research-01 ") and " h=" not in rb
    assert rw.make_rb(HO, "writer-01").startswith("RW1 RB writer-01 ")  # the id as given, as the reference writes it
    with pytest.raises(rw.FormError, match="give its value"):  # rb=exec, an execution slot left to the receiver
        rw.make_rb(PAY_HO.replace(" acct=40-12-88/61102938", ""), "payer-1", "pay")


def test_check_thread_skips_comments_and_keeps_line_numbers():
    problems, notes = rw.check_thread(["# a note", "", "RW1 HO a-1 from=a to=b item=x ask=FIX", "RW1 HO broken"],
                                      now="20261012T1000Z")
    assert any(p.startswith("line 4") for p in problems), problems
    assert "a-1: open" in notes


def test_the_legend_is_the_function_and_the_module_path_still_imports():
    from rogerwilco.legend import sections  # the module, by its path

    assert callable(sections) and rw.legend("pay", True) == rw.legend("pay", lean=True)
    assert "pay" in rw.legend("pay")


def test_load_profile_has_the_references_shape():
    spec = rw.load_profile("pay")
    assert {"types", "slots", "enums", "tail_max", "agents", "profile", "exec"} <= set(spec)
    assert spec["profile"] == "pay" and spec["slots"]["ask"] == "enum:ask"
    assert "item" in spec["types"]["HO"]["required"] and "due" in spec["types"]["HO"]["optional"]
    assert spec["exec"]["PAY"][:2] == ["sup", "amt"]
    assert rw.load_profile(None)["profile"] is None
    msg, errors, _ = rw.parse(PAY_HO, spec=spec)
    assert errors == [] and msg["slots"]["p"] == "pay"
