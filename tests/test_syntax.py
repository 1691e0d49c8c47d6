"""Syntax: the grammar, the fast path derived from it, and the errors (D3)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rogerwilco import RW1SyntaxError
from rogerwilco.core.syntax import chunk_at, line_regex, parse_raw, parse_raw_lark
from tests.strategies import fragments, messages, mutated_lines



def _lark_accepts(text: str) -> bool:
    try:
        parse_raw_lark(text)
        return True
    except RW1SyntaxError:
        return False


@settings(max_examples=1500, deadline=None)
@given(mutated_lines() | fragments | st.text(max_size=80))
def test_fast_path_accepts_exactly_what_the_grammar_accepts(text):
    fast = line_regex().fullmatch(text) is not None
    assert fast == _lark_accepts(text)
    if fast:
        assert parse_raw(text) == parse_raw_lark(text)


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


def test_reading_valid_lines_never_imports_lark():
    import subprocess
    import sys

    code = ("import sys, rogerwilco\n"
            "rogerwilco.loads('RW1 HO a-1 from=a to=b item=x ask=FIX pri=2 // ok')\n"
            "assert not any(m == 'lark' or m.startswith('lark.') for m in sys.modules), sorted(sys.modules)\n"
            "try:\n    rogerwilco.loads('RW1 HO a-1 from=a  to=b')\nexcept rogerwilco.RW1SyntaxError:\n    pass\n"
            "assert 'lark' in sys.modules\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
