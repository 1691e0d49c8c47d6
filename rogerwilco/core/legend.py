"""The legend: what a model needs to read and write RW1, generated from the vocabulary.

Theory of operation
-------------------
A receiver with no library reads RW1 from a short legend alone (spec section
1, goal 2; section 7). The legend is never written by hand: :func:`legend`
walks a compiled :class:`~rogerwilco.vocab.Vocabulary` (the core plus at most
one profile) and prints, in this order,

1. the line format and the rules of its tokens;
2. every message type with its required slots, then its optional core slots;
3. every enum with each code and its few words, headed by the slot that
   carries it and that slot's description (``ask`` and ``why`` include the
   profile's codes; a profile's own enums follow the core's);
4. every other slot with its description, grouped by value type, each group
   headed by the shape its values take (``date YYYYMMDD``); then which
   message types the profile's slots go on;
5. the receiver's rules: never guess, replies carry ``re=``, the readback
   levels, facts in slots, report what the tool printed, every handoff
   closes; then the profile's own rules, all from data: the execution slots
   per ask, the translation rules (their ``desc``), the closed answer
   vocabulary and the agent names.

The envelope slots (``re from to item``) and ``p`` are named by the line
format itself and are not repeated.

``lean=True`` is for teams that use envelope echo only (spec section 7): it
drops the comprehension readback (the ``acc`` and ``plan`` levels, the slots
that serve only it and the constraint keys) and the core asks the profile does
not list in ``asks_used``, and it gives each type its short name. Nothing else
is dropped, so a lean legend still names every other code and slot:
:func:`legend_names` says which names a legend must carry, and the tests hold
every legend to it.

Two formats: ``text`` (compact, what a model is given) and ``md`` (the same
content as Markdown, for people).
"""

from __future__ import annotations

from typing import Iterable

import attrs

from .vocab import Vocabulary

# Spec 5.2: what only the comprehension readback uses. The lean legend drops
# these levels, the core slots that carry them, and the constraint-key enum.
_COMPREHENSION_LEVELS = ("acc", "plan")
_COMPREHENSION_SLOTS = ("keys", "acc", "do", "not", "asm")
_CONSTRAINT_ENUM = "ckey"
# The lean legend glosses the codes a sender chooses the work by (ask) and the closed answers (ans); the other
# codes are named bare, their slot's description heading them, so that the published vocabulary keeps the lean
# pay legend within its budget (benchmarks/legend_tokens.py).
_GLOSSED_WHEN_LEAN = ("ask", "ans")
FORMATS = ("text", "md")

_LINE = "RW1 <TYPE> <id> [re=<id>] from=<agent> to=<agent> [item=<ref>] [<key>=<value> ...] [// <tail>]"

# The shape a value of each slot type takes (spec 2, 7), heading its group.
_SHAPES = {
    "date": "YYYYMMDD",
    "time": "YYYYMMDDTHHMMZ UTC",
    "bool": "Y/N",
    "money": "5400.00",
    "num": "as written, 120/80",
    "days": "whole days",
    "msgid": "<agent>-<n>",
    "ref": "ns:id",
    "digest": "by code only",
    "constraint": "key:value",
}


@attrs.frozen
class Section:
    title: str
    lines: tuple[str, ...]


@attrs.frozen
class Selection:
    """What a legend shows of a vocabulary: the enums, slots and readback levels it names."""

    enums: dict[str, dict[str, str]]
    slots: tuple[str, ...]
    rb_levels: dict[str, str]
    dropped_codes: dict[str, tuple[str, ...]]
    dropped_slots: tuple[str, ...]


def select(vocab: Vocabulary, *, lean: bool = False) -> Selection:
    """The enums, slots and readback levels a legend of ``vocab`` names."""
    enums = {name: dict(codes) for name, codes in vocab.enums.items()}
    dropped_codes: dict[str, tuple[str, ...]] = {}
    slots = list(vocab.slots)
    dropped_slots: list[str] = []
    levels = dict(vocab.rb_levels)
    if lean:
        dropped_codes[_CONSTRAINT_ENUM] = tuple(enums.pop(_CONSTRAINT_ENUM, {}))
        for level in _COMPREHENSION_LEVELS:
            levels.pop(level, None)
        dropped_slots = [k for k in _COMPREHENSION_SLOTS if k in vocab.slots and vocab.slots[k].profile is None]
        slots = [k for k in slots if k not in dropped_slots]
        if vocab.asks_used is not None:
            unused = tuple(a for a in vocab.core["enums"]["ask"] if a not in vocab.asks_used)
            dropped_codes["ask"] = unused
            enums["ask"] = {c: d for c, d in enums["ask"].items() if c not in unused}
    # an enum that no shown slot carries is not shown (``ans`` is carried by AQ opts and AN val)
    used = {vocab.slots[k].type.enum for k in slots} | {"ans"}
    enums = {name: codes for name, codes in enums.items() if name in used and codes}
    return Selection(enums=enums, slots=tuple(slots), rb_levels=levels,
                     dropped_codes=dropped_codes, dropped_slots=tuple(dropped_slots))


def legend_names(vocab: Vocabulary, *, lean: bool = False) -> tuple[set[str], set[str], set[str]]:
    """(types, codes, slots) that a legend of ``vocab`` must name."""
    sel = select(vocab, lean=lean)
    codes = {code for codes in sel.enums.values() for code in codes}
    return set(vocab.types), codes, set(sel.slots)


def _short(desc: str) -> str:
    """A type's name without its gloss: ``Handoff: here is work`` -> ``Handoff``."""
    return desc.split(":", 1)[0]


def _glossed(desc: str) -> str:
    """``Handoff: here is work`` -> ``Handoff (here is work)``."""
    name, sep, gloss = desc.partition(": ")
    return f"{name} ({gloss})" if sep else desc


def _profile_slot_on(vocab: Vocabulary, key: str) -> tuple[str, ...]:
    for spec in vocab.source.get("slots", []):
        if spec.get("key") == key:
            return tuple(spec.get("on") or vocab.types)
    return tuple(vocab.types)


def sections(vocab: Vocabulary, *, lean: bool = False) -> list[Section]:
    """The legend's content, format-free."""
    sel = select(vocab, lean=lean)
    shown = set(sel.slots)
    pname = vocab.profile
    src = vocab.source
    core_types = vocab.core["types"]
    out: list[Section] = []

    # 1. the line
    rules = (f"Single spaces; id <from>-<n>; no spaces in values; lists join +; tail max {vocab.tail_max} "
             "chars, more in art=; ")
    rules += f"p={pname} on every line; " if pname else "p=<profile> names a profile; without it, core codes only; "
    rules += "x_ keys free."
    title = f"RW1 legend, profile {pname} {src.get('version', '')}".rstrip() if pname else "RW1 legend, core"
    head = [src["desc"]] if src.get("desc") and not lean else []
    out.append(Section(title, tuple(head + [_LINE, rules])))

    # 2. types: required | optional core slots (the profile's slots say their types in 4)
    # slots every type requires are said once, not nine times
    everywhere = [k for k in next(iter(vocab.types.values())).required
                  if all(k in t.required for t in vocab.types.values())]
    lines = [f"Every type: {' '.join(everywhere)}"] if everywhere else []
    for tname, table in vocab.types.items():
        spec = core_types[tname]
        name = _short(table.desc) if lean else _glossed(table.desc)
        text = f"{tname} {name}: {' '.join(k for k in table.required if k not in everywhere)}"
        echoed = set(vocab.types[spec["echoes"]].slots) if spec.get("echoes") else set()
        opt = [k for k in spec["optional"] if k in shown and k not in table.required and k not in echoed]
        if opt and not lean:  # lean: optional slots are named once, in Slots
            text += f" | {' '.join(opt)}"
        if spec.get("echoes"):
            text += f" + echoed {spec['echoes']} slots"
        lines.append(text)
    out.append(Section("Types (required)" if lean else "Types (required | optional)", tuple(lines)))

    # 3. codes, headed by the slot that carries them
    lines = []
    described: set[str] = set()
    for name, codes in sel.enums.items():
        if all(not d for d in codes.values()) or (lean and name not in _GLOSSED_WHEN_LEAN):
            body = " ".join(codes)
        else:
            body = "; ".join(f"{c} {d}".rstrip() for c, d in codes.items())
        slot = vocab.slots.get(name)
        label = name
        if slot is not None and name in shown and slot.type.name == f"enum:{name}":
            described.add(name)
            if slot.desc:
                label = f"{name} ({slot.desc})"
        lines.append(f"{label}: {body}")
    out.append(Section("Codes", tuple(lines)))

    # 4. the other slots, grouped by value type
    groups: dict[str, list[str]] = {}
    for key in sel.slots:
        if key in vocab.envelope or key == "p" or key in described:
            continue
        slot = vocab.slots[key]
        groups.setdefault(slot.type.name, []).append(f"{key} {slot.desc}" if slot.desc else key)
    lines = []
    for tname, entries in groups.items():
        base = tname.removeprefix("list:")
        shape = _SHAPES.get(base)
        label = f"{tname} {shape}" if shape and not any(shape in e for e in entries) else tname
        lines.append(f"{label}: " + "; ".join(entries))
    ons = {k: _profile_slot_on(vocab, k) for k in sel.slots if vocab.slots[k].profile is not None}
    if ons:
        common = max(sorted(set(ons.values())), key=lambda on: sum(1 for v in ons.values() if v == on))
        text = f"{pname} slots go on {' '.join(common)}"
        odd = [f"{k} on {' '.join(on)}" for k, on in ons.items() if on != common]
        if odd:
            text += f", except {', '.join(odd)}"
        required = [f"{k} on {t}" for t, table in vocab.types.items() for k in table.required if k in ons]
        if required:
            text += f"; required: {', '.join(required)}"
        lines.append(text + ".")
    out.append(Section("Slots", tuple(lines)))

    # 5. rules
    out.append(Section("Rules", tuple(_rules(vocab, sel, lean))))
    return out


def _rules(vocab: Vocabulary, sel: Selection, lean: bool) -> Iterable[str]:
    levels = "; ".join(f"{name}: {desc}" for name, desc in sel.rb_levels.items())
    yield ("Never guess: unknown version, type or code, bad value or missing slot: UN why=UNK "
           "(VER: version), token first in tail; not NOCAP or SCOPE. Ignore unknown keys. Answer each AQ "
           "(AN or UN). Replies carry re=.")
    yield f"No handover without readback: answer an HO with an RB echoing its rb= level ({levels}) and slots named."
    if not lean:
        yield ("Comprehension (rb=acc, plan): derive acc=key:value+... from the brief, covering the HO's keys=; "
               "keys from ckey; the brief's own words for must and no; not= out of scope, asm= assumed.")
    yield "Facts in slots, reasoning in the tail."
    if vocab.exec_slots:
        said: dict[tuple[str, ...], str] = {}  # an ask whose slots an earlier ask has is said "as" that one
        parts = []
        for ask, keys in vocab.exec_slots.items():
            keys = tuple(keys)
            parts.append(f"{ask} as {said[keys]}" if keys in said else f"{ask} {' '.join(keys)}")
            said.setdefault(keys, ask)
        per_ask = "; ".join(parts)
        yield (f"Execution slots: {per_ask}. rb=exec: the RB carries them as you will use them (your records "
               "fill any the HO omits). Report what the tool printed: the DN carries them as returned "
               "(none if out=NOOP).")
    else:
        yield "Report what the tool printed: a DN says what was done as the tool reported it."
    yield "Every HO closes once: DN, UN, FL, or the sender's CX (answer it AN val=Y, or the DN if the act ran)."
    for rule in vocab.rules:
        if rule.profile is not None and rule.desc:
            scope = f"{' '.join(sorted(rule.on))}: " if len(rule.on) < len(vocab.types) else ""
            yield f"{scope}{rule.desc}."
    if "ans" in sel.enums:
        yield "Closed answers: AQ opts and AN val (but tail, Y, N, numbers, dates) come from ans."
    if vocab.agents:
        yield f"Agents: {' '.join(sorted(vocab.agents))} human; no others."


def legend(vocab: "Vocabulary | str | None" = None, *, lean: bool = False, fmt: str = "text") -> str:
    """The legend of a vocabulary as text (``fmt="text"``) or Markdown (``"md"``).

    ``vocab`` is a vocabulary, a profile's name or file (``legend("pay")``),
    or None for the core alone.
    """
    if vocab is None or isinstance(vocab, str):
        from .vocab import Receiver

        receiver = Receiver.load([vocab] if vocab else ())
        vocab = receiver.vocabulary(receiver.names[0] if receiver.names else None)
    parts = sections(vocab, lean=lean)
    blocks = []
    if fmt == "text":
        for i, sec in enumerate(parts):
            blocks.append("\n".join([sec.title if i == 0 else sec.title.upper(), *sec.lines]))
    elif fmt == "md":
        for i, sec in enumerate(parts):
            if i == 0:
                body = [f"# {sec.title}", "", *[f"`{l}`" if l == _LINE else l for l in sec.lines]]
                body = [body[0], "", "\n\n".join(body[2:])]
            else:
                body = [f"## {sec.title}", "", *[f"- {l}" for l in sec.lines]]
            blocks.append("\n".join(body))
    else:
        raise ValueError(f"unknown legend format {fmt!r} (text or md)")
    return "\n\n".join(blocks) + "\n"


__all__ = [
    "FORMATS",
    "Section",
    "Selection",
    "legend",
    "legend_names",
    "sections",
    "select",
]
