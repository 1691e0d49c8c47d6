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
An ASCII line is matched by the same regex with every character class narrowed
to ASCII (:func:`ascii_only`, shipped beside it): on ASCII text the two match
alike, and ``re`` compiles the narrow one in a small part of the time the wide
one costs (its classes span all of Unicode), a cost every process that reads a
line pays once.

Errors never leave as Lark exceptions: they become RW1SyntaxError with the
1-based column, the offending token (the space-delimited chunk at the error)
and a message naming what was expected.
"""

from __future__ import annotations

import re
import sys
from functools import lru_cache

from typing import TYPE_CHECKING, Any, NamedTuple

from ._fastpath import ASCII_LINE_REGEX, LINE_REGEX, TERMINALS
from ._resources import grammar_path
from .display import INVISIBLE_RANGES
from .errors import RW1SyntaxError, printable

if TYPE_CHECKING:
    from ._lark import Lark, UnexpectedInput

TAIL_MARK = " // "
# The bidirectional controls the grammar refuses anywhere in a line (D14): a
# value holding one displays as another ("Trojan Source").
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# The invisible characters a tail may hold, each bound to visible characters
# (D16): a joiner between two of them, a variation selector right after one.
TAIL_JOINERS = frozenset("\u200c\u200d")
TAIL_SELECTORS = frozenset(chr(code) for code in range(0xFE00, 0xFE10))

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
    from ._lark import lalr_parser

    return lalr_parser(grammar_text())


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


def _char_set(pattern: str) -> list[tuple[int, int]] | None:
    """The code point ranges of a regex matching exactly one character of a set
    (a class or one literal), sorted and merged; None for anything else."""
    if sys.version_info >= (3, 11):
        from re import _constants as constants, _parser as parser
    else:  # Python 3.10
        import sre_constants as constants
        import sre_parse as parser
    try:
        items: list[Any] = parser.parse(pattern).data  # (opcode, argument) pairs; the stdlib types them loosely
    except re.error:
        return None
    if len(items) != 1:
        return None
    op, arg = items[0]
    if op is constants.LITERAL:
        return [(arg, arg)]
    if op is not constants.IN:
        return None
    ranges: list[tuple[int, int]] = []
    for op, arg in arg:
        if op is constants.LITERAL:
            ranges.append((arg, arg))
        elif op is constants.RANGE:
            ranges.append((arg[0], arg[1]))
        else:  # a negated class or a category (\\d, \\s): not taken apart here
            return None
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


def _complement(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    start = 0
    for lo, hi in ranges:
        if lo > start:
            out.append((start, lo - 1))
        start = max(start, hi + 1)
    if start <= sys.maxunicode:
        out.append((start, sys.maxunicode))
    return out


def _span(ranges: list[tuple[int, int]]) -> int:
    return sum(hi - lo + 1 for lo, hi in ranges)


def _class_source(ranges: list[tuple[int, int]], negated: bool) -> str:
    body = "".join(_escaped(lo) if lo == hi else f"{_escaped(lo)}-{_escaped(hi)}" for lo, hi in ranges)
    return f"[^{body}]" if negated else f"[{body}]"


def compact_class(pattern: str) -> str:
    """A regex that is one character class, written as its complement when that spans fewer code points.

    The same set of characters: ``[!-~\\xa1-...\\U0010ffff]`` (every visible
    character) becomes ``[^\\x00-\\x20...]`` (what is not visible). Python's
    ``re`` compiles a class spanning the astral planes in milliseconds and its
    short complement in a fraction of one, and every process that reads a line
    compiles the fast-path regex once. Anything but a plain class is returned
    unchanged.
    """
    ranges = _char_set(pattern) if pattern.startswith("[") and not pattern.startswith("[^") else None
    if ranges is None:
        return pattern
    complement = _complement(ranges)
    if not complement or _span(complement) >= _span(ranges):
        return pattern
    return _class_source(complement, negated=True)


def _units(regex: str) -> list[str]:
    """A regex as units: a bracketed class, a backslash escape, or one character."""
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
        out.append(regex[i:j + 1])
        i = j + 1
    return out


def _merge_alternatives(units: list[str], i: int) -> tuple[str, int] | None:
    """``(?:A|B|...)`` at ``units[i]``, every alternative one character of a set, as one class; and the index after it."""
    if units[i:i + 3] != ["(", "?", ":"]:
        return None
    j = i + 3
    union: list[tuple[int, int]] = []
    count = 0
    while j < len(units):
        ranges = _char_set(units[j])
        if ranges is None:
            return None
        union += ranges
        count += 1
        j += 1
        if j < len(units) and units[j] == "|":
            j += 1
            continue
        if j < len(units) and units[j] == ")" and count > 1:
            merged = _char_set(_class_source(union, negated=False))
            assert merged is not None
            complement = _complement(merged)
            if complement and _span(complement) < _span(merged):
                return _class_source(complement, negated=True), j + 1
            return _class_source(merged, negated=False), j + 1
        return None
    return None


def compact_classes(regex: str) -> str:
    """``regex`` with the same language and cheaper character sets.

    An alternation of single characters (``(?:[a-z]|[0-9]|_)``, a visible
    character or a Unicode space) becomes one class, which ``re`` matches in
    one step rather than by trying each branch; and every class goes through
    :func:`compact_class`. Repeated until nothing changes.
    """
    while True:
        units = _units(regex)
        out: list[str] = []
        i = 0
        while i < len(units):
            merged = _merge_alternatives(units, i)
            if merged is not None:
                out.append(merged[0])
                i = merged[1]
                continue
            unit = units[i]
            out.append(compact_class(unit) if unit.startswith("[") else unit)
            i += 1
        result = "".join(out)
        if result == regex:
            return result
        regex = result


def derive_line_regex() -> str:
    """The whole-line regex derived from the grammar's ``start`` rule (what ``_fastpath`` ships)."""
    from ._lark import rule_tree

    parser = lark_parser()
    terminals = {t.name: compact_classes(t.pattern.to_regexp()) for t in parser.terminals}
    return _tree_to_regex(rule_tree(grammar_text(), "start"), terminals)


def ascii_only(regex: str) -> str:
    """``regex`` for ASCII text: every character class narrowed to its ASCII characters (a class with none
    becomes ``(?!)``, which matches nothing). On ASCII text it matches exactly where ``regex`` does, since
    every character it reads is ASCII; anything but a plain class is kept as written."""
    out: list[str] = []
    for unit in _units(regex):
        if unit.startswith("["):
            negated = unit.startswith("[^")
            ranges = _char_set("[" + unit[2:] if negated else unit)
            if ranges is not None and (negated or ranges[-1][1] > 0x7F):
                kept = [(lo, min(hi, 0x7F)) for lo, hi in (_complement(ranges) if negated else ranges) if lo <= 0x7F]
                unit = _class_source(kept, negated=False) if kept else "(?!)"
        out.append(unit)
    return "".join(out)


@lru_cache(maxsize=1)
def line_regex() -> re.Pattern[str]:
    """The whole-line regex of the fast path (derived from the grammar, shipped precomputed)."""
    return re.compile(LINE_REGEX)


@lru_cache(maxsize=1)
def ascii_line_regex() -> re.Pattern[str]:
    """The whole-line regex for an ASCII line (:func:`ascii_only` of :func:`line_regex`'s, shipped precomputed)."""
    return re.compile(ASCII_LINE_REGEX)


def parse_raw(text: str, *, line_number: int | None = None) -> RawLine:
    """Split one line into a RawLine, or raise RW1SyntaxError."""
    # Each regex is compiled on the first line that needs it: a run that reads ASCII lines only never
    # compiles the wide one.
    regex = ascii_line_regex() if text.__class__ is str and text.isascii() else line_regex()  # not a str: re's TypeError
    if regex.fullmatch(text) is not None:
        head, mark, tail = text.partition(TAIL_MARK)
        tokens = head.split(" ")
        return RawLine(text, tokens[0], tokens[1], tokens[2], tuple(tokens[3:]), tail if mark else None)
    found = diagnose(text)
    if found is None:
        return parse_raw_lark(text, line_number=line_number)
    column, expected = found
    raise _error_at(text, column, expected, line_number)


def read_tail(text: str) -> str | None:
    """What :func:`parse_raw` reads as the tail of ``text`` (None: no tail), or its RW1SyntaxError: the
    check of a written line, which needs no token split."""
    regex = ascii_line_regex() if text.__class__ is str and text.isascii() else line_regex()
    if regex.fullmatch(text) is not None:
        _, mark, tail = text.partition(TAIL_MARK)
        return tail if mark else None
    return parse_raw(text).tail  # where the grammar stops, worded (or the line read by Lark)


END_OF_LINE = "<END-OF-FILE>"  # what Lark expects after a tail: the end of the line


@lru_cache(maxsize=1)
def terminal_match() -> dict[str, Any]:
    """Each walked terminal's compiled ``match``, made on the first line the fast path refuses (a run
    that reads only valid lines never compiles them)."""
    return {name: re.compile(regex).match for name, regex in TERMINALS.items()}


def diagnose(text: str) -> tuple[int, list[str]] | None:
    """Where the grammar stops reading a line, without Lark: (1-based column, the terminals expected there).

    The grammar is one rule of terminals in sequence, so its LALR parser with
    the contextual lexer reads a line as this walk does: each terminal, matched
    greedily by the regex Lark compiles for it (shipped in ``_fastpath``), must
    follow the one before. The column and the expected terminals are the ones
    Lark's error reports (a differential test holds the two to that), so the
    message, token and column of the syntax error are too. None where the walk
    cannot say (a line break in the text, whose columns Lark counts per line;
    a line the walk reads whole): Lark is asked then.
    """
    if "\n" in text:
        return None
    n = len(text)
    pos = 0
    terminals = terminal_match()
    walk = (("VERSION", terminals["VERSION"]), ("_SP", None), ("TYPE", terminals["TYPE"]), ("_SP", None),
            ("MSGID", terminals["MSGID"]))
    for want, match in walk:
        if pos == n:
            return n + 1, [want]
        if match is None:
            if text[pos] != " ":
                return pos + 1, [want]
            pos += 1
            continue
        found = match(text, pos)
        if found is None:
            return pos + 1, [want]
        pos = found.end()
    slot, tail = terminals["SLOT"], terminals["TAIL"]
    while True:  # after the id or a slot: a space, or the end of the line
        if pos == n:
            return None
        if text[pos] != " ":
            return pos + 1, ["_SP"]
        pos += 1
        if pos == n:
            return n + 1, ["SLOT", "_TAIL_MARK"]
        found = slot(text, pos)
        if found is not None:
            pos = found.end()
            continue
        if not text.startswith("//", pos):
            return pos + 1, ["SLOT", "_TAIL_MARK"]
        pos += 2
        if pos == n:
            return n + 1, ["_SP"]
        if text[pos] != " ":
            return pos + 1, ["_SP"]
        pos += 1
        if pos == n:
            return n + 1, ["TAIL"]
        found = tail(text, pos)
        if found is None:
            return pos + 1, ["TAIL"]
        pos = found.end()
        return None if pos == n else (pos + 1, [END_OF_LINE])


def parse_raw_lark(text: str, *, line_number: int | None = None) -> RawLine:
    """The Lark path alone (used on rejects, and by the differential test)."""
    from ._lark import UnexpectedInput

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


def lark_error_position(text: str, exc: "UnexpectedInput") -> tuple[int, list[str]]:
    """(1-based column, expected terminals) of a Lark error, as the error message uses them."""
    from ._lark import UnexpectedToken

    column = getattr(exc, "column", None)
    if not isinstance(column, int) or column < 1:
        column = len(text) + 1
    if isinstance(exc, UnexpectedToken) and exc.token.type == "$END":
        column = len(text) + 1
    return column, sorted(getattr(exc, "expected", None) or getattr(exc, "allowed", None) or ())


def _syntax_error(text: str, exc: "UnexpectedInput", line_number: int | None) -> RW1SyntaxError:
    column, expected = lark_error_position(text, exc)
    return _error_at(text, column, expected, line_number)


def _error_at(text: str, column: int, expected: list[str], line_number: int | None) -> RW1SyntaxError:
    """The syntax error of a line the grammar stops reading at ``column``, expecting ``expected`` there."""
    message, token, where = wording(text, column, expected)
    return RW1SyntaxError(message, why="UNK", token=token, column=where, line=line_number, text=text)


def wording(text: str, column: int, expected: list[str]) -> tuple[str, str, int]:
    """(message, token, column) of the syntax error of a line the grammar stops reading at ``column``."""
    token, token_col = chunk_at(text, column)
    return _describe(text, column, expected), token, token_col if token else column


def _never_in_a_line() -> list[tuple[int, int]]:
    """The code point ranges no line may hold anywhere (D3, D14, D16): controls, line and paragraph
    separators, lone surrogates, and every invisible character that is no whitespace, but a tail's
    joiners and selectors."""
    kept = {ord(ch) for ch in TAIL_JOINERS | TAIL_SELECTORS}
    codes = [code for lo, hi in INVISIBLE_RANGES for code in range(lo, hi + 1)
             if code not in kept and (code < 0xA0 or 0xD800 <= code <= 0xDFFF or not chr(code).isspace())]
    ranges: list[tuple[int, int]] = []
    for code in sorted(codes + [0x2028, 0x2029]):
        if ranges and code == ranges[-1][1] + 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))
    return ranges


@lru_cache(maxsize=1)
def refused_characters() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """(characters no line may hold, whitespace other than the space, a tail's joiners and selectors),
    compiled on the first line the fast path refuses."""
    return (re.compile(_class_source(_never_in_a_line(), negated=False)),
            re.compile("[^\\S ]"),  # whitespace (str.isspace) other than the space
            re.compile("[" + "".join(sorted(TAIL_JOINERS | TAIL_SELECTORS)) + "]"))


def _unbound_in_tail(text: str, start: int) -> int | None:
    """Index of the first joiner or selector of the tail at ``start`` that the grammar's TWORD does not bind (D16)."""
    found = refused_characters()[2].search(text, start)
    if found is None:
        return None  # no joiner or selector at all: most tails, settled by one search instead of a walk
    first = found.start()  # the walk starts there: what precedes it is a space or another character
    # what precedes: " " (a word's start), "join", "selector", or "char"
    before = " " if first == start or text[first - 1] == " " else "char"
    for i in range(first, len(text)):
        ch = text[i]
        if ch in TAIL_SELECTORS:
            if before != "char":
                return i
            before = "selector"
        elif ch in TAIL_JOINERS:
            if before not in ("char", "selector") or i + 1 == len(text) or text[i + 1] == " " \
                    or text[i + 1] in TAIL_JOINERS or text[i + 1] in TAIL_SELECTORS:
                return i
            before = "join"
        else:
            before = " " if ch == " " else "char"
    return None


def _refused_character(ch: str, column: int, in_tail: bool) -> str:
    """Why a character at ``column`` cannot stand where it does."""
    code = ord(ch)
    shown = f"{printable(ch)} (U+{code:04X}) at column {column}"
    if ch in BIDI_CONTROLS:
        return f"bidirectional control {shown} is not allowed in a line: it changes how the text around it displays"
    if ch in TAIL_JOINERS or ch in TAIL_SELECTORS:
        if not in_tail:
            return f"invisible character {shown} is not allowed outside the tail: values hold only visible characters"
        if ch in TAIL_JOINERS:
            return f"joiner {shown} is allowed in the tail only between two visible characters"
        return f"variation selector {shown} is allowed in the tail only right after a visible character"
    if code >= 0xA0 and not ch.isspace() and not 0xD800 <= code <= 0xDFFF:
        return f"invisible character {shown} is not allowed in a line: it shows as nothing, so text holding it looks like other text"
    return f"character {shown} is not allowed in a line"


def _describe(text: str, column: int, expected: list[str]) -> str:
    """A precise message for the commonest breakages, else what was expected."""
    idx = column - 1
    if not text:
        return "empty line"
    tail_from = text.find(TAIL_MARK)
    tail_from = len(text) if tail_from < 0 else tail_from + len(TAIL_MARK)
    # The first character no line may hold; whitespace other than a space, and
    # a tail's joiners and selectors, only before the tail (the tail may hold
    # no-break spaces, and joiners and selectors bound to visible characters).
    found: list[int] = []
    if not (text.isascii() and text.isprintable()):  # printable ASCII holds none of them: skip the searches
        never, spacing, tail_only = refused_characters()
        found = [m.start() for m in (never.search(text), spacing.search(text, 0, tail_from),
                                     tail_only.search(text, 0, tail_from)) if m]
        unbound = _unbound_in_tail(text, tail_from)
        if unbound is not None:
            found.append(unbound)
    if found:
        i = min(found)
        return _refused_character(text[i], i + 1, i >= tail_from)
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
    if expected:
        wanted = " or ".join(_EXPECTED.get(name, name) for name in expected)
        got = text[idx:].split(" ", 1)[0] if idx < len(text) else "the end of the line"
        return f"expected {wanted}, found {printable(got)!r}"
    return "malformed line"


def derive_terminals() -> dict[str, str]:
    """The regexes Lark compiles for the terminals :func:`diagnose` walks (what ``_fastpath`` ships)."""
    return {t.name: compact_classes(t.pattern.to_regexp()) for t in lark_parser().terminals
            if t.name in ("VERSION", "TYPE", "MSGID", "SLOT", "TAIL")}


def write_fastpath() -> str:
    """The source of :mod:`rogerwilco.core._fastpath`, derived from the grammar now."""
    terminals = "".join(f"    {name!r}: {ascii(regex)},\n" for name, regex in sorted(derive_terminals().items()))
    line = derive_line_regex()
    return (
        '"""The fast path\'s whole-line regex (and its form for ASCII lines) and terminal regexes, derived from\n'
        'grammar/rw1.lark.\n\n'
        'Generated by ``python -m rogerwilco.core.syntax``; do not edit. A test derives them\n'
        'again from the grammar and fails when they differ.\n"""\n\n'
        f"LINE_REGEX = {ascii(line)}\n\n"
        f"ASCII_LINE_REGEX = {ascii(ascii_only(line))}\n\n"
        f"TERMINALS = {{\n{terminals}}}\n"
    )


if __name__ == "__main__":
    from pathlib import Path

    target = Path(__file__).with_name("_fastpath.py")
    target.write_text(write_fastpath(), encoding="utf-8")
    print(f"wrote {target}")
