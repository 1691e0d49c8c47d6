"""Parse throughput: rogerwilco's paths against JSON parsers and validators, in one run.

Builds a mixed corpus (all nine types, core and ``p=pay`` lines, tails on
some) and, for the same messages, their JSON forms. Then times, as the median
of interleaved rounds (each round runs every path once, so a change in the
machine's load touches every path alike):

* ``rogerwilco.loads``: line -> validated Message (what users call), with the
  accept path the package uses (``rogerwilco.speedups.active``), then the
  pure accept path's ``loads_line`` and the C scanner's side by side;
* ``check_line``: line -> LineResult with every finding;
* batch: ``json_forms``: lines -> JSON forms, no Message objects (the path
  ``scan`` and ``to_arrow`` take), pure, and with the C scanner
  first (its ``form`` entry point builds the form itself) where it is built;
* ``json.loads`` of the JSON forms (the baseline every ratio is against);
* ``orjson.loads`` of the same (parsing only, no validation);
* msgspec: typed Structs generated from the vocabulary (a tagged union on
  ``type``, enums as Literal, the slot types' regexes as patterns, integer
  ranges as bounds, the tail's length limit), decoding the JSON forms;
* pydantic v2: the same facts as models, a discriminated union.

Then, per corpus, what a refused or noted line costs against a valid one,
and what writing costs: ``rogerwilco.dumps`` (a message to its checked line)
and ``line_from_json`` (a JSON form to its checked line), against
``json.dumps`` and ``orjson.dumps`` of the same JSON forms.

The compiled path is the C scanner, the extension ``rogerwilco.core._scan``
(``pip install .``, or ``python hatch_build.py --inplace`` in a clone); when
it is not built, its rows say so. Then how the cost per line grows with the tail's length (0, 100,
300 characters) and the number of slots (5, 30), against json.loads of the
same messages.

    python benchmarks/parse_bench.py [--lines 20000] [--rounds 7] [--pay]

The peers are the ``bench`` extra (``pip install 'rogerwilco[bench] @ git+https://github.com/croxio/rogerwilco'``); a
peer that is not installed is reported as such and left out.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any, Callable, Iterable

TEMPLATES = [
    "RW1 HO {a}-{n} from={a} to={b} item=gh:crox/site#{n} ask=DRAFT due=20261002 pri=2 conf=M keep={a} // hero copy, 120 words, no em dashes",
    "RW1 RB {b}-{n} re={a}-{n} from={b} to={a} item=gh:crox/site#{n} ask=DRAFT due=20261002 h=c40bba4360dc",
    "RW1 AQ {b}-{n} re={a}-{n} from={b} to={a} item=gh:crox/site#{n} need=ENUM opts=formal+plain+punchy // tone?",
    "RW1 AN {a}-{n} re={b}-{n} from={a} to={b} val=plain",
    "RW1 ST {b}-{n} from={b} to={a} item=jira:OPS-{n} pct=40 eta=20261003",
    "RW1 DN {b}-{n} re={a}-{n} from={b} to={a} item=gh:crox/site#{n} out=OK art=sha256:9f3e1c // v1, 118 words",
    "RW1 UN {b}-{n} re={a}-{n} from={b} to={a} item=gh:crox/site#{n} why=NOCTX alt=copywriter // no style guide on file",
    "RW1 FL {b}-{n} re={a}-{n} from={b} to={a} item=jira:OPS-{n} why=ERR retry=Y art=file:logs/run.txt",
    "RW1 CX {a}-{n} re={a}-{m} from={a} to={b} item=jira:OPS-{n} why=SUPERSEDED",
    "RW1 HO {a}-{n} p=pay from={a} to={b} item=inv:MD-2026-{n} ask=PAY rb=exec sup=marlow amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-{n} apref=FD-0929",
    "RW1 RB {b}-{n} re={a}-{n} from={b} to={a} item=inv:MD-2026-{n} ask=PAY p=pay h=a7a82de76607 sup=marlow amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-{n} apref=FD-0929",
    "RW1 ST {b}-{n} p=pay from={b} to={a} item=inv:MD-2026-{n} amt=120.00 net=100.00 vat=20.00 cur=GBP kind=GROSS src=email:7+bank:20260918",
]


# pay names its agents (docs/reference.md V1): its lines are between them.
PAY_AGENTS = ["extractor", "reconciler", "scheduler", "auditor", "payer"]


def corpus(size: int, seed: int = 7, pay_only: bool = False) -> list[str]:
    rng = random.Random(seed)
    agents = ["research", "writer", "scheduler", "payer", "ops", "builder", "triage"]
    templates = [t for t in TEMPLATES if " p=pay " in t] if pay_only else TEMPLATES
    lines = []
    for i in range(size):
        template = rng.choice(templates)
        a, b = rng.sample(PAY_AGENTS if " p=pay " in template else agents, 2)
        lines.append(template.format(a=a, b=b, n=i + 1, m=i))
    return lines


def grown(size: int, tail: int, slots: int) -> list[str]:
    """ST lines with ``slots`` slots (from, to, item, then x_ extensions) and a tail of ``tail`` characters."""
    lines = []
    for i in range(size):
        parts = [f"RW1 ST ops-{i + 1} from=ops to=writer item=jira:OPS-{i}"]
        parts += [f"x_k{k}=v{k}.{i % 97}" for k in range(slots - 3)]
        line = " ".join(parts)
        if tail:
            words = ("progress on the draft, word count and sources " * 8)[:tail].rstrip(" ")
            line += " // " + words + "x" * (tail - len(words))
        lines.append(line)
    return lines


# --------------------------------------------------------------------------
# the peers: the same facts, checked by msgspec and pydantic on the JSON forms

_PATTERNS = {
    "agent": r"^[A-Za-z0-9._-]+$",
    "msgid": r"^[A-Za-z0-9._-]+-[0-9]+$",
    "date": r"^[0-9]{8}$",
    "time": r"^[0-9]{8}T[0-9]{4}Z$",
    "money": r"^-?[0-9]+\.[0-9]{2}$",
    "num": r"^-?[0-9]+(?:\.[0-9]+)?(?:/-?[0-9]+(?:\.[0-9]+)?)?$",
    "digest": r"^[0-9a-f]{12}$",
    "constraint": r"^[^:+\s]+:.+$",
}


def _peer_type(type_name: str, vocab: Any, lib: str) -> Any:
    """A slot type as a msgspec or pydantic annotation with the equivalent constraint."""
    from typing import Annotated, Literal

    def constrained(base: Any, **meta: Any) -> Any:
        if lib == "msgspec":
            import msgspec

            return Annotated[base, msgspec.Meta(**meta)]
        from pydantic import Field

        return Annotated[base, Field(**meta)]

    if type_name.startswith("list:"):
        return tuple[_peer_type(type_name[5:], vocab, lib), ...]  # type: ignore[misc]
    if type_name.startswith("enum:"):
        return Literal[tuple(sorted(vocab.enums[type_name[5:]]))]  # type: ignore[valid-type]
    if type_name == "rb":
        return Literal[tuple(sorted(vocab.rb_levels) + sorted(vocab.slots))]  # type: ignore[valid-type]
    if type_name.startswith("int:"):
        lo, hi = (int(x) for x in type_name[4:].split("-"))
        return constrained(int, ge=lo, le=hi)
    if type_name == "days":
        return int
    if type_name == "bool":
        return bool
    if type_name in _PATTERNS:
        return constrained(str, pattern=_PATTERNS[type_name])
    return constrained(str, min_length=1)


def _type_fields(vocab: Any, core: Any) -> dict[str, list[tuple[str, Any, bool]]]:
    """Per message type: (key, slot type name, required) of every slot it may carry, envelope aside."""
    out = {}
    for name, table in vocab.types.items():
        required = set(core.types[name].required)
        out[name] = [(key, slot.type.name, key in required) for key, slot in table.slots.items()
                     if key not in ("re", "from", "to", "item")]
    return out


def msgspec_decoder(vocab: Any, core: Any) -> Callable[[bytes], Any]:
    import msgspec
    from typing import Literal, Optional, Union

    msgid = _peer_type("msgid", vocab, "msgspec")
    agent = _peer_type("agent", vocab, "msgspec")
    text = _peer_type("token", vocab, "msgspec")
    tail = msgspec.Meta(min_length=1, max_length=vocab.tail_max)
    from typing import Annotated

    structs = []
    for name, fields in _type_fields(vocab, core).items():
        slot_fields = []
        for key, type_name, required in sorted(fields, key=lambda f: not f[2]):
            kind = _peer_type(type_name, vocab, "msgspec")
            slot_fields.append((key, kind) if required else (key, Optional[kind], None))
        slots = msgspec.defstruct(f"Slots{name}", slot_fields, forbid_unknown_fields=True)
        env_required = set(core.types[name].required)
        fields_ = [("v", Literal["RW1"]), ("id", msgid), ("from_", agent), ("to", agent), ("slots", slots)]
        fields_ += [("re", msgid if "re" in env_required else Optional[msgid], None),
                    ("item", text if "item" in env_required else Optional[text], None),
                    ("tail", Optional[Annotated[str, tail]], None)]
        structs.append(msgspec.defstruct(f"M{name}", fields_, tag_field="type", tag=name,
                                         rename={"from_": "from"}, forbid_unknown_fields=True))
    return msgspec.json.Decoder(Union[tuple(structs)]).decode  # type: ignore[arg-type]


def pydantic_validator(vocab: Any, core: Any) -> Callable[[bytes], Any]:
    from typing import Annotated, Literal, Optional, Union

    from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model

    strict = ConfigDict(extra="forbid")
    msgid = _peer_type("msgid", vocab, "pydantic")
    agent = _peer_type("agent", vocab, "pydantic")
    text = _peer_type("token", vocab, "pydantic")
    models = []
    for name, fields in _type_fields(vocab, core).items():
        slot_fields: dict[str, Any] = {}
        for key, type_name, required in fields:
            kind = _peer_type(type_name, vocab, "pydantic")
            slot_fields[key] = (kind, ...) if required else (Optional[kind], None)
        slots = create_model(f"Slots{name}", __config__=strict, **slot_fields)
        env_required = set(core.types[name].required)
        models.append(create_model(
            f"M{name}", __config__=strict,
            type=(Literal[name], ...), v=(Literal["RW1"], ...), id=(msgid, ...),
            from_=(agent, Field(alias="from")), to=(agent, ...), slots=(slots, ...),
            re=(msgid if "re" in env_required else Optional[msgid], None if "re" not in env_required else ...),
            item=(text if "item" in env_required else Optional[text], None if "item" not in env_required else ...),
            tail=(Optional[Annotated[str, Field(min_length=1, max_length=vocab.tail_max)]], None),
        ))
    del BaseModel
    return TypeAdapter(Annotated[Union[tuple(models)], Field(discriminator="type")]).validate_json  # type: ignore[arg-type]


# --------------------------------------------------------------------------
# timing

CLOCK = time.process_time


def median_times(paths: dict[str, tuple[Callable[[list[Any]], Any], list[Any]]], rounds: int) -> dict[str, float]:
    """Seconds per item of each path: the median over interleaved rounds.

    Timed in CPU seconds of this process (``time.process_time``): on a shared
    machine another process's load stretches the wall clock of whatever runs,
    not the work a path does. ``--wall`` times the wall clock instead.
    """
    samples: dict[str, list[float]] = {name: [] for name in paths}
    for name, (fn, items) in paths.items():  # a warm-up round: caches filled, code paths loaded
        fn(items)
    for _ in range(rounds):
        for name, (fn, items) in paths.items():
            untimed(fn)
            start = CLOCK()
            fn(items)
            samples[name].append((CLOCK() - start) / len(items))
    return {name: statistics.median(values) for name, values in samples.items()}


def each(fn: Callable[..., Any], *args: Any) -> Callable[[Iterable[Any]], None]:
    def run(items: Iterable[Any]) -> None:
        for item in items:
            fn(item, *args)

    return run


# --------------------------------------------------------------------------
# the paths, per corpus

Paths = dict[str, tuple[Callable[[list[Any]], Any], list[Any]]]
COLD = " [memo cold]"


def corpora(names: list[str], size: int, pay_only: bool) -> dict[str, list[str]]:
    """The corpora asked for: ``package`` (this script's templates) and ``realistic`` (realistic_corpus.py)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from realistic_corpus import realistic

    out = {}
    for name in names:
        out[name] = corpus(size, pay_only=pay_only) if name == "package" else realistic(size)
    return out


def implementations() -> dict[str, Any]:
    """The Python accept path (the C scanner's rows are the package's own, from rogerwilco.speedups)."""
    from rogerwilco.core import accept as pure

    return {"pure": pure}


def active() -> str:
    """The accept path ``rogerwilco.loads`` takes: the C scanner first where it is built."""
    from rogerwilco import speedups

    return "C scanner" if speedups.scanning else "pure"


def emptying_memos(impls: dict[str, Any], receiver: Any) -> Callable[[], None]:
    """What empties every accept path's slot memo (a memo-cold pass starts with it)."""
    vocabularies = [receiver.vocabulary(None), *(receiver.vocabulary(name) for name in receiver.names)]

    def empty() -> None:
        for impl in impls.values():
            for vocab in vocabularies:
                for plan in impl.plans_for(vocab).values():
                    plan.memo.clear()

    return empty


def cold(fn: Callable[[list[Any]], Any], empty: Callable[[], None]) -> Callable[[list[Any]], Any]:
    """``fn`` run memo-cold: ``empty`` runs before each pass, off the clock (emptying a memo that another
    path filled frees its entries, which is no cost of the path timed)."""
    def run(items: list[Any]) -> Any:
        return fn(items)

    run.untimed = empty  # type: ignore[attr-defined]
    return run


def untimed(fn: Callable[[list[Any]], Any]) -> None:
    """What runs before a pass of ``fn``, off the clock (a memo-cold path's emptying), if anything."""
    before = getattr(fn, "untimed", None)
    if before is not None:
        before()


def our_paths(receiver: Any, lines: list[str], impls: dict[str, Any]) -> Paths:
    """The package's paths over ``lines``, each memo-warm and memo-cold (check_line has no memo)."""
    import rogerwilco
    from rogerwilco import check_line, speedups

    def batch(impl: Any) -> Callable[[list[Any]], Any]:
        return lambda items: deque(impl.json_forms(items, receiver), maxlen=0)

    warm: Paths = {f"rogerwilco.loads ({active()})": (each(rogerwilco.loads, receiver), lines)}
    warm.update({f"loads_line, {kind}": (each(impl.loads_line, receiver), lines) for kind, impl in impls.items()})
    if speedups.scanning:
        warm["loads_line, C scanner"] = (each(speedups.loads_line, receiver), lines)
    warm.update({f"batch json_forms, {kind}": (batch(impl), lines) for kind, impl in impls.items()})
    if speedups.scanning:
        warm["batch json_forms, C scanner"] = (batch(speedups), lines)
    empty = emptying_memos(impls, receiver)
    out: Paths = {}
    for name, (fn, items) in warm.items():
        out[name] = (fn, items)
        out[name + COLD] = (cold(fn, empty), items)
    out["check_line"] = (each(check_line, receiver), lines)
    return out


def json_forms_of(lines: list[str], receiver: Any) -> list[str]:
    """Each line's JSON form as text; every line must be valid, or the comparison means nothing."""
    from rogerwilco import check_line

    results = [check_line(line, receiver) for line in lines]
    invalid = [r.text for r in results if r.message is None]
    assert not invalid, f"the corpus must be valid: {invalid[:1]}"
    return [json.dumps(r.message.to_json()) for r in results]  # type: ignore[union-attr]


def peer_paths(receiver: Any, forms: list[str], only: str | None = None) -> tuple[Paths, list[str]]:
    """json.loads (the baseline), orjson, msgspec and pydantic over the JSON forms; and the peers not installed."""
    from rogerwilco.core.vocab import core_vocabulary

    blobs = [form.encode() for form in forms]
    paths: Paths = {"json.loads (baseline)": (each(json.loads), forms)}
    missing = []
    if only in (None, "orjson.loads (no validation)"):
        try:
            import orjson

            paths["orjson.loads (no validation)"] = (each(orjson.loads), blobs)
        except ImportError:
            missing.append("orjson")
    vocab = receiver.vocabulary("pay")
    for label, make, library in (("msgspec typed Structs", msgspec_decoder, "msgspec"),
                                 ("pydantic v2 models", pydantic_validator, "pydantic")):
        if only not in (None, label):
            continue
        try:
            peer = make(vocab, core_vocabulary())
        except ImportError:
            missing.append(library)
            continue
        for blob in blobs:  # every message is valid to the peer too, or its figure means nothing
            peer(blob)
        paths[label] = (each(peer), blobs)
    return paths, missing


def report(name: str, lines: list[str], forms: list[str], times: dict[str, float], counts: dict[str, float]) -> None:
    base = times["json.loads (baseline)"]
    print(f"corpus {name}: {len(lines)} lines, 9 types, core + pay, mean {sum(map(len, lines)) / len(lines):.0f} chars, "
          f"{sum(' p=pay ' in line for line in lines) / len(lines):.0%} p=pay, "
          f"{sum(' // ' in line for line in lines) / len(lines):.0%} with a tail; "
          f"JSON forms mean {sum(map(len, forms)) / len(forms):.0f} chars")
    head = f"{'path':<32}{'lines/s':>12}{'us/line':>10}{'x json.loads':>14}{'memo cold':>11}{'x json.loads':>14}"
    if counts:
        head += f"{'Ir/line':>10}{'x json':>8}"
    print(head)
    for path, seconds in times.items():
        if path.endswith(COLD):
            continue
        row = f"{path:<32}{1 / seconds:>12,.0f}{seconds * 1e6:>10.2f}{base / seconds:>13.2f}x"
        chill = times.get(path + COLD)
        row += f"{chill * 1e6:>11.2f}{base / chill:>13.2f}x" if chill is not None else " " * 25
        if path in counts:
            row += f"{counts[path]:>10,.0f}{counts['json.loads (baseline)'] / counts[path]:>7.2f}x"
        print(row)


ENUM_KEYS = ("ask=", "why=", "out=", "need=", "conf=", "kind=", "cur=")
DATE_KEYS = ("due=", "eta=", "paid=")


def _slot_index(tokens: list[str], keys: tuple[str, ...]) -> int | None:
    return next((i for i, t in enumerate(tokens) if i > 2 and t.startswith(keys)), None)


def _with_token(line: str, keys: tuple[str, ...], change: Callable[[str], str | None]) -> str | None:
    """``line`` with its first slot of ``keys`` (before the tail) changed by ``change`` (None: dropped), or None."""
    head, mark, tail = line.partition(" // ")
    tokens = head.split(" ")
    i = _slot_index(tokens, keys)
    if i is None:
        return None
    changed = change(tokens[i])
    tokens[i:i + 1] = [] if changed is None else [changed]
    return " ".join(tokens) + mark + tail


def _unknown_code(line: str) -> str | None:
    return _with_token(line, ENUM_KEYS, lambda t: t + "Q")  # ask=DRAFTQ, cur=GBPQ: no such code


def _missing_slot(line: str) -> str | None:
    return _with_token(line, ("to=",), lambda t: None)  # every type requires to=


def _bad_value(line: str) -> str | None:
    """A date in month 13 (the day kept), or where the line has no date, an integer out of range or money unwritten."""
    return (_with_token(line, DATE_KEYS, lambda t: t[:-4] + "13" + t[-2:])
            or _with_token(line, ("pri=", "pct="), lambda t: t.partition("=")[0] + "=" + str(100 + len(t)))
            or _with_token(line, ("amt=",), lambda t: t.replace(".", ",")))


def _id_not_from(line: str) -> str | None:
    """The id prefixed with ``x`` (its ``<from>`` is not the line's ``from=``), or None for a line with no slots."""
    tokens = line.split(" ", 3)
    if len(tokens) < 4:
        return None
    version, kind, msgid, rest = tokens
    return f"{version} {kind} x{msgid} {rest}"


def _profile_rule(line: str) -> str | None:
    """pay's rules: an invoice status whose net + vat is not its amt, or that lacks the src= it must carry."""
    if " p=pay " not in line or not line.startswith("RW1 ST "):
        return None
    if " vat=" in line:
        return _with_token(line, ("vat=",), lambda t: t[:-1] + str((int(t[-1]) + 1) % 10))  # a cent off: no sum
    return _with_token(line, ("src=",), lambda t: None)


REFUSED_KINDS: dict[str, Callable[[str], str | None]] = {
    "unknown code": _unknown_code, "missing slot": _missing_slot, "bad value": _bad_value,
    "id not <from>-<n>": _id_not_from, "profile rule": _profile_rule,
}


def refused_kinds(receiver: Any, lines: list[str]) -> dict[str, tuple[list[str], list[str]]]:
    """Per kind of refusal by the checks: (the corpus lines it breaks, those lines broken that way).

    Each broken line is made from its own corpus line, so its values are as varied as the corpus's (no memo
    helps), and is checked to be refused with the kind of finding its name says.
    """
    from rogerwilco import check_line

    out = {}
    for name, breaking in REFUSED_KINDS.items():
        pairs = [(line, broken) for line in lines if (broken := breaking(line)) is not None]
        for _, broken in pairs:
            assert not check_line(broken, receiver).valid, f"{name}: {broken}"
        out[name] = ([line for line, _ in pairs], [broken for _, broken in pairs])
    return out


def rejected(receiver: Any, lines: list[str], rounds: int) -> str:
    """What a line with a note, a syntax error and a refusal by the checks cost through loads, against a valid line.

    A refusal by the checks is measured per kind (an unknown code, a missing slot, a bad value, an id that is
    not ``<from>-<n>``, a profile rule), each against the same corpus lines valid.
    """
    import rogerwilco

    def refusing(items: list[str]) -> None:
        for line in items:
            try:
                rogerwilco.loads(line, receiver)
            except rogerwilco.RW1Error:
                pass

    sample = lines[: max(1, len(lines) // 4)]
    with_note = [line.replace(" from=", " colour=red from=", 1) for line in sample]  # an unknown key: a note
    syntax_errors = [line.replace(" to=", "  to=", 1) for line in sample]  # two spaces: refused by the grammar
    refusals = [line.replace(" from=", " x=1 x=2 from=", 1) for line in sample]  # a repeated key: by the checks
    paths: Paths = {"valid": (each(rogerwilco.loads, receiver), sample),
                    "noted": (each(rogerwilco.loads, receiver), with_note),
                    "syntax": (refusing, syntax_errors), "refused": (refusing, refusals)}
    kinds = refused_kinds(receiver, sample)
    for name, (valid, broken) in kinds.items():
        if valid:
            paths["valid " + name] = (each(rogerwilco.loads, receiver), valid)
            paths[name] = (refusing, broken)
    t = median_times(paths, rounds)
    per_kind = "; ".join(f"{name} ({len(kinds[name][1])} lines) {t[name] * 1e6:.2f} us ({t[name] / t['valid ' + name]:.2f}x)"
                         for name in kinds if name in t)
    return (f"through loads ({active()}): a valid line {t['valid'] * 1e6:.2f} us; with a note (an unknown key) "
            f"{t['noted'] * 1e6:.2f} us ({t['noted'] / t['valid']:.2f}x, goal <= 2x); a syntax error "
            f"{t['syntax'] * 1e6:.2f} us ({t['syntax'] / t['valid']:.2f}x, goal <= 3x); a repeated key "
            f"{t['refused'] * 1e6:.2f} us ({t['refused'] / t['valid']:.2f}x, goal <= 3x); refused by the checks, "
            f"each against the same lines valid (goal <= 3x): {per_kind}")


def writing(receiver: Any, lines: list[str], rounds: int) -> str:
    """What writing the corpus's messages costs, against ``json.dumps`` of the same messages' JSON forms (dicts).

    ``Message.to_line`` (``rogerwilco.dumps``: a message to its line, the line checked against the grammar),
    ``line_from_json`` (a JSON form, a dict, to its checked line: ``encode``'s and ``from_json``'s work once
    the JSON text is read) and ``orjson.dumps`` of the forms, where it is installed.
    """
    import rogerwilco
    from rogerwilco.core.semantics import line_from_json

    messages = [rogerwilco.loads(line, receiver) for line in lines]
    forms = [m.to_json() for m in messages]
    paths: Paths = {"json.dumps": (each(json.dumps), forms), "to_line": (each(rogerwilco.dumps), messages),
                    "line_from_json": (each(line_from_json, receiver), forms)}
    try:
        import orjson

        paths["orjson.dumps"] = (each(orjson.dumps), forms)
    except ImportError:
        pass
    t = median_times(paths, rounds)
    base = t["json.dumps"]
    return "; ".join(f"{name} {t[name] * 1e6:.2f} us ({base / t[name]:.2f}x json.dumps)" for name in paths)


def growth(impls: dict[str, Any], size: int, rounds: int) -> None:
    import rogerwilco
    from rogerwilco import Receiver, check_line

    def batch(impl: Any, profiles: Any) -> Callable[[list[Any]], Any]:
        return lambda items: deque(impl.json_forms(items, profiles), maxlen=0)

    print(f"growth: ST lines, {size} per shape, us/line (x json.loads of the same messages)")
    columns = [f"loads {kind}" for kind in impls] + ["check_line"] + [f"batch {kind}" for kind in impls]
    print(f"{'slots':>5} {'tail':>5}  " + " ".join(f"{c:>15}" for c in columns) + f" {'json.loads':>10}")
    core_only = Receiver()
    for slots in (5, 30):
        for tail in (0, 100, 300):
            shape = grown(size, tail, slots)
            shape_forms = [json.dumps(rogerwilco.loads(line, core_only).to_json()) for line in shape]
            shapes: Paths = {f"loads {kind}": (each(impl.loads_line, core_only), shape) for kind, impl in impls.items()}
            shapes["check_line"] = (each(check_line, core_only), shape)
            shapes.update({f"batch {kind}": (batch(impl, core_only), shape) for kind, impl in impls.items()})
            shapes["json"] = (each(json.loads), shape_forms)
            t = median_times(shapes, max(3, rounds // 2))
            cells = " ".join(f"{t[k] * 1e6:6.2f} ({t['json'] / t[k]:.2f}x)" for k in columns)
            print(f"{slots:>5} {tail:>5}  {cells} {t['json'] * 1e6:>10.2f}")


# --------------------------------------------------------------------------
# callgrind: instructions, which do not depend on the machine's load

CALLGRIND_PATHS = ("json.loads (baseline)", "orjson.loads (no validation)", "msgspec typed Structs", "pydantic v2 models",
                   "check_line")


def callgrind_child(spec: str, size: int, pay_only: bool) -> None:
    """Run one path over one corpus ``passes`` times after a warm-up pass (under valgrind, by the parent)."""
    from rogerwilco import Receiver

    name, path, passes = spec.split("|")
    receiver = Receiver.load(["pay"])
    lines = corpora([name], size, pay_only)[name]
    forms = json_forms_of(lines, receiver)
    ours = our_paths(receiver, lines, implementations())
    if path in ours:
        fn, items = ours[path]
    else:
        fn, items = peer_paths(receiver, forms, only=path)[0][path]
    for _ in range(1 + int(passes)):
        untimed(fn)
        fn(items)


def instructions(spec: str, size: int, pay_only: bool) -> int | None:
    """Instructions valgrind's callgrind counts for one child run, or None where valgrind cannot run it."""
    argv = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
            "--lines", str(size), "--callgrind-child", spec] + (["--pay"] if pay_only else [])
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
    except FileNotFoundError:
        return None
    m = re.search(r"Collected\s*:\s*(\d+)", proc.stderr)
    return int(m.group(1)) if proc.returncode == 0 and m else None


def callgrind_counts(name: str, paths: list[str], size: int, pay_only: bool) -> dict[str, float]:
    """Instructions per line of each path: a run with two passes less a run with one, over ``size`` lines."""
    out = {}
    for path in paths:
        one, two = (instructions(f"{name}|{path}|{n}", size, pay_only) for n in (1, 2))
        if one is not None and two is not None:
            out[path] = (two - one) / size
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--growth-lines", type=int, default=5000)
    parser.add_argument("--corpus", choices=("both", "package", "realistic"), default="both",
                        help="the package's templates, the realistic generator's lines, or both (the default)")
    parser.add_argument("--pay", action="store_true", help="the package's corpus of p=pay lines only")
    parser.add_argument("--wall", action="store_true", help="time the wall clock, not this process's CPU time")
    parser.add_argument("--callgrind", action="store_true",
                        help="also count instructions per line under valgrind's callgrind (slow; --callgrind-lines)")
    parser.add_argument("--callgrind-lines", type=int, default=2000)
    parser.add_argument("--callgrind-child", help=argparse.SUPPRESS)
    parser.add_argument("--no-growth", action="store_true", help="leave out the growth table")
    args = parser.parse_args()
    if args.callgrind_child:
        callgrind_child(args.callgrind_child, args.lines, args.pay)
        return
    global CLOCK
    if args.wall:
        CLOCK = time.perf_counter

    from rogerwilco import Receiver, speedups

    impls = implementations()
    receiver = Receiver.load(["pay"])
    names = ["package", "realistic"] if args.corpus == "both" else [args.corpus]
    print(f"rogerwilco.speedups: {speedups.active}{' (' + speedups.reason + ')' if speedups.reason else ''}; "
          f"C scanner: {'built' if speedups.scanning else speedups.scan_reason}; "
          f"median of {args.rounds} interleaved rounds, {'wall clock' if args.wall else 'CPU time'}; "
          f"load average {os.getloadavg()[0]:.2f}; memo cold: the accept path's slot memo emptied before each pass, off the clock")
    missing: list[str] = []
    for name, lines in corpora(names, args.lines, args.pay).items():
        forms = json_forms_of(lines, receiver)
        for impl in impls.values():
            assert list(impl.json_forms(lines, receiver)) == [json.loads(f) for f in forms]
        peers, missing = peer_paths(receiver, forms)
        paths = {**our_paths(receiver, lines, impls), **peers}
        times = median_times(paths, args.rounds)
        counts: dict[str, float] = {}
        if args.callgrind:
            wanted = [p for p in paths if p.startswith(("rogerwilco.loads", "batch")) or p in CALLGRIND_PATHS]
            counts = callgrind_counts(name, wanted, args.callgrind_lines, args.pay)
            counts = {p.replace(COLD, ""): n for p, n in counts.items() if not p.endswith(COLD)} | \
                     {p: n for p, n in counts.items() if p.endswith(COLD)}
        print()
        report(name, lines, forms, times, counts)
        if counts:
            print(f"Ir/line: instructions per line under callgrind ({args.callgrind_lines} lines, memo warm), "
                  + ", ".join(f"{p.replace(COLD, '')} memo cold {n:,.0f}" for p, n in counts.items() if p.endswith(COLD)))
        print("rejected and noted lines " + rejected(receiver, lines, args.rounds))
        print("writing (x json.dumps of the JSON forms: higher is faster): " + writing(receiver, lines, args.rounds))
    if missing:
        print(f"not installed (pip install 'rogerwilco[bench] @ git+https://github.com/croxio/rogerwilco'): {', '.join(missing)}")
    if not args.no_growth:
        print()
        growth(impls, args.growth_lines, args.rounds)


if __name__ == "__main__":
    main()
