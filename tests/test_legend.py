"""The legend is generated from the vocabulary and names every type, code and slot of it."""

from __future__ import annotations

import re

import pytest

from rogerwilco.front.cli import main
from rogerwilco.core.legend import _COMPREHENSION_SLOTS as COMPREHENSION_SLOTS, legend, legend_names, select
from rogerwilco.core.vocab import bundled_vocabulary, compile_vocabulary, core_vocabulary

PROFILES = [None, "pay", "clin", "pform", "kanban"]


def vocab_of(name):
    return core_vocabulary() if name is None else bundled_vocabulary(name)


def names_in(text: str, names) -> set[str]:
    """The names that do not occur in the text as whole tokens."""
    return {n for n in names if re.search(rf"(?<![A-Za-z0-9_-]){re.escape(n)}(?![A-Za-z0-9_])", text) is None}


@pytest.mark.parametrize("fmt", ["text", "md"])
@pytest.mark.parametrize("lean", [False, True], ids=["full", "lean"])
@pytest.mark.parametrize("name", PROFILES, ids=lambda n: n or "core")
def test_each_legend_names_every_type_code_and_slot_of_its_vocabulary(name, lean, fmt):
    vocab = vocab_of(name)
    text = legend(vocab, lean=lean, fmt=fmt)
    types, codes, slots = legend_names(vocab, lean=lean)
    assert types == set(vocab.types)
    assert names_in(text, types) == set()
    assert names_in(text, codes) == set()
    assert names_in(text, slots) == set()


@pytest.mark.parametrize("name", PROFILES, ids=lambda n: n or "core")
def test_the_full_legend_names_the_whole_vocabulary(name):
    vocab = vocab_of(name)
    _, codes, slots = legend_names(vocab, lean=False)
    assert slots == set(vocab.slots)
    shown_enums = {vocab.slots[k].type.enum for k in vocab.slots} | {"ans"}
    assert codes == {c for e, cs in vocab.enums.items() if e in shown_enums for c in cs}


def test_lean_drops_the_comprehension_keys_and_the_unused_core_asks_and_nothing_else():
    vocab = bundled_vocabulary("pay")
    full_types, full_codes, full_slots = legend_names(vocab)
    _, lean_codes, lean_slots = legend_names(vocab, lean=True)
    unused = set(vocab.core["enums"]["ask"]) - set(vocab.asks_used)
    assert full_slots - lean_slots == set(COMPREHENSION_SLOTS)
    assert full_codes - lean_codes == unused | set(vocab.enums["ckey"]) - lean_codes
    text = legend(vocab, lean=True)
    assert names_in(text, unused) == unused  # DRAFT, BUILD... are gone
    assert "rb=acc" not in text and "ckey" not in text
    assert set(vocab.asks_used) <= lean_codes and {"PAY", "CHGBANK", "SEND"} <= lean_codes


def test_lean_keeps_every_core_ask_when_the_profile_lists_none():
    vocab = bundled_vocabulary("pform")
    assert set(vocab.core["enums"]["ask"]) <= legend_names(vocab, lean=True)[1]


def test_the_legend_carries_the_receiver_rules_and_the_profile_rules():
    text = legend(bundled_vocabulary("pay"), lean=True)
    for phrase in ("Never guess", "why=UNK", "No handover without readback", "Facts in slots",
                   "Report what the tool printed", "CHGBANK sup acct eff apref prev", "net + vat = amt",
                   "Closed answers", "p=pay on every line"):
        assert phrase in text, phrase
    assert "Agents: ARC BLD" in legend(bundled_vocabulary("pform"))


def test_the_legend_follows_the_data_not_a_text_written_by_hand():
    doc = {"profile": "shop", "version": "2", "extends": "RW1", "asks": {"SHIP": "send the parcel"},
           "enums": {"size": {"S": "small", "L": "large"}},
           "slots": [{"key": "box", "type": "enum:size", "on": ["HO"], "desc": "parcel size"}],
           "exec": {"SHIP": ["box"]},
           "translation": [{"id": "r", "on": ["HO"], "require": ["box"], "desc": "every handoff names its box"}]}
    text = legend(compile_vocabulary(doc))
    for phrase in ("profile shop 2", "SHIP send the parcel", "size: S small; L large", "enum:size: box parcel size",
                   "Execution slots: SHIP box", "HO: every handoff names its box.", "shop slots go on HO"):
        assert phrase in text, phrase
    assert "SHIP" not in legend(core_vocabulary())


def test_markdown_has_the_same_sections_as_text():
    vocab = bundled_vocabulary("clin")
    md, text = legend(vocab, fmt="md"), legend(vocab)
    assert md.startswith("# RW1 legend, profile clin")
    md_titles = [l[3:].upper() for l in md.splitlines() if l.startswith("## ")]
    text_titles = [l for l in text.splitlines() if l.isupper()]
    assert md_titles == text_titles and len(md_titles) == 4
    with pytest.raises(ValueError):
        legend(vocab, fmt="html")


def test_select_reports_what_lean_dropped():
    sel = select(bundled_vocabulary("pay"), lean=True)
    assert set(sel.dropped_slots) == set(COMPREHENSION_SLOTS)
    assert "DRAFT" in sel.dropped_codes["ask"] and "REVIEW" not in sel.dropped_codes["ask"]


def test_legend_command_prints_the_generated_legend(capsys):
    assert main(["legend", "--profile", "pay", "--lean"]) == 0
    assert capsys.readouterr().out == legend(bundled_vocabulary("pay"), lean=True)
    assert main(["legend", "--format", "md"]) == 0
    assert capsys.readouterr().out == legend(core_vocabulary(), fmt="md")
    assert main(["legend", "--profile", "no-such-profile"]) == 2


def test_an_ask_with_the_slots_of_an_earlier_one_is_said_as_that_one():
    text = legend(bundled_vocabulary("pay"), lean=True)
    assert "PAY sup amt cur kind acct paid ref apref;" in text and "UNDO as PAY" in text
    assert bundled_vocabulary("pay").exec_slots["UNDO"] == bundled_vocabulary("pay").exec_slots["PAY"]


def test_the_pay_legend_keeps_to_its_token_goal():
    import importlib.util
    from pathlib import Path

    import bpe_openai

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "legend_tokens.py"
    spec = importlib.util.spec_from_file_location("legend_tokens", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    o200k = bpe_openai.get_encoding("o200k_base")
    for (name, mode), goal in bench.GOAL.items():
        count = len(o200k.encode(legend(bundled_vocabulary(name), lean=mode == "lean")))
        assert count <= goal, f"the {mode} legend of {name} is {count} tokens; the goal is at most {goal}"
