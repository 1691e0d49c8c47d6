"""Did you mean: the nearest known word for a misspelt key, code or type, and the profile that owns it.

Theory of operation
-------------------
A suggestion is a hint for a person or an editor's quick fix, never a guess
the protocol acts on: a refusal is still a refusal (spec 5 rule 2), and the
``UN`` reply's tail does not carry it. :func:`closest` compares by optimal
string alignment distance (an insertion, deletion, substitution or swap of
two neighbours each cost one), case-insensitively, and accepts a distance of
1 for words of up to four letters and 2 for longer ones. Where two words are
equally near, both are named and no quick fix is offered, so the fix is
never a coin toss. :func:`owning_profile`
says which bundled profile defines a slot or a code, so ``amt=`` used
without ``p=`` points at ``p=pay``.
"""

from __future__ import annotations

import functools
from typing import Iterable

from .vocab import BUNDLED_PROFILES, Vocabulary, bundled_vocabulary


def distance(a: str, b: str, limit: int = 3) -> int:
    """Optimal string alignment distance of ``a`` and ``b``, capped at ``limit``."""
    if abs(len(a) - len(b)) >= limit:
        return limit
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, start=1):
            cost = 0 if ca == cb else 1
            best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                best = min(best, previous2[j - 2] + 1)
            current[j] = best
        if min(current) >= limit:
            return limit
        previous2, previous = previous, current
    return min(previous[-1], limit)


def nearest(word: str, choices: Iterable[str]) -> list[str]:
    """The known words nearest ``word`` within the allowed distance (ties all kept, in ``choices`` order)."""
    return list(_nearest(word, tuple(choices)))


# A log repeats its misspellings (a scan words every refused line it meets): the answer for a word among the
# same choices is kept, the most recent few thousand, so a peer writing new words cannot grow it.
@functools.lru_cache(maxsize=4096)
def _nearest(word: str, choices: tuple[str, ...]) -> tuple[str, ...]:
    folded = word.casefold()
    allowed = 1 if len(word) <= 4 else 2
    best: list[str] = []
    best_distance = allowed + 1
    for choice in choices:
        if choice == word:
            return ()
        d = distance(folded, choice.casefold(), allowed + 1)
        if d < best_distance:
            best, best_distance = [choice], d
        elif d == best_distance and choice not in best:
            best.append(choice)
    return tuple(best) if best_distance <= allowed else ()


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The one known word nearest ``word``, or None (none near, or a tie)."""
    near = nearest(word, choices)
    return near[0] if len(near) == 1 else None


def _either(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def owning_profile(vocab: Vocabulary, *, slot: str | None = None, enum: str | None = None,
                   code: str | None = None) -> str | None:
    """The bundled profile (other than ``vocab``'s own) that defines a slot, or a code of an enum."""
    for name in BUNDLED_PROFILES:
        if name == vocab.profile:
            continue
        other = bundled_vocabulary(name)
        if slot is not None and slot in other.slots and slot not in vocab.slots:
            return name
        if enum is not None and code is not None and code in other.enum_codes(enum) \
                and code not in vocab.enum_codes(enum):
            return name
    return None


def for_key(vocab: Vocabulary, type_: str, key: str, value: str) -> tuple[str | None, str | None]:
    """(hint, replacement token) for an unknown key on a line of type ``type_``."""
    owner = owning_profile(vocab, slot=key)
    if owner is not None:
        return f"{key} is a slot of profile {owner}: add p={owner}", f"p={owner} {key}={value}"
    table = vocab.types.get(type_)
    known = list(table.slots) if table is not None else list(vocab.slots)
    near = closest(key, known)
    if near is not None:
        return f"did you mean {near}=?", f"{near}={value}"
    return None, None


def for_code(vocab: Vocabulary, key: str, enum: str, value: str) -> tuple[str | None, str | None]:
    """(hint, replacement token) for an unknown code ``value`` of enum ``enum`` in slot ``key``."""
    owner = owning_profile(vocab, enum=enum, code=value)
    if owner is not None:
        return f"{value} is a code of profile {owner}: add p={owner}", f"p={owner} {key}={value}"
    near = closest(value, vocab.enum_codes(enum))
    if near is not None:
        return f"did you mean {near}?", f"{key}={near}"
    for name in BUNDLED_PROFILES:
        if name == vocab.profile:
            continue
        near = closest(value, bundled_vocabulary(name).enum_codes(enum))
        if near is not None and near not in vocab.enum_codes(enum):
            return f"did you mean {near}? it is a code of profile {name}: add p={name}", f"p={name} {key}={near}"
    return None, None


def for_type(vocab: Vocabulary, type_: str) -> tuple[str | None, str | None]:
    """(hint, replacement) for an unknown message type; two equally near types are both named, with no fix."""
    near = nearest(type_, vocab.types)
    if not near or len(near) > 3:
        return None, None
    return f"did you mean {_either(near)}?", (near[0] if len(near) == 1 else None)
