"""Parse throughput: rogerwilco's paths against JSON parsers and validators, in one run.

Builds a mixed corpus (all nine types, core and ``p=pay`` lines, tails on
some) and, for the same messages, their JSON forms. Then times, as the median
of interleaved rounds (each round runs every path once, so a change in the
machine's load touches every path alike):

* ``rogerwilco.loads``: line -> validated Message (what users call), with the
  accept path the package uses (``rogerwilco.speedups.active``), then the
  pure and the compiled accept paths' ``loads_line`` side by side;
* ``check_line``: line -> LineResult with every finding;
* batch: ``json_forms``: lines -> JSON forms, no Message objects (the path
  ``scan`` and ``to_arrow`` take), pure and compiled;
* ``json.loads`` of the JSON forms (the baseline every ratio is against);
* ``orjson.loads`` of the same (parsing only, no validation);
* msgspec: typed Structs generated from the vocabulary (a tagged union on
  ``type``, enums as Literal, the slot types' regexes as patterns, integer
  ranges as bounds, the tail's length limit), decoding the JSON forms;
* pydantic v2: the same facts as models, a discriminated union.

The compiled accept path is the extension ``rogerwilco.core._accept_c``
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
import importlib
import json
import os
from collections import deque
import random
import statistics
import time
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
            start = CLOCK()
            fn(items)
            samples[name].append((CLOCK() - start) / len(items))
    return {name: statistics.median(values) for name, values in samples.items()}


def each(fn: Callable[..., Any], *args: Any) -> Callable[[Iterable[Any]], None]:
    def run(items: Iterable[Any]) -> None:
        for item in items:
            fn(item, *args)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--growth-lines", type=int, default=5000)
    parser.add_argument("--pay", action="store_true", help="a corpus of p=pay lines only")
    parser.add_argument("--wall", action="store_true", help="time the wall clock, not this process's CPU time")
    args = parser.parse_args()
    global CLOCK
    if args.wall:
        CLOCK = time.perf_counter

    import rogerwilco
    from rogerwilco import Receiver, check_line
    from rogerwilco import speedups
    from rogerwilco.core import accept as pure
    from rogerwilco.core.vocab import core_vocabulary

    try:
        twin: Any = importlib.import_module(speedups.COMPILED_MODULE)
    except ImportError:
        twin = None
    impls = {"pure": pure, "compiled": twin} if twin is not None else {"pure": pure}
    json_forms = pure.json_forms

    receiver = Receiver.load(["pay"])
    lines = corpus(args.lines, pay_only=args.pay)
    results = [check_line(line, receiver) for line in lines]
    assert all(r.message is not None for r in results), "the corpus must be valid"
    forms = [json.dumps(r.message.to_json()) for r in results]  # type: ignore[union-attr]
    blobs = [form.encode() for form in forms]
    for impl in impls.values():
        assert list(impl.json_forms(lines, receiver)) == [json.loads(f) for f in forms]

    def batch(impl: Any, profiles: Any) -> Callable[[list[Any]], Any]:
        return lambda items: deque(impl.json_forms(items, profiles), maxlen=0)

    def ours(profiles: Any, items: list[str], loads: str, batched: str) -> dict[str, tuple[Callable[[list[Any]], Any], list[Any]]]:
        """The package's paths over ``items``: loads per implementation, check_line, the batch per implementation."""
        out = {f"{loads}{kind}": (each(impl.loads_line, profiles), items) for kind, impl in impls.items()}
        out["check_line"] = (each(check_line, profiles), items)
        out.update({f"{batched}{kind}": (batch(impl, profiles), items) for kind, impl in impls.items()})
        return out

    paths: dict[str, tuple[Callable[[list[Any]], Any], list[Any]]] = {
        f"rogerwilco.loads ({speedups.active})": (each(rogerwilco.loads, receiver), lines),
        **ours(receiver, lines, "loads_line, ", "batch json_forms, ")}
    paths["json.loads (baseline)"] = (each(json.loads), forms)
    missing = []
    try:
        import orjson

        paths["orjson.loads (no validation)"] = (each(orjson.loads), blobs)
    except ImportError:
        missing.append("orjson")
    vocab = receiver.vocabulary("pay")
    for label, make, library in (("msgspec typed Structs", msgspec_decoder, "msgspec"),
                                 ("pydantic v2 models", pydantic_validator, "pydantic")):
        try:
            peer = make(vocab, core_vocabulary())
        except ImportError:
            missing.append(library)
            continue
        for blob in blobs:  # every message is valid to the peer too, or its figure means nothing
            peer(blob)
        paths[label] = (each(peer), blobs)

    times = median_times(paths, args.rounds)
    base = times["json.loads (baseline)"]
    mean_len = sum(map(len, lines)) / len(lines)
    print(f"corpus: {len(lines)} lines, 9 types, core + pay, mean {mean_len:.0f} chars; JSON forms mean "
          f"{sum(map(len, forms)) / len(forms):.0f} chars")
    print(f"rogerwilco.speedups: {speedups.active}{' (' + speedups.reason + ')' if speedups.reason else ''}; "
          f"compiled twin: {'built' if twin is not None else 'not built (python hatch_build.py --inplace)'}; "
          f"median of {args.rounds} interleaved rounds, {'wall clock' if args.wall else 'CPU time'}; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'path':<32}{'lines/s':>12}{'us/line':>10}{'x json.loads':>14}")
    for name, seconds in times.items():
        print(f"{name:<32}{1 / seconds:>12,.0f}{seconds * 1e6:>10.2f}{base / seconds:>13.2f}x")
    goals = [f"pure loads >= 0.35x json.loads (here {base / times['loads_line, pure']:.2f}x)"]
    if twin is not None:
        goals += [f"compiled loads >= 0.6x (here {base / times['loads_line, compiled']:.2f}x)",
                  f"compiled batch >= 1.0x (here {base / times['batch json_forms, compiled']:.2f}x)"]
    print("goals: " + ", ".join(goals))
    if missing:
        print(f"not installed (pip install 'rogerwilco[bench] @ git+https://github.com/croxio/rogerwilco'): {', '.join(missing)}")

    def refusing(items: list[str]) -> None:
        for line in items:
            try:
                rogerwilco.loads(line, receiver)
            except rogerwilco.RW1Error:
                pass

    sample = lines[: max(1, len(lines) // 4)]
    syntax_errors = [line.replace(" to=", "  to=", 1) for line in sample]  # two spaces: refused by the grammar
    refusals = [line.replace(" from=", " x=1 x=2 from=", 1) for line in sample]  # a repeated key: by the checks
    t = median_times({"valid": (each(rogerwilco.loads, receiver), sample), "syntax": (refusing, syntax_errors),
                      "refused": (refusing, refusals)}, args.rounds)
    print(f"rejected lines through loads ({speedups.active}): a syntax error {t['syntax'] * 1e6:.2f} us ({t['syntax'] / t['valid']:.2f}x "
          f"a valid line, goal <= 3x), a refusal by the checks {t['refused'] * 1e6:.2f} us "
          f"({t['refused'] / t['valid']:.2f}x)")

    print()
    print(f"growth: ST lines, {args.growth_lines} per shape, us/line (x json.loads of the same messages)")
    columns = [f"loads {kind}" for kind in impls] + ["check_line"] + [f"batch {kind}" for kind in impls]
    print(f"{'slots':>5} {'tail':>5}  " + " ".join(f"{c:>15}" for c in columns) + f" {'json.loads':>10}")
    core_only = Receiver()
    for slots in (5, 30):
        for tail in (0, 100, 300):
            shape = grown(args.growth_lines, tail, slots)
            shape_forms = [json.dumps(rogerwilco.loads(line, core_only).to_json()) for line in shape]
            shapes = ours(core_only, shape, "loads ", "batch ")
            shapes["json"] = (each(json.loads), shape_forms)
            t = median_times(shapes, max(3, args.rounds // 2))
            cells = " ".join(f"{t[k] * 1e6:6.2f} ({t['json'] / t[k]:.2f}x)" for k in columns)
            print(f"{slots:>5} {tail:>5}  {cells} {t['json'] * 1e6:>10.2f}")


if __name__ == "__main__":
    main()
