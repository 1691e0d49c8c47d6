"""Syntax: the grammar, the fast path derived from it, and the errors (D3)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rogerwilco import RW1SyntaxError
from rogerwilco.core.syntax import ascii_line_regex, ascii_only, chunk_at, line_regex, parse_raw, parse_raw_lark
from tests.strategies import fragments, messages, mutated_lines



def _lark_accepts(text: str) -> bool:
    try:
        parse_raw_lark(text)
        return True
    except RW1SyntaxError:
        return False


def _error(parse, text: str) -> tuple | None:
    try:
        parse(text)
    except RW1SyntaxError as exc:
        return exc.message, exc.token, exc.column, exc.line, exc.text, exc.why
    return None


@settings(max_examples=1500, deadline=None)
@given(mutated_lines() | fragments | st.text(max_size=80))
def test_fast_path_accepts_exactly_what_the_grammar_accepts(text):
    fast = line_regex().fullmatch(text) is not None
    assert fast == _lark_accepts(text)
    if fast:
        assert parse_raw(text) == parse_raw_lark(text)
    else:
        # the refusal is found without Lark, and is the one Lark's parser gives:
        # same message, token and column
        assert _error(parse_raw, text) == _error(parse_raw_lark, text)


@settings(max_examples=500, deadline=None)
@given(mutated_lines() | fragments | st.text(max_size=80), st.sampled_from([None, 7]))
def test_the_walk_stops_where_lark_stops(text, number):
    from rogerwilco.core._lark import UnexpectedInput
    from rogerwilco.core.syntax import diagnose, lark_error_position, lark_parser

    found = diagnose(text)
    try:
        lark_parser().parse(text)
    except UnexpectedInput as exc:
        assert found is None or found == lark_error_position(text, exc)
        assert found is not None or "\n" in text  # the walk explains every refusal but a line break's
    else:
        assert found is None
    assert _error(lambda t: parse_raw(t, line_number=number), text) == \
        _error(lambda t: parse_raw_lark(t, line_number=number), text)


@settings(max_examples=300, deadline=None)
@given(messages())
def test_both_paths_split_valid_lines_identically(msg):
    line = msg.to_line()
    assert parse_raw(line) == parse_raw_lark(line)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=120) | mutated_lines())
def test_any_text_parses_or_raises_our_own_error(text):
    try:
        parse_raw(text)
    except RW1SyntaxError as exc:
        assert exc.why == "UNK"
        assert exc.column is not None and 1 <= exc.column <= len(text) + 1
        assert " " not in exc.token


@pytest.mark.parametrize(
    "line, token, column",
    [
        ("RW1 HO a-1 from=a  to=b", "to=b", 20),
        (" RW1 HO a-1 from=a", "RW1", 2),
        ("RW1 HO a-1 from=a ", "from=a", 12),
        ("RW1 HO a-1 from=a\tto=b", "from=a\tto=b", 12),
        ("RW1 HO a-1 from=a Item=x", "Item=x", 19),
        ("RW1 HO a-1 from=a //", "//", 19),
        ("RW1 HO a-1 from=a // ", "//", 19),
        ("RW1 HO writer07 from=a", "writer07", 8),
        ("RW1 ho a-1 from=a", "ho", 5),
    ],
)
def test_syntax_errors_name_the_offending_token_and_column(line, token, column):
    with pytest.raises(RW1SyntaxError) as info:
        parse_raw(line)
    assert info.value.token == token
    assert info.value.column == column
    assert info.value.caret().splitlines()[1].index("^") == column - 1


def test_caret_escapes_control_characters():
    with pytest.raises(RW1SyntaxError) as info:
        parse_raw("RW1 HO a-1 from=a\x1b[31m")
    shown = info.value.caret()
    assert "\x1b" not in shown and "\\x1b" in shown


def test_value_may_hold_equals_and_colons_and_the_key_ends_at_the_first_equals():
    raw = parse_raw("RW1 HO a-1 from=a to=b item=x art=url:https://x/?a=b ask=DRAFT")
    assert ("art", "url:https://x/?a=b") in raw.slots


def test_tail_starts_at_first_token_exactly_slash_slash():
    raw = parse_raw("RW1 ST a-1 from=a to=b item=x x_u=//x // a // b")
    assert raw.tail == "a // b"
    assert ("x_u", "//x") in raw.slots


def test_chunk_at_points_at_the_token_a_reader_would():
    assert chunk_at("ab cd", 4) == ("cd", 4)
    assert chunk_at("ab  cd", 3) == ("cd", 5)
    assert chunk_at("ab ", 4) == ("ab", 1)
    assert chunk_at("", 1) == ("", 1)


def test_the_shipped_fast_path_regex_is_the_one_derived_from_the_grammar():
    from rogerwilco.core import _fastpath
    from rogerwilco.core.syntax import derive_line_regex

    assert _fastpath.LINE_REGEX == derive_line_regex(), "grammar changed: run python -m rogerwilco.core.syntax"


def test_the_shipped_ascii_regex_is_the_line_regex_narrowed_to_ascii():
    from rogerwilco.core import _fastpath

    assert _fastpath.ASCII_LINE_REGEX == ascii_only(_fastpath.LINE_REGEX), "run python -m rogerwilco.core.syntax"


# What a non-ASCII character of a generated line becomes, so the lines stay near the grammar's edges: a
# separator, a control character, DEL, the tail mark's slash, the slot's equals sign, a letter.
_STAND_INS = " \x00\x1f\x7f/=a"


def _ascii(text: str) -> str:
    return "".join(c if c.isascii() else _STAND_INS[ord(c) % len(_STAND_INS)] for c in text)


@settings(max_examples=1500, deadline=None)
@given((mutated_lines() | fragments | st.text(max_size=80)).map(_ascii))
def test_on_ascii_text_the_narrow_regex_accepts_exactly_what_the_wide_one_accepts(text):
    assert (ascii_line_regex().fullmatch(text) is not None) == (line_regex().fullmatch(text) is not None)
    assert _error(parse_raw, text) == _error(parse_raw_lark, text)


@pytest.mark.parametrize("pattern", [
    "[^\\x00-\\x20\\x7f-\\xa0]", "[!-~\u00a1-\U0010ffff]", "[\u00e9\u200c]", "[0-9]", "x[^a-c]+y|[\u00e9]z",
])
def test_a_regex_narrowed_to_ascii_matches_every_ascii_character_as_before(pattern):
    import re

    wide, narrow = re.compile(pattern), re.compile(ascii_only(pattern))
    for text in [chr(c) for c in range(0x80)] + [f"x{chr(c)}y" for c in range(0x80)] + ["z", "xy", "xaby"]:
        assert bool(wide.fullmatch(text)) == bool(narrow.fullmatch(text)), (pattern, text)


def test_the_shipped_terminal_regexes_are_the_ones_derived_from_the_grammar():
    from rogerwilco.core import _fastpath
    from rogerwilco.core.syntax import derive_terminals

    assert _fastpath.TERMINALS == derive_terminals(), "grammar changed: run python -m rogerwilco.core.syntax"


def test_lark_is_imported_only_for_a_refusal_the_walk_cannot_explain():
    import subprocess
    import sys

    code = ("import sys, rogerwilco\n"
            "rogerwilco.loads('RW1 HO a-1 from=a to=b item=x ask=FIX pri=2 // ok')\n"
            "assert not any(m == 'lark' or m.startswith('lark.') for m in sys.modules), sorted(sys.modules)\n"
            "for bad in ('RW1 HO a-1 from=a  to=b', 'RW1 HO a-1 from=a to=b // ', 'RW1 ho a-1', 'RW1 HO a-1 K=v', ''):\n"
            "    try:\n        rogerwilco.loads(bad)\n    except rogerwilco.RW1SyntaxError:\n        pass\n"
            "assert 'lark' not in sys.modules\n"
            "try:\n    rogerwilco.loads('RW1 HO a-1 from=a\\nto=b')\nexcept rogerwilco.RW1SyntaxError:\n    pass\n"
            "assert 'lark' in sys.modules\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_characters_no_line_may_hold_are_found_by_one_search():
    import sys

    from rogerwilco.core.display import is_invisible
    from rogerwilco.core.syntax import BIDI_CONTROLS, refused_characters

    never_in_a_line, spacing, _ = refused_characters()
    probes = set(range(0x3100)) | {0xD7FF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xE000, 0xFEFF, 0xFFFF, 0x10000, sys.maxunicode}
    probes |= set(range(0xFE00, 0xFE10)) | set(range(0xFFF0, 0xFFFE)) | set(range(0xE0000, 0xE0080)) | {0xE0FFF, 0xE1000}
    for code in sorted(probes):
        ch = chr(code)
        # D16: every invisible character that is no whitespace, but a tail's joiners and variation selectors.
        invisible_format = is_invisible(ch) and not ch.isspace() and ch not in "\u200c\u200d" \
            and not 0xFE00 <= code <= 0xFE0F
        never = (code < 0x20 or 0x7F <= code <= 0x9F or ch in "\u2028\u2029" or 0xD800 <= code <= 0xDFFF
                 or ch in BIDI_CONTROLS or invisible_format)
        assert bool(never_in_a_line.fullmatch(ch)) == never, hex(code)
        assert bool(spacing.fullmatch(ch)) == (ch.isspace() and ch != " "), hex(code)
