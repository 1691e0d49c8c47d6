"""Differential testing: this package's adapter against another implementation.

Theory of operation
-------------------
``rogerwilco conformance --diff --impl CMD`` draws requests from
:class:`rogerwilco.front.testing.RequestGenerator` (reproducible by seed), sends
each to both adapters through the contract (:mod:`rogerwilco.front.conformance`'s
process driver: handshake, ``seq``, restarts) and compares the answers by
the contract's rules: every field of this package's answer must match
(``findings`` as a set of signatures, ``reply`` by its line and offending
token), two refusals of the request itself (``ok: false``) agree whatever
their wording, and an op the implementation does not support is skipped.

A disagreement is shrunk before it is shown: slots, tail words and value
characters are taken away one at a time while the two still disagree, so
what is printed is a minimal request, with a one-line shell reproducer. An
implementation that dies, hangs or writes garbage on a request is restarted
for the next one, and the request that killed it is reported the same way.

Shrinking has a budget, so that an implementation disagreeing on everything
cannot stretch a run: :data:`MAX_SHRINK_STEPS` tries per disagreement
(:data:`CRASH_SHRINK_STEPS` when each try restarts a crashed implementation;
none after a timeout, and a try that times out ends the shrink) and
:data:`RUN_SHRINK_STEPS` tries over the run; past it, a disagreement is
shown as drawn. The budget counts tries, never seconds: a seed gives the
same report on any machine.

A run also says what it asked (:class:`Coverage`): each request is put in
the :data:`CLASSES` it belongs to (inline profiles, bad ``n`` and ``as``,
RB slots the HO lacks, malformed ``expect_acc``, multi-valued criteria,
``len`` values that are not a number and a unit), judged from the request
alone, and this package's answer is counted by kind (a refusal's ``why``, a
finding's kind), so a run with no disagreement still shows which rules it
reached and which classes it never drew.
"""

from __future__ import annotations

import functools
import json
import shlex
from typing import Any, Callable, Iterable, Iterator

import attrs

from .conformance import ImplError, ImplProcess, compare, default_impl
from .conformance import dumps_request, plain_request
from .testing import OPS, RequestGenerator
from ..core.errors import RW1Error
from ..core.slottypes import AGENT_RE

#: Tries to shrink one disagreement.
MAX_SHRINK_STEPS = 300
#: Tries to shrink a request that crashed the implementation: each try restarts it.
CRASH_SHRINK_STEPS = 10
#: Tries to shrink, over a whole run: past it, disagreements are shown as drawn.
RUN_SHRINK_STEPS = 5000


@attrs.define
class Disagreement:
    op: str
    request: dict[str, Any]  # shrunk
    original: dict[str, Any]
    ours: Any
    theirs: Any
    why: str
    crashed: bool = False

    def reproducer(self, command: list[str]) -> str:
        return f"printf '%s\\n' {shlex.quote(dumps_request(self.request))} | {shlex.join(command)}"


@attrs.define
class ShrinkBudget:
    """The tries shrinking may spend over one run.

    An implementation that disagrees on every request (answering garbage,
    say) would otherwise cost a full shrink per request, each try a round
    trip or a restart; with the budget spent, disagreements are reported
    unshrunk and the run ends in time. The budget counts tries, not
    seconds, so a run is the same run on a fast machine and a slow one.
    """

    steps: int = RUN_SHRINK_STEPS
    used: int = 0

    def take(self) -> bool:
        """Whether one more try is allowed (and, if so, count it)."""
        if self.used >= self.steps:
            return False
        self.used += 1
        return True


class StopShrinking(Exception):
    """Raised by a ``still_fails`` whose try cost too much to try again (a timeout): keep what is reached."""


@attrs.define
class DiffReport:
    count: int = 0
    agreed: int = 0
    skipped: int = 0
    shrink: ShrinkBudget = attrs.Factory(ShrinkBudget)
    disagreements: list[Disagreement] = attrs.Factory(list)
    by_op: dict[str, list[int]] = attrs.Factory(dict)  # op -> [agreed, disagreed, skipped]
    coverage: "Coverage" = attrs.Factory(lambda: Coverage())


def _strip(response: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in response.items() if k != "seq"}


def judge(ours: dict[str, Any], theirs: dict[str, Any]) -> str | None:
    """None when the two answers agree by the contract's rules, "skip" when
    the implementation lacks the op, else what differs."""
    if theirs.get("ok") is False and theirs.get("error") == "unsupported":
        return "skip"
    if ours.get("ok") is False:
        if theirs.get("ok") is False:
            return None
        return f"this package refuses the request ({ours.get('error')}); the implementation answers it"
    if theirs.get("ok") is not True:
        return f"the implementation answers ok: false ({theirs.get('error')}); this package answers it"
    expect = {k: v for k, v in _strip(ours).items() if k != "ok"}
    diff = compare(expect, theirs)
    return diff or None


class Differ:
    """Both adapters, and the comparison of one request."""

    def __init__(self, impl: list[str], *, reference: list[str] | None = None, timeout: float = 10.0) -> None:
        self.impl_command = impl
        self.ours = ImplProcess(reference or default_impl(), start_timeout=timeout)
        self.theirs = ImplProcess(impl, start_timeout=timeout)
        self.timeout = timeout

    def start(self) -> None:
        for side in (self.ours, self.theirs):
            side.ensure_started()  # StartError for a side that cannot run or does not answer its handshake

    def supports(self, op: str) -> bool:
        self.start()
        return self.theirs.supports(op)

    def ask_ours(self, request: dict[str, Any]) -> dict[str, Any]:
        try:
            return self._ask(self.ours, request)
        except ImplError as exc:
            return {"ok": False, "error": f"reference adapter: {exc}"}

    def _ask(self, side: ImplProcess, request: dict[str, Any]) -> dict[str, Any]:
        side.ensure_started()
        return side.ask(request, self.timeout)

    def check(self, request: dict[str, Any]) -> tuple[str | None, Any, Any, bool]:
        """(what differs or None or "skip", ours, theirs, crashed)."""
        ours = self.ask_ours(request)
        try:
            theirs = self._ask(self.theirs, request)
        except ImplError as exc:
            return f"the implementation failed: {exc}", ours, None, True
        return judge(ours, theirs), ours, _strip(theirs), False

    def stop(self) -> None:
        self.ours.stop()
        self.theirs.stop()


# ---------------------------------------------------------------- shrinking

def _shorter_strings(text: str) -> Iterator[str]:
    """Candidates for a shorter line or value: whole tokens first, then characters."""
    head, mark, tail = text.partition(" // ")
    tokens = head.split(" ")
    if mark:
        yield head
        words = tail.split(" ")
        for i in range(len(words)):
            if len(words) > 1:
                yield head + " // " + " ".join(words[:i] + words[i + 1:])
        if len(tail) > 1:
            yield head + " // " + tail[: len(tail) // 2]
            yield head + " // " + tail[len(tail) // 2:]
    for i in range(len(tokens) - 1, 2, -1):
        yield " ".join(tokens[:i] + tokens[i + 1:]) + (mark + tail if mark else "")
    for i, token in enumerate(tokens):
        key, eq, value = token.partition("=")
        if eq and len(value) > 1:
            for shorter in (value[: len(value) // 2], value[len(value) // 2:], value[:-1], value[1:]):
                if shorter:
                    rest = tokens[:i] + [f"{key}={shorter}"] + tokens[i + 1:]
                    yield " ".join(rest) + (mark + tail if mark else "")
    if len(text) > 1 and not mark and len(tokens) <= 3:
        yield text[:-1]
        yield text[1:]


def _candidates(request: dict[str, Any]) -> Iterator[dict[str, Any]]:
    if request.get("profiles"):
        yield {k: v for k, v in request.items() if k != "profiles"}
        if len(request["profiles"]) > 1:
            for i in range(len(request["profiles"])):
                yield {**request, "profiles": request["profiles"][:i] + request["profiles"][i + 1:]}
    for field in ("expect_acc", "acc", "record", "digest"):
        if field in request:
            yield {k: v for k, v in request.items() if k != field}
    for field in ("line", "ho", "rb", "dn"):
        value = request.get(field)
        if isinstance(value, str):
            for shorter in _shorter_strings(value):
                yield {**request, field: shorter}
    if isinstance(request.get("lines"), list):
        lines = request["lines"]
        for i in range(len(lines)):
            yield {**request, "lines": lines[:i] + lines[i + 1:]}
    form = request.get("json")
    if isinstance(form, dict):
        slots = form.get("slots")
        if isinstance(slots, dict):
            for key in list(slots):
                yield {**request, "json": {**form, "slots": {k: v for k, v in slots.items() if k != key}}}
        if form.get("tail") is not None:
            yield {**request, "json": {**form, "tail": None}}
        for key in ("item", "re"):
            if form.get(key) is not None:
                yield {**request, "json": {**form, key: None}}


def shrink(request: dict[str, Any], still_fails: Callable[[dict[str, Any]], bool],
           budget: int = MAX_SHRINK_STEPS, run: ShrinkBudget | None = None) -> dict[str, Any]:
    """The smallest request reached by taking things away while ``still_fails`` holds,
    in at most ``budget`` tries and what is left of the run's budget."""
    steps = 0
    current = request
    improved = True
    while improved and steps < budget:
        improved = False
        for candidate in _candidates(current):
            steps += 1
            if steps > budget or (run is not None and not run.take()):
                return current
            try:
                fails = still_fails(candidate)
            except StopShrinking:
                return current
            if fails:
                current = candidate
                improved = True
                break
    return current


# ---------------------------------------------------------------- a run

def run_diff(
    impl: list[str],
    *,
    count: int = 1000,
    seed: int = 0,
    ops: Iterable[str] | None = None,
    timeout: float = 10.0,
    progress: Callable[[int, int, int], None] | None = None,
    reference: list[str] | None = None,
) -> DiffReport:
    """Compare ``impl`` with this package on ``count`` generated requests.

    The ops take turns. An op the implementation does not support (left out
    of its handshake, or answered ``unsupported``) leaves the rotation, so
    ``count`` requests go to the ops it does support.
    """
    differ = Differ(impl, reference=reference, timeout=timeout)
    report = DiffReport()
    generator = RequestGenerator(seed)
    chosen = list(ops or OPS)
    report.by_op = {op: [0, 0, 0] for op in chosen}
    try:
        differ.start()
        active = [op for op in chosen if differ.supports(op)]
        turn = 0
        while report.count < count and active:
            op = active[turn % len(active)]
            turn += 1
            request = generator.request(op)
            outcome, ours, theirs, crashed = differ.check(request)
            report.count += 1
            report.coverage.add(op, request, ours)
            if outcome == "skip":
                report.skipped += 1
                report.by_op[op][2] += 1
                active.remove(op)
            elif outcome is None:
                report.agreed += 1
                report.by_op[op][0] += 1
            else:
                report.by_op[op][1] += 1
                report.disagreements.append(_shrunk(differ, op, request, outcome, ours, theirs, crashed,
                                                    report.shrink))
            if progress is not None:
                progress(report.count, count, len(report.disagreements))
    finally:
        differ.stop()
    return report


def _shrunk(differ: Differ, op: str, request: dict[str, Any], outcome: str, ours: Any, theirs: Any,
            crashed: bool, budget: ShrinkBudget) -> Disagreement:
    def still(candidate: dict[str, Any]) -> bool:
        result, _, _, died = differ.check(candidate)
        if died and result is not None and "timed out" in result:
            raise StopShrinking  # each further try could cost a whole timeout
        return died if crashed else result not in (None, "skip")

    if crashed and "timed out" in outcome:
        small = request  # each try would cost a whole timeout
    else:
        small = shrink(request, still, CRASH_SHRINK_STEPS if crashed else MAX_SHRINK_STEPS, budget)
    if small is not request:
        outcome_small, ours, theirs, _ = differ.check(small)
        outcome = outcome_small or outcome
    return Disagreement(op=op, request=small, original=request, ours=ours, theirs=theirs, why=outcome,
                        crashed=crashed)


# ---------------------------------------------------------------- coverage

# The classes of request the generator must reach, and the ops each belongs
# to: the rules a port most often reads wrongly from the prose alone. A class
# is judged from the request (and this package's vocabulary data), never from
# an implementation's answer, so the report says what was asked, not what
# was right.
CLASSES: dict[str, tuple[tuple[str, ...], str]] = {
    "inline-profile:loads": (OPS, "a profile given inline as an object, one that loads"),
    "inline-profile:refused": (OPS, "a profile given inline that does not load (ok:false)"),
    "bad-n": (("reply", "make-rb"), "n not a non-negative integer, or missing (ok:false)"),
    "bad-as": (("reply",), "as not an agent name"),
    "rb-slot-ho-lacks:misread": (("check-rb",), "the RB carries a handoff slot the HO does not"),
    "rb-slot-ho-lacks:execution": (("check-rb",), "the RB carries an execution slot of the ask the HO does not"),
    "rb-slot-ho-lacks:receivers-own": (("check-rb",), "the RB carries eta, asm, not or exp and the HO does not"),
    "rb-slot-ho-lacks:extension": (("check-rb",), "the RB carries an x_ slot"),
    "rb-slot-ho-lacks:other-type": (("check-rb",), "the RB carries a slot the handoff type does not have"),
    "expect-acc-malformed": (("check-rb",), "expect_acc that is not key:value items"),
    "criteria-multi-valued:single-key": (("check-rb",), "criteria with several values for a single-valued key"),
    "criteria-multi-valued:set-key": (("check-rb",), "criteria with several values for a set-valued key"),
    "len-unparsable": (("check-rb",), "a len criterion that is not a number and a unit"),
}


@attrs.define
class Coverage:
    """What a run's requests reached: the :data:`CLASSES` of request, and the
    kinds of answer this package gave (a refusal's reason, a finding's kind),
    each counted by op."""

    classes: dict[str, dict[str, int]] = attrs.Factory(lambda: {name: {} for name in CLASSES})
    answers: dict[str, dict[str, int]] = attrs.Factory(dict)
    ops: set[str] = attrs.Factory(set)

    def add(self, op: str, request: dict[str, Any], ours: dict[str, Any]) -> None:
        self.ops.add(op)
        for name in classes_of(request):
            self.classes[name][op] = self.classes[name].get(op, 0) + 1
        by_kind = self.answers.setdefault(op, {})
        for kind in answer_kinds(ours):
            by_kind[kind] = by_kind.get(kind, 0) + 1

    def expected(self) -> list[str]:
        """The classes that belong to an op the run asked about."""
        return [name for name, (ops, _) in CLASSES.items() if self.ops & set(ops)]

    def missed(self) -> list[str]:
        return [name for name in self.expected() if not self.classes[name]]

    def summary(self) -> str:
        expected, missed = self.expected(), self.missed()
        line = f"classes: {len(expected) - len(missed)} of {len(expected)} reached"
        return line + (f" (not reached: {', '.join(missed)})" if missed else "")

    def to_json(self) -> dict[str, Any]:
        return {"classes": {name: dict(self.classes[name]) for name in self.expected()},
                "missed": self.missed(), "answers": self.answers}


def classes_of(request: dict[str, Any]) -> list[str]:
    """The :data:`CLASSES` ``request`` belongs to."""
    from ..checks.comprehension import parse_criteria

    op = request.get("op")
    found = [f"inline-profile:{'loads' if _loads(p) else 'refused'}"
             for p in request.get("profiles") or () if isinstance(p, dict)]
    if op in ("reply", "make-rb") and not _count_field(request.get("n")):
        found.append("bad-n")
    if op == "reply" and not (isinstance(request.get("as"), str) and AGENT_RE.fullmatch(request["as"])):
        found.append("bad-as")
    if op != "check-rb":
        return sorted(set(found))
    ho, rb = request.get("ho"), request.get("rb")
    if isinstance(ho, str) and isinstance(rb, str):
        found += _slots_the_ho_lacks(ho, rb)
    criteria = [_slot(line, "acc") for line in (ho, rb) if isinstance(line, str)]
    if "expect_acc" in request:
        try:
            parse_criteria(request["expect_acc"])
            criteria.append("+".join(request["expect_acc"]) if isinstance(request["expect_acc"], list)
                            else request["expect_acc"])
        except (ValueError, TypeError):
            found.append("expect-acc-malformed")
    for text in criteria:
        if text:
            found += _criteria_classes(text)
    return sorted(set(found))


def _count_field(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


@functools.lru_cache(maxsize=64)
def _loads_text(text: str) -> bool:
    from ..core.vocab import compile_vocabulary, load_profile

    try:
        compile_vocabulary(load_profile(json.loads(text)))
    except RW1Error:
        return False
    return True


def _loads(profile: dict[str, Any]) -> bool:
    return _loads_text(json.dumps(profile, sort_keys=True))


def _head(line: str) -> list[str]:
    return line.partition(" // ")[0].split(" ")


def _slot(line: str, key: str) -> str | None:
    return next((t.partition("=")[2] for t in _head(line)[3:] if t.startswith(key + "=")), None)


def _slots_the_ho_lacks(ho: str, rb: str) -> list[str]:
    from ..core.vocab import BUNDLED_PROFILES, bundled_vocabulary, core_vocabulary

    profile = _slot(ho, "p")
    vocab = bundled_vocabulary(profile) if profile in BUNDLED_PROFILES else core_vocabulary()
    if "HO" not in vocab.types:
        return []
    carried = {t.partition("=")[0] for t in _head(ho)[3:]}
    execution = set(vocab.exec_slots.get(_slot(ho, "ask") or "", ()))
    found = []
    for token in _head(rb)[3:]:
        key = token.partition("=")[0]
        if key in carried or key in ("re", "from", "to", "item", "p", "h", "do", "acc"):
            continue
        if key.startswith("x_"):
            found.append("rb-slot-ho-lacks:extension")
        elif key in execution:
            found.append("rb-slot-ho-lacks:execution")
        elif key in ("eta", "asm", "not", "exp"):
            found.append("rb-slot-ho-lacks:receivers-own")
        elif key in vocab.types["HO"].slots:
            found.append("rb-slot-ho-lacks:misread")
        else:
            found.append("rb-slot-ho-lacks:other-type")
    return found


def _criteria_classes(text: str) -> list[str]:
    from ..checks.comprehension import LEN_KEY, read_len
    from ..core.vocab import core_vocabulary

    keys: list[str] = []
    found = []
    for item in text.split("+"):
        key, _, value = item.partition(":")
        key = key.lower()
        if key == LEN_KEY and value and read_len(value) is None:
            found.append("len-unparsable")
        if key in keys:
            set_valued = key in core_vocabulary().set_valued_keys
            found.append(f"criteria-multi-valued:{'set-key' if set_valued else 'single-key'}")
        keys.append(key)
    return found


def answer_kinds(ours: dict[str, Any]) -> list[str]:
    """The kinds of this package's answer: ``ok:false``, a refusal's ``why``, a
    reply or none, a check's verdict and each finding's severity and kind."""
    if ours.get("ok") is False:
        return ["ok:false"]
    if "valid" in ours:
        return ["valid"] if ours["valid"] else [f"why={ours.get('why')}"]
    if "reply" in ours:
        return ["reply:null"] if ours["reply"] is None else ["reply:UN"]
    if "passed" in ours:
        findings = ours.get("findings") or []
        return ["passed" if ours["passed"] else "failed"] + sorted(
            {f"{f.get('severity')}:{f.get('kind')}" for f in findings if isinstance(f, dict)})
    return [k for k in ("h", "line") if k in ours]


def describe(report: DiffReport) -> str:
    return (f"{report.count} requests: {report.agreed} agree, {len(report.disagreements)} disagree, "
            f"{report.skipped} skipped")


def to_json(report: DiffReport, command: list[str], seed: int) -> dict[str, Any]:
    return {
        "seed": seed, "impl": command, "count": report.count, "agreed": report.agreed,
        "disagreed": len(report.disagreements), "skipped": report.skipped, "shrink_steps": report.shrink.used,
        "by_op": {op: {"agreed": a, "disagreed": d, "skipped": s} for op, (a, d, s) in report.by_op.items()},
        "coverage": report.coverage.to_json(),
        "disagreements": [
            {"op": d.op, "request": plain_request(d.request), "ours": d.ours, "theirs": d.theirs, "why": d.why,
             "crashed": d.crashed, "reproducer": d.reproducer(command)}
            for d in report.disagreements
        ],
    }


def _json_line(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
