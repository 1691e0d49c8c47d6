"""Profile patterns: the portable I-Regexp subset of D11, matched in linear time.

Theory of operation
-------------------
A profile is data that anyone may send (an inline profile arrives with a
request to the adapter or the MCP server), so a pattern it brings is hostile
input. Two things are settled here.

**What a pattern may say** (decisions D11, a subset of I-Regexp, RFC 9485):
literal characters; ``.``; bracket classes of explicit characters and ranges,
optionally negated (``[a-z0-9_-]``, ``[^#]``); groups ``( )``; alternation
``|``; the quantifiers ``? * + {n} {n,m}``; and the escapes of I-Regexp's
metacharacters (``\\. \\( \\) \\* \\+ \\? \\[ \\] \\{ \\} \\| \\\\ \\- \\^``)
and ``\\n \\r \\t``. Refused, each with its own reason and the position in
the pattern: the shorthands ``\\d \\w \\s`` (Python and JavaScript disagree on
what they match), ``\\p{...}``, anchors (``^ $ \\b \\A \\Z``: a pattern always
matches the whole value), backreferences, ``(?...)`` constructs (lookaround,
named and non-capturing groups, inline flags), lazy and possessive
quantifiers, a quantifier inside a quantified group, ``{n,}`` without an
upper bound, and patterns over the size limits below. :func:`check` raises
:class:`PatternError`; the profile loader turns that into a problem at the
pattern's JSON path.

**How it is matched.** Refusing nested quantifiers is not enough to make a
backtracking engine safe: ``(.|a)*Z`` has no nested quantifier and takes
exponential time in Python's ``re``, and ``[0-9]*[0-9]*[0-9]*[0-9]*x`` takes
polynomial time of the degree of its stars. So profile patterns never run on
a backtracking engine. :func:`compile` builds a Thompson NFA and matches by
simulating it, one step per character over the set of live states: time is
at most (length of the value) x (number of states), whatever the pattern.
The state sets met are cached as the states of a lazily built DFA, so a
pattern matched against many short values costs one dictionary lookup per
character once warm; the cache is bounded (states, transitions per state, and
NFA states held) and cleared when full, which costs time (back to the NFA
step) but never correctness. Compiled patterns are cached (64 most recent).

Limits (refused at load, documented in docs/profiles.md): a pattern is at
most 1,000 characters; a counted repeat is at most ``{1000}``; the compiled
automaton has at most 10,000 states.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterable

from .errors import RW1Error

__all__ = ["IRegexp", "PatternError", "check", "compile", "MAX_PATTERN_LENGTH", "MAX_REPEAT", "MAX_STATES",
           "MAX_MATCH_STEPS"]

MAX_PATTERN_LENGTH = 1000
MAX_REPEAT = 1000
MAX_STATES = 10_000
#: NFA states visited in matching one value, at most: past it the value is refused (a few milliseconds of work)
MAX_MATCH_STEPS = 20_000
_DFA_CACHE_LIMIT = 4096  # cached DFA states per pattern before the cache is cleared
_DFA_ROW_LIMIT = 512  # cached transitions per DFA state (distinct characters)
_DFA_BUDGET = 200_000  # NFA states held in all cached transitions of one pattern before the cache is cleared

# A parsed node or a character set: small tuples tagged by their first member.
_Node = tuple[Any, ...]

_META = frozenset("().*+?[]\\{}|")
_ESCAPABLE = frozenset("()*+-.?[\\]^{|}")
_CONTROL_ESCAPES = {"n": "\n", "r": "\r", "t": "\t"}


class PatternError(RW1Error):
    """A profile pattern outside the portable subset (D11)."""

    def __init__(self, message: str, *, pattern: str, position: int) -> None:
        super().__init__(message, token=pattern, column=position + 1)
        self.pattern = pattern
        self.position = position

    def __str__(self) -> str:
        return f"{self.message} (at character {self.position + 1} of the pattern)"


# ---------------------------------------------------------------- parsing
#
# The syntax tree is made of tuples:
#   ("set", ranges, negated)       one character in (or, negated, not in) the ranges
#   ("cat", [nodes]) ("alt", [nodes])
#   ("rep", node, low, high)       high None: unbounded


class _Parser:
    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.i = 0

    def fail(self, message: str, at: int | None = None) -> PatternError:
        return PatternError(message, pattern=self.p, position=self.i if at is None else at)

    def peek(self) -> str | None:
        return self.p[self.i] if self.i < len(self.p) else None

    def parse(self) -> _Node:
        node, _ = self.alternation()
        if self.i < len(self.p):
            raise self.fail("unbalanced ')'")
        return node

    def alternation(self) -> tuple[_Node, bool]:
        branches, quantified = [], False
        node, q = self.concatenation()
        branches.append(node)
        quantified |= q
        while self.peek() == "|":
            self.i += 1
            node, q = self.concatenation()
            branches.append(node)
            quantified |= q
        return (branches[0] if len(branches) == 1 else ("alt", branches)), quantified

    def concatenation(self) -> tuple[_Node, bool]:
        pieces, quantified = [], False
        while self.peek() not in (None, "|", ")"):
            node, q = self.piece()
            pieces.append(node)
            quantified |= q
        return (pieces[0] if len(pieces) == 1 else ("cat", pieces)), quantified

    def piece(self) -> tuple[_Node, bool]:
        start = self.i
        atom, inner_quantified = self.atom()
        bounds = self.quantifier()
        if bounds is None:
            return atom, inner_quantified
        if inner_quantified:
            raise self.fail("nested quantifier: a quantified group holds a quantifier "
                            "(not portable, and it can run for ever on a backtracking engine)", start)
        nxt = self.peek()
        if nxt == "?":
            raise self.fail("lazy quantifier: not in the portable subset")
        if nxt == "+":
            raise self.fail("possessive quantifier: not in the portable subset")
        if nxt in ("*", "{"):
            raise self.fail("a quantifier follows a quantifier")
        return ("rep", atom, bounds[0], bounds[1]), True

    def quantifier(self) -> tuple[int, int | None] | None:
        ch = self.peek()
        if ch == "?":
            self.i += 1
            return 0, 1
        if ch == "*":
            self.i += 1
            return 0, None
        if ch == "+":
            self.i += 1
            return 1, None
        if ch != "{":
            return None
        start = self.i
        end = self.p.find("}", start)
        body = self.p[start + 1:end] if end > 0 else ""
        low_text, comma, high_text = body.partition(",")
        if end < 0 or not low_text.isascii() or not low_text.isdigit() or (
            comma and high_text and not (high_text.isascii() and high_text.isdigit())
        ):
            raise self.fail("a '{' starts a counted repeat {n} or {n,m}; a literal brace is written \\{", start)
        if comma and not high_text:
            raise self.fail("{n,} has no upper bound: write {n,m}, or + or *", start)
        low = int(low_text)
        high = int(high_text) if comma else low
        if low > high:
            raise self.fail(f"counted repeat {{{body}}} has its bounds the wrong way round", start)
        if high > MAX_REPEAT:
            raise self.fail(f"counted repeat {{{body}}} is over the limit of {MAX_REPEAT}", start)
        self.i = end + 1
        return low, high

    def atom(self) -> tuple[_Node, bool]:
        ch = self.p[self.i]
        start = self.i
        if ch == "(":
            if self.p.startswith("(?", self.i):
                raise self.fail("'(?' constructs (non-capturing or named groups, lookaround, inline flags) "
                                "are not in the portable subset: write a plain group ( )")
            self.i += 1
            node, quantified = self.alternation()
            if self.peek() != ")":
                raise self.fail("unbalanced '('", start)
            self.i += 1
            return node, quantified
        if ch == "[":
            return self.bracket(), False
        if ch == ".":
            self.i += 1
            return ("set", (), True), False
        if ch == "\\":
            return ("set", ((code := ord(self.escape(in_class=False)), code),), False), False
        if ch in "*+?{":
            raise self.fail(f"quantifier '{ch}' has nothing to repeat")
        if ch in "^$":
            literal = "\\^" if ch == "^" else "[$]"
            raise self.fail(f"anchor '{ch}': a pattern always matches the whole value, anchors are not in the "
                            f"portable subset (a literal {ch} is written {literal})")
        if ch in "]}":
            raise self.fail(f"a literal '{ch}' is written \\{ch}")
        self.literal_check(ch)
        self.i += 1
        return ("set", ((ord(ch), ord(ch)),), False), False

    def literal_check(self, ch: str) -> None:
        if 0xD800 <= ord(ch) <= 0xDFFF:
            raise self.fail("a lone surrogate is not a character")

    def escape(self, *, in_class: bool) -> str:
        start = self.i
        self.i += 1
        ch = self.peek()
        if ch is None:
            raise self.fail("a pattern cannot end with '\\'", start)
        self.i += 1
        if ch in _ESCAPABLE:
            return ch
        if ch in _CONTROL_ESCAPES:
            return _CONTROL_ESCAPES[ch]
        if ch in "dDwWsS":
            raise self.fail(f"shorthand \\{ch} is not portable (engines disagree on what it matches): "
                            "write a bracket class such as [0-9]", start)
        if ch in "pP":
            raise self.fail(f"\\{ch}{{...}} Unicode properties are not in the portable subset", start)
        if ch in "bBAZzG":
            raise self.fail(f"anchor \\{ch}: a pattern always matches the whole value, anchors are not in the "
                            "portable subset", start)
        if ch.isdigit() or ch == "k":
            raise self.fail("backreferences are not in the portable subset", start)
        raise self.fail(f"unknown escape \\{ch}", start)

    def bracket(self) -> _Node:
        start = self.i
        self.i += 1
        negated = self.peek() == "^"
        if negated:
            self.i += 1
        ranges: list[tuple[int, int]] = []
        first = True
        while True:
            ch = self.peek()
            if ch is None:
                raise self.fail("unterminated bracket class '['", start)
            if ch == "]":
                if first:
                    raise self.fail("empty bracket class: a literal ']' is written \\]", start)
                self.i += 1
                break
            if ch == "-":
                if first or self.p.startswith("-]", self.i):
                    self.i += 1
                    ranges.append((0x2D, 0x2D))
                    first = False
                    continue
                raise self.fail("a '-' inside a class is a range a-z, or the first or last character")
            low = self.class_char()
            if self.peek() == "-" and not self.p.startswith("-]", self.i):
                self.i += 1
                if self.peek() is None:
                    raise self.fail("unterminated bracket class '['", start)
                at = self.i
                high = self.class_char()
                if ord(high) < ord(low):
                    raise self.fail(f"range {low}-{high} runs backwards", at)
                ranges.append((ord(low), ord(high)))
            else:
                ranges.append((ord(low), ord(low)))
            first = False
        return ("set", tuple(sorted(ranges)), negated)

    def class_char(self) -> str:
        ch = self.p[self.i]
        if ch == "\\":
            return self.escape(in_class=True)
        if ch == "[":
            raise self.fail("a literal '[' inside a class is written \\[ (nested classes are not portable)")
        self.literal_check(ch)
        self.i += 1
        return ch


# ---------------------------------------------------------------- the automaton
#
# States are numbered; for state s:
#   kind[s] == _CHAR:  matches one character by sets[s], then goes to out1[s]
#   kind[s] == _SPLIT: epsilon to out1[s] and out2[s] (either may be -1: none)
#   kind[s] == _MATCH: the accepting state

_CHAR, _SPLIT, _MATCH = 0, 1, 2


class _Builder:
    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.kind: list[int] = []
        self.sets: list[_Node | None] = []
        self.out1: list[int] = []
        self.out2: list[int] = []

    def state(self, kind: int, charset: _Node | None = None) -> int:
        if len(self.kind) >= MAX_STATES:
            raise PatternError(f"pattern is too large: over {MAX_STATES} automaton states", pattern=self.pattern,
                               position=0)
        self.kind.append(kind)
        self.sets.append(charset)
        self.out1.append(-1)
        self.out2.append(-1)
        return len(self.kind) - 1

    def patch(self, holes: list[tuple[int, int]], target: int) -> None:
        for state, which in holes:
            (self.out1 if which == 1 else self.out2)[state] = target

    def build(self, node: _Node) -> tuple[int, list[tuple[int, int]]]:
        """A fragment: (entry state, dangling exits as (state, 1 or 2)); -1 entry: matches empty."""
        tag = node[0]
        if tag == "set":
            s = self.state(_CHAR, (node[1], node[2]))
            return s, [(s, 1)]
        if tag == "cat":
            entry, holes = self.empty()
            for child in node[1]:
                c_entry, c_holes = self.build(child)
                self.patch(holes, c_entry)
                holes = c_holes
            return entry, holes
        if tag == "alt":
            entries, holes = [], []
            for child in node[1]:
                c_entry, c_holes = self.build(child)
                entries.append(c_entry)
                holes += c_holes
            entry = entries[-1]
            for e in reversed(entries[:-1]):
                split = self.state(_SPLIT)
                self.out1[split], self.out2[split] = e, entry
                entry = split
            return entry, holes
        _, child, low, high = node
        entry, holes = self.empty()
        for _ in range(low):
            c_entry, c_holes = self.build(child)
            self.patch(holes, c_entry)
            holes = c_holes
        if high is None:
            split = self.state(_SPLIT)
            self.patch(holes, split)
            c_entry, c_holes = self.build(child)
            self.out1[split] = c_entry
            self.patch(c_holes, split)
            return entry, [(split, 2)]
        exits: list[tuple[int, int]] = []
        for _ in range(high - low):
            split = self.state(_SPLIT)
            self.patch(holes, split)
            c_entry, c_holes = self.build(child)
            self.out1[split] = c_entry
            exits.append((split, 2))
            holes = c_holes
        return entry, holes + exits

    def empty(self) -> tuple[int, list[tuple[int, int]]]:
        s = self.state(_SPLIT)  # an epsilon state with one exit
        return s, [(s, 1)]


def _in_set(charset: _Node, code: int) -> bool:
    ranges: list[tuple[int, int]] = charset[0]
    negated: bool = charset[1]
    for lo, hi in ranges:
        if lo <= code <= hi:
            return not negated
    return negated


class IRegexp:
    """A compiled profile pattern; :meth:`fullmatch` runs in time linear in the value."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        tree = _Parser(pattern).parse() if pattern else ("cat", [])
        builder = _Builder(pattern)
        entry, holes = builder.build(tree)
        final = builder.state(_MATCH)
        builder.patch(holes, final)
        self._kind, self._sets, self._out1, self._out2 = builder.kind, builder.sets, builder.out1, builder.out2
        self._final = final
        self.states = len(builder.kind)
        self._start = self._closure((entry,))
        # a cached transition keeps what the step costs in the NFA, so the work counted is the same cold or warm
        self._dfa: dict[frozenset[int], dict[str, tuple[frozenset[int], int]]] = {}
        self._held = 0  # NFA states held by the cached transitions (memory bound)

    def __repr__(self) -> str:
        return f"IRegexp({self.pattern!r})"

    def _closure(self, states: Iterable[int], counter: list[int] | None = None) -> frozenset[int]:
        """The states reachable by epsilon moves, keeping only character states and the final one."""
        kind, out1, out2 = self._kind, self._out1, self._out2
        seen: set[int] = set()
        stack = list(states)
        kept = []
        while stack:
            s = stack.pop()
            if s < 0 or s in seen:
                continue
            seen.add(s)
            if kind[s] == _SPLIT:
                stack.append(out2[s])
                stack.append(out1[s])
            else:
                kept.append(s)
        if counter is not None:
            counter[0] += len(seen)
        return frozenset(kept)

    def _step(self, current: frozenset[int], ch: str, counter: list[int] | None = None) -> frozenset[int]:
        code = ord(ch)
        kind, sets, out1 = self._kind, self._sets, self._out1
        moved = [out1[s] for s in current if kind[s] == _CHAR and _in_set(sets[s], code)]  # type: ignore[arg-type]
        if counter is not None:
            counter[0] += len(current)
        return self._closure(moved, counter)

    def fullmatch(self, value: str) -> bool:
        """Whether the whole of ``value`` matches (a value past the work limit does not: see :meth:`matches`)."""
        return self.matches(value) is True

    def matches(self, value: str) -> bool | None:
        """Whether the whole of ``value`` matches, or None when deciding it would take more than
        :data:`MAX_MATCH_STEPS` NFA states visited (the value is then refused, never matched at length).

        A lazily built DFA over the NFA's state sets answers warm values with
        one lookup per character; the work is counted in NFA steps whether a
        transition is cached or not, so the verdict never depends on what was
        matched before.
        """
        dfa = self._dfa
        current = self._start
        work = len(current)
        for ch in value:
            row = dfa.get(current)
            if row is None:
                if len(dfa) >= _DFA_CACHE_LIMIT or self._held >= _DFA_BUDGET:
                    dfa.clear()
                    self._held = 0
                row = dfa[current] = {}
            cached = row.get(ch)
            if cached is None:
                # a step visits every live state at least: one that cannot fit is not taken
                # (the same verdict as the cached path, which adds the step's whole cost and then checks)
                if work + len(current) > MAX_MATCH_STEPS:
                    return None
                counter = [0]
                cached = (self._step(current, ch, counter), counter[0])
                if len(row) < _DFA_ROW_LIMIT:
                    row[ch] = cached
                    self._held += len(cached[0])
            nxt, cost = cached
            work += cost
            if work > MAX_MATCH_STEPS:
                return None
            if not nxt:
                return False
            current = nxt
        return self._final in current

    def count_steps(self, value: str) -> tuple[bool, int]:
        """The match by plain NFA simulation, and the states it visited: the linear-time bound, measurable."""
        counter = [len(self._start)]
        current = self._start
        for ch in value:
            current = self._step(current, ch, counter)
            if not current:
                return False, counter[0]
        return self._final in current, counter[0]


def check(pattern: object) -> None:
    """Raise :class:`PatternError` unless ``pattern`` is in the portable subset and within the limits."""
    compile(pattern)  # type: ignore[arg-type]


@lru_cache(maxsize=64)
def _compile(pattern: str) -> IRegexp:
    return IRegexp(pattern)


def compile(pattern: str) -> IRegexp:
    """A compiled pattern (cached), or :class:`PatternError`."""
    if not isinstance(pattern, str):
        raise PatternError(f"a pattern is a string, not {type(pattern).__name__}", pattern=str(pattern)[:50],
                           position=0)
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise PatternError(f"pattern is {len(pattern)} characters, over the limit of {MAX_PATTERN_LENGTH}",
                           pattern=pattern[:50], position=MAX_PATTERN_LENGTH)
    return _compile(pattern)
