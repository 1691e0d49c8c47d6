"""The conformance harness: the language-neutral suite against any adapter.

Theory of operation
-------------------
Cases are JSON files under ``conformance/<area>/<name>.json`` (format in the
shared contract; ``conformance/README.md`` for port authors). Every file
matches ``conformance/schema.json`` and names the suite's version (semver,
the same in every file); a file that does not is refused with its path and
the JSON path of the fault, before anything runs.

The implementation under test is a command; the harness starts it once,
writes one request per line (JSON with non-ASCII escaped, so any byte-level
reader copes), and reads one response per line, with a per-case timeout.
Contract version 2 opens with ``{"op": "start", "contract": 2}``: an
adapter that answers with ``contract: 2`` gets ``seq`` on every request and
must echo it; its handshake (name, version, language, ops, profiles) goes in
the report, and a case whose op the handshake does not list is skipped
without being sent. An adapter that answers anything else is driven as
version 1, exactly as before.

A case passes when every field of ``expect`` matches the response (``ok:
true`` is implied unless the case says otherwise). Two fields compare by the
contract's rule rather than by equality: ``findings`` as the set of
``(severity, kind, tier, key)``, and ``reply`` by everything before the tail
plus the tail's first word, the offending token (decisions D4): the rest of
a refusal's wording is free. ``"ok": false, "error": "unsupported"`` counts
as skipped.

One bad case cannot sink the rest: a response that is not JSON, a response
with the wrong ``seq``, an adapter that exits, and a case that times out are
``errored`` (not ``failed``: no answer was judged), and the adapter is
restarted (fresh, so a half-written answer cannot shift every later
response by one). What the adapter wrote on stderr is kept, and the last of
it is shown with an error caused by the adapter dying.

What a bad adapter can cost the harness is bounded: a response line is at
most :data:`MAX_REPLY_BYTES` (a longer one, or a flood without a newline,
errors its case after the harness has read that much and no more), a case
waits at most its timeout, and an adapter that cannot answer its start
handshake (it exits, hangs or writes garbage) is :class:`StartError`, one
line and exit status 2, not a restart for every case.

A case's full id is ``<area>/<name>:<id>``; ``--run`` and ``--skip`` take
globs over it, ``--op`` keeps the cases of some ops, and a known-failures
file lists ids or globs (one per line, ``#`` comments) that are reported but
do not fail the run; a listed case that passes is reported as fixed, so the
list only shrinks.
"""

from __future__ import annotations

import fnmatch
import json
import os
import queue
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Iterator

import attrs

from ..core._resources import data_dir
from ..core.errors import RW1Error
from ..core.files import DATA_MAX_BYTES, read_limited, read_text
from ..core.codec import same
from ..core.schemacheck import Checker

CONTRACT = 2
#: Case files that are schemas, not cases.
_SCHEMA_FILES = ("schema.json", "report.schema.json")


@attrs.frozen
class RawNumber:
    """A JSON number written exactly as ``text`` (``2.0``, ``1e0``, ``-0``).

    Python's ``json`` reads ``1e0`` as ``1.0`` and writes it back so; case
    files are read with their non-integer numbers as RawNumbers, and a
    request holding one is written by :func:`dumps_request`, which keeps the
    spelling, so a case of decision D9 reaches the adapter as written.
    """

    text: str

    def __attrs_post_init__(self) -> None:
        if not re.fullmatch(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?", self.text):
            raise ValueError(f"not a JSON number: {self.text!r}")


_RAW_MARK = "\u0000rawnumber:"


def _mark(value: Any) -> Any:
    if isinstance(value, RawNumber):
        return _RAW_MARK + value.text
    if isinstance(value, dict):
        return {k: _mark(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_mark(v) for v in value]
    return value


def dumps_request(request: Any) -> str:
    """One request as a line of JSON: non-ASCII escaped, RawNumbers as written."""
    text = json.dumps(_mark(request), ensure_ascii=True)
    if "\\u0000rawnumber:" not in text:
        return text
    return re.sub(r'"\\u0000rawnumber:([-+.0-9eE]+)"', r"\1", text)


def plain_request(request: Any) -> Any:
    """The request as plain JSON values (a RawNumber read as JSON would read it)."""
    return json.loads(dumps_request(request))



@attrs.frozen
class Case:
    id: str
    description: str
    request: dict[str, Any]
    expect: dict[str, Any]
    spec: str | None = None
    file: str | None = None


@attrs.define
class Outcome:
    case: Case
    status: str  # passed | failed | errored | skipped | known | fixed
    got: Any = None
    why: str = ""
    ms: float = 0.0


class SuiteError(ValueError):
    """A case file or report that does not match its schema: names the file and the JSON path."""

    def __init__(self, file: str, path: str, message: str) -> None:
        super().__init__(f"{file}: {path}: {message}")
        self.file, self.path, self.message = file, path, message


def suite_dir() -> Path:
    return data_dir("conformance")


@lru_cache(maxsize=None)
def _checker(name: str) -> Checker:
    return Checker(json.loads((suite_dir() / name).read_text(encoding="utf-8")))


def case_file_checker() -> Checker:
    return _checker("schema.json")


def report_checker() -> Checker:
    return _checker("report.schema.json")


def _read_json(path: Path, shown: str, *, raw_numbers: bool = False) -> Any:
    try:
        text = read_limited(path, what="case file", limit=DATA_MAX_BYTES).decode("utf-8")
        return json.loads(text, parse_float=RawNumber) if raw_numbers else json.loads(text)
    except RW1Error as exc:  # not a regular file, or past the cap
        raise SuiteError(shown, "$", exc.message) from None
    except UnicodeDecodeError:
        raise SuiteError(shown, "$", "not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise SuiteError(shown, "$", f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except OSError as exc:
        raise SuiteError(shown, "$", f"cannot be read: {exc.strerror or exc}") from None


def check_report(path: Path | str) -> dict[str, Any]:
    """Read a JSON report and check it against ``report.schema.json``; SuiteError if it does not match."""
    path = Path(path)
    doc = _read_json(path, str(path))
    fault = next(iter(report_checker().errors(doc)), None)
    if fault is not None:
        raise SuiteError(str(path), *fault)
    return doc


@attrs.frozen
class Suite:
    version: str
    cases: list[Case]


def load_suite(root: Path | None = None, *, raw_numbers: bool = False) -> Suite:
    """Every case under ``root`` (the bundled suite by default), checked against the case-file schema.

    With ``raw_numbers``, a number with a fraction or an exponent is kept as
    the :class:`RawNumber` the file wrote (``1e0`` stays ``1e0`` on the way
    to the adapter); without, it is a float, as ``json`` reads it.
    """
    root = root or suite_dir()
    checker = case_file_checker()
    cases: list[Case] = []
    version: str | None = None
    first_file = ""
    for path in sorted(root.rglob("*.json")):
        if path.name in _SCHEMA_FILES or path.name.endswith(".schema.json") or "node_modules" in path.parts:
            continue
        shown = path.relative_to(root.parent).as_posix() if root.parent != root else path.as_posix()
        doc = _read_json(path, shown, raw_numbers=raw_numbers)
        fault = next(iter(checker.errors(doc)), None)
        if fault is not None:
            raise SuiteError(shown, *fault)
        if version is None:
            version, first_file = doc["suite"], shown
        elif doc["suite"] != version:
            raise SuiteError(shown, "$.suite", f"suite version {doc['suite']} differs from {version} in {first_file}")
        prefix = path.relative_to(root).with_suffix("").as_posix()
        for raw in doc["cases"]:
            cases.append(Case(
                id=f"{prefix}:{raw['id']}",
                description=raw.get("description", ""),
                request=raw["request"],
                expect=raw["expect"],
                spec=raw.get("spec"),
                file=shown,
            ))
    return Suite(version=version or "0.0.0", cases=cases)


def load_cases(root: Path | None = None) -> list[Case]:
    return load_suite(root).cases


def case_lines(root: Path | None = None) -> list[str]:
    """Every RW1 line the cases hold, in order (each request's ``line``, ``ho``, ``rb``, ``dn`` and ``text``, then
    its ``lines``): real input for the differential tests and the fuzzer."""
    lines: list[str] = []
    for case in load_cases(root):
        found = [case.request.get(key) for key in ("line", "ho", "rb", "dn", "text")]
        found += case.request.get("lines", ()) or ()
        lines += [value for value in found if isinstance(value, str)]
    return lines


def suite_version(root: Path | None = None) -> str:
    return load_suite(root).version


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def json_text(value: Any, indent: int | None = None) -> str:
    """JSON with non-ASCII kept readable, and lone surrogates (which no UTF-8
    output can carry) written as ``\\uXXXX`` escapes."""
    text = json.dumps(plain_request(value), ensure_ascii=False, indent=indent)
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def finding_set(findings: Iterable[dict[str, Any]]) -> set[tuple]:
    return {(f.get("severity"), f.get("kind"), f.get("tier"), f.get("key")) for f in findings if isinstance(f, dict)}


def reply_signature(line: Any) -> Any:
    """What a ``reply`` comparison looks at (D4): the line up to the tail, and
    the tail's first word (the offending token); the rest is wording."""
    if not isinstance(line, str):
        return line
    head, mark, tail = line.partition(" // ")
    return (head, tail.split(" ", 1)[0] if mark else None)


def compare(expect: dict[str, Any], got: dict[str, Any]) -> str:
    """'' when ``got`` satisfies ``expect``, else what differs."""
    for key, want in expect.items():
        if key not in got:
            return f"missing {key!r}"
        have = got[key]
        if key == "reply":
            if reply_signature(have) != reply_signature(want):
                return f"reply: expected {json_text(want)}, got {json_text(have)}"
        elif key == "findings":
            if not isinstance(have, list):
                return "findings is not a list"
            w, h = finding_set(want), finding_set(have)
            if w != h:
                return f"findings differ: expected {sorted(map(str, w))}, got {sorted(map(str, h))}"
        elif not same(have, want):
            return f"{key}: expected {json_text(want)}, got {json_text(have)}"
    return ""


class ImplError(RuntimeError):
    """The implementation could not answer a case (dead, hung, or not speaking JSON)."""


class StartError(RuntimeError):
    """The implementation command cannot be started at all."""


#: The most one response line may hold. A reply longer than this (or a flood
#: with no newline) errors its case: the harness never holds more than this of it.
MAX_REPLY_BYTES = 4 * 1024 * 1024
# stderr is kept for the last words of a dying adapter: its lines are cut to this
_STDERR_LINE_BYTES = 2000
# what the stdout reader hands over in place of a line too long to hold
_OVERSIZED = object()
# lines read ahead of the request that wants them: one answer per request is all a well-behaved adapter
# writes, and an adapter writing many at once waits, so the harness holds at most this many capped lines
_QUEUED_LINES = 4


class ImplProcess:
    """The implementation process, restarted when it dies, hangs, garbles or loses count.

    ``start()`` opens with the contract-2 handshake unless ``handshake`` is
    off; ``contract`` is then 2 (requests carry ``seq``) or 1. An adapter
    that does not answer its handshake cannot run at all (StartError); so is
    one that, driven without a handshake, exits before answering anything
    twice in a row, rather than being started again for every case.
    """

    STDERR_LINES = 20
    # without a handshake, a case may kill the adapter once; twice in a row on a fresh start is the adapter
    FRESH_DEATHS = 2

    def __init__(self, command: list[str], *, handshake: bool = True, start_timeout: float = 10.0,
                 max_reply_bytes: int = MAX_REPLY_BYTES) -> None:
        self.command = command
        self.proc: subprocess.Popen[bytes] | None = None
        self.lines: queue.Queue[Any] = queue.Queue(maxsize=_QUEUED_LINES)
        self.stderr: deque[str] = deque(maxlen=self.STDERR_LINES)
        self.readers: list[threading.Thread] = []
        self.starts = 0
        self.want_handshake = handshake
        self.start_timeout = start_timeout
        self.max_reply_bytes = max_reply_bytes
        self.bytes_read = 0  # of stdout, over every start: what the reader took in, never more than it may hold
        self.answered = False  # the running process has answered a request
        self.fresh_deaths = 0
        self.contract = 1
        self.hello: dict[str, Any] | None = None
        self.seq = 0

    def start(self) -> None:
        try:
            # a session of its own, so that stop() ends whatever the command started too
            self.proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, start_new_session=hasattr(os, "killpg"))
        except OSError as exc:
            raise StartError(f"cannot start {shlex.join(self.command)}: {exc.strerror or exc}") from None
        self.starts += 1
        self.lines = queue.Queue(maxsize=_QUEUED_LINES)
        self.stderr = deque(maxlen=self.STDERR_LINES)
        self.seq = 0
        self.contract = 1
        self.answered = False
        self.readers = [threading.Thread(target=self._pump_out, args=(self.proc, self.lines), daemon=True),
                        threading.Thread(target=self._pump_err, args=(self.proc, self.stderr), daemon=True)]
        for reader in self.readers:
            reader.start()
        if self.want_handshake:
            try:
                answer = self._exchange({"op": "start", "contract": CONTRACT}, self.start_timeout)
            except ImplError as exc:
                raise StartError(f"{shlex.join(self.command)} did not answer the start handshake: {exc}") from None
            if answer.get("ok") is True and answer.get("contract") == CONTRACT:
                self.contract = CONTRACT
                self.hello = {k: v for k, v in answer.items() if k not in ("ok", "seq")}
            else:
                self.hello = None

    def _pump_out(self, proc: subprocess.Popen[bytes], lines: queue.Queue[Any]) -> None:
        """Hand stdout over line by line; a line past the cap ends the reading (the process is then stopped)."""
        assert proc.stdout is not None
        cap = self.max_reply_bytes
        try:
            while True:
                line = proc.stdout.readline(cap + 1)
                self.bytes_read += len(line)
                if not line:
                    break
                if len(line) > cap and not line.endswith(b"\n"):
                    lines.put(_OVERSIZED)
                    return
                lines.put(line.decode("utf-8", errors="replace"))
        except (OSError, ValueError):
            pass  # closed by stop()
        lines.put(None)

    def _pump_err(self, proc: subprocess.Popen[bytes], errors: deque[str]) -> None:
        assert proc.stderr is not None
        try:
            while True:
                piece = proc.stderr.readline(_STDERR_LINE_BYTES)
                if not piece:
                    break
                errors.append(piece.decode("utf-8", errors="replace").rstrip("\n"))
        except (OSError, ValueError):
            pass

    def _stderr_note(self) -> str:
        # give the reader thread a moment to collect the last words
        for _ in range(20):
            if self.proc is None or self.proc.poll() is not None:
                break
            threading.Event().wait(0.01)
        threading.Event().wait(0.05)
        tail = [line for line in self.stderr if line.strip()]
        return ("; stderr: " + " | ".join(tail[-5:])) if tail else ""

    def supports(self, op: str) -> bool:
        """False only for an op a contract-2 handshake did not list."""
        if self.contract != CONTRACT or self.hello is None:
            return True
        ops = self.hello.get("ops")
        return not isinstance(ops, list) or op in ops

    def ensure_started(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            self.start()

    def ask(self, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        self.ensure_started()
        if self.contract == CONTRACT:
            self.seq += 1
            request = {**request, "seq": self.seq}
        response = self._exchange(request, timeout)
        if self.contract == CONTRACT:
            got = response.get("seq")
            if got != self.seq or isinstance(got, bool):
                asked = self.seq
                self.stop()
                raise ImplError(f"out of sequence: asked seq {asked}, the response carries "
                                f"{json.dumps(got)} (implementation restarted)")
            response = {k: v for k, v in response.items() if k != "seq"}
        return response

    def _exchange(self, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(dumps_request(request).encode("ascii") + b"\n")
            self.proc.stdin.flush()
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            self.stop()
            raise ImplError(f"timed out: no response in {timeout:g}s (implementation restarted)") from None
        except (OSError, ValueError) as exc:
            # a write that finds the pipe closed usually means the process has ended: say how, whichever of
            # the write and the exit came first
            code = self._exit_status()
            note = self._stderr_note()
            self._died()
            how = "died" if code is None else f"exited with status {code}"
            raise ImplError(f"implementation {how}: {getattr(exc, 'strerror', None) or exc}{note}") from None
        if line is None:
            code = self.proc.wait()
            note = self._stderr_note()
            self._died()
            raise ImplError(f"implementation exited with status {code} without answering{note}")
        if line is _OVERSIZED:
            self.stop()
            raise ImplError(f"response longer than {self.max_reply_bytes:,} bytes without a line end "
                            "(the harness read no more of it; implementation restarted)")
        self.answered = True
        self.fresh_deaths = 0
        try:
            response = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            self.stop()
            raise ImplError(f"response is not JSON (implementation restarted): {line.strip()[:200]!r}") from None
        if not isinstance(response, dict):
            self.stop()
            raise ImplError(f"response is not a JSON object (implementation restarted): {line.strip()[:200]}")
        return response

    def _exit_status(self) -> int | None:
        """The process's exit status once it has ended (waiting a moment for an exit under way), else None."""
        assert self.proc is not None
        try:
            return self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return None

    def _died(self) -> None:
        """The process ended without answering: stopped; a second fresh start that does so cannot run."""
        fresh = not self.answered
        self.stop()
        if not fresh:
            self.fresh_deaths = 0
            return
        self.fresh_deaths += 1
        if not self.want_handshake and self.fresh_deaths >= self.FRESH_DEATHS:
            raise StartError(f"{shlex.join(self.command)} exited before answering anything, "
                             f"{self.fresh_deaths} starts in a row{self._stderr_note()}")

    def stop(self) -> None:
        proc = self.proc
        if proc is None:
            return
        self.proc = None
        try:
            if hasattr(os, "killpg"):
                os.killpg(proc.pid, signal.SIGKILL)
            else:
                proc.kill()
        except OSError:
            pass  # already gone
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        if proc.stdin is not None:
            try:
                proc.stdin.close()
            except OSError:
                pass
        # the readers end at the pipes' end; one may wait on a full queue: make room until it is gone
        # (a process that left the session may hold a pipe open: its reader is left, a daemon thread)
        deadline = time.monotonic() + 2.0
        for reader in self.readers:
            while reader.is_alive() and time.monotonic() < deadline:
                try:
                    self.lines.get_nowait()
                except queue.Empty:
                    reader.join(0.05)
        for stream in (proc.stdout, proc.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass


def default_impl() -> list[str]:
    return [sys.executable, "-m", "rogerwilco", "adapter"]


def select(cases: list[Case], run: list[str] | None, skip: list[str] | None,
           ops: list[str] | None = None) -> list[Case]:
    out = []
    for case in cases:
        if run and not any(fnmatch.fnmatchcase(case.id, pat) for pat in run):
            continue
        if skip and any(fnmatch.fnmatchcase(case.id, pat) for pat in skip):
            continue
        if ops and case.request.get("op") not in ops:
            continue
        out.append(case)
    return out


def read_known(path: str | None) -> set[str]:
    """Case ids or globs, one per line; ``#`` starts a comment."""
    if not path:
        return set()
    known = set()
    text = read_text(path, what="known-failures file", limit=DATA_MAX_BYTES)
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            known.add(line)
    return known


def is_known(case_id: str, known: Iterable[str]) -> bool:
    return any(case_id == pat or fnmatch.fnmatchcase(case_id, pat) for pat in known)


def stale_known(cases: list[Case], known: Iterable[str]) -> list[str]:
    """Entries of a known-failures list that name no selected case."""
    return sorted(pat for pat in known if not any(is_known(c.id, [pat]) for c in cases))


class Run:
    """One run of cases against one implementation: iterate for outcomes, then read the handshake."""

    def __init__(self, cases: list[Case], impl: list[str] | None = None, *, timeout: float = 10.0,
                 known: Iterable[str] = frozenset(), handshake: bool = True) -> None:
        self.cases = cases
        self.timeout = timeout
        self.known = set(known)
        self.process = ImplProcess(impl or default_impl(), handshake=handshake, start_timeout=timeout)

    @property
    def contract(self) -> int:
        return self.process.contract

    @property
    def hello(self) -> dict[str, Any] | None:
        return self.process.hello

    def start(self) -> None:
        """Start the implementation (and shake hands). StartError if the command cannot run or answer it."""
        self.process.ensure_started()

    def __iter__(self) -> Iterator[Outcome]:
        process = self.process
        try:
            for case in self.cases:
                yield self._one(case)
        finally:
            process.stop()

    def _one(self, case: Case) -> Outcome:
        process = self.process
        listed = is_known(case.id, self.known)
        began = time.perf_counter()
        try:
            process.ensure_started()
            if not process.supports(str(case.request.get("op"))):
                return Outcome(case, "skipped", None, "op not listed in the handshake")
            got = process.ask(case.request, self.timeout)
        except ImplError as exc:
            return Outcome(case, "known" if listed else "errored", None, str(exc), _ms(began))
        ms = _ms(began)
        if got.get("ok") is False and got.get("error") == "unsupported":
            return Outcome(case, "skipped", got, "unsupported", ms)
        expect = {"ok": True, **case.expect} if "ok" not in case.expect else case.expect
        diff = compare(expect, got)
        if diff and got.get("ok") is False and "ok" not in case.expect:
            diff = f"the implementation answered ok: false: {got.get('error', '(no error given)')}"
        if diff:
            return Outcome(case, "known" if listed else "failed", got, diff, ms)
        return Outcome(case, "fixed" if listed else "passed", got, "", ms)


def _ms(began: float) -> float:
    return round((time.perf_counter() - began) * 1000, 3)


def run_cases(
    cases: list[Case],
    impl: list[str] | None = None,
    *,
    timeout: float = 10.0,
    known: Iterable[str] = frozenset(),
    handshake: bool = True,
) -> Iterator[Outcome]:
    """Every case's outcome, in order. Raises StartError if the command cannot run."""
    run = Run(cases, impl, timeout=timeout, known=known, handshake=handshake)
    run.start()
    yield from run


def impl_command(text: str | None) -> list[str]:
    return shlex.split(text) if text else default_impl()
