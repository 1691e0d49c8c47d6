"""Syntax: one RW1 line into its tokens, or a precise syntax error.

Theory of operation
-------------------
``grammar/rw1.lark`` is the one source of syntax. It is loaded once (a cached
factory) into a Lark LALR parser with the contextual lexer, and a transformer
turns its parse tree into a :class:`RawLine`: the version, type and id tokens,
the keyed slots as (key, raw value) pairs in written order, and the tail.
Nothing here knows the vocabulary; a line with an unknown type parses, and the
never-guess pass refuses it by name.

Lark is general and therefore slow for a language this regular. The fast path
is a single regular expression *derived from the grammar*: the ``start`` rule's
EBNF tree is walked and every terminal is replaced by the regex Lark itself
compiled for it. A line the derived regex accepts is split on its separators
(the grammar guarantees a slot holds no space and that the first " // " is
the tail mark), giving the same RawLine the Lark path gives; a line it
rejects goes through Lark, which says exactly where and why. The two paths
are proven to agree by a differential property test (tests/test_syntax.py).

The derived regex is shipped precomputed (:mod:`rogerwilco.core._fastpath`, written
by ``python -m rogerwilco.core.syntax``), so a process that reads only valid lines
never imports Lark at all; a test derives it again from the grammar and fails
when the two differ. Lark is imported on the first line the regex refuses.

Errors never leave as Lark exceptions: they become RW1SyntaxError with the
1-based column, the offending token (the space-delimited chunk at the error)
and a message naming what was expected.
"""

from __future__ import annotations

import re
import sys
from functools import lru_cache

from typing import TYPE_CHECKING, Any, NamedTuple

from ._fastpath import LINE_REGEX
from ._resources import grammar_path
from .errors import RW1SyntaxError, printable

if TYPE_CHECKING:
    from lark import Lark
    from lark.exceptions import UnexpectedInput

TAIL_MARK = " // "
# The bidirectional controls the grammar refuses anywhere in a line (D14): a
# value holding one displays as another ("Trojan Source").
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")

# What each terminal looks like, for error messages a person can act on.
_EXPECTED = {
    "VERSION": "the version token RW1",
    "TYPE": "a message type in uppercase (HO, RB, AQ, ...)",
    "MSGID": "a message id <from>-<n>",
    "SLOT": "a slot key=value (key: a lowercase letter, then [a-z0-9_])",
    "_TAIL_MARK": "' // ' before a tail",
    "_SP": "a single space",
    "TAIL": "tail text",
    "$END": "the end of the line",
}


class RawLine(NamedTuple):
    """A line split into its syntactic parts, values still as written.

    A named tuple rather than an attrs class: one is built for every line
    read, and tuple construction is the cheapest immutable record Python has.
    """

    text: str
    version: str
    type: str
    id: str
    tokens: tuple[str, ...]  # the keyed slots as written, "key=value", in order
    tail: str | None = None

    @property
    def slots(self) -> tuple[tuple[str, str], ...]:
        """The keyed slots as (key, value as written) pairs, in written order."""
        return tuple(tuple(tok.split("=", 1)) for tok in self.tokens)  # type: ignore[misc]

    def slot_column(self, index: int) -> int:
        """1-based column where slot ``index`` starts (for carets)."""
        col = len(self.version) + len(self.type) + len(self.id) + 3
        for token in self.tokens[:index]:
            col += len(token) + 1
        return col + 1

    def tail_column(self) -> int:
        return len(self.text) - len(self.tail or "") + 1


def _to_raw_line(text: str, tree: Any) -> RawLine:
    """The grammar's one rule, ``start``, as a RawLine: version, type, id, slots in order, tail."""
    version, type_, msgid, *rest = tree.children
    tokens, tail = [], None
    for tok in rest:
        if tok.type == "SLOT":
            tokens.append(str(tok))
        else:
            tail = str(tok)
    return RawLine(text=text, version=str(version), type=str(type_), id=str(msgid), tokens=tuple(tokens), tail=tail)


@lru_cache(maxsize=1)
def grammar_text() -> str:
    return grammar_path().read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def lark_parser() -> "Lark":
    """The grammar, loaded once (Lark is imported here, on first use)."""
    from lark import Lark

    return Lark(grammar_text(), parser="lalr", lexer="contextual", propagate_positions=False)


def _tree_to_regex(tree: Any, terminals: dict[str, str]) -> str:  # a node of Lark's parse of a .lark file
    """Render a Lark EBNF tree (expansions/expansion/expr/value) as a regex."""
    kind = tree.data
    if kind == "expansions":
        parts = [_tree_to_regex(child, terminals) for child in tree.children]
        return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"
    if kind == "expansion":
        return "".join(_tree_to_regex(child, terminals) for child in tree.children)
    if kind == "expr":
        atom, op = tree.children[0], str(tree.children[1])
        if op not in ("*", "+", "?"):
            raise ValueError(f"operator {op!r} not supported by the fast path")
        return "(?:" + _tree_to_regex(atom, terminals) + ")" + op
    if kind == "value":
        (sym,) = tree.children
        if hasattr(sym, "name"):
            return "(?:" + terminals[sym.name] + ")"
        return _tree_to_regex(sym, terminals)
    raise ValueError(f"grammar construct {kind!r} not supported by the fast path")


def _escaped(code: int) -> str:
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def compact_class(pattern: str) -> str:
    """A regex that is one character class, written as its complement when that spans fewer code points.

    The same set of characters: ``[!-~\\xa1-...\\U0010ffff]`` (every visible
    character) becomes ``[^\\x00-\\x20...]`` (what is not visible). Python's
    ``re`` compiles a class spanning the astral planes in milliseconds and its
    short complement in a fraction of one, and every process that reads a line
    compiles the fast-path regex once. Anything but a plain class is returned
    unchanged.
    """
    if sys.version_info >= (3, 11):
        from re import _constants as constants, _parser as parser
    else:
        import sre_constants as constants
        import sre_parse as parser
    try:
        items: list[Any] = parser.parse(pattern).data  # (opcode, argument) pairs; the stdlib types them loosely
    except re.error:
        return pattern
    if len(items) != 1 or items[0][0] is not constants.IN:
        return pattern
    ranges: list[tuple[int, int]] = []
    for op, arg in items[0][1]:
        if op is constants.LITERAL:
            ranges.append((arg, arg))
        elif op is constants.RANGE:
            ranges.append((arg[0], arg[1]))
        else:  # a negated class or a category (\\d, \\s): left as written
            return pattern
    ranges.sort()
    complement: list[tuple[int, int]] = []
    start = 0
    for lo, hi in ranges:
        if lo > start:
            complement.append((start, lo - 1))
        start = max(start, hi + 1)
    if start <= sys.maxunicode:
        complement.append((start, sys.maxunicode))
    if not complement or sum(hi - lo for lo, hi in complement) >= sum(hi - lo for lo, hi in ranges):
        return pattern
    return "[^" + "".join(_escaped(lo) if lo == hi else f"{_escaped(lo)}-{_escaped(hi)}" for lo, hi in complement) + "]"


def compact_classes(regex: str) -> str:
    """Every bracketed character class of ``regex`` through :func:`compact_class`."""
    out: list[str] = []
    i = 0
    while i < len(regex):
        ch = regex[i]
        if ch == "\\":
            out.append(regex[i:i + 2])
            i += 2
            continue
        if ch != "[":
            out.append(ch)
            i += 1
            continue
        j = i + 1
        if j < len(regex) and regex[j] == "^":
            j += 1
        if j < len(regex) and regex[j] == "]":
            j += 1
        while j < len(regex) and regex[j] != "]":
            j += 2 if regex[j] == "\\" else 1
        out.append(compact_class(regex[i:j + 1]))
        i = j + 1
    return "".join(out)


def derive_line_regex() -> str:
    """The whole-line regex derived from the grammar's ``start`` rule (what ``_fastpath`` ships)."""
    from lark.load_grammar import GrammarBuilder

    parser = lark_parser()
    terminals = {t.name: compact_classes(t.pattern.to_regexp()) for t in parser.terminals}
    builder = GrammarBuilder()
    builder.load_grammar(grammar_text(), "rw1.lark")
    start = builder._definitions["start"].tree
    return _tree_to_regex(start, terminals)


@lru_cache(maxsize=1)
def line_regex() -> re.Pattern[str]:
    """The whole-line regex of the fast path (derived from the grammar, shipped precomputed)."""
    return re.compile(LINE_REGEX)


_LINE_MATCH = line_regex().fullmatch


def parse_raw(text: str, *, line_number: int | None = None) -> RawLine:
    """Split one line into a RawLine, or raise RW1SyntaxError."""
    if _LINE_MATCH(text) is not None:
        head, mark, tail = text.partition(TAIL_MARK)
        tokens = head.split(" ")
        return RawLine(text, tokens[0], tokens[1], tokens[2], tuple(tokens[3:]), tail if mark else None)
    return parse_raw_lark(text, line_number=line_number)


def parse_raw_lark(text: str, *, line_number: int | None = None) -> RawLine:
    """The Lark path alone (used on rejects, and by the differential test)."""
    from lark.exceptions import UnexpectedInput

    try:
        tree = lark_parser().parse(text)
    except UnexpectedInput as exc:
        raise _syntax_error(text, exc, line_number) from None
    return _to_raw_line(text, tree)


def chunk_at(text: str, column: int) -> tuple[str, int]:
    """The space-delimited chunk containing 1-based ``column``, and its column.

    At a space or past the end, the chunk is the next one, or failing that
    the last one: the token a reader would point at.
    """
    idx = min(max(column - 1, 0), len(text))
    if idx < len(text) and text[idx] != " ":
        start = text.rfind(" ", 0, idx) + 1
    else:
        nxt = idx
        while nxt < len(text) and text[nxt] == " ":
            nxt += 1
        if nxt < len(text):
            start = nxt
        else:
            stripped = text.rstrip(" ")
            start = stripped.rfind(" ") + 1 if stripped else 0
            if not stripped:
                return "", 1
    end = text.find(" ", start)
    end = len(text) if end == -1 else end
    return text[start:end], start + 1


def _syntax_error(text: str, exc: "UnexpectedInput", line_number: int | None) -> RW1SyntaxError:
    from lark.exceptions import UnexpectedToken

    column = getattr(exc, "column", None)
    if not isinstance(column, int) or column < 1:
        column = len(text) + 1
    if isinstance(exc, UnexpectedToken) and exc.token.type == "$END":
        column = len(text) + 1
    expected = sorted(getattr(exc, "expected", None) or getattr(exc, "allowed", None) or ())
    message = _describe(text, column, expected, exc)
    token, token_col = chunk_at(text, column)
    return RW1SyntaxError(
        message,
        why="UNK",
        token=token,
        column=token_col if token else column,
        line=line_number,
        text=text,
    )


def _describe(text: str, column: int, expected: list[str], exc: "UnexpectedInput") -> str:
    """A precise message for the commonest breakages, else what was expected."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

    idx = column - 1
    if not text:
        return "empty line"
    tail_from = text.find(TAIL_MARK)
    tail_from = len(text) if tail_from < 0 else tail_from + len(TAIL_MARK)
    for i, ch in enumerate(text):
        code = ord(ch)
        spacing = ch.isspace() and ch != " " and i < tail_from  # the tail may hold no-break spaces
        if ch in BIDI_CONTROLS:
            return (f"bidirectional control {printable(ch)} (U+{code:04X}) at column {i + 1} is not allowed in a line: "
                    "it changes how the text around it displays")
        if code < 0x20 or 0x7F <= code <= 0x9F or spacing or ch in "\u2028\u2029" or 0xD800 <= code <= 0xDFFF:
            return f"character {printable(ch)} (U+{code:04X}) at column {i + 1} is not allowed in a line"
    if text[0] == " ":
        return "leading space"
    if text.endswith(" "):
        return "trailing space"
    if "  " in text:
        return f"two spaces in a row at column {text.index('  ') + 1}"
    if text.endswith(" //"):
        return "empty tail: ' //' must be followed by a space and text"
    if not text.startswith("RW") or not text[2:3].isdigit():
        return "a line starts with the version token RW1"
    if isinstance(exc, (UnexpectedCharacters, UnexpectedToken, UnexpectedEOF)) and expected:
        wanted = " or ".join(_EXPECTED.get(name, name) for name in expected)
        got = text[idx:].split(" ", 1)[0] if idx < len(text) else "the end of the line"
        return f"expected {wanted}, found {printable(got)!r}"
    return "malformed line"


def write_fastpath() -> str:
    """The source of :mod:`rogerwilco.core._fastpath`, derived from the grammar now."""
    return (
        '"""The fast path\'s whole-line regex, derived from grammar/rw1.lark.\n\n'
        'Generated by ``python -m rogerwilco.core.syntax``; do not edit. A test derives it\n'
        'again from the grammar and fails when the two differ.\n"""\n\n'
        f"LINE_REGEX = {ascii(derive_line_regex())}\n"
    )


if __name__ == "__main__":
    from pathlib import Path

    target = Path(__file__).with_name("_fastpath.py")
    target.write_text(write_fastpath(), encoding="utf-8")
    print(f"wrote {target}")
