"""Readback reports: the verdict, a per-tier table, and sender against receiver.

A report is three renderables in a group: a verdict line (``WILCO`` when a
readback passes every tier asked for, ``VOID`` when it does not; ``PASS`` or
``FAIL`` for check-ho and check-dn), a table of the five tiers with their
status (check-rb only), and a table of every finding with the sender's and
the receiver's value side by side, then every finding as a line. Tables are
the package's one style (:mod:`rogerwilco.front.render.tables`: ASCII rules, tokens
never split) and every status is spelled out, so the report reads the same
without colour or in a pipe.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from ...core.errors import printable
from ...checks.readback import FAILED, PASSED, TIERS, ReadbackReport
from .tables import FoldingTable

_STATUS_STYLE = {PASSED: "green", FAILED: "bold red"}
_SEVERITY_STYLE = {"fail": "bold red", "note": "yellow"}
_SUBJECT = {"check-rb": ("sender (HO)", "receiver (RB)"),
            "check-ho": ("record", "line"),
            "check-dn": ("plan", "done report")}


def _cell(value: object) -> Text:
    return Text("-" if value is None else printable(str(value)))


def verdict_text(report: ReadbackReport) -> Text:
    if report.check == "check-rb":
        word = "WILCO" if report.passed else "VOID"
        detail = "readback passes every tier asked for" if report.passed else "readback does not pass: re-issue the HO"
        if report.passed and report.unchecked:
            detail = f"readback passes, {_not_checked(report.unchecked)}"
    else:
        word = "PASS" if report.passed else "FAIL"
        detail = {"check-ho": "handoff matches the record", "check-dn": "done report matches the plan"}[report.check]
        if not report.passed:
            detail = detail.replace("matches", "does not match")
    out = Text()
    out.append(f"{report.check}: ")
    out.append(word, style="bold green" if report.passed else "bold red")
    out.append(f"  {detail}")
    subject = report.other or report.ho
    if subject is not None:
        out.append(f"  ({subject.type} {printable(subject.id)}")
        if report.other is not None and report.ho is not None:
            out.append(f" for HO {printable(report.ho.id)}")
        out.append(")")
    return out


_WHY_UNCHECKED = {4: "no acceptance criteria to compare: give --expect-acc",
                  5: "a value the receiver resolved has no record to check it against: give --record"}


def _not_checked(tiers: tuple[int, ...]) -> str:
    """``tier 4 not checked (no acceptance criteria ...)``: D12's verdict words, with the fix."""
    words = " and ".join(f"tier {t}" for t in tiers)
    return f"{words} not checked ({'; '.join(_WHY_UNCHECKED[t] for t in tiers)})"


def tier_table(report: ReadbackReport) -> FoldingTable:
    table = FoldingTable("Tiers", [("tier", True), ("checks", True), ("status", True), ("findings", True)],
                         justify={"tier": "right", "findings": "right"})
    for tier, name in TIERS.items():
        status = report.tiers.get(tier, "not checked")
        count = sum(1 for f in report.findings if f.tier == tier)
        table.add_row(str(tier), name, Text(status, style=_STATUS_STYLE.get(status, "")), str(count) if count else "")
    return table


def side_by_side_table(report: ReadbackReport) -> FoldingTable | None:
    """Sender against receiver, one row per finding that has a value to show."""
    left, right = _SUBJECT.get(report.check, ("sender", "receiver"))
    rows = [f for f in _ordered(report) if f.sender_value is not None or f.receiver_value is not None]
    if not rows:
        return None
    table = FoldingTable("Sender vs receiver", [("key", True), ("kind", True), (left, False), (right, False)])
    for f in rows:
        table.add_row(_cell(f.key), Text(f.kind, style=_SEVERITY_STYLE.get(f.severity, "")), _cell(f.sender_value), _cell(f.receiver_value))
    return table


def finding_lines(report: ReadbackReport) -> Text:
    """``fail contradiction (tier 4, len): ...``, one line per finding."""
    out = Text()
    for i, f in enumerate(_ordered(report)):
        if i:
            out.append("\n")
        out.append(f.severity, style=_SEVERITY_STYLE.get(f.severity, ""))
        where = ", ".join(x for x in ("" if f.tier is None else f"tier {f.tier}", f.key or "") if x)
        out.append(f" {f.kind}" + (f" ({printable(where)})" if where else "") + ": ")
        out.append(printable(f.message))
    return out


def _ordered(report: ReadbackReport) -> list:
    return sorted(report.findings, key=lambda f: (f.severity != "fail", f.tier or 0))


def report_renderable(report: ReadbackReport) -> RenderableType:
    parts: list[RenderableType] = [verdict_text(report)]
    if report.check == "check-rb":
        parts.append(tier_table(report))
    table = side_by_side_table(report)
    if table is not None:
        parts.append(table)
    if report.findings:
        parts.append(finding_lines(report))
    else:
        parts.append(Text("no findings"))
    return Group(*parts)
