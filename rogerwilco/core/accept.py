"""The accept path: a valid line straight to its Message or record, no findings.

Theory of operation
-------------------
Most lines a program reads are valid, and for a valid line the never-guess
pass (:func:`rogerwilco.core.semantics.check_raw`) builds findings it then throws
away. This module answers a narrower question, as fast as Python can: *is
this line valid, and if so what does it decode to?* It answers ``None``
("not sure") for anything other than a clean accept: a line the fast-path
regex refuses, another version, a profile the receiver does not hold, an
unknown type, a repeated, unknown or off-type key, a value that does not
decode, a wrong id, a missing slot, a conditional rule that fails, a tail
that is too long, or a type governed by a profile's closed answer
vocabulary. The caller then runs the full pass, which finds and words the
refusal (or, for a line that only earns notes, builds the same message).
So this path can make a line slower, never change its verdict; a
differential test (tests/test_accept.py) holds it to that.

Per vocabulary, everything the pass looks up by name is compiled once into a
:class:`TypePlan` per message type: the slot decoders (``None`` keeps the text
as written, a frozenset is an enum's codes, else a decode function), the
required keys as a frozenset, and each conditional rule as a closure that
says whether the rule is satisfied. Nothing is imported, and no Source,
RawLine or LineResult is built, on the way.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from types import MappingProxyType
from typing import Any, Callable, Mapping, Optional

from .message import Message, Source, trusted_message
from .semantics import strict_message
from .syntax import TAIL_MARK, line_regex
from .vocab import ProfileRule, Receiver, Vocabulary, as_receiver, core_vocabulary

VERSION = "RW1"
ANSWER_TYPES = ("AQ", "AN")  # the types a profile's closed answer vocabulary governs (spec 7)

# A rule check: (decoded values by key, written values by key, tail) -> satisfied?
RuleCheck = Callable[[Mapping[str, Any], Mapping[str, str], Optional[str]], bool]

_MATCH = line_regex().fullmatch
_ABSENT: Any = object()
_MEMO_MAX = 4096  # entries per type plan; the memo starts again when full
_MEMO_TOKEN_MAX = 80  # longer slots are decoded every time
_new_tuple = tuple.__new__


class TypePlan:
    """One message type of one vocabulary, compiled for the accept path."""

    __slots__ = ("decoders", "required", "rules", "needs_written", "memo")

    def __init__(self, decoders: Mapping[str, Any], required: frozenset[str], rules: tuple[RuleCheck, ...],
                 needs_written: bool) -> None:
        self.decoders = decoders
        self.required = required
        self.rules = rules
        self.needs_written = needs_written
        # "key=value" as written -> (key, decoded value): slots repeat across a stream
        # (to=writer, ask=DRAFT), and every decode is a pure function of the text.
        self.memo: dict[str, tuple[str, Any]] = {}


def _condition(cond: Any) -> Callable[[Any], bool]:
    """A rule's ``when`` condition as a predicate on a decoded, present value."""
    if isinstance(cond, Mapping):
        if "prefix" in cond:
            prefix = cond["prefix"]
            return lambda value: isinstance(value, str) and value.startswith(prefix)
        if "in" in cond:
            members = cond["in"]
            return lambda value: value in members
        return lambda value: False
    return lambda value: bool(value == cond)


def compile_rule(rule: ProfileRule) -> tuple[RuleCheck, bool]:
    """A rule as a closure saying whether a line satisfies it, and whether it reads written values."""
    conditions = tuple((key, _condition(cond)) for key, cond in rule.when.items())
    require = rule.require
    require_tail = rule.require_tail
    match = tuple(rule.match.items())
    sums = rule.sum
    parts: tuple[str, ...] = tuple(sums["parts"]) if sums is not None else ()
    total: str = sums["total"] if sums is not None else ""

    def satisfied(values: Mapping[str, Any], written: Mapping[str, str], tail: str | None) -> bool:
        for key, holds in conditions:
            value = values.get(key)
            if value is None or not holds(value):
                return True  # the rule does not apply
        for key in require:
            if key not in values:
                return False
        if require_tail and tail is None:
            return False
        for key, pattern in match:
            text = written.get(key)
            if text is not None and not pattern.fullmatch(text):
                return False
        if sums is not None and total in values and all(k in values for k in parts):
            try:
                got = sum((Decimal(written[k]) for k in parts), Decimal(0))
                want = Decimal(written[total])
            except InvalidOperation:
                return True  # a value that is not a number is refused by its type, not here
            return got == want
        return True

    return satisfied, bool(match) or sums is not None


def compile_plans(vocab: Vocabulary) -> dict[str, TypePlan]:
    """Every type of a vocabulary the accept path may decide alone."""
    plans: dict[str, TypePlan] = {}
    answers = "ans" in vocab.enums
    for name, table in vocab.types.items():
        if answers and name in ANSWER_TYPES:
            continue  # the closed answer vocabulary: the full pass decides
        compiled = [compile_rule(rule) for rule in table.rules]
        plans[name] = TypePlan(
            decoders=dict(table.decoders),
            required=frozenset(table.required),
            rules=tuple(check for check, _ in compiled),
            needs_written=any(reads for _, reads in compiled),
        )
    return plans


# id(vocabulary) -> (vocabulary, plans): the vocabulary is held so its id stays its own.
_PLANS: dict[int, tuple[Vocabulary, dict[str, TypePlan]]] = {}
_PLANS_MAX = 256


def plans_for(vocab: Vocabulary) -> dict[str, TypePlan]:
    entry = _PLANS.get(id(vocab))
    if entry is not None and entry[0] is vocab:
        return entry[1]
    plans = compile_plans(vocab)
    if len(_PLANS) >= _PLANS_MAX:
        _PLANS.clear()
    _PLANS[id(vocab)] = (vocab, plans)
    return plans


def _decode_token(decoders: Mapping[str, Any], token: str) -> tuple[str, Any] | None:
    """(key, decoded value) of one slot, or None where the full pass has something to say."""
    key, _, rawval = token.partition("=")
    decode = decoders.get(key, _ABSENT)
    if decode is None:
        return key, rawval
    if decode is _ABSENT:
        return None
    if decode.__class__ is frozenset:
        return (key, rawval) if rawval in decode else None
    try:
        return key, decode(rawval)
    except ValueError:
        return None


def accept_values(text: str, receiver: Receiver) -> tuple[list[str], dict[str, Any], str | None] | None:
    """(the line's space-separated head tokens, decoded values by key, tail), or None when not sure."""
    if _MATCH(text) is None:
        return None
    head, mark, tail_text = text.partition(TAIL_MARK)
    tokens = head.split(" ")
    if tokens[0] != VERSION:
        return None
    vocab = core_vocabulary()
    if " p=" in head:
        for token in tokens:
            if token.startswith("p="):
                if not receiver.holds(token[2:]):
                    return None
                vocab = receiver.vocabulary(token[2:])
                break
    plan = plans_for(vocab).get(tokens[1])
    if plan is None:
        return None
    memo = plan.memo
    values: dict[str, Any] = {}
    for token in tokens[3:]:
        hit = memo.get(token)
        if hit is None:
            hit = _decode_token(plan.decoders, token)
            if hit is None:
                return None
            if len(token) <= _MEMO_TOKEN_MAX:
                if len(memo) >= _MEMO_MAX:
                    memo.clear()
                memo[token] = hit
        key = hit[0]
        if key in values:
            return None
        values[key] = hit[1]
    sender = values.get("from")
    if isinstance(sender, str) and tokens[2].rpartition("-")[0] != sender:
        return None
    if not values.keys() >= plan.required:
        return None
    tail = tail_text if mark else None
    if plan.rules:
        written = {token.partition("=")[0]: token.partition("=")[2] for token in tokens[3:]} if plan.needs_written else {}
        for satisfied in plan.rules:
            if not satisfied(values, written, tail):
                return None
    if tail is not None and len(tail) > vocab.tail_max:
        return None
    return tokens, values, tail


def accept(text: str, receiver: Receiver, line: int | None = None, file: str | None = None) -> Message | None:
    """The Message of a cleanly valid line, or None (not sure: run the full pass)."""
    accepted = accept_values(text, receiver)
    if accepted is None:
        return None
    tokens, values, tail = accepted
    pop = values.pop
    return trusted_message(tokens[1], tokens[2], pop("re", None), pop("from"), pop("to"), pop("item", None),
                           MappingProxyType(values), tail, VERSION, _new_tuple(Source, (text, line, file, None)))


def loads_line(text: str, profiles: Any = None, line_number: int | None = None) -> Message:
    """``rogerwilco.loads``: the accept path, and the full pass only for a line it is not sure of."""
    receiver = profiles if profiles.__class__ is Receiver else as_receiver(profiles)
    message = accept(text, receiver, line_number)
    if message is not None:
        return message
    return strict_message(text, receiver, line_number=line_number)
