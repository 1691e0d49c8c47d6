"""A corpus no memo can flatter: every line's values drawn fresh from a seeded generator.

``parse_bench.py``'s own corpus repeats a dozen lines with new numbers, so
most of a line's slots (``to=writer``, ``ask=DRAFT``, ``due=20261002``) are
ones the accept path's memo has decoded before. A stream between agents is
not like that: ids count up, dates, amounts and references change on every
line, and people write tails of every length. This corpus has

* 50 agents on the core lines (a role and a number: ``writer7``), and pay's
  five named agents on its lines (docs/reference.md V1);
* about 30% ``p=pay`` lines (handoffs, readbacks and invoice statuses, with
  fresh amounts whose ``net + vat = amt`` holds, accounts, references and
  payment dates), the rest the nine core types;
* fresh ids, dates, times, percentages, items and digests on every line;
* a tail on about 65% of lines, 1 to 300 characters of words (a few not
  ASCII), for a mean line of about 225 characters;
* about a quarter of lines written as the reference codec writes them: the
  envelope (``re from to item``), then every other slot in the profile's
  declared order, the rest as people write them (the order varies).

Every line is valid (``parse_bench.py`` checks it before timing). Run it to
print a sample and the corpus's shape::

    python benchmarks/realistic_corpus.py [--lines 20000] [--seed 33] [--show 5]
"""

from __future__ import annotations

import argparse
import random
import string
from typing import Callable

AGENTS = [f"{role}{n}" for role in ("research", "writer", "planner", "ops", "builder", "triage", "review", "data",
                                    "support", "scout") for n in range(1, 6)]
PAY_AGENTS = ["extractor", "reconciler", "scheduler", "auditor", "payer"]  # pay names its agents
ENVELOPE = ("re", "from", "to", "item")
# The core's and pay's slot order as the profiles declare it (rogerwilco.core.vocab compiles the
# same order): the order the reference codec writes a line's slots in, after the envelope.
DECLARED = ("p", "ask", "due", "by", "exp", "pri", "conf", "keep", "art", "ctx", "eta", "pct", "blk", "need", "opts",
            "val", "out", "next", "why", "alt", "retry", "keys", "rb", "h", "acc", "do", "not", "asm", "sup", "amt",
            "cur", "kind", "acct", "paid", "ref", "apref", "eff", "addr", "net", "vat", "prev", "src", "po", "dec",
            "flag", "appr", "var", "n", "tot")
WORDS = ("draft review copy sources figures table invoice supplier ledger totals customer release build test "
         "deploy rollback schema migration index query latency cache budget quarter forecast notes summary "
         "outline headline tone brief legal approval vendor contract renewal ticket backlog sprint owner "
         "deadline risk blocked waiting confirmed attached see thread above below agreed pending checked "
         "café naïve résumé 东京 — ≈ 42 3.5% v2 #17 (draft) [ok] x2").split()
ASKS = ("REVIEW", "DRAFT", "DECIDE", "RESEARCH", "BUILD", "FIX", "SUMM", "PLAN", "TEST", "EXTRACT")
WHY = ("NOCAP", "NOCTX", "PERM", "BUSY", "CONFLICT", "DUP", "SCOPE", "ERR", "TIMEOUT")
CURRENCIES = ("GBP", "USD", "EUR", "CHF", "SEK", "NOK", "PLN")


class _Draw:
    """The values of one corpus, drawn from one seeded generator."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.counter = {a: self.rng.randrange(1, 400) for a in AGENTS + PAY_AGENTS}

    def msgid(self, agent: str) -> str:
        self.counter[agent] += self.rng.randrange(1, 4)
        return f"{agent}-{self.counter[agent]}"

    def earlier(self, agent: str) -> str:
        return f"{agent}-{self.rng.randrange(1, 5000)}"

    def date(self) -> str:
        return f"{self.rng.choice((2026, 2027))}{self.rng.randrange(1, 13):02d}{self.rng.randrange(1, 29):02d}"

    def time(self) -> str:
        return f"{self.date()}T{self.rng.randrange(24):02d}{self.rng.randrange(60):02d}Z"

    def item(self) -> str:
        r = self.rng
        kind = r.randrange(4)
        if kind == 0:
            return f"gh:{r.choice(('crox', 'acme', 'north'))}/{r.choice(('site', 'api', 'docs', 'etl'))}#{r.randrange(1, 9999)}"
        if kind == 1:
            return f"jira:{r.choice(('OPS', 'WEB', 'FIN', 'DATA'))}-{r.randrange(1, 99999)}"
        if kind == 2:
            return f"doc:{self.word()}-{self.word()}-{r.randrange(100)}"
        return f"url:https://example.com/{self.word()}/{r.randrange(1, 10**6)}"

    def word(self) -> str:
        return "".join(self.rng.choice(string.ascii_lowercase) for _ in range(self.rng.randrange(3, 9)))

    def hexes(self, n: int) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def money(self, low: int, high: int) -> tuple[int, str]:
        pence = self.rng.randrange(low * 100, high * 100)
        return pence, f"{pence // 100}.{pence % 100:02d}"

    def tail(self) -> str:
        """1 to 300 characters of words, any length alike."""
        r = self.rng
        size = r.randrange(1, 301)
        words: list[str] = []
        while sum(map(len, words)) + len(words) < size:
            words.append(r.choice(WORDS))
        return " ".join(words)[:size].rstrip(" ") or "ok"


def _core(d: _Draw) -> tuple[str, dict[str, str]]:
    """(type, slots) of a core line between two of the 50 agents."""
    r = d.rng
    a, b = r.sample(AGENTS, 2)
    kind = r.choice(("HO", "HO", "RB", "AQ", "AN", "ST", "ST", "DN", "UN", "FL", "CX"))
    s: dict[str, str] = {"from": a, "to": b}
    if kind != "HO" and kind != "ST" and kind != "AQ":
        s["re"] = d.earlier(b)
    if kind in ("HO", "RB", "ST", "DN", "FL", "CX") or r.random() < 0.3:
        s["item"] = d.item()
    if kind in ("HO", "RB"):
        s["ask"] = r.choice(ASKS)
        s["due"] = d.date()
        if r.random() < 0.6:
            s["pri"] = str(r.randrange(1, 6))
        if r.random() < 0.5:
            s["conf"] = r.choice("LMH")
        if kind == "HO" and r.random() < 0.4:
            s["keep"] = "+".join(r.sample(AGENTS, r.randrange(1, 3)))
        if kind == "HO" and r.random() < 0.3:
            s["exp"] = d.time()
        if kind == "RB":
            s["h"] = d.hexes(12)
    elif kind == "AQ":
        s["need"] = r.choice(("ENUM", "TEXT", "NUM", "DATE", "YESNO"))
        if s["need"] == "ENUM":
            s["opts"] = "+".join(d.word() for _ in range(r.randrange(2, 5)))
    elif kind == "AN":
        s["val"] = r.choice((d.word(), str(r.randrange(10000)), "Y", "N"))
    elif kind == "ST":
        s["pct"] = str(r.randrange(0, 101))
        if r.random() < 0.5:
            s["eta"] = d.date()
    elif kind == "DN":
        s["out"] = r.choice(("OK", "OK", "PARTIAL", "NOOP"))
        s["art"] = f"sha256:{d.hexes(r.randrange(6, 16))}"
    elif kind == "UN":
        s["why"] = r.choice(WHY)
        if r.random() < 0.4:
            s["alt"] = r.choice(AGENTS)
    elif kind == "FL":
        s["why"] = r.choice(WHY)
        s["retry"] = r.choice("YN")
        s["art"] = f"file:logs/{d.word()}-{r.randrange(1000)}.txt"
    else:
        s["why"] = r.choice(("SUPERSEDED", "DUP", "SCOPE"))
    return kind, s


def _pay(d: _Draw) -> tuple[str, dict[str, str]]:
    """(type, slots) of a p=pay line between two of pay's agents: fresh invoices, amounts and references."""
    r = d.rng
    a, b = r.sample(PAY_AGENTS, 2)
    invoice = f"inv:{d.word().upper()}-{r.randrange(2025, 2028)}-{r.randrange(1, 99999)}"
    kind = r.choice(("HO", "RB", "ST", "ST"))
    s: dict[str, str] = {"p": "pay", "from": a, "to": b, "item": invoice}
    pence, amount = d.money(5, 90000)
    s["cur"] = r.choice(CURRENCIES)
    if kind in ("HO", "RB"):
        if kind == "RB":
            s["re"] = d.earlier(b)
            s["h"] = d.hexes(12)
        s["ask"] = "PAY"
        s["sup"] = d.word()
        s["amt"] = amount
        s["kind"] = r.choice(("NET", "GROSS"))
        s["acct"] = f"{r.randrange(10, 99)}-{r.randrange(10, 99)}-{r.randrange(10, 99)}/{r.randrange(10**7, 10**8)}"
        s["paid"] = d.date()
        s["ref"] = invoice[4:]
        if r.random() < 0.5:
            s["apref"] = f"FD-{r.randrange(1, 9999):04d}"
        if kind == "HO" and r.random() < 0.5:
            s["rb"] = "exec"
    else:
        vat = pence * r.choice((0, 5, 20)) // 120
        s["amt"] = amount
        s["net"] = f"{(pence - vat) // 100}.{(pence - vat) % 100:02d}"
        s["vat"] = f"{vat // 100}.{vat % 100:02d}"
        s["kind"] = "GROSS"
        s["src"] = "+".join(f"{r.choice(('email', 'bank', 'portal'))}:{r.randrange(1, 10**6)}"
                            for _ in range(r.randrange(1, 3)))
    return kind, s


def _write(d: _Draw, kind: str, slots: dict[str, str], reference_style: bool) -> str:
    r = d.rng
    keys = list(slots)
    if reference_style:  # the envelope, then the declared order (the reference codec's encode)
        keys = [k for k in ENVELOPE if k in slots] + sorted((k for k in slots if k not in ENVELOPE), key=DECLARED.index)
    else:  # as people write them: the envelope near the front, the rest in any order
        head = [k for k in ("re", "from", "to") if k in slots]
        rest = [k for k in keys if k not in head]
        r.shuffle(rest)
        keys = head + rest
    line = " ".join([f"RW1 {kind} {d.msgid(slots['from'])}", *(f"{k}={slots[k]}" for k in keys)])
    if r.random() < 0.65:
        line += " // " + d.tail()
    return line


def realistic(size: int, seed: int = 33) -> list[str]:
    """``size`` valid lines, about 30% p=pay, values fresh on every line (deterministic for a seed)."""
    d = _Draw(seed)
    lines = []
    for _ in range(size):
        make: Callable[[_Draw], tuple[str, dict[str, str]]] = _pay if d.rng.random() < 0.3 else _core
        kind, slots = make(d)
        lines.append(_write(d, kind, slots, reference_style=d.rng.random() < 0.25))
    return lines


def shape(lines: list[str]) -> str:
    """One line saying what the corpus is: its size, mix and lengths."""
    pay = sum(" p=pay " in line for line in lines)
    tails = [len(line.split(" // ", 1)[1]) for line in lines if " // " in line]
    return (f"{len(lines)} lines, {pay / len(lines):.0%} p=pay, {len(tails) / len(lines):.0%} with a tail "
            f"({min(tails, default=0)}-{max(tails, default=0)} chars), mean {sum(map(len, lines)) / len(lines):.0f} chars, "
            f"{len(set(lines))} distinct")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--show", type=int, default=5, help="lines to print")
    args = parser.parse_args()
    lines = realistic(args.lines, args.seed)
    print(shape(lines))
    for line in lines[: args.show]:
        print(line)


if __name__ == "__main__":
    main()
