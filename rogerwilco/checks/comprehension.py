"""The comprehension check: the sender's criteria against the receiver's (spec 5.2, D6, D13, D15).

Theory of operation
-------------------
Criteria are ``key:value`` constraints. Keys are a closed set (the core's
``ckey`` enum plus the profile's ``constraint_keys``); a key outside it is
noted (``unknown-key``) and never compared. Values are compared as *facts*,
not strings. Every word list and table below is data, read from
``profiles/compare.json`` (:func:`rogerwilco.core.vocab.compare_document`), the
one file every implementation of the check reads. :func:`normalise` turns a
value into a tuple of words:

1. Unicode NFC, then full case folding (D15), so canonically equivalent text
   (``crème`` with a combining accent) is one value;
2. the separators of the data (``-`` ``_`` ``.`` ``/``) and white space split
   words; a letter or number (general category L or N) is kept; any other
   character is dropped;
3. every word is folded to the singular (:func:`fold_plural`): a word ending
   in one of :data:`ES_PLURAL_ENDINGS` loses ``es``; any other word of
   :data:`S_MIN_LENGTH` characters or more ending in ``s`` but not ``ss``
   loses the ``s``;
4. the whole value (its words joined with ``-``) is looked up in the alias
   table of the vocabulary, whose spellings are normalised the same way, and
   replaced by the canonical value's words (``uk`` = ``en-gb``).

Two normalised values, by :func:`relation`:

* ``exact``: equal;
* ``negated`` (D13): exactly one of them is negated against the other
  (:func:`negated`: it holds a negating word, or ``un``/``non`` before or
  joined to a word the other holds bare), and with the negation taken out
  they are the same fact or (set-valued keys) share a distinctive word. A
  pair one negation divides is never the same fact nor a loose match:
  decided before any of the rules below;
* ``same`` (:func:`same_fact`): one is a leading run of the other's words (a
  word prefix: ``monday`` and ``monday-problem``, never ``12`` and
  ``120w``), or one's word set contains the other's. A value that normalises
  to no words is the same fact only as another such value;
* ``loose`` (set-valued keys only, :func:`loose_match`): a shared
  distinctive word (:data:`LOOSE_MIN_LENGTH` characters or more, not in
  :data:`STOP_WORDS`).

``len`` is compared as number and unit (:func:`read_len`): the units are a
table (:data:`LEN_UNITS`); equal numbers and units match, equal numbers with
one unit missing match with a ``loose`` note, anything else contradicts.

By key, for the keys the sender holds:

* single-valued keys: every sender value must have a matching receiver
  value and every receiver value a matching sender value, or the key is a
  ``contradiction``; no receiver value at all is a ``gap``;
* set-valued keys (``must no scope src``) match one to one (D15): each
  sender value pairs with at most one receiver value and each receiver value
  serves at most one sender value. Exact pairs are made first, then
  same-fact pairs, then loose pairs, each round a maximum matching among the
  values still unpaired (:func:`pair_one_to_one`: first come first served in
  written order, then augmenting paths). A loose pair is a ``loose`` note. A sender value left
  unpaired is a ``gap``, or a ``contradiction`` where an unpaired receiver
  value negates it; a receiver value left unpaired is a ``contradiction``
  where it negates a sender value, otherwise an ``assumption`` (note);
* a key only the receiver holds is an ``assumption`` (note).

The receiver's ``not=`` tokens are ``no:`` values. Every receiver ``no``
value that is exactly or by same fact a sender ``must:`` value is
``excluded``: the receiver ruled out something required. A loose match there
is a ``loose`` note (D15), as everywhere else.

Cost: only values that share a word (or a negated stem) are compared, so a
key costs at most (sender values) x (receiver values); the sender's side is
its own criteria, a handful, whatever a readback holds.

``keys=`` on the HO names the keys the sender will check: each must appear
in the receiver's criteria, or it is a ``gap``. Without sender criteria that
is all that can be checked; the result then carries an ``unchecked`` note.
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal, InvalidOperation
from typing import Any, Iterable, Mapping, Sequence

import attrs

from ..core.errors import RW1Error
from ..core.findings import FAIL, NOTE, Finding, fail, note
from ..core.slottypes import split_constraint
from ..core.vocab import compare_document

TIER = 4
_DATA = compare_document()
WORD_SEPARATORS = frozenset(_DATA["text"]["separators"])
WORD_CATEGORIES = frozenset(_DATA["text"]["word_chars"].split())
ES_PLURAL_ENDINGS = tuple(_DATA["plural"]["es_endings"])
S_MIN_LENGTH = int(_DATA["plural"]["s_min_length"])
S_KEEP_ENDINGS = tuple(_DATA["plural"]["s_keep_endings"])
STOP_WORDS = frozenset(_DATA["loose"]["stop_words"])
LOOSE_MIN_LENGTH = int(_DATA["loose"]["min_length"])
NEGATING_WORDS = frozenset(_DATA["negation"]["words"])
NEGATING_PREFIXES = tuple(_DATA["negation"]["prefixes"])
# len: the unit spellings, after case folding and plural folding, to the unit.
LEN_UNITS: Mapping[str, str] = dict(_DATA["len"]["units"])
LEN_KEY = _DATA["len"]["key"]
_LEN_RE = re.compile(r"([0-9]+(?:\.[0-9]+)?)[-_]?([a-z]*)")
NOT_AS_KEY = _DATA["exclusion"]["receiver_key"]  # a receiver's not= tokens are compared as no: values
EXCLUDES_KEY = _DATA["exclusion"]["sender_key"]  # ... against the sender's must: values

EXACT, SAME, LOOSE, NEGATED = "exact", "same", "loose", "negated"
PAIRING_ORDER = tuple(_DATA["set_matching"]["order"])  # D15: exact, then same fact, then loose


class CriteriaError(RW1Error, ValueError):
    """Criteria text that is not ``key:value`` joined with ``+`` (the package's own error)."""


@attrs.frozen
class Constraint:
    key: str
    value: str

    def __str__(self) -> str:
        return f"{self.key}:{self.value}"


def parse_criteria(criteria: str | Iterable[Any] | None) -> tuple[Constraint, ...]:
    """``"len:120w+tone:plain"`` or ``["len:120w", ...]`` as constraints.

    Keys compare case-insensitively, so they are lowercased. Raises
    :class:`CriteriaError` for an item that is not ``key:value``.
    """
    if criteria is None:
        return ()
    if not isinstance(criteria, Iterable):  # a number: neither form of criteria
        raise CriteriaError(f"criteria are a key:value string or a list, not {type(criteria).__name__}")
    items = criteria.split("+") if isinstance(criteria, str) else list(criteria)
    out = []
    for item in items:
        if isinstance(item, Constraint):
            out.append(item)
            continue
        if not isinstance(item, str):
            raise CriteriaError(f"a criterion is a key:value string, not {type(item).__name__}")
        try:
            key, value = split_constraint(item)  # the acc= slot type's own definition
        except ValueError:
            raise CriteriaError(f"not a key:value criterion: {item!r}") from None
        out.append(Constraint(key.lower(), value))
    return tuple(out)


# --------------------------------------------------------------------------
# normalisation


def canonical_text(value: str) -> str:
    """NFC, then full case folding (D15)."""
    return unicodedata.normalize("NFC", value).casefold()


def fold_plural(word: str) -> str:
    """The singular of a word by D6's rule (no dictionary, both sides alike)."""
    if word.endswith(ES_PLURAL_ENDINGS):
        return word[:-2]
    if len(word) >= S_MIN_LENGTH and word.endswith("s") and not word.endswith(S_KEEP_ENDINGS):
        return word[:-1]
    return word


def _breaks_word(ch: str) -> bool:
    return ch in WORD_SEPARATORS or "\t" <= ch <= "\r" or unicodedata.category(ch)[0] == "Z"


def split_words(value: str) -> tuple[str, ...]:
    words: list[str] = []
    current: list[str] = []
    for ch in canonical_text(value):
        if _breaks_word(ch):
            if current:
                words.append("".join(current))
            current = []
        elif unicodedata.category(ch)[0] in WORD_CATEGORIES:
            current.append(ch)
    if current:
        words.append("".join(current))
    return tuple(fold_plural(w) for w in words)


def alias_table(aliases: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    """The vocabulary's aliases keyed and valued by normalised words."""
    table: dict[str, tuple[str, ...]] = {}
    for spelling, canonical in aliases.items():
        key = "-".join(split_words(spelling))
        if key:
            table[key] = split_words(canonical)
    return table


def normalise(value: str, aliases: Mapping[str, tuple[str, ...]] | None = None) -> tuple[str, ...]:
    words = split_words(value)
    if aliases:
        return aliases.get("-".join(words), words)
    return words


@attrs.frozen
class Words:
    """A normalised value and what the comparison asks of it, computed once."""

    words: tuple[str, ...]
    set: frozenset[str]
    negating: bool  # holds a negating word
    stems: frozenset[str]  # words a negating prefix stands before (un-plain) or is joined to (unplain)
    distinctive: frozenset[str]  # the words a loose match may share

    @classmethod
    def of(cls, words: Sequence[str]) -> "Words":
        words = tuple(words)
        stems = set()
        for i, word in enumerate(words):
            for prefix in NEGATING_PREFIXES:
                if word == prefix and i + 1 < len(words):
                    stems.add(words[i + 1])
                elif len(word) > len(prefix) and word.startswith(prefix):
                    stems.add(word[len(prefix):])
        return cls(words, frozenset(words), any(w in NEGATING_WORDS for w in words), frozenset(stems),
                   frozenset(distinctive(words)))


def _negated(a: Words, b: Words) -> bool:
    return a.negating or not a.stems.isdisjoint(b.set)


def _without_negation(a: Words, b: Words) -> Words:
    """``a`` with what negates it against ``b`` taken out: ``not-plain``, ``un-plain`` and ``unplain`` as ``plain``."""
    out: list[str] = []
    for i, word in enumerate(a.words):
        if word in NEGATING_WORDS:
            continue
        if word in NEGATING_PREFIXES and i + 1 < len(a.words) and a.words[i + 1] in b.set:
            continue
        for prefix in NEGATING_PREFIXES:
            if len(word) > len(prefix) and word.startswith(prefix) and word[len(prefix):] in b.set:
                word = word[len(prefix):]
                break
        out.append(word)
    return Words.of(out)


def _same_fact(a: Words, b: Words) -> bool:
    """D6's same fact, negation aside: equal, a word prefix, or word-set containment."""
    if a.words == b.words:
        return True
    if not a.words or not b.words:
        return False
    short, long_ = (a.words, b.words) if len(a.words) <= len(b.words) else (b.words, a.words)
    return long_[: len(short)] == short or a.set <= b.set or b.set <= a.set


def negated(a: Sequence[str], b: Sequence[str]) -> bool:
    """Whether ``a`` is negated against ``b`` (D13).

    ``a`` holds a negating word, or a negating prefix standing before a word
    ``b`` holds (``un-plain``), or joined to one (``unplain``, ``nonadult``).
    """
    return _negated(Words.of(a), Words.of(b))


def negation_differs(a: Sequence[str], b: Sequence[str]) -> bool:
    """Exactly one of the two is negated against the other: a contradiction (D13)."""
    wa, wb = Words.of(a), Words.of(b)
    return _negated(wa, wb) != _negated(wb, wa)


def same_fact(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Equal; or, where no negation divides them (D13), a word prefix of the other or word-set containment (D6)."""
    if a == b:
        return True
    return not negation_differs(a, b) and _same_fact(Words.of(a), Words.of(b))


def distinctive(words: Iterable[str]) -> set[str]:
    return {w for w in words if len(w) >= LOOSE_MIN_LENGTH and w not in STOP_WORDS}


def loose_match(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """A shared distinctive word (set-valued keys only), where no negation divides them."""
    return not negation_differs(a, b) and bool(distinctive(a) & distinctive(b))


def read_len(value: str) -> tuple[Decimal, str] | None:
    """``120w`` as (120, 'w'); None where the value is not number-and-unit."""
    m = _LEN_RE.fullmatch(canonical_text(value).strip())
    if m is None:
        return None
    unit = LEN_UNITS.get(fold_plural(m.group(2)) if m.group(2) else "")
    if unit is None:
        unit = LEN_UNITS.get(m.group(2))
    if unit is None:
        return None
    try:
        return Decimal(m.group(1)), unit
    except InvalidOperation:
        return None


def pair_one_to_one(relations: Sequence[Mapping[int, str]], n_receiver: int) -> list[tuple[int, int, str]]:
    """D15's pairing of set values: ``relations[i]`` maps receiver j to how sender i relates to it.

    Exact pairs first, then same-fact, then loose. Each round is a maximum
    matching among the values the earlier rounds left unpaired: first every
    sender value, in written order, takes the first receiver value (in
    written order) still free; then every sender value still unpaired looks
    for an augmenting path, depth first, receiver values in written order.
    Returns ``(sender index, receiver index, relation)`` in sender order.
    """
    n_sender = len(relations)
    sender_pair: list[int | None] = [None] * n_sender
    receiver_pair: list[int | None] = [None] * n_receiver
    how: list[str | None] = [None] * n_sender
    for rank in PAIRING_ORDER:
        edges = [[j for j in sorted(relations[i]) if relations[i][j] == rank and receiver_pair[j] is None]
                 if sender_pair[i] is None else [] for i in range(n_sender)]
        for i in range(n_sender):
            j = next((j for j in edges[i] if receiver_pair[j] is None), None)
            if j is not None:
                sender_pair[i], receiver_pair[j] = j, i
        for i in range(n_sender):
            if sender_pair[i] is None and edges[i]:
                _augment(i, edges, sender_pair, receiver_pair)
        for i in range(n_sender):
            if sender_pair[i] is not None and how[i] is None:
                how[i] = rank
    return [(i, j, h) for i, (j, h) in enumerate(zip(sender_pair, how)) if j is not None and h is not None]


def _augment(start: int, edges: Sequence[Sequence[int]], sender_pair: list, receiver_pair: list) -> bool:
    """One augmenting path from sender ``start`` (Kuhn's algorithm, without recursion)."""
    reached_from: dict[int, int] = {}
    stack = [(start, iter(edges[start]))]
    while stack:
        i, candidates = stack[-1]
        for j in candidates:
            if j in reached_from:
                continue
            reached_from[j] = i
            if receiver_pair[j] is None:
                while True:  # flip the path back to start
                    via = reached_from[j]
                    previous = sender_pair[via]
                    sender_pair[via], receiver_pair[j] = j, via
                    if via == start:
                        return True
                    j = previous
            holder = receiver_pair[j]
            stack.append((holder, iter(edges[holder])))
            break
        else:
            stack.pop()
    return False


# --------------------------------------------------------------------------
# the comparison


@attrs.frozen
class _Value:
    text: str  # as written, for reports
    w: Words

    @property
    def words(self) -> tuple[str, ...]:
        return self.w.words

    def index_terms(self) -> frozenset[str]:
        """Two values relate only if one's terms meet the other's (an empty value relates to an empty one)."""
        return self.w.set | self.w.stems if self.w.words else frozenset({""})


class Comparator:
    """One vocabulary's comparison rules: closed keys, set-valued keys, aliases."""

    def __init__(self, constraint_keys: Iterable[str], set_valued_keys: Iterable[str], aliases: Mapping[str, str]):
        self.keys = frozenset(constraint_keys)
        self.set_valued = frozenset(set_valued_keys)
        self.aliases = alias_table(aliases)

    @classmethod
    def for_vocabulary(cls, vocab: Any) -> "Comparator":
        return cls(vocab.constraint_keys, vocab.set_valued_keys, vocab.aliases)

    def value(self, text: str) -> _Value:
        return _Value(text, Words.of(normalise(text, self.aliases)))

    def relation(self, key: str, a: _Value, b: _Value) -> str | None:
        """'exact', 'same', 'loose' (a match with a note), 'negated' (D13) or None."""
        if key == LEN_KEY:
            la, lb = read_len(a.text), read_len(b.text)
            if la is not None and lb is not None:
                if la[0] != lb[0]:
                    return None
                if la[1] == lb[1]:
                    return EXACT
                return LOOSE if "" in (la[1], lb[1]) else None
            if la is not None or lb is not None:
                # D6: len is a number and a unit. A value that is not one
                # (150w-or-120w, 120w-150w) cannot be the same fact, or a
                # hedge would pass where the single-valued key must contradict.
                return None
        wa, wb = a.w, b.w
        if wa.words == wb.words:
            return EXACT
        if not wa.words or not wb.words:
            return None
        if _negated(wa, wb) != _negated(wb, wa):
            # D13: a contradiction, where the two are otherwise related
            sa, sb = _without_negation(wa, wb), _without_negation(wb, wa)
            if _same_fact(sa, sb) or (key in self.set_valued and not sa.distinctive.isdisjoint(sb.distinctive)):
                return NEGATED
            return None
        if _same_fact(wa, wb):
            return SAME
        if key in self.set_valued and not wa.distinctive.isdisjoint(wb.distinctive):
            return LOOSE
        return None

    def match(self, key: str, a: _Value, b: _Value) -> str | None:
        """'same' (exact or same fact), 'loose' (a match with a note) or None."""
        found = self.relation(key, a, b)
        return SAME if found == EXACT else (found if found in (SAME, LOOSE) else None)

    def _group(self, constraints: Iterable[Constraint], findings: list[Finding], side: str) -> dict[str, list[_Value]]:
        groups: dict[str, list[_Value]] = {}
        for c in constraints:
            if c.key not in self.keys:
                findings.append(note(kind="unknown-key", tier=TIER, key=c.key,
                                        message=f"{side} key {c.key} is outside the closed set; not compared",
                                        sender_value=str(c) if side == "sender" else None,
                                        receiver_value=str(c) if side == "receiver" else None))
                continue
            groups.setdefault(c.key, []).append(self.value(c.value))
        return groups

    def compare(
        self,
        sender: Iterable[Constraint] | None,
        receiver: Iterable[Constraint],
        *,
        not_tokens: Iterable[str] = (),
        required_keys: Iterable[str] = (),
    ) -> list[Finding]:
        """Every tier-4 finding of the receiver's criteria against the sender's.

        ``sender`` None means the sender holds no criteria: only
        ``required_keys`` (the HO's ``keys=``) are checked, and an
        ``unchecked`` note says the rest was not.
        """
        findings: list[Finding] = []
        mine = self._group(receiver, findings, "receiver")
        for token in not_tokens:
            mine.setdefault(NOT_AS_KEY, []).append(self.value(token))
        theirs = self._group(sender, findings, "sender") if sender is not None else {}
        for key in dict.fromkeys(required_keys):
            if key not in mine and key not in theirs:  # a key the sender holds is reported with its values below
                findings.append(fail(kind="gap", tier=TIER, key=key,
                                        message=f"keys= names {key}; the readback's acc= has no {key}:",
                                        sender_value=f"{key}:", receiver_value=None))
        if sender is None:
            findings.append(note(kind="unchecked", tier=TIER, key=None,
                                    message="no sender criteria: the readback's acc= was not compared"))
            return findings
        excluded: list[Finding] = []
        ruled_out: set[int] = set()
        for must in theirs.get(EXCLUDES_KEY, []):
            for j, v in enumerate(mine.get(NOT_AS_KEY, [])):
                found = self.relation(NOT_AS_KEY, must, v)
                if found in (EXACT, SAME):
                    ruled_out.add(j)
                    excluded.append(_finding(FAIL, "excluded", EXCLUDES_KEY,
                                             f"the readback rules out {v.text}, which the sender requires (must:{must.text})",
                                             f"must:{must.text}", f"{NOT_AS_KEY}:{v.text}"))
                elif found == LOOSE:
                    excluded.append(_finding(NOTE, "loose", EXCLUDES_KEY,
                                             f"the readback rules out {v.text}, which shares a word with must:{must.text}; confirm",
                                             f"must:{must.text}", f"{NOT_AS_KEY}:{v.text}"))
        # a no: value that rules out a must: is reported as excluded, not again as an assumption
        mine_compared = dict(mine)
        if ruled_out:
            mine_compared[NOT_AS_KEY] = [v for j, v in enumerate(mine[NOT_AS_KEY]) if j not in ruled_out]
            if not mine_compared[NOT_AS_KEY] and NOT_AS_KEY not in theirs:
                del mine_compared[NOT_AS_KEY]
        for key, values in theirs.items():
            got = mine_compared.get(key, [])
            if not got:
                for v in values:
                    findings.append(_finding(FAIL, "gap", key, f"the sender holds {key}:{v.text}; the readback has no {key}:",
                                             f"{key}:{v.text}", None))
                continue
            if key in self.set_valued:
                findings.extend(self._compare_set(key, values, got))
            else:
                findings.extend(self._compare_single(key, values, got))
        for key, values in mine_compared.items():
            if key not in theirs:
                for v in values:
                    findings.append(_finding(NOTE, "assumption", key, f"{key}:{v.text} is the receiver's own; confirm or correct",
                                             None, f"{key}:{v.text}"))
        findings.extend(excluded)
        return findings

    def _compare_single(self, key: str, sender: list[_Value], receiver: list[_Value]) -> list[Finding]:
        results = [[self.match(key, s, r) for r in receiver] for s in sender]
        sender_ok = all(any(m is not None for m in row) for row in results)
        receiver_ok = all(any(results[i][j] is not None for i in range(len(sender))) for j in range(len(receiver)))
        s_text = "+".join(f"{key}:{v.text}" for v in sender)
        r_text = "+".join(f"{key}:{v.text}" for v in receiver)
        if not (sender_ok and receiver_ok):
            return [_finding(FAIL, "contradiction", key, f"{key}: the sender means {s_text}, the readback says {r_text}",
                             s_text, r_text)]
        if any(m == LOOSE for row in results for m in row) and not any(m == SAME for row in results for m in row):
            return [_finding(NOTE, "loose", key, f"{key}: {s_text} and {r_text} taken as the same fact; confirm",
                             s_text, r_text)]
        return []

    def _compare_set(self, key: str, sender: list[_Value], receiver: list[_Value]) -> list[Finding]:
        index: dict[str, list[int]] = {}
        for j, r in enumerate(receiver):
            for term in r.index_terms():
                index.setdefault(term, []).append(j)
        relations: list[dict[int, str]] = []
        for s in sender:
            if key == LEN_KEY:  # number and unit: 120w and 120-words share no word
                candidates = list(range(len(receiver)))
            else:
                candidates = sorted({j for term in s.index_terms() for j in index.get(term, ())})
            related = {j: self.relation(key, s, receiver[j]) for j in candidates}
            relations.append({j: how for j, how in related.items() if how is not None})
        pairs = pair_one_to_one(relations, len(receiver))
        findings = []
        paired_sender = {i for i, _, _ in pairs}
        open_receiver = [j for j in range(len(receiver)) if j not in {j for _, j, _ in pairs}]
        for i, j, how in pairs:
            if how == LOOSE:
                findings.append(_finding(NOTE, "loose", key,
                                         f"{key}:{sender[i].text} loosely matched by {receiver[j].text}; confirm",
                                         f"{key}:{sender[i].text}", f"{key}:{receiver[j].text}"))
        for i, s in enumerate(sender):
            if i in paired_sender:
                continue
            opposite = next((j for j in open_receiver if relations[i].get(j) == NEGATED), None)
            if opposite is not None:
                open_receiver.remove(opposite)
                findings.append(_contradiction(key, s, receiver[opposite]))
                continue
            findings.append(_finding(FAIL, "gap", key, f"the sender holds {key}:{s.text}; the readback does not",
                                     f"{key}:{s.text}", None))
        for j in open_receiver:
            opposite = next((i for i in range(len(sender)) if relations[i].get(j) == NEGATED), None)
            if opposite is not None:
                findings.append(_contradiction(key, sender[opposite], receiver[j]))
                continue
            findings.append(_finding(NOTE, "assumption", key, f"{key}:{receiver[j].text} is the receiver's own; confirm or correct",
                                     None, f"{key}:{receiver[j].text}"))
        return findings


def _contradiction(key: str, s: _Value, r: _Value) -> Finding:
    return _finding(FAIL, "contradiction", key, f"{key}: the sender means {s.text}, the readback says the opposite: {r.text}",
                    f"{key}:{s.text}", f"{key}:{r.text}")


def _finding(severity: str, kind: str, key: str, message: str, sender: Any, receiver: Any) -> Finding:
    return Finding(severity=severity, kind=kind, tier=TIER, key=key, message=message, sender_value=sender, receiver_value=receiver)
