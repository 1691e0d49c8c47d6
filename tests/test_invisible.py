"""D16: invisible characters are refused in a line; a tail keeps the joiners and selectors it needs.

A value (slot, item ref, id) holds only characters a person sees, so two
values never print alike (``inv:MD-1`` and ``inv:MD\\u200b-1``), and no tag
character hides text in a line. A tail keeps the zero-width non-joiner and
joiner between two visible characters and a variation selector right after
one, which emoji sequences and joined scripts need. The refusal holds on
every path that reads a line: the grammar (Lark), the fast path derived from
it, encoding from the JSON form, the JSON Schema (for characters in the BMP)
and the JavaScript port; what a person is shown escapes them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rogerwilco import Message
from rogerwilco.core.display import INVISIBLE_RANGES, is_invisible, printable
from rogerwilco.core.errors import EncodeError, RW1SyntaxError
from rogerwilco.core.jsonform_schema import _terminal_ranges, schema
from rogerwilco.core.semantics import check_line, refusal
from rogerwilco.core.syntax import TAIL_JOINERS, TAIL_SELECTORS, line_regex, parse_raw_lark
from rogerwilco.front.cli import main
from rogerwilco.front.conformance import ImplProcess

from .strategies import JOINED, messages

PORT = Path(__file__).resolve().parents[1] / "examples" / "ports" / "js" / "adapter.js"
LINE = "RW1 HO fin-1 from=fin to=pay item=inv:MD-1 ask=FIX x_note=ab // pay the invoice"

# One of each kind the issue names and D16 lists, written out here rather than taken from the package.
REFUSED = {
    "zero-width space": "\u200b",
    "word joiner": "\u2060",
    "invisible times": "\u2062",
    "byte order mark": "\ufeff",
    "soft hyphen": "\u00ad",
    "mongolian vowel separator": "\u180e",
    "combining grapheme joiner": "\u034f",
    "interlinear annotation anchor": "\ufff9",
    "hangul filler": "\u3164",
    "tag latin capital a": "\U000e0041",
    "cancel tag": "\U000e007f",
    "language tag": "\U000e0001",
    "variation selector 17": "\U000e0100",
}
PLACES = {  # (the text replaced, with a slot for the character)
    "item ref": ("item=inv:MD-1", "item=inv:MD{}-1"),
    "value": ("x_note=ab", "x_note=a{}b"),
    "id": ("fin-1", "fin{}-1"),
    "tail": ("the invoice", "the in{}voice"),
    "between tokens": (" ask=FIX", " {}ask=FIX"),
}


def _refused_on_both_paths(line: str) -> RW1SyntaxError:
    assert line_regex().fullmatch(line) is None
    with pytest.raises(RW1SyntaxError) as lark:
        parse_raw_lark(line)
    return lark.value


def test_the_issue_reproducer_two_items_that_print_alike_are_not_both_valid():
    plain = "RW1 HO fin-1 from=fin to=pay item=inv:MD-1 ask=FIX"
    hidden = "RW1 HO fin-1 from=fin to=pay item=inv:MD\u200b-1 ask=FIX"
    assert check_line(plain).valid
    result = check_line(hidden)
    assert not result.valid
    first = result.refusal
    assert (first.kind, first.why, first.token, first.column) == ("syntax", "UNK", "item=inv:MD\u200b-1", 30)
    assert "U+200B" in first.message and "column 41" in first.message and "\u200b" not in first.message


@pytest.mark.parametrize("name", sorted(REFUSED))
@pytest.mark.parametrize("place", sorted(PLACES))
def test_an_invisible_character_anywhere_in_a_line_is_a_syntax_error(name, place):
    ch = REFUSED[name]
    target, hole = PLACES[place]
    line = LINE.replace(target, hole.format(ch), 1)
    assert line != LINE and check_line(LINE).valid
    result = check_line(line)
    assert not result.valid
    first = result.refusal
    assert first.kind == "syntax" and first.why == "UNK"
    assert ch in first.token  # the chunk as written (D10)
    code = ord(ch)
    assert f"U+{code:04X}" in first.message and "invisible character" in first.message
    assert printable(ch) in first.message and ch not in first.message  # named escaped
    error = _refused_on_both_paths(line)
    assert (error.token, error.column, error.message) == (first.token, first.column, first.message)


VALID_TAILS = [*JOINED, "\U0001f3f3\ufe0f\u200d\U0001f308", "\u0915\u094d\u200d\u0937", "a\u200cb\ufe0e"]


@pytest.mark.parametrize("tail", VALID_TAILS)
def test_a_tail_keeps_joiners_and_selectors_bound_to_visible_characters(tail):
    line = LINE.replace("the invoice", tail)
    message = check_line(line).message
    assert message is not None and message.tail == "pay " + tail
    assert line_regex().fullmatch(line) is not None
    assert parse_raw_lark(line).tail == "pay " + tail


UNBOUND = [  # (tail word, the character named, the message's words)
    ("a\u200d", "\u200d", "joiner"),
    ("\u200d", "\u200d", "joiner"),
    ("\u200db", "\u200d", "joiner"),
    ("a\u200d\u200db", "\u200d", "joiner"),
    ("a\u200c\u200db", "\u200c", "joiner"),
    ("a\u200d\ufe0fb", "\u200d", "joiner"),
    ("\ufe0fa", "\ufe0f", "variation selector"),
    ("\u2764\ufe0f\ufe0f", "\ufe0f", "variation selector"),
    ("\u2764\ufe0e\ufe0f", "\ufe0f", "variation selector"),
]


@pytest.mark.parametrize("word, ch, kind", UNBOUND)
def test_a_joiner_or_selector_that_binds_no_visible_character_is_refused(word, ch, kind):
    line = LINE.replace("the invoice", f"the {word} invoice")
    first = check_line(line).refusal
    assert first is not None and first.kind == "syntax" and first.token == word
    assert first.message.startswith(f"{kind} {printable(ch)} (U+{ord(ch):04X})")
    _refused_on_both_paths(line)


@pytest.mark.parametrize("ch", sorted(TAIL_JOINERS | TAIL_SELECTORS))
def test_a_joiner_or_selector_in_a_value_is_refused(ch):
    line = LINE.replace("x_note=ab", f"x_note=a{ch}b")
    first = check_line(line).refusal
    assert first is not None and first.token == f"x_note=a{ch}b"
    assert "not allowed outside the tail" in first.message
    _refused_on_both_paths(line)


def test_the_tail_only_characters_are_the_joiners_and_the_variation_selectors():
    assert TAIL_JOINERS == frozenset("\u200c\u200d")
    assert TAIL_SELECTORS == frozenset(chr(c) for c in range(0xFE00, 0xFE10))
    assert [chr(c) for lo, hi in _terminal_ranges("TJOIN") for c in range(lo, hi + 1)] == sorted(TAIL_JOINERS)
    assert [chr(c) for lo, hi in _terminal_ranges("TSEL") for c in range(lo, hi + 1)] == sorted(TAIL_SELECTORS)


def test_a_visible_character_is_exactly_one_that_printable_leaves_alone():
    # The grammar's VCHAR and display's table are two writings of one set:
    # a valid value always prints as itself, so two values never print alike.
    visible: list[tuple[int, int]] = []
    nxt = 0
    for lo, hi in sorted(INVISIBLE_RANGES + ((0x20, 0x20),)):
        if lo > nxt:
            visible.append((nxt, lo - 1))
        nxt = max(nxt, hi + 1)
    visible.append((nxt, 0x10FFFF))
    assert list(_terminal_ranges("VCHAR")) == visible


@settings(max_examples=200, deadline=None)
@given(messages())
def test_a_valid_line_prints_as_itself_but_for_its_tail(msg):
    line = msg.to_line()
    head, _, tail = line.partition(" // ")
    assert printable(head) == head
    escaped = {ch for ch in tail if printable(ch) != ch}
    assert escaped <= TAIL_JOINERS | TAIL_SELECTORS | {"\u00a0", "\u3000", "\u2009"}


# Every range of the table, its first 40 characters: all but whitespace (D3's business) refused anywhere.
_NEVER = sorted({chr(c) for lo, hi in INVISIBLE_RANGES for c in range(lo, min(hi, lo + 40) + 1) if not chr(c).isspace()}
                - TAIL_JOINERS - TAIL_SELECTORS)


@settings(max_examples=300, deadline=None)
@given(messages(), st.sampled_from(_NEVER), st.integers(min_value=0))
def test_an_invisible_character_inserted_anywhere_in_a_valid_line_is_refused(msg, ch, where):
    line = msg.to_line()
    i = where % (len(line) + 1)
    bad = line[:i] + ch + line[i:]
    result = check_line(bad)
    assert not result.valid and result.refusal.kind == "syntax"
    assert line_regex().fullmatch(bad) is None


@settings(max_examples=200, deadline=None)
@given(messages(), st.sampled_from(sorted(TAIL_JOINERS | TAIL_SELECTORS)), st.integers(min_value=0))
def test_a_joiner_or_selector_inserted_before_the_tail_is_refused(msg, ch, where):
    line = msg.to_line()
    head = line.partition(" // ")[0]
    i = where % (len(head) + 1)
    bad = line[:i] + ch + line[i:]
    assert not check_line(bad).valid


@pytest.mark.parametrize("ch", ["\u200b", "\u2060", "\ufeff", "\u200d", "\u00ad"])
def test_a_json_form_holding_an_invisible_character_is_refused_by_encode_and_the_schema(ch):
    form = Message.from_line(LINE).to_json()
    validator = jsonschema.Draft202012Validator(schema(None))
    assert validator.is_valid(form)
    for key in ("item", "x_note", "tail"):
        bad = {**form, "slots": dict(form["slots"])}
        if key == "item":
            bad["item"] = "inv:MD" + ch + "-1"
        elif key == "tail":
            bad["tail"] = "pay " + ch + "the invoice"
        else:
            bad["slots"][key] = "a" + ch + "b"
        assert not validator.is_valid(bad), (key, ch)
        with pytest.raises(EncodeError):
            Message.from_json(bad)


def test_encode_refuses_a_tag_character_in_the_tail():
    form = Message.from_line(LINE).to_json()
    with pytest.raises(EncodeError):
        Message.from_json({**form, "tail": "pay the invoice" + "".join(chr(0xE0000 + ord(c)) for c in "approve")})


def test_the_schema_tail_follows_the_grammar_words():
    form = Message.from_line(LINE).to_json()
    validator = jsonschema.Draft202012Validator(schema(None))
    for tail in VALID_TAILS:
        assert validator.is_valid({**form, "tail": tail}), tail
    for word, _, _ in UNBOUND:
        assert not validator.is_valid({**form, "tail": "x " + word}), word


def test_the_cli_shows_the_refused_character_escaped(tmp_path, capsys):
    path = tmp_path / "lines.rw1"
    path.write_text("RW1 HO fin-1 from=fin to=pay item=inv:MD\u200b-1 ask=FIX\n", encoding="utf-8")
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert "\u200b" not in out and "item=inv:MD\\u200b-1" in out and "U+200B" in out


def test_the_javascript_port_refuses_as_python_does():
    node = shutil.which("node")
    assert node is not None, "node is needed to run the JavaScript port"
    lines = [LINE.replace(target, hole.format(ch), 1) for ch in REFUSED.values() for target, hole in PLACES.values()]
    lines += [LINE.replace("the invoice", f"the {word} invoice") for word, _, _ in UNBOUND]
    lines += [LINE.replace("x_note=ab", f"x_note=a{ch}b") for ch in sorted(TAIL_JOINERS | TAIL_SELECTORS)]
    lines += [LINE.replace("the invoice", tail) for tail in VALID_TAILS]
    impl = ImplProcess([node, str(PORT)])
    try:
        for line in lines:
            result = check_line(line)
            got = impl.ask({"op": "parse", "line": line, "profiles": []}, 30)
            assert got["valid"] is result.valid, (line, got)
            if result.valid:
                continue
            assert (got["why"], got["token"]) == ("UNK", result.refusal.token), line
            reply = impl.ask({"op": "reply", "line": line, "as": "me", "n": 1, "profiles": []}, 30)["reply"]
            assert reply == refusal(line, "me", 1), line  # the same words, escaped the same way
            assert reply is None or not any(is_invisible(c) for c in reply)
    finally:
        impl.stop()
