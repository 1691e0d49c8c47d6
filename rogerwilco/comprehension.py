"""The comprehension check: the sender's criteria against the receiver's (spec 5.2, D6).

Theory of operation
-------------------
Criteria are ``key:value`` constraints. Keys are a closed set (the core's
``ckey`` enum plus the profile's ``constraint_keys``); a key outside it is
noted (``unknown-key``) and never compared. Values are compared as *facts*,
not strings. :func:`normalise` turns a value into a tuple of words:

1. lowercase; ``-`` ``_`` ``.`` ``/`` and whitespace split words; any other
   character that is not a letter or digit is dropped;
2. every word is folded to the singular (:func:`fold_plural`): a word ending
   in one of :data:`ES_PLURAL_ENDINGS` loses ``es``; any other word longer
   than 3 letters ending in ``s`` but not ``ss`` loses the ``s``;
3. the whole value (its words joined with ``-``) is looked up in the alias
   table of the vocabulary, whose spellings are normalised the same way, and
   replaced by the canonical value's words (``uk`` = ``en-gb``).

Two normalised values are the *same fact* (:func:`same_fact`) when they are
equal, when one is a leading run of the other's words (a word prefix:
``monday`` and ``monday-problem``, never ``12`` and ``120w``), or when one's
word set contains the other's. A value that normalises to no words is the
same fact only as another such value: it is no word prefix or subset of
anything, so punctuation cannot stand in for a criterion.

``len`` is compared as number and unit (:func:`read_len`): the units are a
table (:data:`LEN_UNITS`); equal numbers and units match, equal numbers with
one unit missing match with a ``loose`` note, anything else contradicts.

By key, for the keys the sender holds:

* single-valued keys: every sender value must have a same-fact receiver
  value and every receiver value a same-fact sender value, or the key is a
  ``contradiction``; no receiver value at all is a ``gap``;
* set-valued keys (``must no scope src``): each sender value needs a
  receiver value of the same fact, or failing that a *loose* match (a shared
  distinctive word: three characters or more, not in :data:`STOP_WORDS`),
  which is reported as a ``loose`` note; neither is a ``gap``. A receiver
  value that matches no sender value is an ``assumption`` (note);
* a key only the receiver holds is an ``assumption`` (note).

The receiver's ``not=`` tokens are ``no:`` values. Every receiver ``no``
value that matches (same fact or loose) a sender ``must:`` value is
``excluded``: the receiver ruled out something required.

``keys=`` on the HO names the keys the sender will check: each must appear
in the receiver's criteria, or it is a ``gap``. Without sender criteria that
is all that can be checked; the result then carries an ``unchecked`` note.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any, Iterable, Mapping

import attrs

from .errors import RW1Error
from .findings import FAIL, NOTE, Finding
from .slottypes import split_constraint

TIER = 4
WORD_SEPARATORS = frozenset("-_./")
ES_PLURAL_ENDINGS = ("shes", "ches", "xes", "sses", "zes")
STOP_WORDS = frozenset({
    "the", "and", "for", "with", "not", "any", "all", "our", "your", "their", "from", "into", "onto",
    "that", "this", "these", "those", "are", "was", "were", "but", "per", "via", "its", "has", "have",
    "who", "whom", "what", "which", "when", "where", "how", "than", "then", "them", "they", "you",
    "out", "off", "over", "under", "about", "each", "every", "some", "other", "use", "using", "only",
    "also", "must", "should", "will", "can", "may", "one", "two", "more", "less", "most", "least",
    "non", "without", "within", "upon",
})
# len: the unit spellings, after lowercasing and plural folding, to the unit.
LEN_UNITS = {
    "": "", "w": "w", "word": "w", "c": "c", "char": "c", "character": "c",
    "p": "p", "page": "p", "pg": "p", "s": "s", "slide": "s",
}
_LEN_RE = re.compile(r"([0-9]+(?:\.[0-9]+)?)[-_]?([a-z]*)")
LEN_KEY = "len"
NOT_AS_KEY = "no"  # a receiver's not= tokens are compared as no: values
EXCLUDES_KEY = "must"  # ... against the sender's must: values


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


def fold_plural(word: str) -> str:
    """The singular of a word by D6's rule (no dictionary, both sides alike)."""
    if word.endswith(ES_PLURAL_ENDINGS):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def split_words(value: str) -> tuple[str, ...]:
    words, current = [], []
    for ch in value.lower():
        if ch in WORD_SEPARATORS or ch.isspace():
            if current:
                words.append("".join(current))
            current = []
        elif ch.isalnum():
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


def same_fact(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Equal, a word prefix of the other, or word-set containment (D6)."""
    if a == b:
        return True
    if not a or not b:
        return False
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if long_[: len(short)] == short:
        return True
    sa, sb = set(a), set(b)
    return sa <= sb or sb <= sa


def distinctive(words: Iterable[str]) -> set[str]:
    return {w for w in words if len(w) >= 3 and w not in STOP_WORDS}


def loose_match(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """A shared distinctive word (set-valued keys only)."""
    return bool(distinctive(a) & distinctive(b))


def read_len(value: str) -> tuple[Decimal, str] | None:
    """``120w`` as (120, 'w'); None where the value is not number-and-unit."""
    m = _LEN_RE.fullmatch(value.strip().lower())
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


# --------------------------------------------------------------------------
# the comparison


@attrs.frozen
class _Value:
    text: str  # as written, for reports
    words: tuple[str, ...]


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
        return _Value(text, normalise(text, self.aliases))

    def match(self, key: str, a: _Value, b: _Value) -> str | None:
        """'same', 'loose' (match with a note) or None."""
        if key == LEN_KEY:
            la, lb = read_len(a.text), read_len(b.text)
            if la is not None and lb is not None:
                if la[0] != lb[0]:
                    return None
                if la[1] == lb[1]:
                    return "same"
                return "loose" if "" in (la[1], lb[1]) else None
            if la is not None or lb is not None:
                # D6: len is a number and a unit. A value that is not one
                # (150w-or-120w, 120w-150w) cannot be the same fact, or a
                # hedge would pass where the single-valued key must contradict.
                return None
        if same_fact(a.words, b.words):
            return "same"
        if key in self.set_valued and loose_match(a.words, b.words):
            return "loose"
        return None

    def _group(self, constraints: Iterable[Constraint], findings: list[Finding], side: str) -> dict[str, list[_Value]]:
        groups: dict[str, list[_Value]] = {}
        for c in constraints:
            if c.key not in self.keys:
                findings.append(Finding(severity=NOTE, kind="unknown-key", tier=TIER, key=c.key,
                                        message=f"{side} key {c.key} is outside the closed set; not compared",
                                        **{side: str(c)}))
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
                findings.append(Finding(severity=FAIL, kind="gap", tier=TIER, key=key,
                                        message=f"keys= names {key}; the readback's acc= has no {key}:",
                                        sender=f"{key}:", receiver=None))
        if sender is None:
            findings.append(Finding(severity=NOTE, kind="unchecked", tier=TIER, key=None,
                                    message="no sender criteria: the readback's acc= was not compared"))
            return findings
        excluded: list[Finding] = []
        ruled_out: set[int] = set()
        for must in theirs.get(EXCLUDES_KEY, []):
            for j, v in enumerate(mine.get(NOT_AS_KEY, [])):
                if self.match(NOT_AS_KEY, must, v) is not None:
                    ruled_out.add(j)
                    excluded.append(_finding(FAIL, "excluded", EXCLUDES_KEY,
                                             f"the readback rules out {v.text}, which the sender requires (must:{must.text})",
                                             f"must:{must.text}", f"no:{v.text}"))
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
        if any(m == "loose" for row in results for m in row) and not any(m == "same" for row in results for m in row):
            return [_finding(NOTE, "loose", key, f"{key}: {s_text} and {r_text} taken as the same fact; confirm",
                             s_text, r_text)]
        return []

    def _compare_set(self, key: str, sender: list[_Value], receiver: list[_Value]) -> list[Finding]:
        findings = []
        matched: set[int] = set()
        for s in sender:
            same = [j for j, r in enumerate(receiver) if self.match(key, s, r) == "same"]
            if same:
                matched.update(same)
                continue
            loose = [j for j, r in enumerate(receiver) if self.match(key, s, r) == "loose"]
            if loose:
                matched.update(loose)
                findings.append(_finding(NOTE, "loose", key,
                                         f"{key}:{s.text} loosely matched by {', '.join(receiver[j].text for j in loose)}; confirm",
                                         f"{key}:{s.text}", "+".join(f"{key}:{receiver[j].text}" for j in loose)))
                continue
            findings.append(_finding(FAIL, "gap", key, f"the sender holds {key}:{s.text}; the readback does not",
                                     f"{key}:{s.text}", None))
        for j, r in enumerate(receiver):
            if j not in matched:
                findings.append(_finding(NOTE, "assumption", key, f"{key}:{r.text} is the receiver's own; confirm or correct",
                                         None, f"{key}:{r.text}"))
        return findings


def _finding(severity: str, kind: str, key: str, message: str, sender: Any, receiver: Any) -> Finding:
    return Finding(severity=severity, kind=kind, tier=TIER, key=key, message=message, sender=sender, receiver=receiver)
