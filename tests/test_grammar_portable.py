"""grammar/rw1.lark stays in the regex subset every port's engine reads the same way.

Ports generate their parsers from the grammar file, so a construct that only
Python's ``re`` understands (or understands differently) would break them or,
worse, make them accept other lines. The literals are read with Lark's own
grammar reader, not with a regex over the file text.
"""

from __future__ import annotations

import re

import pytest
from lark import Lark, Token
from lark.load_grammar import _parse_grammar

from rogerwilco.core.syntax import grammar_text

# What no port's regex engine may be asked to understand.
FORBIDDEN = [
    (r"\\[dDwWsS]", "a class shorthand (\\d \\w \\s): Unicode-aware in Python, ASCII in others"),
    (r"\\[bBAZzGQE]", "an anchor or quoting escape"),
    (r"\\[pPN]\{?", "a Unicode property or name escape"),
    (r"\\[0-9]", "a backreference or octal escape"),
    (r"\\[xX]", "a \\x escape (write \\u00XX)"),
    (r"\(\?P", "a named group (Python syntax)"),
    (r"\(\?<", "a named group or lookbehind"),
    (r"\(\?[=!]", "a lookahead"),
    (r"\(\?>", "an atomic group"),
    (r"\(\?[aiLmsux-]+[:)]", "inline flags"),
    (r"\(\?#", "a comment group"),
    (r"[*+?}][+]", "a possessive quantifier"),
    (r"\[\[|\[\^", "a nested or negated class (engines differ on what they exclude)"),
    (r"--|&&|~~", "a set operation"),
    (r"\[:[a-z]+:\]", "a POSIX class"),
]


def literals() -> list[Token]:
    tree = _parse_grammar(grammar_text(), "rw1.lark")
    return [tok for tok in tree.scan_values(lambda v: isinstance(v, Token) and v.type in ("REGEXP", "STRING"))]


def regex_bodies() -> list[str]:
    out = []
    for tok in literals():
        if tok.type == "REGEXP":
            body, _, flags = str(tok)[1:].rpartition("/")
            assert flags == "", f"regex flags /{flags} in {tok}"
            out.append(body)
    return out


def unescaped(body: str, char: str) -> list[int]:
    """Offsets of ``char`` outside character classes and not escaped."""
    found, in_class, i = [], False, 0
    while i < len(body):
        c = body[i]
        if c == "\\":
            i += 2
            continue
        if c == "[" and not in_class:
            in_class = True
        elif c == "]" and in_class:
            in_class = False
        elif c == char and not in_class:
            found.append(i)
        i += 1
    return found


def test_the_grammar_has_regex_literals_to_check():
    assert len(regex_bodies()) >= 4


@pytest.mark.parametrize("pattern,what", FORBIDDEN)
def test_no_regex_literal_uses_a_non_portable_construct(pattern, what):
    for body in regex_bodies():
        m = re.search(pattern, body)
        assert m is None, f"/{body}/ uses {what}: {m.group(0)!r}"


def test_no_regex_literal_uses_dot_or_anchors():
    # '.' differs on \r, U+2028 and astral characters between engines; anchors
    # are the lexer's business, not the grammar's.
    for body in regex_bodies():
        for char in ".^$":
            assert not unescaped(body, char), f"/{body}/ uses an unescaped {char!r}"


def test_regex_literals_spell_non_ascii_as_code_point_escapes():
    for body in regex_bodies():
        assert body.isascii(), f"/{body}/ holds a literal non-ASCII character; write \\uXXXX or \\UXXXXXXXX"
        for esc in re.findall(r"\\[uU][0-9A-Fa-f]*", body):
            assert len(esc) in (6, 10), f"/{body}/: {esc} is not \\uXXXX or \\UXXXXXXXX"


def test_string_literals_are_ascii_and_case_sensitive():
    for tok in literals():
        if tok.type == "STRING":
            assert str(tok).endswith('"'), f"{tok} carries a flag (e.g. case-insensitive \"...\"i)"
            assert str(tok).isascii()


def test_grammar_uses_no_imports_ignores_or_declarations():
    tree = _parse_grammar(grammar_text(), "rw1.lark")
    kinds = {item.data for item in tree.children}
    assert kinds <= {"rule", "term"}, kinds


def test_code_point_ranges_skip_the_surrogates():
    # A class that spans U+D800-U+DFFF means different things to a UTF-16
    # engine and a code point engine; the grammar must step over them.
    for body in regex_bodies():
        for lo, hi in re.findall(r"\\[uU]([0-9A-Fa-f]+)-\\[uU]([0-9A-Fa-f]+)", body):
            lo_i, hi_i = int(lo, 16), int(hi, 16)
            assert hi_i < 0xD800 or lo_i > 0xDFFF, f"range {lo}-{hi} spans the surrogates"


def test_the_grammar_loads_as_lalr_with_the_contextual_lexer():
    # The configuration every generated port uses.
    Lark(grammar_text(), parser="lalr", lexer="contextual")


def test_the_checks_catch_what_they_forbid():
    # The forbidden patterns are live: each one matches an example of its kind.
    samples = [r"\d+", r"\bx", r"\p{L}", r"(a)\1", r"\x41", r"(?P<n>a)", r"(?<=a)b", r"(?=a)", r"(?>a)",
               r"(?i:a)", r"(?#c)", r"a++", r"[^a]", r"[a--b]", r"[[:alpha:]]"]
    for sample, (pattern, _) in zip(samples, FORBIDDEN):
        assert re.search(pattern, sample), (sample, pattern)
    assert unescaped("a.b", ".") == [1]
    assert unescaped(r"[.]\.", ".") == []
