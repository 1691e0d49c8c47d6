"""What each check catches, measured: a planted-fault benchmark (spec section 10).

A seeded generator builds realistic exchanges and runs the package's checks
on them:

* pay handoffs for every execution slot map of the pay profile: ``PAY`` (the
  account given, or left to the receiver to take from the account on file),
  ``CHGBANK`` (the replaced account ``prev`` resolved by the receiver) and
  ``SEND`` (the address given, or resolved), in payment runs of several
  invoices, so that a neighbouring row exists to misread;
* core handoffs (every core ask) at every ``rb=`` level (``echo`` by
  default, ``all``, ``acc``, ``plan``, ``exec``, and levels with slot names
  such as ``acc+pri``), each with a brief in the tail and the sender's own
  acceptance criteria.

For every check, correct exchanges: readbacks composed by ``make_rb`` and
hand-built equivalents (slots reordered, ``pri=02``, no ``h=``, aliases,
plurals, word order, case, canonically equivalent text in the criteria),
handoffs drafted from the record, relays that forward what they received,
and done reports with the values as executed. Each must pass: a failure is
a false alarm.

Planted faults, by class, each with the check that should catch it and the
finding kinds that count as catching it (a failure for another reason is a
miss, so a fault is only counted as caught for the right reason):

=============================  =============  ==============================
class                          check          caught as
=============================  =============  ==============================
sender's draft vs record       check-ho       mismatch, missing, level
misread neighbouring field     check-rb       mismatch
slot left out                  check-rb       missing, plan, form (a required
                                              slot: the line is refused)
resolved: old account          check-rb       record
resolved: lookalike address    check-rb       record
tool did something else        check-dn       mismatch, missing, noop-values,
                                              receipt
relay changed something        check-ho relay mismatch, missing
comprehension: contradiction   check-rb acc   contradiction
comprehension: gap             check-rb acc   gap
comprehension: exclusion       check-rb acc   excluded
comprehension: negation        check-rb acc   contradiction
unicode: bidi controls         check-rb       form (D14: refused in a line)
unicode: invisible/confusable  check-rb       mismatch, record, form
=============================  =============  ==============================

It prints a table per class (planted, caught, missed) and per check (clean
exchanges, false alarms), and exits 1 on any miss or false alarm, so it runs
in CI (``tests/test_fault_table.py``)::

    python benchmarks/fault_table.py [--seed 21] [--per-class 60] [--clean 80] [--format text|markdown|json] [--show N]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import sys
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from rogerwilco.checks.readback import check_dn, check_ho, check_rb, make_rb
from rogerwilco.core.vocab import Receiver

PAY = Receiver.load(["pay"])
CORE = Receiver()

CHECK_HO, CHECK_RELAY, CHECK_RB, CHECK_ACC, CHECK_DN = "check-ho", "check-ho relay", "check-rb", "check-rb acc", "check-dn"
CHECKS = (CHECK_HO, CHECK_RELAY, CHECK_RB, CHECK_ACC, CHECK_DN)


# --------------------------------------------------------------------------
# lines as tokens


def line(type_: str, id_: str, slots: Iterable[tuple[str, str]], tail: str | None = None) -> str:
    text = " ".join([f"RW1 {type_} {id_}"] + [f"{k}={v}" for k, v in slots])
    return f"{text} // {tail}" if tail else text


def split(text: str) -> tuple[list[str], list[list[str]], str | None]:
    head, sep, tail = text.partition(" // ")
    tokens = head.split(" ")
    return tokens[:3], [t.split("=", 1) for t in tokens[3:]], (tail if sep else None)


def join(head: list[str], slots: list[list[str]], tail: str | None) -> str:
    return line(head[1], head[2], [(k, v) for k, v in slots], tail)


def set_slot(text: str, key: str, value: str | None) -> str:
    """The line with ``key`` set to ``value`` (None drops it); a new key goes last."""
    head, slots, tail = split(text)
    if value is None:
        slots = [s for s in slots if s[0] != key]
    elif any(s[0] == key for s in slots):
        slots = [[k, value if k == key else v] for k, v in slots]
    else:
        slots.append([key, value])
    return join(head, slots, tail)


def get_slot(text: str, key: str) -> str | None:
    return next((v for k, v in split(text)[1] if k == key), None)


def set_tail(text: str, tail: str | None) -> str:
    head, slots, _ = split(text)
    return join(head, slots, tail)


def shuffled(text: str, rng: random.Random) -> str:
    head, slots, tail = split(text)
    rng.shuffle(slots)
    return join(head, slots, tail)


# --------------------------------------------------------------------------
# the world: suppliers, accounts, invoices, payment runs

SUPPLIERS = [
    "marlow", "kestrel-print", "northwind", "brightwater", "halden-logistics", "fenwick", "ashgrove", "corran-foods",
    "dunmore", "elstree-studio", "farrow", "glenmore", "harcourt-legal", "ivybridge", "juniper-it", "kingsley",
    "larkspur", "merton-cleaning", "newlyn", "oakham-build", "penrose", "redfern", "saltash-marine", "thornbury",
    "upton-signs", "verity-audit", "westbay", "yarrow-design", "zennor", "brûlerie-lenoir", "müller-druck", "café-orée",
    "señora-tapas", "søholm-data",
]
CURRENCIES = ["GBP"] * 6 + ["EUR"] * 3 + ["USD"] * 2 + ["CHF", "SEK", "NOK", "PLN", "JPY"]
KINDS = ["GROSS"] * 4 + ["NET", "VAT"]
BASE_DATE = dt.date(2026, 10, 1)
CONFUSABLE_DIGITS = {  # what a person reads as the same digit
    "0": ["\uff10", "\u0660", "\u06f0", "\u0966", "\u041e", "O"],
    "1": ["\uff11", "\u0661", "\u0967", "l", "I"],
    "2": ["\uff12", "\u0662", "\u0968"],
    "3": ["\uff13", "\u0663", "\u0969", "\u0417"],
    "4": ["\uff14", "\u0664", "\u096a"],
    "5": ["\uff15", "\u0665", "\u096b"],
    "6": ["\uff16", "\u0666", "\u096c", "\u0431"],
    "7": ["\uff17", "\u0667", "\u096d"],
    "8": ["\uff18", "\u0668", "\u096e", "B"],
    "9": ["\uff19", "\u0669", "\u096f"],
}
# D14's list, written out here rather than taken from the package, so a control the package forgot is still planted.
BIDI_CONTROLS = ["\u061c", "\u200e", "\u200f", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e",
                 "\u2066", "\u2067", "\u2068", "\u2069"]
ZERO_WIDTH = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"]


def date(offset: int) -> str:
    return (BASE_DATE + dt.timedelta(days=offset)).strftime("%Y%m%d")


@dataclass
class Supplier:
    sup: str
    acct: str  # on file now
    old_acct: str  # the one before the last change
    addr: str  # the address a SEND goes to
    lookalike: str  # an address built to be mistaken for it


@dataclass
class Invoice:
    sup: Supplier
    ref: str
    amt: str
    cur: str
    kind: str
    paid: str
    apref: str


class World:
    """Suppliers with their accounts on file, and invoices grouped in payment runs."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.suppliers = [self._supplier(name) for name in SUPPLIERS]
        self.counter = 0

    def n(self) -> int:
        self.counter += 1
        return self.counter

    def _acct(self) -> str:
        r = self.rng
        return f"{r.randint(10, 99)}-{r.randint(10, 99)}-{r.randint(10, 99)}/{r.randint(10_000_000, 99_999_999)}"

    def _supplier(self, name: str) -> Supplier:
        r = self.rng
        acct, old = self._acct(), self._acct()
        while old == acct:
            old = self._acct()
        if r.random() < 0.5:
            addr = "0x" + "".join(r.choice("0123456789abcdef") for _ in range(40))
            # address poisoning: the same first six and last four characters
            middle = "".join(r.choice("0123456789abcdef") for _ in range(30))
            lookalike = addr[:8] + middle + addr[-4:]
        else:
            bank = "".join(r.choice("ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(4))
            addr = f"GB{r.randint(10, 99)}{bank}" + "".join(r.choice("0123456789") for _ in range(14))
            # one digit of the account part swapped for a letter that reads as it
            swap = {"0": "O", "1": "l", "5": "S", "8": "B", "2": "Z", "6": "G"}
            lookalike = addr
            while lookalike == addr:
                i = r.randrange(8, len(addr))
                lookalike = addr[:i] + swap.get(addr[i], addr[i]) + addr[i + 1:]
        return Supplier(unicodedata.normalize("NFC", name), acct, old, addr, lookalike)

    def invoice(self, sup: Supplier | None = None) -> Invoice:
        r = self.rng
        sup = sup or r.choice(self.suppliers)
        prefix = "".join(c for c in sup.sup.upper() if "A" <= c <= "Z")[:2] or "SP"
        amount = r.choice([r.randint(120, 2_000), r.randint(2_000, 25_000), r.randint(25_000, 250_000)])
        return Invoice(sup, f"{prefix}-2026-{r.randint(1, 999):03d}", f"{amount}.{r.choice(['00', '00', '50', '99', str(r.randint(10, 99))])}",
                       r.choice(CURRENCIES), r.choice(KINDS), date(r.randint(0, 40)), f"FD-{r.randint(100, 9999):04d}")

    def run(self) -> list[Invoice]:
        """A payment run: several invoices, some from the same supplier."""
        size = self.rng.randint(4, 10)
        return [self.invoice() for _ in range(size)]


# --------------------------------------------------------------------------
# pay handoffs


@dataclass
class PayHandoff:
    ask: str
    ho: str
    record: dict[str, Any]  # the approval record the HO is drafted from (check-ho)
    resolved: dict[str, str]  # values the receiver resolves itself, correct ones
    on_file: dict[str, str]  # the sender's record of those values (check-rb and check-dn record)
    neighbour: Invoice
    inv: Invoice
    sender: str
    receiver: str


def pay_handoff(world: World, ask: str | None = None, *, resolve: bool | None = None) -> PayHandoff:
    r = world.rng
    ask = ask or r.choice(["PAY", "PAY", "CHGBANK", "SEND"])
    run = world.run()
    i = r.randrange(len(run))
    inv, neighbour = run[i], run[(i + 1) % len(run)]
    while neighbour.sup is inv.sup and len(run) > 1 and neighbour is not inv:
        neighbour = world.invoice()
    sender, receiver = r.choice([("scheduler", "payer"), ("reconciler", "payer"), ("auditor", "scheduler")])  # pay names its agents
    n = world.n()
    resolve = r.random() < 0.35 if resolve is None else resolve
    resolved: dict[str, str] = {}
    on_file: dict[str, str] = {}
    if ask == "PAY":
        values = [("sup", inv.sup.sup), ("amt", inv.amt), ("cur", inv.cur), ("kind", inv.kind), ("acct", inv.sup.acct),
                  ("paid", inv.paid), ("ref", inv.ref), ("apref", inv.apref)]
        item = f"inv:{inv.ref}"
        if resolve:
            values = [(k, v) for k, v in values if k != "acct"]
            resolved = {"acct": inv.sup.acct}
            on_file = {"acct": inv.sup.acct}
        tail = r.choice([None, "pay to the account on file" if resolve else "approved in the month-end run",
                         f"part of run {date(0)}", "approved by the finance director"])
    elif ask == "CHGBANK":
        new = world._acct()
        values = [("sup", inv.sup.sup), ("acct", new), ("eff", date(r.randint(1, 30))), ("apref", inv.apref)]
        item = f"sup:{inv.sup.sup}"
        resolved = {"prev": inv.sup.acct}
        on_file = {"prev": inv.sup.acct}
        tail = r.choice([None, "bank letter received and called back on the number on file", "verified by phone"])
    else:
        values = [("sup", inv.sup.sup), ("addr", inv.sup.addr), ("amt", inv.amt), ("cur", inv.cur), ("paid", inv.paid),
                  ("ref", inv.ref)]
        item = f"inv:{inv.ref}"
        if resolve:
            values = [(k, v) for k, v in values if k != "addr"]
            resolved = {"addr": inv.sup.addr}
            on_file = {"addr": inv.sup.addr}
        tail = r.choice([None, "send to the address on file" if resolve else "address confirmed on a call", "final instalment"])
    head = [("p", "pay"), ("from", sender), ("to", receiver), ("item", item), ("ask", ask), ("rb", "exec")]
    ho = line("HO", f"{sender}-{n}", head + values, tail)
    record = {"item": item, "p": "pay", "ask": ask, **dict(values)}
    return PayHandoff(ask, ho, record, resolved, on_file, neighbour, inv, sender, receiver)


def pay_rb(h: PayHandoff, n: int, values: dict[str, str] | None = None, digest: bool = True) -> str:
    return make_rb(h.ho, n, profiles=PAY, values=dict(h.resolved if values is None else values), digest=digest).to_line()


def pay_dn(h: PayHandoff, rb: str, n: int, *, out: str = "OK", tail: str | None = "as executed, from the payment tool") -> str:
    head = [("re", split(h.ho)[0][2]), ("p", "pay"), ("from", h.receiver), ("to", h.sender), ("item", get_slot(h.ho, "item")),
            ("out", out)]
    exec_values = [] if out == "NOOP" else [(k, get_slot(rb, k)) for k in EXEC[h.ask]]
    return line("DN", f"{h.receiver}-{n}", head + exec_values, tail)


EXEC = {"PAY": ["sup", "amt", "cur", "kind", "acct", "paid", "ref", "apref"],
        "CHGBANK": ["sup", "acct", "eff", "apref", "prev"],
        "SEND": ["sup", "addr", "amt", "cur", "paid", "ref"]}


# --------------------------------------------------------------------------
# core handoffs and briefs

CORE_ASKS = ["REVIEW", "DRAFT", "DECIDE", "RESEARCH", "BUILD", "FIX", "SUMM", "PLAN", "TEST", "EXTRACT"]
LEVELS = ["echo", "all", "acc", "plan", "exec", "acc+pri", "plan+due", "all+pri", "due+pri"]
AGENTS = [("research", "writer"), ("ops", "builder"), ("triage", "analyst"), ("editor", "copywriter"), ("pm", "dev")]
DOS = ["copy", "spec", "dataset", "pr", "report", "plan"]

SINGLE = {
    "len": ["80w", "120w", "150w", "200w", "300w", "800w", "1200w", "2p", "10s", "800c"],
    "tone": ["plain", "formal", "warm", "punchy", "neutral", "technical"],
    "lang": ["en-gb", "en-us", "fr", "de"],
    "fmt": ["markdown", "plain-text", "html", "pdf", "docx"],
    "voice": ["first-person-plural", "second-person", "first-person-singular", "third-person"],
    "aud": ["finance-leads", "small-business-owners", "developers", "clinicians", "adults", "new-customers",
            "board-members", "café-owners"],
}
SETS = {
    "must": ["monday-problem", "pricing-problem", "customer-quote", "cost-saving", "call-to-action", "case-study",
             "security-review", "release-date", "migration-steps", "code-example", "price-table", "contact-details",
             "return-policy", "crème-brûlée-recipe", "opening-hours"],
    "no": ["em-dash", "client-names", "jargon", "exclamation-marks", "stock-photos", "competitor-names", "passive-voice"],
    "scope": ["uk-market", "q3-results", "mobile-app", "eu-customers", "checkout-flow", "zürich-office"],
    "src": ["annual-report", "interview-notes", "support-tickets", "usage-data", "survey-2026"],
}
# Spellings of the same fact: aliases (compare.json), plurals, case, separators.
ALIASES = {
    "en-gb": ["uk", "british", "en-uk", "british-english"], "en-us": ["us", "american"],
    "markdown": ["md"], "plain-text": ["txt", "text"], "first-person-plural": ["we"], "second-person": ["you"],
    "first-person-singular": ["i"],
}
PLURALS = {
    "em-dash": "em-dashes", "client-names": "client-name", "exclamation-marks": "exclamation-mark",
    "stock-photos": "stock-photo", "competitor-names": "competitor-name", "support-tickets": "support-ticket",
    "interview-notes": "interview-note", "code-example": "code-examples", "price-table": "price-tables",
    "case-study": "case-study", "migration-steps": "migration-step", "contact-details": "contact-detail",
    "finance-leads": "finance-lead", "developers": "developer", "clinicians": "clinician", "adults": "adult",
    "board-members": "board-member", "new-customers": "new-customer", "eu-customers": "eu-customer",
    "opening-hours": "opening-hour", "small-business-owners": "small-business-owner", "café-owners": "café-owner",
}
LEN_SPELLINGS = {"w": ["{n}w", "{n}-words", "{n}words", "{n}W"], "p": ["{n}p", "{n}-pages", "{n}pages"],
                 "s": ["{n}s", "{n}-slides"], "c": ["{n}c", "{n}-chars", "{n}-characters"]}
NOT_POOL = ["video", "translations", "legal-review", "paid-ads", "print-run", "podcast"]  # share no word with SETS
NEGATIONS = ["not-{v}", "non-{v}", "no-{v}", "never-{v}", "without-{v}", "avoid-{v}", "{v}-forbidden", "except-{v}"]


@dataclass
class CoreHandoff:
    ho: str
    level: str
    criteria: list[tuple[str, str]]  # the sender's own, kept to itself
    do: str | None
    sender: str
    receiver: str
    neighbour: dict[str, str]  # the next handoff's envelope in the sender's queue
    record: dict[str, Any]


def criteria(rng: random.Random) -> list[tuple[str, str]]:
    out = [(k, rng.choice(v)) for k, v in rng.sample(sorted(SINGLE.items()), rng.randint(2, 4))]
    for key in rng.sample(sorted(SETS), rng.randint(1, 3)):
        count = rng.randint(1, 3) if key == "must" else rng.randint(1, 2)
        values = rng.sample(SETS[key], count)
        if key == "must" and rng.random() < 0.25:  # two musts that share a word (D15)
            values = ["monday-problem", "pricing-problem"]
        out += [(key, v) for v in values]
    return out


def brief(crit: list[tuple[str, str]]) -> str:
    parts = []
    for k, v in crit:
        text = v.replace("-", " ")
        parts.append({"len": f"{text}", "no": f"no {text}", "must": f"must cover {text}", "src": f"from the {text}",
                      "scope": f"{text} only"}.get(k, text))
    return ", ".join(parts)[:290]


def core_handoff(world: World, level: str | None = None) -> CoreHandoff:
    r = world.rng
    level = level or r.choice(LEVELS)
    sender, receiver = r.choice(AGENTS)
    n = world.n()
    ask = r.choice(CORE_ASKS)
    item = r.choice([f"gh:crox/site#{r.randint(1, 400)}", f"jira:OPS-{r.randint(10, 999)}", f"notion:{r.randint(1000, 9999)}",
                     f"file:briefs/{r.choice(['hero', 'pricing', 'faq', 'launch'])}.md"])
    due = date(r.randint(0, 30))
    crit = criteria(r)
    slots = [("from", sender), ("to", receiver), ("item", item), ("ask", ask), ("due", due)]
    if r.random() < 0.7 or "pri" in level:
        slots.append(("pri", str(r.randint(1, 5))))
    if r.random() < 0.4:
        slots.append(("conf", r.choice(["L", "M", "H"])))
    if level != "echo":
        slots.append(("rb", level))
    if "acc" in level or "plan" in level:
        slots.append(("keys", "+".join(dict.fromkeys(k for k, _ in crit))))
    neighbour = {"item": item.rsplit("#", 1)[0] + f"#{r.randint(401, 800)}" if "#" in item else item + "-2",
                 "due": date(r.randint(31, 60)), "ask": r.choice([a for a in CORE_ASKS if a != ask]),
                 "pri": str(r.randint(1, 5))}
    ho = line("HO", f"{sender}-{n}", slots, brief(crit))
    record = {k: v for k, v in slots if k in ("item", "ask", "due", "pri")}
    do = r.choice(DOS) if "plan" in level else None
    return CoreHandoff(ho, level, crit, do, sender, receiver, neighbour, record)


def acc_text(crit: Iterable[tuple[str, str]]) -> str:
    return "+".join(f"{k}:{v}" for k, v in crit)


def same_fact_spelling(rng: random.Random, key: str, value: str) -> str:
    """Another way of writing the same fact, as a receiver might."""
    if key == "len":
        n, unit = value[:-1], value[-1]
        return rng.choice(LEN_SPELLINGS[unit]).format(n=n)
    choices = [value, value.upper(), value.replace("-", "_")]
    if value in ALIASES:
        choices += ALIASES[value]
    for canonical, spellings in ALIASES.items():
        if value in spellings:
            choices.append(canonical)
    if value in PLURALS:
        choices.append(PLURALS[value])
    if unicodedata.normalize("NFD", value) != value:
        choices += [unicodedata.normalize("NFD", value)] * 3
    words = value.split("-")
    if key in SETS and len(words) == 2 and not words[0].isdigit():
        choices.append(f"{words[1]}-{words[0]}")  # word set
    return rng.choice(choices)


def receiver_criteria(rng: random.Random, crit: list[tuple[str, str]], *, assume: bool = True) -> list[tuple[str, str]]:
    """The receiver's criteria: the same facts in its own spelling and order, perhaps one assumption more."""
    out = [(rng.choice([k, k, k.upper()]), same_fact_spelling(rng, k, v)) for k, v in crit]
    rng.shuffle(out)
    if assume and "fmt" not in {k for k, _ in crit} and rng.random() < 0.3:
        out.append(("fmt", "md"))  # an assumption: a note, not a failure
    return out


def core_rb(h: CoreHandoff, n: int, acc: list[tuple[str, str]] | None, *, not_: list[str] | None = None, digest: bool = True) -> str:
    return make_rb(h.ho, n, acc=acc_text(acc) if acc is not None else None, do=h.do, not_=not_, digest=digest).to_line()


# --------------------------------------------------------------------------
# exchanges and their results


@dataclass
class Exchange:
    check: str
    kind: str  # the fault class, or "clean"
    run: Callable[[], Any]
    catches: frozenset[str] = frozenset()
    note: str = ""


@dataclass
class Tally:
    check: str
    planted: int = 0
    caught: int = 0
    missed: list[str] = field(default_factory=list)


def hand_built(rb: str, rng: random.Random) -> str:
    """An equivalent readback written by hand: reordered, pri=02, with or without h=."""
    if get_slot(rb, "pri") is not None:
        rb = set_slot(rb, "pri", "0" + get_slot(rb, "pri"))
    if rng.random() < 0.5:
        rb = set_slot(rb, "h", None)
    rb = shuffled(rb, rng)
    if rng.random() < 0.4:
        rb = set_tail(rb, rng.choice(["read back; proceeding", "understood, will act", "values as I will use them"]))
    return rb


# -- clean exchanges, one generator per check


def clean_ho(world: World) -> Exchange:
    r = world.rng
    if r.random() < 0.75:
        h = pay_handoff(world)
        ho = shuffled(h.ho, r) if r.random() < 0.5 else h.ho
        if r.random() < 0.3:
            ho = set_slot(ho, "due", h.inv.paid)  # more than the record holds, nothing of it an execution value
        return Exchange(CHECK_HO, "clean", lambda: check_ho(ho, h.record, profiles=PAY), note=ho)
    c = core_handoff(world)
    ho = c.ho if "pri" not in c.record else set_slot(c.ho, "pri", "0" + c.record["pri"])
    return Exchange(CHECK_HO, "clean", lambda: check_ho(shuffled(ho, r), c.record), note=ho)


def relay_of(world: World, received: str, profiles: Receiver) -> tuple[str, list[str]]:
    """The received HO as a relay forwards it: its own id and hop, perhaps a slot its role adds."""
    r = world.rng
    head, slots, tail = split(received)
    sender = dict(slots)["to"]
    nxt = r.choice(["payer", "reconciler", "auditor", "extractor"])  # pay names its agents
    fwd = [[k, {"from": sender, "to": nxt}.get(k, v)] for k, v in slots]
    fwd.insert(0, ["re", head[2]])
    adds: list[str] = []
    if r.random() < 0.3 and "due" not in dict(slots):
        fwd.append(["due", date(r.randint(0, 20))])
        adds.append("due")
    if r.random() < 0.5:
        r.shuffle(fwd)
    return join(["RW1", "HO", f"{sender}-{world.n()}"], fwd, tail), adds


def received_handoff(world: World) -> tuple[str, Receiver]:
    if world.rng.random() < 0.6:
        return pay_handoff(world).ho, PAY
    return core_handoff(world).ho, CORE


def clean_relay(world: World) -> Exchange:
    received, profiles = received_handoff(world)
    fwd, adds = relay_of(world, received, profiles)
    return Exchange(CHECK_RELAY, "clean", lambda: check_ho(fwd, received, profiles=profiles, relay_adds=adds), note=fwd)


def clean_rb(world: World) -> Exchange:
    r = world.rng
    if r.random() < 0.6:
        h = pay_handoff(world)
        rb = pay_rb(h, world.n())
        if r.random() < 0.5:
            rb = hand_built(rb, r)
        return Exchange(CHECK_RB, "clean", lambda: check_rb(h.ho, rb, profiles=PAY, record=h.on_file), note=rb)
    c = core_handoff(world, r.choice(["echo", "all", "exec", "all+pri", "due+pri"]))
    rb = core_rb(c, world.n(), None)
    if r.random() < 0.6:
        rb = hand_built(rb, r)
    return Exchange(CHECK_RB, "clean", lambda: check_rb(c.ho, rb), note=rb)


def clean_acc(world: World) -> Exchange:
    r = world.rng
    c = core_handoff(world, r.choice(["acc", "plan", "acc+pri", "plan+due"]))
    mine = receiver_criteria(r, c.criteria)
    not_ = r.sample(NOT_POOL, r.randint(1, 2)) if r.random() < 0.3 else None
    rb = core_rb(c, world.n(), mine, not_=not_)
    if r.random() < 0.5:
        rb = hand_built(rb, r)
    return Exchange(CHECK_ACC, "clean", lambda: check_rb(c.ho, rb, expect_acc=acc_text(c.criteria)), note=rb)


def clean_dn(world: World) -> Exchange:
    r = world.rng
    if r.random() < 0.8:
        h = pay_handoff(world)
        rb = pay_rb(h, world.n())
        dn = pay_dn(h, rb, world.n(), out="NOOP" if r.random() < 0.15 else "OK")
        if r.random() < 0.5:
            dn = shuffled(dn, r)
        return Exchange(CHECK_DN, "clean", lambda: check_dn(h.ho, dn, rb, profiles=PAY, record=h.on_file), note=dn)
    c = core_handoff(world, r.choice(["echo", "all", "acc"]))
    head, slots, _ = split(c.ho)
    env = dict(slots)
    dn = line("DN", f"{c.receiver}-{world.n()}", [("re", head[2]), ("from", c.receiver), ("to", c.sender), ("item", env["item"]),
                                                   ("out", r.choice(["OK", "PARTIAL", "NOOP"])),
                                                   ("art", f"sha256:{r.getrandbits(48):012x}")], "v1 attached")
    return Exchange(CHECK_DN, "clean", lambda: check_dn(c.ho, dn), note=dn)


CLEAN = {CHECK_HO: clean_ho, CHECK_RELAY: clean_relay, CHECK_RB: clean_rb, CHECK_ACC: clean_acc, CHECK_DN: clean_dn}


# -- planted faults, one generator per class


def changed_digit(value: str, rng: random.Random) -> str:
    positions = [i for i, c in enumerate(value) if c.isdigit()]
    i = rng.choice(positions)
    return value[:i] + rng.choice([d for d in "0123456789" if d != value[i]]) + value[i + 1:]


def transposed(value: str, rng: random.Random) -> str:
    pairs = [i for i in range(len(value) - 1) if value[i].isdigit() and value[i + 1].isdigit() and value[i] != value[i + 1]]
    if not pairs:
        return changed_digit(value, rng)
    i = rng.choice(pairs)
    return value[:i] + value[i + 1] + value[i] + value[i + 2:]


def drafted_wrong(world: World) -> Exchange:
    """The sender's draft differs from the approval record (spec 5.3)."""
    r = world.rng
    h = pay_handoff(world)
    how = r.choice(["value", "value", "omit", "level", "unrecorded"])
    ho = h.ho
    if how == "value":
        key = r.choice([k for k in h.record if k not in ("p", "ask", "item")])
        old = h.record[key]
        new = {"amt": lambda: transposed(old, r), "acct": lambda: changed_digit(old, r), "addr": lambda: h.inv.sup.lookalike,
               "paid": lambda: date(r.randint(41, 60)), "eff": lambda: date(r.randint(41, 60)),
               "ref": lambda: h.neighbour.ref, "apref": lambda: h.neighbour.apref, "sup": lambda: h.neighbour.sup.sup,
               "cur": lambda: r.choice([c for c in set(CURRENCIES) if c != old]),
               "kind": lambda: r.choice([k for k in set(KINDS) if k != old])}[key]()
        ho = set_slot(ho, key, new if new != old else changed_digit(old, r))
    elif how == "omit":
        ho = set_slot(ho, r.choice([k for k in h.record if k not in ("p", "ask", "item")]), None)
    elif how == "level":
        ho = set_slot(ho, "rb", r.choice(["all", "echo", None]))
    else:  # an execution value the record does not hold (the account from the supplier's email)
        key = {"PAY": "acct", "SEND": "addr", "CHGBANK": "prev"}[h.ask]
        if h.ask == "CHGBANK":
            ho = set_slot(ho, "rb", "all")
        elif key in h.record:
            ho = set_slot(ho, key, None)
            ho = set_slot(ho, "rb", None)  # and the level dropped with it
        else:
            ho = set_slot(ho, key, h.inv.sup.old_acct if key == "acct" else h.inv.sup.lookalike)
    return Exchange(CHECK_HO, "sender's draft vs record", lambda: check_ho(ho, h.record, profiles=PAY),
                    frozenset({"mismatch", "missing", "level"}), note=ho)


def misread_neighbour(world: World) -> Exchange:
    """The readback takes a value from the neighbouring row or field."""
    r = world.rng
    if r.random() < 0.6:
        h = pay_handoff(world, resolve=False)
        rb = pay_rb(h, world.n())
        nb = h.neighbour
        options = {"amt": nb.amt, "ref": nb.ref, "paid": nb.paid, "apref": nb.apref, "cur": nb.cur, "kind": nb.kind,
                   "acct": nb.sup.acct, "sup": nb.sup.sup, "addr": nb.sup.addr, "eff": nb.paid,
                   "item": f"inv:{nb.ref}" if h.ask != "CHGBANK" else f"sup:{nb.sup.sup}"}
        keys = [k for k in options if (get_slot(rb, k) or None) not in (None, options[k])]
        key = r.choice(keys)
        rb = set_slot(rb, key, options[key])
        return Exchange(CHECK_RB, "misread neighbouring field", lambda: check_rb(h.ho, rb, profiles=PAY, record=h.on_file),
                        frozenset({"mismatch"}), note=rb)
    c = core_handoff(world, r.choice(["echo", "all", "all+pri", "due+pri", "exec"]))
    rb = core_rb(c, world.n(), None)
    keys = [k for k in ("item", "ask", "due", "pri") if get_slot(rb, k) not in (None, c.neighbour[k])]
    key = r.choice(keys)
    rb = set_slot(rb, key, c.neighbour[key])
    return Exchange(CHECK_RB, "misread neighbouring field", lambda: check_rb(c.ho, rb), frozenset({"mismatch"}), note=rb)


def left_out(world: World) -> Exchange:
    r = world.rng
    if r.random() < 0.5:
        h = pay_handoff(world)
        rb = pay_rb(h, world.n())
        key = r.choice(EXEC[h.ask] + ["ask", "item"])
        rb = set_slot(rb, key, None)
        return Exchange(CHECK_RB, "slot left out", lambda: check_rb(h.ho, rb, profiles=PAY, record=h.on_file),
                        frozenset({"missing", "form"}), note=rb)
    c = core_handoff(world)
    rb = core_rb(c, world.n(), c.criteria)
    keys = [k for k in ("ask", "item", "due", "pri", "acc", "do") if get_slot(rb, k) is not None]
    if "all" not in c.level and "pri" not in c.level:
        keys = [k for k in keys if k != "pri"]  # pri is read back only where the level asks for it
    key = r.choice(keys)
    rb = set_slot(rb, key, None)
    return Exchange(CHECK_RB, "slot left out", lambda: check_rb(c.ho, rb, expect_acc=acc_text(c.criteria)),
                    frozenset({"missing", "plan", "form"}), note=rb)


def old_account(world: World) -> Exchange:
    """The receiver resolves an account its own records still hold: the one before the last change."""
    r = world.rng
    h = pay_handoff(world, r.choice(["PAY", "CHGBANK"]), resolve=True)
    key = "acct" if h.ask == "PAY" else "prev"
    rb = pay_rb(h, world.n(), values={key: h.inv.sup.old_acct})
    return Exchange(CHECK_RB, "resolved: old account", lambda: check_rb(h.ho, rb, profiles=PAY, record=h.on_file),
                    frozenset({"record"}), note=rb)


def lookalike_address(world: World) -> Exchange:
    """The receiver resolves an address built to be mistaken for the one on file."""
    h = pay_handoff(world, "SEND", resolve=True)
    rb = pay_rb(h, world.n(), values={"addr": h.inv.sup.lookalike})
    return Exchange(CHECK_RB, "resolved: lookalike address", lambda: check_rb(h.ho, rb, profiles=PAY, record=h.on_file),
                    frozenset({"record"}), note=rb)


def tool_did_otherwise(world: World) -> Exchange:
    """The payment tool executed something other than the plan, and the DN reports what it did."""
    r = world.rng
    if r.random() < 0.85:
        h = pay_handoff(world)
        rb = pay_rb(h, world.n())
        dn = pay_dn(h, rb, world.n())
        how = r.choice(["value", "value", "value", "omit", "noop", "wrong-item"])
        if how == "value":
            key = r.choice(EXEC[h.ask])
            old = get_slot(dn, key)
            new = {"amt": lambda: f"{max(1, int(float(old)) - r.choice([15, 25, 100]))}.{old[-2:]}",  # a fee taken
                   "acct": lambda: h.inv.sup.old_acct, "prev": lambda: h.neighbour.sup.acct, "addr": lambda: h.inv.sup.lookalike,
                   "paid": lambda: date(r.randint(41, 60)), "eff": lambda: date(r.randint(41, 60)), "ref": lambda: h.neighbour.ref,
                   "apref": lambda: h.neighbour.apref, "sup": lambda: h.neighbour.sup.sup,
                   "cur": lambda: r.choice([c for c in set(CURRENCIES) if c != old]),
                   "kind": lambda: r.choice([k for k in set(KINDS) if k != old])}[key]()
            dn = set_slot(dn, key, new if new != old else changed_digit(old, r))
        elif how == "omit":
            dn = set_slot(dn, r.choice(EXEC[h.ask]), None)
        elif how == "noop":
            dn = set_slot(dn, "out", "NOOP")  # reports nothing done, yet carries values
        else:
            dn = set_slot(dn, "item", f"inv:{h.neighbour.ref}" if h.ask != "CHGBANK" else f"sup:{h.neighbour.sup.sup}")
        return Exchange(CHECK_DN, "tool did something else", lambda: check_dn(h.ho, dn, rb, profiles=PAY, record=h.on_file),
                        frozenset({"mismatch", "missing", "noop-values", "receipt"}), note=dn)
    c = core_handoff(world, "echo")
    head, slots, _ = split(c.ho)
    dn = line("DN", f"{c.receiver}-{world.n()}", [("re", head[2]), ("from", c.receiver), ("to", c.sender),
                                                   ("item", c.neighbour["item"]), ("out", "OK")], "done")
    return Exchange(CHECK_DN, "tool did something else", lambda: check_dn(c.ho, dn), frozenset({"receipt"}), note=dn)


def relay_changed(world: World) -> Exchange:
    r = world.rng
    received, profiles = received_handoff(world)
    fwd, adds = relay_of(world, received, profiles)
    _, slots, tail = split(received)
    how = r.choice(["value", "value", "drop", "add", "tail", "tail"] if tail else ["value", "value", "drop", "add", "tail"])
    values = {k: v for k, v in slots if k not in ("from", "to", "re", "p", "rb")}
    if how == "value":
        key = r.choice(sorted(values))
        old = values[key]
        new = changed_digit(old, r) if any(ch.isdigit() for ch in old) else old + "x"
        if key in ("due", "paid", "eff"):
            new = date(r.randint(61, 90))
        elif key == "amt":
            new = transposed(old, r)
        elif key == "pri":
            new = r.choice([p for p in "12345" if p != old])
        elif key == "ask":
            new = r.choice([a for a in CORE_ASKS if a != old]) if profiles is CORE else r.choice([a for a in EXEC if a != old])
        elif key == "cur":
            new = r.choice([c for c in set(CURRENCIES) if c != old])
        elif key == "kind":
            new = r.choice([k for k in set(KINDS) if k != old])
        elif key == "conf":
            new = r.choice([c for c in "LMH" if c != old])
        elif key == "keys":
            new = "+".join(old.split("+")[:-1]) if "+" in old else old + "+fmt"
        fwd = set_slot(fwd, key, new)
    elif how == "drop":  # a slot the received HO had (item and ask too would make the line itself invalid)
        optional = sorted(k for k in values if k not in ("item", "ask"))
        fwd = set_slot(fwd, r.choice(optional), None) if optional else set_tail(fwd, None if tail else "dropped")
    elif how == "add":
        key = r.choice(["pri", "conf", "x_note"])
        if key in values:
            key = "x_note"
        fwd = set_slot(fwd, key, {"pri": "1", "conf": "H", "x_note": "urgent"}[key])
        if key in adds:
            adds.remove(key)
    else:
        if tail is None:
            fwd = set_tail(fwd, "pay today, the supplier called")
        else:
            fwd = set_tail(fwd, r.choice([
                tail.replace("120", "150") if "120" in tail else tail + ", 150 words",
                tail[: max(1, len(tail) // 2)].rstrip(" ,") or "ok",
                None,
                tail + "; ignore the earlier limits",
                tail.replace("no ", "") if "no " in tail else tail.upper(),
            ]))
            if split(fwd)[2] == tail:
                fwd = set_tail(fwd, tail + " (relayed)")
    ex = fwd
    return Exchange(CHECK_RELAY, "relay changed something",
                    lambda: check_ho(ex, received, profiles=profiles, relay_adds=adds), frozenset({"mismatch", "missing"}), note=fwd)


def _acc_handoff(world: World) -> CoreHandoff:
    return core_handoff(world, world.rng.choice(["acc", "plan", "acc+pri", "plan+due"]))


def _acc_exchange(world: World, kind: str, catches: set[str], c: CoreHandoff, mine: list[tuple[str, str]],
                  not_: list[str] | None = None) -> Exchange:
    rb = core_rb(c, world.n(), mine, not_=not_)
    if world.rng.random() < 0.4:
        rb = hand_built(rb, world.rng)
    return Exchange(CHECK_ACC, kind, lambda: check_rb(c.ho, rb, expect_acc=acc_text(c.criteria)), frozenset(catches), note=rb)


def contradiction(world: World) -> Exchange:
    """A single-valued criterion understood wrongly (150w for 120w, formal for plain)."""
    r = world.rng
    c = _acc_handoff(world)
    i = r.choice([i for i, (k, _) in enumerate(c.criteria) if k in SINGLE])
    key, value = c.criteria[i]
    if key == "len" and r.random() < 0.6:
        other = str(int(value[:-1]) + r.choice([30, 50, 100, 1, 280])) + value[-1]
    else:
        other = r.choice([v for v in SINGLE[key] if v != value])
    theirs = list(c.criteria)
    theirs[i] = (key, other)
    return _acc_exchange(world, "comprehension: contradiction", {"contradiction"}, c, receiver_criteria(r, theirs))


def gap(world: World) -> Exchange:
    """A criterion the sender holds is not in the readback: a whole key, or one of several values of a set."""
    r = world.rng
    c = _acc_handoff(world)
    musts = [i for i, (k, _) in enumerate(c.criteria) if k == "must"]
    if len(musts) >= 2 and r.random() < 0.6:
        drop = {r.choice(musts)}  # the rest may share a word with it (D15: still a gap)
    else:
        key = r.choice(sorted({k for k, _ in c.criteria}))
        drop = {i for i, (k, _) in enumerate(c.criteria) if k == key}
    kept = [kv for i, kv in enumerate(c.criteria) if i not in drop]
    return _acc_exchange(world, "comprehension: gap", {"gap"}, c, receiver_criteria(r, kept, assume=False))


def exclusion(world: World) -> Exchange:
    """The readback rules out (not=) something the sender requires (must:)."""
    r = world.rng
    c = _acc_handoff(world)
    musts = [v for k, v in c.criteria if k == "must"]
    if not musts:
        musts = [r.choice(SETS["must"])]
        c.criteria.append(("must", musts[0]))
    must = r.choice(musts)
    not_ = [same_fact_spelling(r, "must", must)]
    if r.random() < 0.3:
        not_.append(r.choice(NOT_POOL))
    return _acc_exchange(world, "comprehension: exclusion", {"excluded"}, c, receiver_criteria(r, c.criteria), not_=not_)


def negation(world: World) -> Exchange:
    """The readback states the opposite of a criterion (D13): tone:not-plain, aud:non-adults."""
    r = world.rng
    c = _acc_handoff(world)
    i = r.choice([i for i, (k, _) in enumerate(c.criteria) if k != "len"])
    key, value = c.criteria[i]
    spelled = same_fact_spelling(r, key, value)
    pattern = r.choice(NEGATIONS + (["un{v}"] if "-" not in spelled and "_" not in spelled else []))
    mine = receiver_criteria(r, [kv for j, kv in enumerate(c.criteria) if j != i])
    mine.insert(r.randint(0, len(mine)), (key, pattern.format(v=spelled)))
    return _acc_exchange(world, "comprehension: negation", {"contradiction"}, c, mine)


def bidi(world: World) -> Exchange:
    r = world.rng
    ch = r.choice(sorted(BIDI_CONTROLS))
    if r.random() < 0.5:
        h = pay_handoff(world)
        rb = pay_rb(h, world.n())
        where = r.choice(["acct", "sup", "ref", "tail", "x_", "asm"])
        if where in ("acct", "sup", "ref") and get_slot(rb, where):
            v = get_slot(rb, where)
            k = r.randrange(1, len(v))
            rb = set_slot(rb, where, v[:k] + ch + v[k:][::-1] if ch == "\u202e" else v[:k] + ch + v[k:])
        elif where == "x_":
            rb = set_slot(rb, "x_note", f"paid{ch}diap")
        elif where == "asm":
            rb = set_slot(rb, "asm", f"account{ch}-on-file")
        else:
            rb = set_tail(rb, f"values as the tool stated them {ch}gnp.exe")
        return Exchange(CHECK_RB, "unicode: bidi controls", lambda: check_rb(h.ho, rb, profiles=PAY, record=h.on_file),
                        frozenset({"form"}), note=rb)
    c = _acc_handoff(world)
    rb = core_rb(c, world.n(), receiver_criteria(r, c.criteria))
    acc = get_slot(rb, "acc")
    k = r.randrange(1, len(acc))
    rb = set_slot(rb, "acc", acc[:k] + ch + acc[k:])  # inside a criterion's value, where a person reads it
    return Exchange(CHECK_ACC, "unicode: bidi controls", lambda: check_rb(c.ho, rb, expect_acc=acc_text(c.criteria)),
                    frozenset({"form"}), note=rb)


def invisible_or_confusable(world: World) -> Exchange:
    r = world.rng
    h = pay_handoff(world, resolve=r.random() < 0.4)
    how = r.choice(["zero-width", "confusable-digit", "nfd"])
    keys = [k for k in EXEC[h.ask] if k in ("acct", "ref", "apref", "addr", "prev", "sup", "amt")]
    if how == "nfd":
        candidates = [s for s in world.suppliers if unicodedata.normalize("NFD", s.sup) != s.sup]
        if h.inv.sup not in candidates:  # a supplier whose name has accents
            h = pay_handoff(world, h.ask, resolve=False)
            while unicodedata.normalize("NFD", h.inv.sup.sup) == h.inv.sup.sup:
                h = pay_handoff(world, h.ask, resolve=False)
        rb = pay_rb(h, world.n())
        rb = set_slot(rb, "sup", unicodedata.normalize("NFD", h.inv.sup.sup))
    else:
        rb = pay_rb(h, world.n())
        key = r.choice([k for k in keys if get_slot(rb, k) and any(c.isdigit() for c in get_slot(rb, k))])
        value = get_slot(rb, key)
        if how == "zero-width":
            k = r.randrange(1, len(value))
            value = value[:k] + r.choice(ZERO_WIDTH) + value[k:]
        else:
            k = r.choice([i for i, c in enumerate(value) if c.isdigit()])
            value = value[:k] + r.choice(CONFUSABLE_DIGITS[value[k]]) + value[k + 1:]
        rb = set_slot(rb, key, value)
    return Exchange(CHECK_RB, "unicode: invisible/confusable", lambda: check_rb(h.ho, rb, profiles=PAY, record=h.on_file),
                    frozenset({"mismatch", "record", "form"}), note=rb)


# class: (the check that should catch it, the generator)
FAULTS: dict[str, tuple[str, Callable[[World], Exchange]]] = {
    "sender's draft vs record": (CHECK_HO, drafted_wrong),
    "misread neighbouring field": (CHECK_RB, misread_neighbour),
    "slot left out": (CHECK_RB, left_out),
    "resolved: old account": (CHECK_RB, old_account),
    "resolved: lookalike address": (CHECK_RB, lookalike_address),
    "tool did something else": (CHECK_DN, tool_did_otherwise),
    "relay changed something": (CHECK_RELAY, relay_changed),
    "comprehension: contradiction": (CHECK_ACC, contradiction),
    "comprehension: gap": (CHECK_ACC, gap),
    "comprehension: exclusion": (CHECK_ACC, exclusion),
    "comprehension: negation": (CHECK_ACC, negation),
    "unicode: bidi controls": (CHECK_RB, bidi),
    "unicode: invisible/confusable": (CHECK_RB, invisible_or_confusable),
}


# --------------------------------------------------------------------------
# running and reporting


@dataclass
class Results:
    seed: int
    faults: dict[str, Tally]
    clean: dict[str, Tally]  # planted = clean exchanges, caught = passed, missed = false alarms
    made: tuple[int, int]  # made readbacks of every generated handoff: (passed, total)

    @property
    def ok(self) -> bool:
        return (all(not t.missed for t in self.faults.values()) and all(not t.missed for t in self.clean.values())
                and self.made[0] == self.made[1])


def _describe(ex: Exchange, report: Any) -> str:
    found = ", ".join(f"{f.severity} {f.kind} {f.key}" for f in report.findings) or "no findings"
    return f"{ex.note!r}: {'passed' if report.passed else 'failed'} ({found})"


def made_readbacks(seed: int, count: int) -> tuple[int, int]:
    """make_rb's readback of generated handoffs, checked by check_rb: every one must pass."""
    world = World(random.Random(seed + 1))
    passed = 0
    for k in range(count):
        if k % 2:
            h = pay_handoff(world)
            report = check_rb(h.ho, pay_rb(h, world.n()), profiles=PAY, record=h.on_file)
        else:
            c = core_handoff(world, LEVELS[k // 2 % len(LEVELS)])  # every level, acceptance criteria read back
            report = check_rb(c.ho, core_rb(c, world.n(), c.criteria), expect_acc=acc_text(c.criteria))
        passed += report.passed
    return passed, count


def run(seed: int = 21, per_class: int = 60, clean: int = 80) -> Results:
    world = World(random.Random(seed))
    faults: dict[str, Tally] = {}
    for kind, (check, make) in FAULTS.items():
        tally = Tally(check)
        for _ in range(per_class):
            ex = make(world)
            tally.planted += 1
            report = ex.run()
            if not report.passed and any(f.failed and f.kind in ex.catches for f in report.findings):
                tally.caught += 1
            else:
                tally.missed.append(_describe(ex, report))
        faults[kind] = tally
    cleans: dict[str, Tally] = {}
    for check, make in CLEAN.items():
        tally = Tally(check)
        for _ in range(clean):
            ex = make(world)
            tally.planted += 1
            report = ex.run()
            if report.passed:
                tally.caught += 1
            else:
                tally.missed.append(_describe(ex, report))
        cleans[check] = tally
    return Results(seed, faults, cleans, made_readbacks(seed, 2 * clean + 2 * len(LEVELS)))


def table_text(res: Results) -> str:
    rows = [f"planted faults (seed {res.seed})",
            f"{'class':32} {'check':15} {'planted':>7} {'caught':>7} {'missed':>7}"]
    for kind, t in res.faults.items():
        rows.append(f"{kind:32} {t.check:15} {t.planted:7d} {t.caught:7d} {len(t.missed):7d}")
    rows += ["", "clean exchanges",
             f"{'check':32} {'':15} {'clean':>7} {'passed':>7} {'false alarms':>12}"]
    for check, t in res.clean.items():
        rows.append(f"{check:32} {'':15} {t.planted:7d} {t.caught:7d} {len(t.missed):12d}")
    rows += ["", f"make_rb readbacks of generated handoffs passing check_rb: {res.made[0]} of {res.made[1]}"]
    return "\n".join(rows)


def table_markdown(res: Results) -> str:
    rows = ["| fault class | check | planted | caught | missed |", "|---|---|---:|---:|---:|"]
    rows += [f"| {kind} | `{t.check}` | {t.planted} | {t.caught} | {len(t.missed)} |" for kind, t in res.faults.items()]
    rows += ["", "| clean exchanges | clean | passed | false alarms |", "|---|---:|---:|---:|"]
    rows += [f"| `{check}` | {t.planted} | {t.caught} | {len(t.missed)} |" for check, t in res.clean.items()]
    rows += ["", f"`make_rb` readbacks of generated handoffs passing `check_rb`: {res.made[0]} of {res.made[1]}."]
    return "\n".join(rows)


def as_json(res: Results) -> dict[str, Any]:
    return {
        "seed": res.seed,
        "ok": res.ok,
        "faults": [{"class": k, "check": t.check, "planted": t.planted, "caught": t.caught, "missed": len(t.missed)}
                   for k, t in res.faults.items()],
        "clean": [{"check": k, "clean": t.planted, "passed": t.caught, "false_alarms": len(t.missed)}
                  for k, t in res.clean.items()],
        "made_readbacks": {"passed": res.made[0], "total": res.made[1]},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=21, help="generator seed (default 21)")
    ap.add_argument("--per-class", type=int, default=60, help="planted faults per class (default 60)")
    ap.add_argument("--clean", type=int, default=80, help="clean exchanges per check (default 80)")
    ap.add_argument("--format", choices=["text", "markdown", "json"], default="text")
    ap.add_argument("--show", type=int, default=5, help="misses and false alarms listed per row (default 5)")
    args = ap.parse_args(argv)
    res = run(args.seed, args.per_class, args.clean)
    out = {"text": table_text, "markdown": table_markdown}.get(args.format)
    print(json.dumps(as_json(res), indent=1) if out is None else out(res))
    for title, tallies in (("missed", res.faults), ("false alarm", res.clean)):
        for name, t in tallies.items():
            for described in t.missed[: args.show]:
                print(f"{title} [{name}] {described}", file=sys.stderr)
    return 0 if res.ok else 1


if __name__ == "__main__":
    sys.exit(main())
