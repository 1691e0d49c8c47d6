"""Lint: every line of a message stream through the never-guess pass, plus rules across it.

Theory of operation
-------------------
A file is one conversation, in the order it was sent. Each line goes through
:func:`rogerwilco.core.semantics.check_line` once; every finding of that pass maps
to a rule by its kind (table :data:`LINE_KINDS`): a refusal is an error, a
note (an unknown key, a slot off its type, an agent outside the profile's
list) a warning. The valid messages then go through the stream rules, each a
small function over the messages in order:

* ids per sender (``RW100`` reused for a different message, ``RW101`` not
  going forward: the number after the hyphen is not above the sender's last);
* replies (``RW102`` a ``re=`` naming no message in the stream);
* readback and answers (``RW103`` an HO never read back: no RB, not refused
  with UN, not cancelled, not carried forward by a re-send or re-issue:
  which HOs are one handoff is :func:`rogerwilco.checks.lifecycle.issue_link`'s
  rule, so an HO answered by an HO to another agent is still unread;
  ``RW104`` an AQ not answered with an AN or refused with a UN, ``RW115`` one past its ``by=``);
* the handoff lifecycle, which is :func:`rogerwilco.checks.thread.check_thread`'s:
  its finding kinds map to rules through :data:`THREAD_KINDS` (closed twice,
  open past ``exp``/``due`` when a ``now`` is given, act after cancel, cancel
  from the wrong party, cancel not acknowledged). A finding about a handoff
  broken by a later message (closed twice, act after cancel, wrong-party or
  unanswered cancel) sits on that message, the one the thread check names
  first in its finding, with the handoff as ``key``.

Every rule is a stable code in :data:`RULES` with a level, a summary and an
example. ``select`` and ``ignore`` take codes or prefixes (``RW1`` is every
stream rule); the last word wins for the longest matching prefix, as in
common Python linters, and an ignore wins a tie. Findings are plain values with a place (file, line,
column, token) and a fingerprint that does not depend on the line number, so
an edit elsewhere in the file does not make an old finding look new; the
same finding on an identical line repeated later gets its own, by occurrence.
A directory given to :func:`lint_paths` is walked, each file a conversation.

A file that is not an RW1 stream (a log, Markdown, JSON Lines: anything but
``.rw1`` and standard input) is linted in *embedded* mode: the messages are
found inside each line as :mod:`rogerwilco.io.scan` finds them (log prefixes,
JSON strings, code spans), noise is passed over, and every finding keeps the
column of the physical line.

Configuration (:mod:`rogerwilco.io.lint_config`): ``[tool.rogerwilco.lint]`` in
the closest ``pyproject.toml`` that has it, or a ``rogerwilco.toml``; rules,
per-file ignores, which files a folder contributes, the exit policy and a
baseline (:func:`write_baseline`, :func:`new_findings`), which records today's
findings by fingerprint so that only new ones are reported.
"""

from __future__ import annotations

import gc
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import IO, Any, Callable, Container, Iterable, Iterator, Mapping, NamedTuple, Sequence, cast

import attrs

from ..checks import _components
from ..checks._components import (Components, decoded, encoded, memory_bound, no_cycle_collection, on_disk,
                                  scratch_database, touches_of)
from ..checks._plain import PlainThreads
from ..checks.lifecycle import is_carried_forward

from ..core import _deprecated
from ..core.errors import RW1Error
from ..core.files import BASELINE_MAX_BYTES, is_stream_file, read_limited
from ..core.message import Message
from ..core.semantics import LineResult, check_line
from ..core.speedups import accept_quiet, loads_line, plain_start
from .stream import plain_lines, validate_stream
from ..core.vocab import Receiver, as_receiver

ERROR = "error"
WARNING = "warning"


@attrs.frozen(kw_only=True)
class LintRule:
    code: str
    name: str
    level: str
    summary: str
    bad: str  # a stream on which the rule fires (lines joined with "\n")
    good: str  # its clean twin


_HO = "RW1 HO ops-1 from=ops to=builder item=jira:OPS-7 ask=FIX"
_RB = "RW1 RB builder-1 re=ops-1 from=builder to=ops item=jira:OPS-7 ask=FIX"
_DN = "RW1 DN builder-2 re=ops-1 from=builder to=ops item=jira:OPS-7 out=OK"


#: a handoff whose act waits for the sender's verdict (rb=acc), its readback and the verdict
_HO_ACC = "RW1 HO ops-1 from=ops to=builder item=jira:OPS-7 ask=FIX rb=acc keys=len"
_RB_ACC = "RW1 RB builder-1 re=ops-1 from=builder to=ops item=jira:OPS-7 ask=FIX acc=len:120w"
_AN_ACC = "RW1 AN ops-2 re=builder-1 from=ops to=builder val=Y"


def _read_back(ho: str) -> str:
    """A clean twin of a one-line HO example: the HO and its readback."""
    return ho + "\n" + _RB

RULES: Mapping[str, LintRule] = {r.code: r for r in (
    LintRule(code="RW001", name="syntax", level=ERROR,
         summary="the line does not match the RW1 grammar (or cannot be read: too long, not UTF-8)",
         bad="RW1 HO ops-1 from=ops  to=builder item=jira:OPS-7 ask=FIX",
         good=_read_back(_HO)),
    LintRule(code="RW002", name="version", level=ERROR, summary="unsupported protocol version (a receiver replies why=VER)",
         bad="RW2 HO ops-1 from=ops to=builder item=jira:OPS-7 ask=FIX", good=_read_back(_HO)),
    LintRule(code="RW003", name="unknown-code", level=ERROR,
         summary="unknown type, enum code or profile, or an answer outside the profile's vocabulary",
         bad="RW1 HO ops-1 from=ops to=builder item=jira:OPS-7 ask=FIXX", good=_read_back(_HO)),
    LintRule(code="RW004", name="bad-value", level=ERROR,
         summary="a value of the wrong type or out of range, a repeated key, an id not <from>-<n>, "
                 "a tail over 300 characters, a profile rule broken",
         bad="RW1 HO ops-1 from=ops to=builder item=jira:OPS-7 ask=FIX pri=9", good=_read_back(_HO + " pri=2")),
    LintRule(code="RW005", name="missing-slot", level=ERROR, summary="a slot the type requires is missing",
         bad="RW1 HO ops-1 from=ops to=builder ask=FIX", good=_read_back(_HO)),
    LintRule(code="RW010", name="unknown-key", level=WARNING,
         summary="an unknown key (not x_): kept as text, ignored by receivers",
         bad=_HO + " itme=jira:OPS-8", good=_read_back(_HO + " x_ticket=OPS-8")),
    LintRule(code="RW011", name="off-type-slot", level=WARNING, summary="a known slot that is not a slot of this type",
         bad=_HO + " out=OK", good=_read_back(_HO)),
    LintRule(code="RW012", name="unknown-agent", level=WARNING,
         summary="from or to is not an agent of the message's profile",
         bad="RW1 ST DAT-1 p=pform from=DAT to=nobody item=pensive:1", good="RW1 ST DAT-1 p=pform from=DAT to=ARC item=pensive:1"),
    LintRule(code="RW100", name="id-reused", level=ERROR, summary="an id used again for a different message",
         bad=_HO + "\n" + "RW1 HO ops-1 from=ops to=builder item=jira:OPS-8 ask=FIX",
         good=_HO + "\n" + "RW1 HO ops-2 from=ops to=builder item=jira:OPS-8 ask=FIX\n" + _RB + "\n"
              "RW1 RB builder-2 re=ops-2 from=builder to=ops item=jira:OPS-8 ask=FIX"),
    LintRule(code="RW101", name="id-backwards", level=ERROR,
         summary="a sender's id number does not go forward (lower than, or a respelling of, its last)",
         bad="RW1 ST ops-5 from=ops to=builder item=jira:OPS-7\nRW1 ST ops-3 from=ops to=builder item=jira:OPS-7",
         good="RW1 ST ops-3 from=ops to=builder item=jira:OPS-7\nRW1 ST ops-5 from=ops to=builder item=jira:OPS-7"),
    LintRule(code="RW102", name="reply-to-unknown", level=ERROR, summary="re= names no message in the stream",
         bad="RW1 RB builder-1 re=ops-9 from=builder to=ops item=jira:OPS-7 ask=FIX",
         good=_HO + "\n" + _RB),
    LintRule(code="RW103", name="no-readback", level=ERROR,
         summary="an HO never read back (no RB; not refused with UN, cancelled, or carried forward by a re-send)",
         bad=_HO + "\n" + _DN, good=_HO + "\n" + _RB + "\n" + _DN),
    LintRule(code="RW104", name="unanswered-question", level=WARNING,
         summary="an AQ not answered with an AN or refused with a UN (yet: no by=, or its by= not passed)",
         bad="RW1 AQ writer-1 from=writer to=research need=TEXT // tone?",
         good="RW1 AQ writer-1 from=writer to=research need=TEXT // tone?\n"
              "RW1 AN research-1 re=writer-1 from=research to=writer val=tail // plain"),
    LintRule(code="RW105", name="closed-twice", level=ERROR, summary="a handoff closed more than once",
         bad=_HO + "\n" + _RB + "\n" + _DN + "\nRW1 FL builder-3 re=ops-1 from=builder to=ops item=jira:OPS-7 why=ERR",
         good=_HO + "\n" + _RB + "\n" + _DN),
    LintRule(code="RW106", name="open-past-exp", level=ERROR, summary="a handoff still open past its exp= (with a now)",
         bad=_HO + " exp=20261002T1700Z\n" + _RB, good=_HO + " exp=20261002T1700Z\n" + _RB + "\n" + _DN),
    LintRule(code="RW107", name="open-past-due", level=ERROR, summary="a handoff still open after its due= date (with a now)",
         bad=_HO + " due=20261001\n" + _RB.replace("ask=FIX", "ask=FIX due=20261001"),
         good=_HO + " due=20261001\n" + _RB.replace("ask=FIX", "ask=FIX due=20261001") + "\n" + _DN),
    LintRule(code="RW108", name="act-after-cancel", level=ERROR,
         summary="a DN reporting the act done after a CX (out=NOOP is the answer to a cancel that came first)",
         bad=_HO + "\n" + _RB + "\nRW1 CX ops-2 re=ops-1 from=ops to=builder item=jira:OPS-7 why=REVOKED\n" + _DN.replace("builder-2", "builder-3"),
         good=_HO + "\n" + _RB + "\nRW1 CX ops-2 re=ops-1 from=ops to=builder item=jira:OPS-7 why=REVOKED\n"
              + _DN.replace("builder-2", "builder-3").replace("out=OK", "out=NOOP")),
    LintRule(code="RW109", name="cancel-wrong-party", level=ERROR,
         summary="a CX that does not come from the HO's sender to its receiver",
         bad=_HO + "\n" + _RB + "\nRW1 CX auditor-1 re=ops-1 from=auditor to=builder item=jira:OPS-7 why=REVOKED",
         good=_HO + "\n" + _RB + "\nRW1 CX ops-2 re=ops-1 from=ops to=builder item=jira:OPS-7 why=REVOKED\n"
              "RW1 AN builder-2 re=ops-2 from=builder to=ops val=Y"),
    LintRule(code="RW110", name="cancel-unacknowledged", level=WARNING, summary="a CX the receiver has not answered",
         bad=_HO + "\n" + _RB + "\nRW1 CX ops-2 re=ops-1 from=ops to=builder item=jira:OPS-7 why=REVOKED",
         good=_HO + "\n" + _RB + "\nRW1 CX ops-2 re=ops-1 from=ops to=builder item=jira:OPS-7 why=REVOKED\n"
              "RW1 AN builder-2 re=ops-2 from=builder to=ops val=Y"),
    LintRule(code="RW111", name="act-before-wilco", level=ERROR,
         summary="a DN reporting the act before a readback of the handoff passed (under rb=acc, plan or exec, "
                 "before the sender's AN val=Y)",
         bad=_HO + "\n" + _RB.replace("OPS-7", "OPS-8") + "\n" + _DN, good=_HO + "\n" + _RB + "\n" + _DN),
    LintRule(code="RW112", name="two-owners", level=ERROR,
         summary="an HO of an item its sender handed to another agent in a handoff that is still open",
         bad=_HO + "\n" + _RB + "\nRW1 HO ops-2 from=ops to=auditor item=jira:OPS-7 ask=FIX",
         good=_HO + "\n" + _RB + "\n" + _DN + "\nRW1 HO ops-2 from=ops to=auditor item=jira:OPS-7 ask=FIX\n"
              "RW1 RB auditor-1 re=ops-2 from=auditor to=ops item=jira:OPS-7 ask=FIX"),
    LintRule(code="RW113", name="confirm-void", level=ERROR,
         summary="an AN val=Y confirming a readback that did not pass",
         bad=_HO_ACC + "\n" + _RB_ACC.replace("OPS-7", "OPS-8") + "\n" + _AN_ACC,
         good=_HO_ACC + "\n" + _RB_ACC + "\n" + _AN_ACC),
    LintRule(code="RW114", name="confirm-without-readback", level=ERROR,
         summary="an AN val=Y confirming a handoff before any readback of it",
         bad=_HO_ACC + "\n" + _AN_ACC + "\n" + _RB_ACC,
         good=_HO_ACC + "\n" + _RB_ACC + "\n" + _AN_ACC),
    LintRule(code="RW115", name="unanswered-past-by", level=ERROR,
         summary="an AQ not answered with an AN or refused with a UN, and its by= date has passed (with a now)",
         bad="RW1 AQ writer-1 from=writer to=research need=TEXT by=20261001 // tone?",
         good="RW1 AQ writer-1 from=writer to=research need=TEXT by=20261001 // tone?\n"
              "RW1 AN research-1 re=writer-1 from=research to=writer val=tail // plain"),
    LintRule(code="RW116", name="not-owner", level=ERROR,
         summary="an HO of an item its sender was offered but has not read back, so does not hold",
         bad=_HO + "\nRW1 HO builder-1 from=builder to=auditor item=jira:OPS-7 ask=FIX",
         good=_HO + "\n" + _RB + "\nRW1 HO builder-2 from=builder to=auditor item=jira:OPS-7 ask=FIX\n"
              "RW1 RB auditor-1 re=builder-2 from=auditor to=builder item=jira:OPS-7 ask=FIX"),
    LintRule(code="RW117", name="read-back", level=ERROR,
         summary="a readback of a re-send that cannot be traced to an original its receiver holds (read back or not)",
         bad=_HO + "\n" + _RB + "\nRW1 HO ops-3 re=ops-2 from=ops to=builder item=jira:OPS-7 ask=FIX\n"
             "RW1 RB builder-2 re=ops-3 from=builder to=ops item=jira:OPS-7 ask=FIX",
         good=_HO + "\nRW1 HO ops-2 re=ops-1 from=ops to=builder item=jira:OPS-7 ask=FIX\n" + _RB
              + "\nRW1 HO ops-3 re=ops-2 from=ops to=builder item=jira:OPS-7 ask=FIX\n"
              "RW1 RB builder-2 re=ops-3 from=builder to=ops item=jira:OPS-7 ask=FIX"),
)}

#: never-guess finding kind -> rule
LINE_KINDS: Mapping[str, str] = {
    "syntax": "RW001", "too-long": "RW001", "encoding": "RW001",
    "version": "RW002",
    "type": "RW003", "enum": "RW003", "profile": "RW003", "answer": "RW003",
    "value": "RW004", "repeated": "RW004", "id": "RW004", "tail": "RW004", "rule": "RW004",
    "missing": "RW005",
    "unknown-key": "RW010", "off-type": "RW011", "agent": "RW012",
}
#: check_thread finding kind -> rule (reply-to-unknown and form are RW102 and RW100 here)
THREAD_KINDS: Mapping[str, str] = {
    "closed-twice": "RW105", "open-past-exp": "RW106", "open-past-due": "RW107",
    "act-after-cancel": "RW108", "cancel-wrong-party": "RW109", "cancel-unacknowledged": "RW110",
    "act-before-wilco": "RW111", "two-owners": "RW112", "confirm-void": "RW113", "confirm-without-readback": "RW114",
    "not-owner": "RW116", "read-back": "RW117",
}
_NOW_RULES = frozenset({"RW106", "RW107"})
_CODE_RE = re.compile(r"RW[0-9]*")


@attrs.frozen(kw_only=True)
class LintFinding:
    """One finding of one rule, with its place."""

    code: str
    level: str
    message: str
    file: str
    line: int
    column: int | None = None
    token: str | None = None
    text: str = ""  # the source line, for the caret
    key: str | None = None  # the message id (or the HO id) the finding is about
    occurrence: int = 0  # earlier findings in the file with the same identity (the same line repeated)
    hint: str | None = None  # "did you mean", for people
    fix: str | None = None  # the suggested replacement for the token (an editor's quick fix)
    #: the root finding this one follows from ("line 1 RW003"): a readback echoing a refused HO's code
    cause: str | None = None

    @property
    def rule(self) -> LintRule:
        return RULES[self.code]

    @property
    def end_column(self) -> int | None:
        """The column just after the token (exclusive), on the same line; None without a column."""
        if not self.column:
            return None
        return self.column + max(1, len(self.token or ""))

    def said(self) -> str:
        """The finding in one line of plain text, for formats without a caret (SARIF's message, annotations):
        ``token: message (hint) [follows from line 1 RW003]``."""
        text = f"{self.token}: {self.message}" if self.token else self.message
        if self.hint:
            text += f" ({self.hint})"
        if self.cause:
            text += f" [follows from {self.cause}]"
        return text

    def identity(self) -> tuple[str, ...]:
        return (self.code, self.file, self.text, self.token or "", self.key or "")

    def fingerprint(self) -> str:
        """Stable identity: rule, file, the line's text, the token and the key; not the line number.

        A repeat of the same finding on an identical line further down the
        file is told apart by its ``occurrence`` (1, 2 ...).
        """
        parts = self.identity() + ((str(self.occurrence),) if self.occurrence else ())
        basis = "\x1f".join(parts)
        return hashlib.sha256(basis.encode("utf-8", "surrogateescape")).hexdigest()[:32]

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "rule": self.rule.name, "level": self.level, "message": self.message,
                "file": self.file, "line": self.line, "column": self.column, "end_column": self.end_column,
                "token": self.token, "key": self.key, "hint": self.hint, "fix": self.fix, "cause": self.cause,
                "fingerprint": self.fingerprint()}


# --------------------------------------------------------------------------
# selection and configuration


def _matches(code: str, pattern: str) -> int:
    """Length of ``pattern`` when it selects ``code`` (a code or a prefix), else -1."""
    if pattern == "ALL":
        return 0
    return len(pattern) if code.startswith(pattern) else -1


def _check_codes(patterns: Iterable[str]) -> list[str]:
    """The patterns, validated: ``ALL``, a rule code, or a prefix of one."""
    out = []
    for raw in patterns:
        pattern = raw.strip().upper()
        if not pattern:
            continue
        if pattern != "ALL" and (not _CODE_RE.fullmatch(pattern) or not any(c.startswith(pattern) for c in RULES)):
            raise RW1Error(f"unknown rule code or prefix {raw!r} (rules: {', '.join(RULES)})")
        out.append(pattern)
    return out


def selected_rules(select: Sequence[str] | None = None, ignore: Sequence[str] = ()) -> frozenset[str]:
    """Codes enabled by ``select`` (default: every rule) less ``ignore``; the longest match decides."""
    chosen = set()
    select = _check_codes(select) if select else ["ALL"]
    ignore = _check_codes(ignore)
    for code in RULES:
        sel = max((_matches(code, p) for p in select), default=-1)
        ign = max((_matches(code, p) for p in ignore), default=-1)
        if sel > ign:  # an ignore as specific as the select wins
            chosen.add(code)
    return frozenset(chosen)


# --------------------------------------------------------------------------
# the rules


def _line_findings(result: LineResult, file: str) -> Iterator[LintFinding]:
    for f in result.findings:
        code = LINE_KINDS.get(f.kind)
        if code is None:
            continue  # a blank line, or a kind that is no rule
        yield LintFinding(code=code, level=RULES[code].level, message=f.message, file=file,
                          line=result.line_number or 1, column=result.column_of(f) or 1, token=f.token,
                          text=result.text,
                          key=result.raw.id if result.raw is not None else None,
                          hint=f.hint, fix=f.fix)


class _Refused(NamedTuple):
    """What a refused line with a readable id leaves for the lines after it: where it is, and its findings
    as (code, token), so that a reply echoing one of them is told as that finding's consequence."""

    line: int
    roots: frozenset[tuple[str, str | None]]


def _with_causes(found: list[LintFinding], result: LineResult, refused: dict[str, _Refused]) -> list[LintFinding]:
    """The findings of a line, each one that echoes a finding of the refused message its ``re=`` names
    (the same rule on the same token, a readback repeating a refused code) marked as that one's consequence;
    the line's id noted when the line is refused."""
    raw = result.raw
    if raw is None:
        return found
    re = next((token[3:] for token in raw.tokens if token.startswith("re=")), None) if refused else None
    named = refused.get(re) if re else None
    if named is not None:
        found = [attrs.evolve(f, cause=f"line {named.line} {f.code}") if (f.code, f.token) in named.roots else f
                 for f in found]
    if result.message is None and raw.id and raw.id not in refused:
        refused[raw.id] = _Refused(result.line_number or 1, frozenset((f.code, f.token) for f in found))
    return found


class _Seen(NamedTuple):
    """What the stream rules keep of a message: its envelope and where it stands (its line's text, the
    message's own while its part is checked)."""

    type: str
    id: str
    re: str | None
    from_: str
    to: str
    item: str | None
    place: int | str
    line: int
    store: "_AsIs"

    @property
    def text(self) -> str:
        return self.store.text(self.place)


class _AsIs:
    """Where a line kept as its own text is (:attr:`_Seen.place` is the text)."""

    @staticmethod
    def text(place: int | str) -> str:
        assert isinstance(place, str)
        return place


_AS_IS = _AsIs()


def _seen(m: Message) -> _Seen:
    """What the rules keep of a message of a part: its line's text and its strings are the message's own (the
    part is in memory while it is checked, then let go), not copies."""
    source = m.source
    if source is None:
        return _Seen(m.type, m.id, m.re, m.from_, m.to, m.item, m.to_line(), 1, _AS_IS)
    line = source.line
    return _Seen(m.type, m.id, m.re, m.from_, m.to, m.item, source.text, 1 if line is None else line, _AS_IS)


def _digest(message: Message) -> int:
    """What makes two messages with one id the same message (as ``==`` compares them), in 8 bytes."""
    slots = sorted((key, repr(value)) for key, value in message.slots.items())
    basis = repr((message.v, message.type, message.id, message.from_, message.to, message.re, message.item, slots,
                  message.tail))
    return int.from_bytes(hashlib.blake2b(basis.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "big")


def _at(m: _Seen, file: str, code: str, message: str, *, token: str | None = None, key: str | None = None) -> LintFinding:
    text, line = m.text, m.line
    column = None
    token = m.id if token is None else token
    words = text.split(" ", 3)
    if token and token == m.id and len(words) > 2 and words[2] == token:
        column = len(words[0]) + len(words[1]) + 3  # the id, the third token
    elif token:
        index = text.find(" " + token)
        column = index + 2 if index >= 0 else (1 if text.startswith(token) else None)
    return LintFinding(code=code, level=RULES[code].level, message=message, file=file, line=line,
                       column=column, token=token, text=text, key=key or m.id)


def stream_findings(messages: Iterable[Message | LineResult], file: str, *, receiver: Receiver, now: str | None,
                    enabled: frozenset[str], batch_lines: int | None = None,
                    refused: Container[str] = ()) -> list[LintFinding]:
    """The rules across the stream, over its valid messages in order.

    Linear in the messages, in memory that does not grow with them past a
    fixed bound (beyond the findings): ``messages`` may be a generator, of
    messages or of the :class:`LineResult` each was read as. One pass keeps
    each message's line (in memory up to the bound, then on disk), cut into the parts of the conversation that touch nothing else
    (:mod:`rogerwilco.checks._components`), and checks the order of each
    sender's ids; then each batch of parts (about ``batch_lines`` lines) is
    read again and given the other rules, the thread rules through
    :func:`rogerwilco.checks.thread.check_thread`. No rule reads across
    parts, so the findings are those of the whole stream. ``refused`` holds
    the ids of lines refused before (or while) ``messages`` is read: a
    ``re=`` naming one names a message that was sent (no ``RW102``).
    """

    out: list[LintFinding] = []
    parts = Components(batch_lines=_components.BATCH_LINES if batch_lines is None else batch_lines)
    last_number: dict[str, tuple[int, str]] = {}
    try:
        # the cyclic collector paused, as check-thread pauses it: the parts keep every message read (no cycles),
        # and each full collection would walk them all again
        with on_disk(), no_cycle_collection() as read:  # the database's errors (no room on disk) as the package's
            for place, entry in enumerate(messages, start=1):
                m = entry.message if isinstance(entry, LineResult) else entry
                if m is None:
                    continue
                source = m.source
                if source is None:
                    text, line = m.to_line(), 1
                else:
                    text = source.text
                    line = source.line if source.line is not None else 1
                msgid = m.id
                own = "=" + msgid  # the name of the message itself (a reply's re= names "#" + its id)
                _, dash, digits = msgid.rpartition("-")  # <from>-<n>: n, the digits after the last "-"
                if dash and digits.isascii() and digits.isdigit() and not parts.known(own):
                    # (a repeated id is RW100's, in its part)
                    n = int(digits)
                    previous = last_number.get(m.from_)
                    if previous is not None and n <= previous[0]:
                        out.append(_at(_Seen(m.type, msgid, m.re, m.from_, m.to, m.item, text, line, _AS_IS), file,
                                       "RW101", f"{msgid} does not go forward from {m.from_}'s last id {previous[1]}",
                                       token=msgid))
                    if previous is None or n > previous[0]:
                        last_number[m.from_] = (n, msgid)
                names, listed, joins = touches_of(m)
                names.append(own)
                parts.add(place, line, text, names, listed=listed, joins=joins, kept=m)
            read()
            for batch in parts.batches():
                # each message as it was read, while the messages fit in memory (parse once); past that bound, a
                # valid line read again on the accept path alone (keeping each message on disk, to read it back
                # without a parse, measured slower: its kept form is twice its line)
                whole = (entry[3] if len(entry) > 3 else loads_line(entry[2], receiver, line_number=entry[1])
                         for entry in batch)
                out.extend(_part_findings(whole, file, receiver=receiver, now=now, enabled=enabled, refused=refused))
                gc.collect(0)  # the batch's endpoints hold one another: freed here (the youngest objects alone)
    finally:
        parts.close()
    return out


def _part_findings(messages: Iterable[Message | LineResult], file: str, *, receiver: Receiver, now: str | None,
                   enabled: frozenset[str], refused: Container[str] = ()) -> list[LintFinding]:
    """The rules of a part of the stream that touches nothing else (all but RW101)."""
    out: list[LintFinding] = []
    by_id: dict[str, Message] = {}  # (the part is in memory while it is checked; a finding's place, from its message)

    def unique() -> Iterator[Message | LineResult]:
        for entry in messages:
            m = entry.message if isinstance(entry, LineResult) else entry
            if m is None:
                continue
            earlier = by_id.get(m.id)
            if earlier is not None:
                if _digest(earlier) != _digest(m):
                    out.append(_at(_seen(m), file, "RW100", f"id {m.id} is already used by a different message on "
                                                           f"line {_seen(earlier).line}", token=m.id))
                continue
            by_id[m.id] = m
            yield entry

    report = None
    if enabled & set(THREAD_KINDS.values()):
        from ..checks.thread import check_thread

        report = check_thread(unique(), now=now or "99991231T2359Z", profiles=receiver, ledger=False)
    else:
        for _ in unique():
            pass

    for reply in by_id.values():
        if reply.re is not None and reply.re not in by_id and reply.re not in refused:
            out.append(_at(_seen(reply), file, "RW102", f"{reply.type} {reply.id} answers re={reply.re}, which names "
                                                        "no message in the stream", token=f"re={reply.re}"))

    # HOs read back, refused, cancelled or carried forward (the lifecycle's one rule); AQs answered or refused
    answered: set[str] = set()
    lookup = by_id.get
    for r in by_id.values():
        m = by_id.get(r.re) if r.re is not None else None
        if m is None:
            continue
        if m.type == "HO":
            if ((r.type == "RB" and r.from_ == m.to) or (r.type == "UN" and r.from_ == m.to)
                    or (r.type == "CX" and r.from_ == m.from_) or (r.type == "HO" and is_carried_forward(m, r, lookup))):
                answered.add(m.id)
        elif m.type == "AQ" and r.type in ("AN", "UN") and r.from_ == m.to:
            answered.add(m.id)
    for m in by_id.values():
        if m.id in answered:
            continue
        if m.type == "HO":
            out.append(_at(_seen(m), file, "RW103", f"HO {m.id} to {m.to} is never read back: no RB from {m.to} "
                                                    "answers it"))
        elif m.type == "AQ":
            out.append(_unanswered(_seen(m), file, now))

    if report is not None:
        out.extend(_thread_findings(report, by_id, file, now=now))
    return out


def _unanswered(aq: _Seen, file: str, now: str | None) -> LintFinding:
    """An AQ left without an AN or UN: past its ``by=`` (judged at ``now``) an error, RW115, as check-thread's
    ``unanswered`` fail; before it, or with no ``by=``, RW104, a warning, as check-thread's note (spec 5 rule 2:
    an AQ is answered or refused; a stream that ends before an answer shows one not given yet)."""
    from ..checks.thread import parse_now

    by = next((t[3:] for t in aq.text.split(" // ", 1)[0].split(" ") if t.startswith("by=")), None)
    if by is not None and now is not None and parse_now(now).strftime("%Y%m%d") > by:  # YYYYMMDD sorts as it reads
        return _at(aq, file, "RW115", f"AQ {aq.id} to {aq.to} is not answered (AN) or refused (UN), and its "
                                      f"by={by} has passed", token=f"by={by}")
    return _at(aq, file, "RW104", f"AQ {aq.id} to {aq.to} is not answered (AN) or refused (UN)"
                                  + (f" yet (by={by})" if by else " yet"))


def _thread_findings(report: Any, by_id: Mapping[str, Message], file: str, *, now: str | None) -> list[LintFinding]:
    out = []
    for f in report.findings:
        code = THREAD_KINDS.get(f.kind)
        if code is None or (code in _NOW_RULES and now is None):
            continue
        handoff = by_id.get(f.key) if f.key else None
        if handoff is None:
            continue
        offender = by_id.get(f.token) if code in _OFFENDER_RULES and f.token else None
        anchor = offender or handoff
        out.append(_at(_seen(anchor), file, code, f.message, key=handoff.id))
    return out


#: thread rules broken by one later message (the second close, the late DN, the
#: wrong-party or unanswered CX), whose id the thread check gives as the finding's
#: token; the open-past rules are about the HO itself
_OFFENDER_RULES = frozenset({"RW105", "RW108", "RW109", "RW110", "RW111", "RW113", "RW114", "RW116", "RW117"})


#: files read as RW1 streams, one message a line; any other file is read in embedded mode


def lint_stream(fp: IO[bytes] | IO[str] | Iterable[str], *, file: str = "<stream>",
                profiles: Receiver | Iterable | None = None, now: str | None = None,
                select: Sequence[str] | None = None, ignore: Sequence[str] = (),
                embedded: bool | None = None, counts: dict[str, int] | None = None) -> list[LintFinding]:
    """Every finding of one conversation, in line order, filtered by ``select``/``ignore``.

    ``fp`` is a binary or text stream, or an iterable of lines. ``now``
    (``YYYYMMDDTHHMMZ``) enables the rules on handoffs open past ``exp``/``due``.
    ``embedded`` reads the messages found inside each line (logs, Markdown,
    JSON Lines) rather than each line as one message; by default it follows
    the file name (:func:`is_stream_file`). ``counts``, when given, gets
    ``"lines"``: the RW1 lines read, valid or refused (a stream's non-blank
    lines; the candidates found inside a log), and ``"messages"``: the valid
    ones among them (a log with no RW1 line in it has no finding, and says so
    here).
    """
    receiver = Receiver.all_bundled() if profiles is None else as_receiver(profiles)
    if now is not None:
        from ..checks.thread import parse_now

        try:
            parse_now(now)
        except ValueError as exc:
            raise RW1Error(str(exc)) from None
    enabled = selected_rules(select, ignore)
    if embedded is None:
        embedded = not is_stream_file(file)
    findings: list[LintFinding] = []
    refused: dict[str, _Refused] = {}  # the refused lines' ids: a reply to one names a message that was sent
    places = _places_of(fp) if embedded else None

    tally = counts if counts is not None else {}
    tally.setdefault("lines", 0)
    tally.setdefault("messages", 0)
    plain = (_plain_findings(fp, receiver, file, now, enabled, tally, embedded=places is not None)
             if places is None or isinstance(places, _Reread) else None)

    def valid() -> Iterator[Message | LineResult]:
        if places is not None:
            put = places.put if isinstance(places, _Places) else None  # (a file's places are read again)
            for result, physical, frame, start in _embedded_results(fp, receiver, file):
                tally["lines"] += 1
                if put is not None:
                    put(result.line_number or 1, result.text, physical, frame, start)
                if result.findings or result.raw is not None:  # (a candidate the accept path took alone has neither)
                    findings.extend(_with_causes(list(_line_findings(result, file)), result, refused))
                if result.message is not None:
                    tally["messages"] += 1
                    yield result  # read from its candidate's text: the thread check keeps it small
            return
        if hasattr(fp, "read"):
            # it has read(): a stream; a line with nothing to say goes through the accept path alone
            results = validate_stream(cast("IO[str] | IO[bytes]", fp), receiver, file=file, quiet_first=True)
        else:
            results = (check_line(_strip_terminator(text), receiver, line_number=i, file=file)
                       for i, text in enumerate(fp, start=1) if text.strip("\r\n"))
        for result in results:
            if result.text:  # (a blank line is no RW1 line: a note lint does not show)
                tally["lines"] += 1
            if result.findings or result.raw is not None:  # (a line the accept path took alone has neither)
                findings.extend(_with_causes(list(_line_findings(result, file)), result, refused))
            if result.message is not None:
                tally["messages"] += 1
                yield result  # the line it was read from goes along: the thread check keeps it small

    try:
        if plain is None:
            plain = stream_findings(valid(), file, receiver=receiver, now=now, enabled=enabled, refused=refused)
        findings.extend(plain)
        kept = [f for f in findings if f.code in enabled]
        if places is not None:
            places.want({(f.line, f.text) for f in kept})
            kept = [_in_physical_line(f, places) for f in kept]
    finally:
        if places is not None:
            places.close()
    kept.sort(key=lambda f: (f.line, f.column or 0, f.code))
    seen: dict[tuple[str, ...], int] = {}
    for i, f in enumerate(kept):
        identity = f.identity()
        if identity in seen:
            seen[identity] += 1
            kept[i] = attrs.evolve(f, occurrence=seen[identity])
        else:
            seen[identity] = 0
    return kept


def _plain_findings(fp: Any, receiver: Receiver, file: str, now: str | None, enabled: frozenset[str],
                    tally: dict[str, int], *, embedded: bool) -> list[LintFinding] | None:
    """Lint's accept path: the findings of ``fp`` (a file it can read again: a stream, or with ``embedded`` a
    log), read once, when every message reads on the accept path with nothing to say and takes a step of a
    plain thread (:mod:`rogerwilco.checks._plain`): the full rules read the threads left waiting alone. None
    where it cannot tell, with ``fp`` back where it was and ``tally`` as it was, for the full pass."""
    if not _rereadable(fp):
        return None
    start = fp.tell()
    count = 0
    threads = PlainThreads(receiver, memory_bytes=memory_bound())
    take = threads.stepper()
    # the threads' records hold no cycle: the collector paused while they are built, and what stays (the threads
    # left waiting) set aside from it after, so that no collection walks them all
    with no_cycle_collection() as read:
        for message in (_log_messages if embedded else _stream_messages)(fp, receiver, file):
            if message is None or not take(message):
                # a refusal, a note, a blank line, a message off the plain steps: the full pass reads it all
                fp.seek(start)
                return None
            count += 1
        read()
    tally["lines"] += count
    tally["messages"] += count
    waiting = sorted((m for thread in threads.unfinished(now) for m in thread), key=_line_of)
    if not waiting:
        return []
    return stream_findings(waiting, file, receiver=receiver, now=now, enabled=enabled)


def _stream_messages(fp: Any, receiver: Receiver, file: str) -> Iterator[Message | None]:
    """Each line's message, as lint reads a stream (:func:`rogerwilco.io.stream.validate_stream` with
    ``quiet_first``), where the line reads on the accept path with nothing to say; else None."""
    for number, text in plain_lines(fp):
        yield None if text is None else accept_quiet(text, receiver, number, file)


def _log_messages(fp: Any, receiver: Receiver, file: str) -> Iterator[Message | None]:
    """Each candidate's message, as lint finds the candidates of a log (:func:`_embedded_results`), where the
    accept path takes it with nothing to say; else None."""
    from .scan import frames

    for number, text in _log_lines(fp):
        if "RW" not in text:
            continue
        at = plain_start(text) if plain_start is not None else -1
        if at >= 0:  # a plain log line: its one candidate (as _candidates_in finds it)
            yield accept_quiet(text[at:], receiver, number, file)
            continue
        for _, _, candidate in _candidates_in(text, frames):
            yield accept_quiet(candidate, receiver, number, file)


def _line_of(m: Message) -> int:
    source = m.source
    return source.line if source is not None and source.line is not None else 0


def _rereadable(fp: Any) -> bool:
    if not hasattr(fp, "read"):
        return False
    try:
        return bool(fp.seekable())
    except (AttributeError, OSError, ValueError):
        return False


def _log_lines(fp: IO[bytes] | IO[str] | Iterable[str], wanted: set[int] | None = None
               ) -> Iterator[tuple[int, str]]:
    """(number, text) of each line of a log or document, without its terminator and the first without its byte
    order mark: in a stream, a line ends at ``\\n``, ``\\r\\n`` or a bare ``\\r``, as
    :func:`rogerwilco.io.stream.read_lines` and ``scan`` end lines (so all three number them alike); lines given
    one by one are lines already (a CR inside one is a control character). With ``wanted``, the lines whose
    numbers are in it alone, up to the last of them (the others counted, not read)."""
    stream = hasattr(fp, "read")
    number = 0
    last = max(wanted, default=0) if wanted is not None else -1
    for raw in fp:
        if 0 <= last <= number:
            return
        number += 1
        if wanted is not None and number not in wanted and type(raw) is bytes and b"\r" not in raw:
            continue  # one line, no CR in it, not wanted
        if isinstance(raw, bytes):
            raw = raw.decode("utf-8", "surrogateescape")
        text = raw
        if text.endswith("\n"):  # the terminator: \n or \r\n (D3)
            text = text[:-1]
            if text.endswith("\r"):
                text = text[:-1]
        if number == 1 and text.startswith("\ufeff"):
            text = text[1:]
        if not stream or "\r" not in text:
            if wanted is None or number in wanted:
                yield number, text
            continue
        pieces = text.split("\r")
        if text.endswith("\r") and not raw.endswith("\n"):
            pieces.pop()  # a CR ending the stream ends its last line; no empty line after it
        for i, piece in enumerate(pieces):
            if wanted is None or number + i in wanted:
                yield number + i, piece
        number += len(pieces) - 1


def _candidates_in(text: str, frames: Any) -> Sequence[tuple[Any, int, str]]:
    """(frame, start in the frame, text) of every message candidate in one line of a log or document (``frames``:
    :mod:`rogerwilco.io.scan.frames`, imported once by the caller)."""
    if "RW" not in text:
        return ()
    at = plain_start(text) if plain_start is not None else -1
    if at >= 0:  # a plain log line: its one candidate, where the scanner found it (as frames_of and candidates would)
        return ((frames.Frame(text, 1), at, text[at:]),)
    return [(frame, start, cand) for frame in frames.frames_of(text) for start, cand in frames.candidates(frame.text)]


def _embedded_results(fp: IO[bytes] | IO[str] | Iterable[str], receiver: Receiver, file: str) -> Iterator[tuple]:
    """(result, physical line, frame, start) for every message candidate inside the lines of a log or document."""
    from .scan import frames

    for number, text in _log_lines(fp):
        for frame, start, cand in _candidates_in(text, frames):
            quiet = accept_quiet(cand, receiver, number, file)  # nothing to say: the accept path alone
            result = (LineResult(text=cand, message=quiet, findings=(), line_number=number) if quiet is not None
                      else check_line(cand, receiver, line_number=number, file=file))
            yield result, text, frame, start


class _Places:
    """Where each embedded candidate sits, by (line number, candidate text): its physical line, the frame
    holding it and where in the frame it starts; the last one put for a key wins. Kept in memory up to
    ``memory_bytes``, past it in a private temporary database on disk, since a log may hold millions of
    candidates and only the few a finding is about are read back. The bound is a third of the parts'
    (:func:`rogerwilco.checks._components.memory_bound`: 64 MiB by default, about 100,000 messages of a log),
    so that ``RW1_PARTS_MEMORY_BYTES`` bounds both."""

    def __init__(self) -> None:
        self.memory_bytes = memory_bound() // 3
        self._db: Any = None  # made when the places outgrow memory_bytes (:meth:`_spill`)
        # the places put since the last spill, as given (each newer than any on disk)
        self._recent: dict[tuple[int, str], tuple[str, Any, int]] = {}
        self._held = 0  # what _recent holds, about (its tuples and dict entries, and the physical lines' text)

    def put(self, line: int, text: str, physical: str, frame: Any, start: int) -> None:
        self._recent[(line, text)] = (physical, frame, start)
        self._held += 400 + len(physical) + (0 if frame.text is physical else len(frame.text))
        if self._held >= self.memory_bytes:
            self._spill()

    def _spill(self) -> None:
        if self._db is None:
            self._db = scratch_database("""
                CREATE TABLE place (line INTEGER NOT NULL, text BLOB NOT NULL, physical BLOB NOT NULL,
                                    start INTEGER NOT NULL, frame BLOB, base INTEGER NOT NULL, offset INTEGER NOT NULL,
                                    field BLOB, body BLOB, columns TEXT, PRIMARY KEY (line, text)) WITHOUT ROWID;
            """, cache_kib=512)
        rows = ((line, encoded(text), encoded(physical), start,
                 None if frame.text == physical else encoded(frame.text),  # most frames are their physical line
                 frame.base, frame.offset, None if frame.field is None else encoded(frame.field),
                 None if frame.body is None else encoded(frame.body),
                 None if frame.columns is None else json.dumps(list(frame.columns)))
                for (line, text), (physical, frame, start) in self._recent.items())
        with on_disk():
            self._db.executemany("INSERT OR REPLACE INTO place VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        self._recent.clear()
        self._held = 0

    def want(self, keys: set[tuple[int, str]]) -> None:
        """(Every place is kept: nothing to read.)"""

    def get(self, key: tuple[int, str]) -> tuple[str, Any, int] | None:
        from .scan.frames import Frame

        found = self._recent.get(key)
        if found is not None or self._db is None:
            return found
        with on_disk():
            row = self._db.execute("SELECT physical, start, frame, base, offset, field, body, columns FROM place "
                                   "WHERE line = ? AND text = ?", (key[0], encoded(key[1]))).fetchone()
        if row is None:
            return None
        physical, start, text, base, offset, field, body, columns = row
        physical = decoded(physical)
        frame = Frame(physical if text is None else decoded(text), base, offset, None if field is None else decoded(field),
                      None if body is None else decoded(body), None if columns is None else tuple(json.loads(columns)))
        return physical, frame, start

    def close(self) -> None:
        if self._db is not None:
            self._db.close()


class _Reread:
    """Where the candidates of a log read from a file that can be read again sit: nothing is kept while the file
    is read; the lines the findings are about are read again at the end (:meth:`want`), numbered and framed as
    :func:`_embedded_results` numbered and framed them. A line that changed since (a file rewritten in place)
    holds its candidate no more: its findings keep the candidate's own text and column."""

    def __init__(self, fp: IO[bytes] | IO[str], offset: int) -> None:
        self._fp, self._offset = fp, offset
        self._found: dict[tuple[int, str], tuple[str, Any, int]] = {}

    def want(self, keys: set[tuple[int, str]]) -> None:
        if not keys:
            return
        from .scan import frames

        self._fp.seek(self._offset)
        for number, text in _log_lines(self._fp, {line for line, _ in keys}):
            for frame, start, cand in _candidates_in(text, frames):
                if (number, cand) in keys:
                    self._found[(number, cand)] = (text, frame, start)  # the last one of a key wins

    def get(self, key: tuple[int, str]) -> tuple[str, Any, int] | None:
        return self._found.get(key)

    def close(self) -> None:
        self._found.clear()


def _places_of(fp: IO[bytes] | IO[str] | Iterable[str]) -> _Places | _Reread:
    """Where a log's candidates are kept: read again from a file that can seek (:class:`_Reread`), else kept as
    they are read (:class:`_Places`: standard input from a pipe, lines given one by one)."""
    seekable = getattr(fp, "seekable", None)
    if seekable is not None and hasattr(fp, "tell"):
        try:
            if seekable():
                return _Reread(cast("IO[bytes] | IO[str]", fp), cast("IO[bytes]", fp).tell())
        except (OSError, ValueError):
            pass
    return _Places()


def _in_physical_line(f: LintFinding, places: _Places | _Reread) -> LintFinding:
    """A finding on an embedded candidate, moved to the column of the physical line that holds it."""
    place = places.get((f.line, f.text))
    if place is None:
        return f
    physical, frame, start = place
    column = frame.column(start + f.column - 1) if f.column else frame.column(start)
    return attrs.evolve(f, column=column, text=physical)


def _strip_terminator(text: str) -> str:
    """A line without its terminator (``\\n`` or ``\\r\\n``), as a reader of a file sees it (D3)."""
    if text.endswith("\n"):
        text = text[:-1]
        if text.endswith("\r"):
            text = text[:-1]
    return text


def lint_paths(paths: Sequence[str], *, config: Any = None, **options: Any) -> Iterator[tuple[str, list[LintFinding]]]:
    """(display name, findings) for each file; ``-`` is standard input; a folder is walked.

    ``config`` is one :class:`rogerwilco.io.lint_config.LintConfig` for every file, or a
    :class:`rogerwilco.io.lint_config.FileConfigs` giving each file the configuration nearest to it: it
    chooses which files a folder contributes and adds its per-file ignores. ``settings``, when given, turns
    a file's configuration into more options of :func:`lint_stream` (its rules, profiles, now), which win
    over the ones given here. ``stdin_filename`` names standard input (its per-file ignores, its mode and
    its configuration follow that name); ``on_open`` is given each file as it is opened (a progress bar
    watches it); ``counts``, a dict, gets each file's ``counts`` of :func:`lint_stream` under its display name.
    """
    from .lint_config import FileConfigs, LintConfig

    configs = config if isinstance(config, FileConfigs) else FileConfigs(config if config is not None else LintConfig())
    stdin_name = options.pop("stdin_filename", None)
    on_open = options.pop("on_open", None) or (lambda fh: None)
    settings: Callable[[Any], Mapping[str, Any]] = options.pop("settings", None) or (lambda found: {})
    ignore = tuple(options.pop("ignore", ()) or ())
    counts: dict[str, dict[str, int]] | None = options.pop("counts", None)

    def lint_one(fh: Any, name: str, where: str) -> list[LintFinding]:
        found = configs.for_path(where)
        chosen = {**options, **settings(found)}
        tally: dict[str, int] = {}
        if counts is not None:
            counts[name] = tally
        return lint_stream(fh, file=name, counts=tally, **{**chosen, "ignore": tuple(chosen.get("ignore", ignore)) +
                                                           found.ignored_for(name)})

    for given in paths:
        if given == "-":
            name = stdin_name or "<stdin>"
            yield name, lint_one(sys.stdin.buffer, name, stdin_name or ".")
            continue
        for name in configs.walk(given):
            try:
                fh = open(name, "rb")
            except OSError as exc:
                raise RW1Error(f"cannot read {name}: {exc.strerror}") from None
            with fh:
                on_open(fh)
                yield name, lint_one(fh, name, name)


# --------------------------------------------------------------------------
# the baseline: adopt the linter on an existing pile of logs

_BASELINE_VERSION = 1


def _rules_version() -> str:
    """A digest of the rule set a baseline was written against (codes, names, levels, fingerprint scheme)."""
    basis = "\n".join(f"{r.code} {r.name} {r.level}" for r in RULES.values()) + "\nfingerprint:v1"
    return hashlib.sha256(basis.encode()).hexdigest()[:16]


def _baseline_key(f: LintFinding, base: Path) -> str:
    """A finding's identity for a baseline: its fingerprint with the file taken relative to the baseline's folder."""
    file = f.file
    if file not in ("<stdin>", "-"):
        try:
            file = Path(file).resolve().relative_to(base.resolve()).as_posix()
        except ValueError:
            file = Path(file).resolve().as_posix()
    parts = (f.code, file, f.text, f.token or "", f.key or "") + ((str(f.occurrence),) if f.occurrence else ())
    return hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogateescape")).hexdigest()[:32]


def write_baseline(path: str | Path, findings: Iterable[LintFinding]) -> int:
    """Record ``findings`` in a baseline file; the number recorded."""
    import json

    path = Path(path)
    base = path.resolve().parent
    entries = sorted({(_baseline_key(f, base), f.code) for f in findings})
    doc = {"tool": "rogerwilco", "baseline": _BASELINE_VERSION, "rules": _rules_version(),
           "findings": [{"fingerprint": key, "code": code} for key, code in entries]}
    try:
        path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise RW1Error(f"cannot write {path}: {exc.strerror}") from None
    return len(entries)


def read_baseline(path: str | Path) -> frozenset[str]:
    """The fingerprints a baseline file records; refused when it is not one, or from another rule set."""
    import json

    path = Path(path)
    try:
        doc = json.loads(read_limited(path, what="baseline", limit=BASELINE_MAX_BYTES).decode("utf-8"))
    except OSError as exc:
        raise RW1Error(f"cannot read baseline {path}: {exc.strerror}") from None
    except RW1Error:  # not a regular file, or past the cap: already says which and why
        raise
    except ValueError as exc:
        raise RW1Error(f"{path}: not a baseline (not JSON: {exc})") from None
    if not isinstance(doc, dict) or doc.get("tool") != "rogerwilco" or not isinstance(doc.get("findings"), list):
        raise RW1Error(f"{path}: not a rogerwilco lint baseline (write one with --write-baseline)")
    if doc.get("baseline") != _BASELINE_VERSION or doc.get("rules") != _rules_version():
        raise RW1Error(f"{path}: this baseline was written for another version of the rules "
                       f"(its rules {doc.get('rules')!r}, these {_rules_version()!r}); write it again with --write-baseline")
    keys = set()
    for i, entry in enumerate(doc["findings"]):
        if not isinstance(entry, dict) or not isinstance(entry.get("fingerprint"), str):
            raise RW1Error(f"{path}: /findings/{i} is expected to be an object with a fingerprint")
        keys.add(entry["fingerprint"])
    return frozenset(keys)


def new_findings(findings: Iterable[LintFinding], baseline: frozenset[str], baseline_path: str | Path) -> list[LintFinding]:
    """The findings a baseline does not record."""
    base = Path(baseline_path).resolve().parent
    return [f for f in findings if _baseline_key(f, base) not in baseline]


__getattr__ = _deprecated.renamed(__name__, {"Rule": ("LintRule", LintRule)})


__all__ = [
    "ERROR",
    "LINE_KINDS",
    "LintFinding",
    "LintRule",
    "RULES",
    "THREAD_KINDS",
    "WARNING",
    "is_stream_file",
    "lint_paths",
    "lint_stream",
    "new_findings",
    "read_baseline",
    "selected_rules",
    "stream_findings",
    "write_baseline",
]
