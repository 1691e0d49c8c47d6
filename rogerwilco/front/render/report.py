"""The audit report: one self-contained HTML file of a conversation (``rogerwilco report``).

Theory of operation
-------------------
The report is the check's report, drawn. Its findings are those of
:func:`rogerwilco.checks.thread.check_thread_spooled` (the check behind
``check-thread``) and of :func:`rogerwilco.io.lint.lint_stream` run with the
thread rules left out (lint's thread rules are the same findings of the same
check, told again); its ledger (who owns what, every handoff's state) is the
check's ledger; each readback is judged by
:func:`rogerwilco.checks.readback.check_rb`, the function the endpoint the
check replays calls, and each done report of an ``rb=exec`` handoff by
:func:`rogerwilco.checks.readback.check_dn`. Nothing here decides what a
conversation means.

The file is written as a stream, in memory that does not grow with the
conversation: the check keeps its report on disk, the lines of the handoffs
and readbacks a later message needs are kept in a scratch database, and the
messages go to the output as they are read. The page's data is one JSON
document inside ``<script type="application/json">``, escaped so that no
text a message carries can end that element or be read as markup (``<``,
``>`` and ``&`` as ``\\u003c``, ``\\u003e``, ``\\u0026``; every non-ASCII
character, U+2028 and U+2029 among them, as an escape). The page's script
builds its DOM from that data with ``textContent`` alone, and the page's
Content-Security-Policy allows that one script (by its hash) and nothing else:
no network, no other script, no external asset.
"""

from __future__ import annotations

import base64
import datetime as _dt
import hashlib
import json
import tempfile
from contextlib import contextmanager
from importlib.resources import files
from typing import IO, Any, Callable, Iterator

from ...checks.readback import TIERS, check_dn, check_rb, levels_of
from ...checks.thread import SpooledThreadReport, check_thread_spooled
from ...core._version import __version__
from ...core.findings import Finding
from ...core.message import Message
from ...core.semantics import LineResult
from ...core.vocab import Receiver
from ...io.lint import THREAD_KINDS, LintFinding, lint_stream
from ...io.stream import validate_stream

#: the page's own files, read once per report (package data beside this module)
_ASSETS = "report_assets"
#: lint's rules that tell the thread check's findings again: left out of lint's run (one source of truth)
_THREAD_RULES = tuple(sorted(set(THREAD_KINDS.values())))
#: how many messages go into one write of the output
_CHUNK = 512
#: the moment a readback or a done report is judged at: before any ``exp=``, as the check's replay judges it
#: (checks/endpoint.py, ``Endpoint._rb_event``): a line carries no time of sending, so expiry is judged at the
#: end alone, by the check (``open-past-exp``), never as of ``--now`` against a line sent long before it
_BEFORE_ANY_EXP = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


def safe_json(value: Any) -> str:
    """``value`` as JSON text that may stand inside an HTML ``<script>`` element: ASCII only (U+2028 and
    U+2029 escaped with the rest), and no ``<``, ``>`` or ``&`` (each as its ``\\u`` escape), so no string
    in it can close the element, open a comment or start a character reference."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _asset(name: str) -> str:
    return files(__package__).joinpath(_ASSETS).joinpath(name).read_text(encoding="utf-8")  # one part a call (3.10)


def _script_hash(script: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")


def _finding_json(f: Finding) -> dict[str, Any]:
    return {k: v for k, v in f.to_json().items() if v is not None}


def _side(value: Any) -> Any:
    """A side of a comparison as JSON holds it: lists and mappings as such, any other value that is not a JSON
    scalar as its text (a decimal amount, a date)."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (list, tuple)):
        return [_side(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _side(v) for k, v in value.items()}
    return str(value)


def _check_finding(f: Finding) -> dict[str, Any]:
    """A readback or done-report finding, with the sender's and the receiver's values for the side-by-side view."""
    out = _finding_json(f)
    for name in ("sender_value", "receiver_value"):
        value = getattr(f, name)
        if value is not None:
            out[name] = _side(value)
    return out


def _thread_finding(f: Finding) -> dict[str, Any]:
    out = _finding_json(f)
    out["src"] = "check-thread"
    return out


def _lint_finding(f: LintFinding) -> dict[str, Any]:
    # lint's levels are error, warning and note; the report's severity column says fail for an error, as the
    # checks do, and keeps the rest as lint names them
    severity = "fail" if f.level == "error" else f.level
    out = {"src": "lint", "severity": severity, "kind": f"{f.code} {f.rule.name}", "message": f.message,
           "line": f.line, "column": f.column, "token": f.token, "key": f.key}
    return {k: v for k, v in out.items() if v is not None}


def _message_row(result: LineResult) -> list[Any]:
    """A line as the page draws it: ``[line number, text, digest, JSON form]``; an unreadable line has no
    digest and no JSON form, and its refusal's message last."""
    message = result.message
    number = result.line_number or 0
    if message is None:
        problem = result.refusal
        return [number, result.text, None, None, problem.message if problem is not None else "not a message"]
    return [number, result.text or message.to_line(), message.digest(), message.to_json()]


class _Kept:
    """The handoffs and readbacks of the conversation that a later message is checked against, by id, on disk."""

    def __init__(self) -> None:
        from ...checks._components import scratch_database

        self._db = scratch_database("CREATE TABLE seen (id BLOB PRIMARY KEY) WITHOUT ROWID;"
                                    "CREATE TABLE line (id BLOB PRIMARY KEY, text TEXT NOT NULL) WITHOUT ROWID;"
                                    "CREATE TABLE rb (ho BLOB PRIMARY KEY, text TEXT NOT NULL) WITHOUT ROWID;",
                                    cache_kib=1024)

    def first(self, message: Message) -> bool:
        """Whether this is the first message with its id: a later one (the same message delivered twice, or a
        ``form`` finding of the check) is left out of the thread, so nothing is judged on it here either."""
        from ...checks._components import encoded

        return self._db.execute("INSERT OR IGNORE INTO seen VALUES (?)", (encoded(message.id),)).rowcount == 1

    def keep(self, message: Message, text: str) -> None:
        from ...checks._components import encoded

        self._db.execute("INSERT INTO line VALUES (?, ?)", (encoded(message.id), text))

    def keep_rb(self, ho: str, text: str) -> None:
        from ...checks._components import encoded

        self._db.execute("INSERT OR REPLACE INTO rb VALUES (?, ?)", (encoded(ho), text))

    def handoff(self, ident: str) -> str | None:
        """The line of the HO with this id, if one was kept."""
        return self._one("SELECT text FROM line WHERE id = ?", ident)

    def readback_of(self, ho: str) -> str | None:
        """The latest readback of the HO with this id, if one came."""
        return self._one("SELECT text FROM rb WHERE ho = ?", ho)

    def _one(self, query: str, ident: str) -> str | None:
        from ...checks._components import encoded

        row = self._db.execute(query, (encoded(ident),)).fetchone()
        return None if row is None else row[0]

    def close(self) -> None:
        self._db.close()


def _readback_row(ho_text: str, message: Message, text: str, receiver: Receiver, kept: _Kept) -> dict[str, Any] | None:
    """A readback or a done report judged against its handoff: the check's verdict, tiers and findings."""
    if message.type == "RB":
        report = check_rb(ho_text, text, profiles=receiver, now=_BEFORE_ANY_EXP)
        kept.keep_rb(message.re or "", text)
        tiers = {str(t): report.tiers.get(t, "not checked") for t in TIERS}
        return {"check": "check-rb", "ho": message.re, "id": message.id, "passed": report.passed, "tiers": tiers,
                "unchecked": list(report.unchecked), "findings": [_check_finding(f) for f in report.findings]}
    ho = Message.from_line(ho_text, receiver)
    if message.type != "DN" or "exec" not in levels_of(ho):
        return None
    report = check_dn(ho, text, kept.readback_of(message.re or ""), profiles=receiver, now=_BEFORE_ANY_EXP)
    return {"check": "check-dn", "ho": message.re, "id": message.id, "passed": report.passed,
            "findings": [_check_finding(f) for f in report.findings]}


@contextmanager
def _spool() -> Iterator[IO[str]]:
    with tempfile.SpooledTemporaryFile(max_size=1 << 20, mode="w+", encoding="utf-8") as fh:
        yield fh


def _joined(out: IO[str], pieces: Iterator[str]) -> None:
    first = True
    for piece in pieces:
        out.write(piece if first else "," + piece)
        first = False


def write_report(open_lines: Callable[[], IO[bytes]], out: IO[str], *, name: str, receiver: Receiver,
                 now: _dt.datetime) -> SpooledThreadReport:
    """Write the report of the conversation ``open_lines()`` reads (it is called three times: the check, lint,
    then the drawing) to ``out``; the check's report is returned, closed (its counts and verdict stay)."""
    stamp = now.strftime("%Y%m%dT%H%MZ")
    with open_lines() as fh:
        thread = check_thread_spooled(validate_stream(fh, receiver, file=name), now=now, profiles=receiver)
    with thread:
        with open_lines() as fh:
            lint = lint_stream(fh, file=name, profiles=receiver, now=stamp, ignore=_THREAD_RULES, embedded=False)
        script = _asset("report.js")
        out.write(_head(script))
        meta = {"file": name, "now": stamp, "version": __version__, "passed": thread.passed and
                not any(f.level == "error" for f in lint), "fails": thread.fails, "notes": thread.notes,
                "tiers": {str(t): n for t, n in TIERS.items()}}
        out.write('<script type="application/json" id="rw1-data">{"meta":' + safe_json(meta) + ',"messages":[')
        with _spool() as readbacks:
            _messages(open_lines, out, readbacks, name=name, receiver=receiver)
            out.write('],"findings":[')
            _joined(out, (safe_json(_thread_finding(f)) for f in thread.findings()))
            if lint:
                out.write("," if thread.fails + thread.notes else "")
                _joined(out, (safe_json(_lint_finding(f)) for f in lint))
            out.write('],"handoffs":[')
            _joined(out, (safe_json(h.to_json()) for h in thread.handoffs()))
            out.write('],"items":[')
            _joined(out, (safe_json(i.to_json()) for i in thread.items()))
            out.write('],"readbacks":[')
            readbacks.seek(0)
            for piece in iter(lambda: readbacks.read(1 << 16), ""):
                out.write(piece)
        out.write("]}</script>\n<script>" + script + "</script>\n</body>\n</html>\n")
    return thread


def _messages(open_lines: Callable[[], IO[bytes]], out: IO[str], readbacks: IO[str], *, name: str,
              receiver: Receiver) -> None:
    """Every line as the page draws it, written as read; each readback and done report judged on the way."""
    kept = _Kept()
    try:
        with open_lines() as fh:
            rows: list[str] = []
            first, judged = True, False
            for result in validate_stream(fh, receiver, file=name):
                if result.message is None and result.text == "" and result.refusal is None:
                    continue  # a blank line: no message
                rows.append(safe_json(_message_row(result)))
                message = result.message
                if message is not None:
                    judged = _judge(message, result.text or message.to_line(), receiver, kept, readbacks, judged)
                if len(rows) >= _CHUNK:
                    out.write(("" if first else ",") + ",".join(rows))
                    rows, first = [], False
            if rows:
                out.write(("" if first else ",") + ",".join(rows))
    finally:
        kept.close()


def _judge(message: Message, text: str, receiver: Receiver, kept: _Kept, readbacks: IO[str], judged: bool) -> bool:
    """Keep a handoff for what answers it; judge a readback or done report against the handoff it answers."""
    if not kept.first(message):
        return judged
    if message.type == "HO":
        kept.keep(message, text)
        return judged
    if message.type not in ("RB", "DN") or message.re is None:
        return judged
    ho_text = kept.handoff(message.re)
    if ho_text is None:
        return judged
    row = _readback_row(ho_text, message, text, receiver, kept)
    if row is None:
        return judged
    readbacks.write(("," if judged else "") + safe_json(row))
    return True


def _head(script: str) -> str:
    # the one script runs by its hash; styles are inline; images only as data: URLs (none are used today)
    policy = (f"default-src 'none'; script-src '{_script_hash(script)}'; style-src 'unsafe-inline'; "
              "img-src data:; base-uri 'none'; form-action 'none'")
    return ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            '<meta name="referrer" content="no-referrer">\n'
            "<title>RW1 conversation report</title>\n<style>" + _asset("report.css") + "</style>\n</head>\n<body>\n"
            '<noscript><p>This report draws itself with its own script (no network is used): allow scripts for '
            "this file to see it.</p></noscript>\n")


__all__ = ["safe_json", "write_report"]
