"""The accept path never changes a verdict (rogerwilco.core.accept).

It answers a Message only for a line the full pass accepts, and then the
same Message; for anything else it answers None and the full pass decides.
Checked over every line of the conformance suite, generated valid lines,
mutated and hostile lines (control characters, non-ASCII digits, surrogates,
a 64 KiB line), under the core alone and under every bundled profile.
``ROGERWILCO_FUZZ_EXAMPLES`` raises the budget, as in tests/test_fuzz.py.
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rogerwilco
from rogerwilco.core.accept import accept, accept_values, json_forms, loads_line
from rogerwilco.front.conformance import case_lines
from rogerwilco.core.semantics import check_line
from rogerwilco.core.vocab import Receiver

from .strategies import PIECES, messages, mutated_lines

EXAMPLES = int(os.environ.get("ROGERWILCO_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES * 2, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
RECEIVERS = (Receiver.all_bundled(), Receiver(), Receiver.load(["pay"]))

_BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "parse_bench.py"
_spec = importlib.util.spec_from_file_location("rw1_parse_bench", _BENCH)
assert _spec is not None and _spec.loader is not None
_bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_bench)
corpus = _bench.corpus  # the benchmark's own corpus


def agrees(line: str, receiver: Receiver) -> bool:
    """The property: None, or exactly the message of a line the full pass accepts. Returns whether it accepted."""
    got = accept(line, receiver, 3, "f.rw1")
    full = check_line(line, receiver, line_number=3, file="f.rw1")
    if got is None:
        return False
    assert full.message is not None, (line, full.findings)
    assert full.valid
    assert got == full.message
    assert attrs.asdict(got, recurse=False) == attrs.asdict(full.message, recurse=False)
    assert list(got.slots.items()) == list(full.message.slots.items())  # written order kept
    assert [type(v) for v in got.slots.values()] == [type(v) for v in full.message.slots.values()]
    assert got.source == full.message.source
    assert hash(got) == hash(full.message)
    return True


def conformance_lines() -> list[str]:
    return case_lines()


def test_every_conformance_line_agrees() -> None:
    lines = conformance_lines()
    assert len(lines) > 100
    accepted = sum(agrees(line, receiver) for line in lines for receiver in RECEIVERS)
    assert accepted > 50  # the path is exercised, not only refused to


def test_the_benchmark_corpus_is_accepted_by_the_fast_path() -> None:
    receiver = Receiver.load(["pay"])
    assert all(agrees(line, receiver) for line in corpus(300))


def test_the_realistic_corpus_is_as_its_generator_says_and_accepted_by_the_fast_path() -> None:
    lines = _bench.corpora(["realistic"], 2000, False)["realistic"]
    assert lines == _bench.corpora(["realistic"], 2000, False)["realistic"]  # seeded: the same every run
    assert len(set(lines)) == len(lines)
    assert 0.25 < sum(" p=pay " in line for line in lines) / len(lines) < 0.35
    tails = [line.split(" // ", 1)[1] for line in lines if " // " in line]
    assert 0.6 < len(tails) / len(lines) < 0.7 and 1 <= min(map(len, tails)) and max(map(len, tails)) <= 300
    assert 200 < sum(map(len, lines)) / len(lines) < 250
    assert len({line.split(" from=", 1)[1].split(" ", 1)[0] for line in lines}) == 55  # 50 agents, pay's 5
    receiver = Receiver.load(["pay"])
    assert all(agrees(line, receiver) for line in lines[:400])


@FUZZ
@given(messages(), st.sampled_from(RECEIVERS))
def test_generated_valid_lines_agree(message, receiver) -> None:
    agrees(message.to_line(), receiver)


@FUZZ
@given(mutated_lines(), st.sampled_from(RECEIVERS))
def test_mutated_lines_agree(line, receiver) -> None:
    agrees(line, receiver)


# Hostile replacements for one value: control characters, non-ASCII digits
# (which int() and str.isdigit() accept and the grammar's [0-9] does not),
# surrogates, Unicode spaces, separators.
HOSTILE = ["\x00", "\t", "\n", "\x85", "\u0663", "\uff12", "\u00b2", "\U0001d7ce", "\ud800", "\udfff",
           "\u200e", "\u202e", "\u00a0", "\u3000", "\u2028", "+", "=", " ", "//", "-"]


@FUZZ
@given(messages(), st.sampled_from(RECEIVERS), st.data())
def test_hostile_values_agree(message, receiver, data) -> None:
    line = message.to_line()
    pos = data.draw(st.integers(0, len(line)))
    piece = data.draw(st.sampled_from(HOSTILE + PIECES))
    agrees(line[:pos] + piece + line[pos:], receiver)


@pytest.mark.parametrize("digits", ["\u0663", "\uff12", "\u00b2", "\U0001d7ce", "\u0661\u0662"])
def test_non_ascii_digits_are_not_integers(digits: str) -> None:
    for line in (f"RW1 ST a-1 from=a to=b item=x pct={digits}", f"RW1 HO a-{digits} from=a to=b item=x ask=DRAFT",
                 f"RW1 HO a-1 from=a to=b item=x ask=DRAFT due=2026100{digits}"):
        assert accept(line, RECEIVERS[0]) is None
        assert not check_line(line, RECEIVERS[0]).valid


def test_long_lines_agree() -> None:
    base = "RW1 HO a-1 from=a to=b item=x ask=DRAFT"
    long_value = base + " x_big=" + "v" * 65536
    long_tail = base + " // " + "w " * 32768
    many = base + "".join(f" x_{i}=v" for i in range(6000))
    for line in (long_value, long_tail.rstrip(" "), many, base + " // " + "w" * 300, base + " // " + "w" * 301):
        for receiver in RECEIVERS:
            agrees(line, receiver)
    assert accept(long_value, RECEIVERS[0]) is not None  # an x_ key is kept as written, silently
    assert accept(base + " // " + "w" * 300, RECEIVERS[0]) is not None
    assert accept(base + " // " + "w" * 301, RECEIVERS[0]) is None


def test_rules_compiled_once_decide_as_the_full_pass() -> None:
    pay = Receiver.load(["pay"])
    ok = "RW1 ST payer-1 p=pay from=payer to=scheduler item=inv:MD-1 amt=120.00 net=100.00 vat=20.00 cur=GBP kind=GROSS src=email:7"
    assert agrees(ok, pay)
    for line in (ok.replace("amt=120.00", "amt=121.00"), ok.replace(" src=email:7", ""),
                 "RW1 AQ b-1 from=b to=a need=ENUM", "RW1 AN a-1 re=b-1 from=a to=b val=tail"):
        assert accept_values(line, pay) is None
        assert not check_line(line, pay).valid
    assert agrees("RW1 AN a-1 re=b-1 from=a to=b val=tail // the answer", Receiver())


def test_loads_is_the_accept_path_or_the_full_pass() -> None:
    line = "RW1 HO research-01 from=research to=writer item=gh:crox/site#42 ask=DRAFT pri=02"
    assert rogerwilco.loads(line) == check_line(line).message
    assert rogerwilco.loads(line).slots["pri"] == 2
    with pytest.raises(rogerwilco.RefusedError):
        rogerwilco.loads(line.replace("DRAFT", "DRAFTY"))
    # a line that earns only notes is accepted by the accept path too, the message the full pass builds
    noted = line + " colour=red"
    assert agrees(noted, RECEIVERS[0])
    assert rogerwilco.loads(noted).slots["colour"] == "red"


# A valid line with notes (an unknown key, another type's slot) is a valid line: no cliff.
NOTED = [
    "RW1 HO TRI-1 p=pform from=TRI to=STR item=pensive:n42 ask=STALE stall=19d imp=8 colour=red",
    "RW1 HO TRI-1 p=pform from=TRI to=STR item=pensive:n42 ask=STALE stall=19d imp=8 imq=3",  # near imp: a hint
    "RW1 HO TRI-1 p=pform from=TRI to=STR item=pensive:n42 ask=STALE imp=8 eta=20261003",  # ST's slot on HO
    "RW1 HO TRI-1 p=pform from=TRI to=ARC item=pensive:n42 ask=STALE asg=STR+LUM",  # ST's agent list, named agents
    "RW1 ST a-1 from=a to=b item=x pct=40 ask=DRAFT colour=red x_team=web",
]


@pytest.mark.parametrize("line", NOTED)
def test_a_line_with_notes_is_accepted_without_working_out_a_hint(line: str, monkeypatch) -> None:
    receiver = Receiver.all_bundled()
    full = check_line(line, receiver)
    assert full.message is not None and {f.severity for f in full.findings} == {"note"}
    assert agrees(line, receiver)

    def no_hint(*args: object) -> None:
        raise AssertionError("a hint worked out for a line whose findings nobody reads")

    from rogerwilco.core import suggest

    for name in ("for_key", "for_code", "for_type"):
        monkeypatch.setattr(suggest, name, no_hint)
    assert rogerwilco.loads(line, receiver) == full.message
    assert list(json_forms([line], receiver)) == [full.message.to_json()]


def test_a_noted_line_is_not_accepted_where_its_note_is_a_refusal() -> None:
    # act is a slot clin requires: used without p=clin by a receiver that holds clin, it is refused
    line = "RW1 ST a-1 from=a to=b item=x act=ORDER"
    clin = Receiver.load(["clin"])
    assert accept(line, clin) is None and not check_line(line, clin).valid
    assert agrees(line, Receiver())  # held by no profile: an unknown key, a note
    assert accept(line, Receiver()) is not None


@FUZZ
@given(st.lists(messages().map(lambda m: m.to_line()) | mutated_lines(), max_size=6), st.sampled_from(RECEIVERS))
def test_the_batch_path_gives_each_line_its_json_form_or_its_findings(lines, receiver) -> None:
    got = list(json_forms(lines, receiver))
    assert len(got) == len(lines)
    for number, (line, item) in enumerate(zip(lines, got), 1):
        full = check_line(line, receiver, line_number=number)
        if full.message is not None:
            assert item == full.message.to_json()
            assert json.loads(json.dumps(item)) == item  # JSON types only: lists, not tuples
        else:
            assert item == full


def test_an_extension_key_is_kept_as_written_and_a_profile_slot_is_not_one() -> None:
    line = "RW1 HO a-1 from=a to=b item=x ask=DRAFT x_team=web+ops"
    assert agrees(line, RECEIVERS[0])
    assert accept(line, RECEIVERS[0]).slots["x_team"] == "web+ops"  # type: ignore[union-attr]
    # amt is a pay slot: without p=pay it is an unknown key (a note whose hint says add p=pay), kept as written
    line = "RW1 HO a-1 from=a to=b item=x ask=DRAFT amt=1.00"
    assert agrees(line, RECEIVERS[0])
    assert accept(line, RECEIVERS[0]).slots["amt"] == "1.00"  # type: ignore[union-attr]
    assert check_line(line, RECEIVERS[0]).findings[0].hint == "amt is a slot of profile pay: add p=pay"


@pytest.mark.parametrize("impl", ["pure", "active"])
@pytest.mark.parametrize("value", [None, 5, b"RW1 ST a-1 from=a to=b item=x st=ok"])
def test_a_line_that_is_not_a_str_is_a_type_error_on_either_path(impl, value):
    """Not an AttributeError from inside the accept path: the adapter answers it as a bad request."""
    from rogerwilco.core import accept as pure_module, speedups
    from rogerwilco.front.adapter import handle

    loads_line = pure_module.loads_line if impl == "pure" else speedups.loads_line
    with pytest.raises(TypeError, match=r"^str object expected; got "):
        loads_line(value)
    answer = handle({"op": "digest", "line": value})
    assert answer["ok"] is False and answer["error"].startswith("bad request: TypeError")


def test_a_profile_that_names_its_agents_keeps_its_lines_on_the_accept_path() -> None:
    # Before, a profile naming agents left every line to the full pass; now the agents are a set look-up here.
    receiver = RECEIVERS[0]
    named = [name for name in receiver.names if receiver.vocabulary(name).agents]
    assert {"pay", "clin", "pform", "deploy"} <= set(named)
    deploy = ["RW1 HO release-1 p=deploy from=release to=operator item=svc:api ask=DEPLOY env=PROD ver=v2 keep=oncall",
              "RW1 ST operator-1 p=deploy from=operator to=human item=svc:api ver=v2"]
    for name in named:
        clean = [line for line in conformance_lines() + deploy if f" p={name}" in line
                 and line.split(" ")[1:2] not in (["AQ"], ["AN"]) and not check_line(line, receiver).findings]
        assert clean, name
        assert all(agrees(line, receiver) for line in clean), name


def test_a_foreign_agent_is_left_to_the_full_pass_which_refuses_it() -> None:
    receiver = RECEIVERS[0]
    pay = "RW1 HO scheduler-1 p=pay from=scheduler to=payer item=inv:MD-1 ask=PAY amt=10.00 cur=GBP"
    assert agrees(pay + " keep=auditor+human", receiver)
    assert agrees(pay.replace("to=payer", "to=human"), receiver)  # human is always an agent
    for foreign in (pay.replace("to=payer", "to=clerk"), pay + " keep=auditor+clerk",
                    pay.replace("scheduler", "ops"),
                    "RW1 UN payer-1 re=scheduler-1 p=pay from=payer to=scheduler item=inv:MD-1 why=NOCAP alt=clerk"):
        assert accept_values(foreign, receiver) is None, foreign
        assert [f.kind for f in check_line(foreign, receiver).findings if f.failed] == ["agent"], foreign


REFUSED = [
    "RW1 HO a-1 from=a to=b item=x ask=DRAFY",  # an unknown code: a hint (did you mean DRAFT?)
    "RW1 HX a-1 from=a to=b item=x ask=DRAFT",  # an unknown type
    "RW1 HO a-1 x=1 x=2 from=a to=b item=x ask=DRAFT colr=red",  # a repeated key, an unknown key
    "RW1 HO a-1 from=a  to=b item=x ask=DRAFT",  # the grammar's
]


@pytest.mark.parametrize("line", REFUSED)
def test_a_refused_line_is_refused_first_and_diagnosed_when_asked(line: str, monkeypatch) -> None:
    import pickle

    from rogerwilco.core import suggest

    full = check_line(line, RECEIVERS[0], line_number=7)
    asked: list[str] = []
    for name in ("for_key", "for_code", "for_type"):
        real = getattr(suggest, name)
        monkeypatch.setattr(suggest, name, lambda *args, _real=real, _name=name: asked.append(_name) or _real(*args))
    with pytest.raises(rogerwilco.RW1Error) as caught:
        loads_line(line, RECEIVERS[0], 7)
    assert asked == []  # the verdict and its words: no hint worked out
    error = caught.value
    first = full.refusal
    assert first is not None
    assert (str(error), error.token, error.column, error.why) == (f"line 7, column {first.column}: {first.message}",
                                                                 first.token, first.column, first.why)
    assert error.findings == full.findings  # read: the full diagnosis, hints and all
    again = pickle.loads(pickle.dumps(caught.value))
    assert (again.findings, str(again), type(again)) == (full.findings, str(error), type(error))
