"""Hypothesis strategies: valid RW1 messages built from the vocabulary data.

Values are generated per slot *type* as the vocabulary names it, so the
strategies follow the data: a new slot or profile needs no new strategy.
"""

from __future__ import annotations

import datetime as dt
import string

from hypothesis import strategies as st

from rogerwilco.core.message import Message
from rogerwilco.core.vocab import Receiver, Vocabulary

AGENT_CHARS = string.ascii_letters + string.digits + "._-"
# Visible characters: ASCII and a sample of non-ASCII, astral included.
VISIBLE = string.ascii_letters + string.digits + "!\"#$%&'()*,-./:;<=>?@[\\]^_`{|}~" + "éß€中日😀ʼ"

agents = st.text(AGENT_CHARS, min_size=1, max_size=10)
tokens = st.text(VISIBLE.replace("+", ""), min_size=1, max_size=12)


def msgids(agent=None):
    base = st.just(agent) if agent is not None else agents
    return st.builds(lambda a, n: f"{a}-{n}", base, st.integers(0, 10**6).map(str))


dates = st.dates(dt.date(1990, 1, 1), dt.date(2099, 12, 31)).map(lambda d: d.strftime("%Y%m%d"))
times = st.datetimes(dt.datetime(1990, 1, 1), dt.datetime(2099, 12, 31)).map(lambda t: t.strftime("%Y%m%dT%H%MZ"))
money = st.decimals(min_value=-10**7, max_value=10**7, places=2, allow_nan=False, allow_infinity=False).map(lambda d: f"{d:.2f}")
nums = st.one_of(
    st.integers(-1000, 1000).map(str),
    st.builds(lambda a, b: f"{a}/{b}", st.integers(40, 250), st.integers(30, 150)),
)
hexes = st.text("0123456789abcdef", min_size=12, max_size=12)
# A tail may hold no-break spaces, and joiners and variation selectors bound to visible characters (D16).
JOINED = ("\U0001f469\u200d\U0001f4bb", "\u2764\ufe0f", "\U0001f3f3\ufe0f\u200d\U0001f308", "\u0645\u06cc\u200c\u062e",
          "\u0915\u094d\u200d\u0937", "#\ufe0f\u20e3")
tail_words = st.text(VISIBLE + "\u00a0\u3000\u2009", min_size=1, max_size=12) | st.sampled_from(JOINED)
tails = st.lists(tail_words, min_size=1, max_size=8).map(" ".join).filter(lambda t: len(t) <= 300)


def value_for(type_name: str, vocab: Vocabulary):
    if type_name == "agent" and vocab.agents:  # a profile that names its agents closes them
        return st.sampled_from(sorted(vocab.agents | vocab.reserved_agents))
    if type_name.startswith("list:"):
        return st.lists(value_for(type_name[5:], vocab).filter(lambda v: "+" not in str(v)), min_size=1, max_size=3).map(tuple)
    if type_name.startswith("enum:"):
        return st.sampled_from(sorted(vocab.enums[type_name[5:]]))
    if type_name.startswith("int:"):
        lo, hi = type_name[4:].rsplit("-", 1) if not type_name[4:].startswith("-") else (None, None)
        return st.integers(int(lo), int(hi))
    simple = {
        "token": tokens, "ref": tokens, "text": tokens, "agent": agents, "msgid": msgids(),
        "date": dates, "time": times, "days": st.integers(0, 400), "bool": st.booleans(),
        "money": money, "num": nums, "digest": hexes,
        "constraint": st.builds(lambda k, v: f"{k}:{v}", st.sampled_from(sorted(vocab.constraint_keys)), tokens),
        "rb": st.sampled_from(sorted(vocab.rb_levels)),
    }
    return simple[type_name]


RECEIVER = Receiver.all_bundled()


@st.composite
def messages(draw, profile: str | None | object = ..., types=None) -> Message:
    """A valid message of the core or a bundled profile."""
    if profile is ...:
        profile = draw(st.sampled_from([None, *RECEIVER.names]))
    vocab = RECEIVER.vocabulary(profile)  # type: ignore[arg-type]
    constrained = {t for rule in vocab.rules if not rule.when and (rule.require or rule.require_tail or rule.match) for t in rule.on}
    candidates = sorted(t for t in (types or vocab.types) if t not in constrained)
    type_name = draw(st.sampled_from(candidates))
    table = vocab.types[type_name]
    sender = draw(value_for("agent", vocab))
    chosen = list(table.required)
    optional = [k for k in table.slots if k not in chosen and k not in ("p", "from")]
    chosen += draw(st.lists(st.sampled_from(optional), unique=True, max_size=4)) if optional else []
    values = {}
    for key in chosen:
        if key == "from":
            continue
        values[key] = draw(value_for(vocab.slots[key].type.name, vocab))
    # conditional rules of the vocabulary, satisfied rather than filtered
    if values.get("need") == "ENUM":
        values.setdefault("opts", draw(value_for("list:token", vocab)))
    if "ans" in vocab.enums and type_name == "AQ" and values.get("need") == "ENUM":
        values["opts"] = tuple(draw(st.lists(st.sampled_from(sorted(vocab.enums["ans"])), min_size=1, max_size=3)))
    if "ans" in vocab.enums and type_name == "AN":
        values["val"] = draw(st.sampled_from(sorted(vocab.enums["ans"]) + ["Y", "N"]))
    tail = draw(st.none() | tails)
    if values.get("val") == "tail" and tail is None:
        tail = "the answer"
    for rule in vocab.rules:
        if type_name in rule.on and rule.when and all(
            not isinstance(v, dict) and values.get(k) == v for k, v in rule.when.items()
        ):
            for key in rule.require:
                values.setdefault(key, draw(value_for(vocab.slots[key].type.name, vocab)))
    if {"net", "vat", "amt"} <= set(values):
        del values["net"]
    if "item" in values and isinstance(values["item"], str) and values["item"].startswith("inv:"):
        values["item"] = "x" + values["item"]
    extras = draw(st.dictionaries(st.from_regex(r"x_[a-z0-9_]{1,6}", fullmatch=True), tokens, max_size=2))
    envelope = {k: values.pop(k, None) for k in ("re", "to", "item")}
    slots = {}
    if profile is not None:
        slots["p"] = profile
    slots.update(values)
    slots.update(extras)
    return Message(
        type=type_name,
        id=draw(msgids(sender)),
        re=envelope["re"],
        from_=sender,
        to=envelope["to"],
        item=envelope["item"],
        slots=slots,
        tail=tail,
    )


# Pieces that sit near every boundary of the grammar: separators, marks,
# control, invisible and Unicode space characters, astral characters, surrogates.
PIECES = [
    "RW1", "RW2", "RW", "rw1", "HO", "ho", "H0", "a-1", "a-", "-1", "a--1", "x.y_z-0012", " ", "  ", "=", "==",
    "k=v", "K=v", "k=", "=v", "k_1=a=b:c", "//", " // ", " //", "// ", "\t", "\n", "\r", "\x00", "\x7f",
    "\x85", "\xa0", "\u1680", "\u2000", "\u200a", "\u200b", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000",
    "\ufeff", "\U0010ffff", "\U0001f600", "é", "\ud7ff", "\ue000", "\ud800", "+", "x+y", "tail words",
    "\u200c", "\u200d", "\ufe0f", "\u2060", "\u00ad", "\U000e0041", "\U000e007f", *JOINED,
]

fragments = st.lists(st.sampled_from(PIECES) | st.text(max_size=3), max_size=12).map("".join)


@st.composite
def mutated_lines(draw):
    """A valid line with up to three stretches replaced by boundary fragments."""
    line = draw(messages()).to_line()
    for _ in range(draw(st.integers(0, 3))):
        pos = draw(st.integers(0, len(line)))
        cut = draw(st.integers(0, 3))
        line = line[:pos] + draw(fragments) + line[pos + cut:]
    return line
