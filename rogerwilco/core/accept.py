"""The accept path: a valid line straight to its Message or record, no findings.

Theory of operation
-------------------
Most lines a program reads are valid, and for a valid line the never-guess
pass (:func:`rogerwilco.core.semantics.check_raw`) builds findings it then throws
away. This module answers a narrower question, as fast as Python can: *is
this line valid, and if so what does it decode to?* It answers ``None``
("not sure") for anything other than an accept: a line the fast-path
regex refuses, another version, a profile the receiver does not hold, an
unknown type, a repeated key, an unknown key another held profile requires,
a value that does not decode, an agent outside the ones a profile names, a wrong id, a missing
slot, a conditional rule that fails, a tail that is too long, or a type governed by a profile's closed answer
vocabulary. The caller then runs the full pass, which finds and words the
refusal. A line that earns only notes (a slot of another type, an unknown
key) is accepted here: its Message is the one the full pass builds, and the
notes, which only a person reading findings needs, are ``check_line``'s to
write. So a note costs a line nothing on this path. This path can make a
line slower, never change its verdict; a differential test
(tests/test_accept.py) holds it to that.

Per vocabulary, everything the pass looks up by name is compiled once into a
:class:`TypePlan` per message type: the slot decoders (``None`` keeps the text
as written, a frozenset is an enum's codes, else a decode function), the
required keys as a frozenset, and each conditional rule as a closure that
says whether the rule is satisfied. A profile that names its agents closes
them (docs/reference.md V1): its agent-typed slots decode only to one of
those or a reserved agent (``human``), a set look-up like an enum's codes,
and any other agent is the full pass's to refuse. Nothing is imported, and
no Source, RawLine or LineResult is built, on the way.

Syntax: the line is checked piece by piece against the grammar's terminals
(``_fastpath.TERMINALS``, derived from the grammar): the id and the tail each
against its terminal's regex, the type by being a plan's, and each slot
against the slot terminal's regex the first time the memo decodes it; a slot
the memo holds is well formed wherever it stands, so a stream's repeated
slots are not matched again. The pieces accept exactly the lines the
whole-line regex accepts (a slot holds no space, so the tail starts at the
first " // ").

Where the C scanner is built (:mod:`rogerwilco.core.scanner`), it reads each
line first, with tables made from this module's plans and this module's rule
closures, and only a line it is not sure of comes here;
:mod:`rogerwilco.core.speedups` binds the entry points the package calls.
"""

from __future__ import annotations

import re
from types import MappingProxyType
from typing import Any, Callable, Final, Iterable, Iterator, Mapping, Optional, Sequence

from ._fastpath import TERMINALS
from .message import FIELD_SETTERS, Message, Source
from .semantics import LineResult, check_line, requiring_profile, strict_message
from .slottypes import AGENT_TYPES
from .syntax import TAIL_MARK
from .vocab import ProfileRule, Receiver, Vocabulary, as_receiver, core_vocabulary

VERSION: Final = "RW1"
ANSWER_TYPES: Final = ("AQ", "AN")  # the types a profile's closed answer vocabulary governs (spec 7)

# A rule check: (decoded values by key, the slots as written "key=value", tail) -> satisfied?
RuleCheck = Callable[[Mapping[str, Any], Sequence[str], Optional[str]], bool]


def _written(slots: Sequence[str]) -> dict[str, str]:
    """Each key's value as written (a line on the accept path repeats no key)."""
    out: dict[str, str] = {}
    for token in slots:
        key, _, value = token.partition("=")
        out[key] = value
    return out

# The grammar's terminals (derived from it, tests/test_syntax.py), each matching one whole piece of a line.
_SLOT: Final = re.compile(TERMINALS["SLOT"]).fullmatch
_MSGID: Final = re.compile(TERMINALS["MSGID"]).fullmatch
_TAIL: Final = re.compile(TERMINALS["TAIL"]).fullmatch
_TYPE: Final = re.compile(TERMINALS["TYPE"]).fullmatch
_ABSENT: Final[Any] = object()
_NOT_SURE: Final[tuple[Any, None]] = (_ABSENT, None)  # what the memo answers for a slot the full pass must see
_MEMO_MAX: Final = 4096  # entries per type plan; the memo starts again when full
_MEMO_TOKEN_MAX: Final = 80  # longer slots are decoded every time
_TAIL_MARK: Final = TAIL_MARK
_RECEIVER: Final = Receiver
_MESSAGE: Final = Message
_SOURCE: Final = Source
_READ_ONLY: Final = MappingProxyType
_new_tuple: Final = tuple.__new__
_new_object: Final = object.__new__
_SET_TYPE: Final = FIELD_SETTERS[0]
_SET_ID: Final = FIELD_SETTERS[1]
_SET_RE: Final = FIELD_SETTERS[2]
_SET_FROM: Final = FIELD_SETTERS[3]
_SET_TO: Final = FIELD_SETTERS[4]
_SET_ITEM: Final = FIELD_SETTERS[5]
_SET_SLOTS: Final = FIELD_SETTERS[6]
_SET_TAIL: Final = FIELD_SETTERS[7]
_SET_V: Final = FIELD_SETTERS[8]
_SET_SOURCE: Final = FIELD_SETTERS[9]


class _KeptAsWritten(dict):  # type: ignore[type-arg]
    """A type's decoders, answering "keep as written" for a key no slot of the vocabulary has.

    Such a key is an extension (``x_...``), kept silently, or an unknown key,
    kept with a note the accept path does not write; the full pass refuses an
    unknown key only where another held profile requires it, which
    :func:`accept_values` asks of the receiver (``TypePlan.known``).
    """

    def __missing__(self, key: str) -> Any:
        return None


class _Memo(dict):  # type: ignore[type-arg]
    """"key=value" -> (key, decoded value), decoding on a miss; bounded (it starts again when full).

    A slot the accept path leaves to the full pass answers ``_NOT_SURE`` (not
    remembered): its key is no string, so the line's values hold a key that says so.
    """

    def __init__(self, decoders: Mapping[str, Any]) -> None:
        super().__init__()
        self.decoders = decoders

    def __missing__(self, token: str) -> tuple[Any, Any]:  # (key or _ABSENT, value)
        hit = _decode_token(self.decoders, token) if _SLOT(token) is not None else None
        if hit is None:
            return _NOT_SURE
        if len(token) <= _MEMO_TOKEN_MAX:
            if len(self) >= _MEMO_MAX:
                self.clear()
            self[token] = hit
        return hit


class TypePlan:
    """One message type of one vocabulary, compiled for the accept path."""

    __slots__ = ("decoders", "known", "own", "profile", "required", "rules", "memo", "tail_max")

    def __init__(self, decoders: Mapping[str, Any], required: frozenset[str], rules: tuple[RuleCheck, ...],
                 profile: str | None, tail_max: int, own: frozenset[str] = frozenset()) -> None:
        self.tail_max = tail_max
        self.own = own  # the type's own slots: any other key but an extension earns a note
        # ``decoders`` holds every slot of the vocabulary: the type's own, and the others,
        # which the full pass decodes alike and notes as not of this type. Any other key is
        # kept as written, as the full pass keeps it: decoded as "keep".
        self.decoders = _KeptAsWritten(decoders)
        self.known = frozenset(decoders)
        self.profile = profile
        self.required = required
        self.rules = rules
        # "key=value" as written -> (key, decoded value): slots repeat across a stream
        # (to=writer, ask=DRAFT), and every decode is a pure function of the text.
        self.memo = _Memo(self.decoders)


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


def compile_rule(rule: ProfileRule) -> RuleCheck:
    """A rule as a closure saying whether a line satisfies it."""
    conditions = tuple((key, _condition(cond)) for key, cond in rule.when.items())
    require = rule.require
    require_tail = rule.require_tail
    match = tuple(rule.match.items())
    sums = rule.sum
    parts: tuple[str, ...] = tuple(sums["parts"]) if sums is not None else ()
    total: str = sums["total"] if sums is not None else ""

    def satisfied(values: Mapping[str, Any], slots: Sequence[str], tail: str | None) -> bool:
        for key, holds in conditions:
            value = values.get(key)
            if value is None or not holds(value):
                return True  # the rule does not apply
        for key in require:
            if key not in values:
                return False
        if require_tail and tail is None:
            return False
        if match:
            written = _written(slots)
            for key, pattern in match:
                text = written.get(key)
                if text is not None and not pattern.fullmatch(text):
                    return False
        if sums is not None and total in values and all(k in values for k in parts):
            from decimal import Decimal, InvalidOperation  # here: only a line the sum rule applies to needs it

            written = _written(slots)
            try:
                got = sum((Decimal(written[k]) for k in parts), Decimal(0))
                want = Decimal(written[total])
            except InvalidOperation:
                return True  # a value that is not a number is refused by its type, not here
            return got == want
        return True

    return satisfied


def compile_plans(vocab: Vocabulary) -> dict[str, TypePlan]:
    """Every type of a vocabulary the accept path may decide alone."""
    plans: dict[str, TypePlan] = {}
    agents = _named_agents(vocab)
    answers = "ans" in vocab.enums
    # A slot of the vocabulary on a type that does not list it decodes with its slot type (a note, not a refusal).
    off_type: dict[str, Any] = {key: slot.type.decode for key, slot in vocab.slots.items()}
    for name, table in vocab.types.items():
        if answers and name in ANSWER_TYPES:
            continue  # the closed answer vocabulary: the full pass decides
        if _TYPE(name) is None:
            continue  # not a type the grammar reads: no line names it
        compiled: list[RuleCheck] = [compile_rule(rule) for rule in table.rules]
        decoders = {**off_type, **table.decoders}
        plans[name] = TypePlan(
            decoders=_closing_agents(decoders, vocab, agents) if agents is not None else decoders,
            required=frozenset(table.required),
            rules=tuple(compiled),
            profile=vocab.profile,
            tail_max=vocab.tail_max,
            own=frozenset(table.decoders),
        )
    return plans


def _named_agents(vocab: Vocabulary) -> frozenset[str] | None:
    """The agents a profile's lines may name (its own and the reserved ones), or None: any agent."""
    if vocab.agents is None:
        return None
    return vocab.agents | vocab.reserved_agents


def _closing_agents(decoders: Mapping[str, Any], vocab: Vocabulary, agents: frozenset[str]) -> dict[str, Any]:
    """A type's decoders with each agent-typed slot closed to the named agents."""
    closed = dict(decoders)
    for key, decode in decoders.items():
        if vocab.slots[key].type.name not in AGENT_TYPES:
            continue
        # An agent decodes to itself, so the names are its codes, like an enum's; a list checks each agent.
        closed[key] = _closed_list(decode, agents) if vocab.slots[key].type.is_list else agents
    return closed


def _closed_list(decode: Callable[[str], Any], agents: frozenset[str]) -> Callable[[str], Any]:
    def closed(raw: str) -> Any:
        value = decode(raw)
        for agent in value:
            if agent not in agents:
                raise ValueError("not an agent the profile names")
        return value

    return closed


# id(vocabulary) -> (vocabulary, plans): the vocabulary is held so its id stays its own.
_PLANS: Final[dict[int, tuple[Vocabulary, dict[str, TypePlan]]]] = {}
_PLANS_MAX: Final = 256


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
    decode = decoders[key]  # _ABSENT for a key the type does not take
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


# The core vocabulary's plans, found once: most lines name no profile.
_CORE: Final[list[dict[str, TypePlan]]] = []


def _core_plans() -> dict[str, TypePlan]:
    _CORE.append(plans_for(core_vocabulary()))
    return _CORE[0]


def accept_values(text: str, receiver: Receiver, quiet: bool = False
                  ) -> tuple[list[str], dict[str, Any], str | None] | None:
    """(the line's space-separated head tokens, decoded values by key, tail), or None when not sure; with
    ``quiet``, None also for a line the full pass takes with a note (a slot of another type, an unknown key)."""
    head, mark, tail_text = text.partition(_TAIL_MARK)
    tokens = head.split(" ")
    if len(tokens) < 3 or tokens[0] != VERSION:
        return None
    plans = _CORE[0] if _CORE else _core_plans()
    if " p=" in head:
        for token in tokens:
            if token.startswith("p="):
                if not receiver.holds(token[2:]):
                    return None
                plans = plans_for(receiver.vocabulary(token[2:]))
                break
    plan = plans.get(tokens[1])
    if plan is None:
        return None
    slots = tokens[3:]
    if "" in slots:
        return None  # two spaces in a row, or a trailing one: no piece is empty (a first verdict, cheaply)
    # The grammar, piece by piece: the version is RW1 and the type one of the plans' (each a TYPE,
    # compile_plans), the id and the tail are matched against their terminals' regexes, and each slot
    # against the slot terminal's when the memo first decodes it. A line whose pieces are all well
    # formed is one the whole-line regex matches, and conversely: a slot holds no space, so the tail
    # starts at the first " // ".
    if _MSGID(tokens[2]) is None or (mark and _TAIL(tail_text) is None):
        return None
    values: dict[str, Any] = dict(map(plan.memo.__getitem__, slots))  # the loop runs in C on memo hits
    if len(values) != len(slots) or _ABSENT in values:
        return None  # a repeated key, or a slot the accept path is not sure of: the full pass words it
    if not plan.known.issuperset(values) and _foreign_required(values, plan, receiver):
        return None
    if quiet and not plan.own.issuperset(values) and _noted(values, plan.own):
        return None
    sender = values.get("from")
    if isinstance(sender, str):  # the id is <from>-<n>: its last "-" ends the sender's name
        msgid = tokens[2]
        if msgid.rfind("-") != len(sender) or not msgid.startswith(sender):
            return None
    if not values.keys() >= plan.required:
        return None
    tail = tail_text if mark else None
    for satisfied in plan.rules:
        if not satisfied(values, slots, tail):
            return None
    if tail is not None and len(tail) > plan.tail_max:
        return None
    return tokens, values, tail


def _foreign_required(keys: Iterable[str], plan: TypePlan, receiver: Receiver) -> bool:
    """Whether a key no slot of the line's vocabulary has is one another held profile requires (a refusal)."""
    for key in keys:
        if key not in plan.known and not key.startswith("x_"):
            owner = requiring_profile(receiver, key)
            if owner is not None and owner != plan.profile:
                return True
    return False


def _noted(keys: Iterable[str], own: frozenset[str]) -> bool:
    """Whether a key is one the full pass notes: neither a slot of the line's type nor an extension (``x_``)."""
    for key in keys:
        if key not in own and not key.startswith("x_"):
            return True
    return False


def accept(text: str, receiver: Receiver, line: int | None = None, file: str | None = None,
           quiet: bool = False) -> Message | None:
    """The Message of a cleanly valid line, or None (not sure: run the full pass). With ``quiet``, None also
    for a line the full pass notes: a Message given is then one the full pass gives with no finding at all."""
    accepted = accept_values(text, receiver, quiet)
    if accepted is None:
        return None
    tokens, values, tail = accepted
    # The Message's slot descriptors set one by one (message.FIELD_SETTERS): the object
    # Message(...) builds, at a fraction of the cost.
    message = _new_object(_MESSAGE)
    _SET_TYPE(message, tokens[1])
    _SET_ID(message, tokens[2])
    _SET_RE(message, values.pop("re", None))
    _SET_FROM(message, values.pop("from"))
    _SET_TO(message, values.pop("to"))
    _SET_ITEM(message, values.pop("item", None))
    _SET_SLOTS(message, _READ_ONLY(values))
    _SET_TAIL(message, tail)
    _SET_V(message, VERSION)
    _SET_SOURCE(message, _new_tuple(_SOURCE, (text, line, file, None)))
    return message


def accept_quiet(text: str, receiver: Receiver, line: int | None = None, file: str | None = None) -> Message | None:
    """The Message of a line the never-guess pass takes with no finding at all (no note either), its source
    placed at ``line`` of ``file``; None when not sure (``check_line`` reads it, and words what it finds)."""
    return accept(text, receiver, line, file, True)


def loads_line(text: str, profiles: Any = None, line_number: int | None = None) -> Message:
    """``rogerwilco.loads``: the accept path, and the full pass only for a line it is not sure of."""
    if not isinstance(text, str):  # what the C scanner's argument check says, in both paths
        raise TypeError(f"str object expected; got {'None' if text is None else type(text).__name__}")
    receiver = profiles if profiles.__class__ is _RECEIVER else as_receiver(profiles)
    message = accept(text, receiver, line_number)
    if message is not None:
        return message
    return strict_message(text, receiver, line_number=line_number)


def json_form(text: str, receiver: Receiver) -> dict[str, Any] | None:
    """The JSON form of a cleanly valid line (as ``Message.to_json`` gives it), or None: not sure."""
    accepted = accept_values(text, receiver)
    if accepted is None:
        return None
    tokens, values, tail = accepted
    pop = values.pop
    form = {"v": VERSION, "type": tokens[1], "id": tokens[2], "re": pop("re", None), "from": pop("from"),
            "to": pop("to"), "item": pop("item", None), "slots": values, "tail": tail}
    for key, value in values.items():
        if value.__class__ is tuple:
            values[key] = list(value)
    return form


def json_forms(lines: Iterable[str], profiles: Any = None,
               first: Callable[[str, Receiver], dict[str, Any] | None] | None = None,
               then: Callable[[str, Receiver], dict[str, Any] | None] | None = None) -> Iterator[dict[str, Any] | LineResult]:
    """The batch path: each line's JSON form, straight from the text, no Message built.

    One item per line, in order: the JSON form (a dict, equal to
    ``loads(line).to_json()``) of a valid line, else the line's LineResult,
    whose findings say why it is refused. Line numbers count from 1.
    ``first`` is what reads each line first (default :func:`json_form`;
    :mod:`.speedups` passes the C scanner's), ``then`` what reads a line
    ``first`` is not sure of before the full pass (:mod:`.speedups` passes
    :func:`json_form`).
    """
    receiver = profiles if profiles.__class__ is _RECEIVER else as_receiver(profiles)
    read = json_form if first is None else first
    for number, text in enumerate(lines, 1):
        form = read(text, receiver)
        if form is None and then is not None:
            form = then(text, receiver)
        yield form if form is not None else form_or_result(text, receiver, number)


def form_or_result(text: str, receiver: Receiver, number: int) -> dict[str, Any] | LineResult:
    """What the batch path gives for a line no faster reader settled: the full pass's JSON form, else the
    line's LineResult (line ``number``), whose findings say why it is refused."""
    result = check_line(text, receiver, line_number=number)
    return result.message.to_json() if result.message is not None else result
