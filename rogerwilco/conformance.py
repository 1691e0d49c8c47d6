"""The conformance harness: the language-neutral suite against any adapter.

Theory of operation
-------------------
Cases are JSON files under ``conformance/<area>/<name>.json`` (format in the
shared contract; ``conformance/README.md`` for port authors). The
implementation under test is a command; the harness starts it once, writes
one request per line (JSON with non-ASCII escaped, so any byte-level reader
copes), and reads one response per line, in order, with a per-case timeout.

A case passes when every field of ``expect`` matches the response (``ok:
true`` is implied unless the case says otherwise). Two fields compare by the
contract's rule rather than by equality: ``findings`` as the set of
``(severity, kind, tier, key)``, and ``reply`` by everything before the tail
plus the tail's first word, the offending token (decisions D4): the rest of
a refusal's wording is free. ``"ok": false, "error": "unsupported"`` counts
as skipped.

One bad case cannot sink the rest: a response that is not JSON, an adapter
that exits, and a case that times out all fail that case, and the adapter is
restarted (fresh, so a half-written answer cannot shift every later response
by one). What the adapter wrote on stderr is kept, and the last of it is
shown with a failure caused by the adapter dying.

A case's full id is ``<area>/<name>:<id>``; ``--run`` and ``--skip`` take
globs over it, and a known-failures file lists ids or globs (one per line,
``#`` comments) that are reported but do not fail the run; a listed case that
passes is reported as fixed, so the list only shrinks.
"""

from __future__ import annotations

import fnmatch
import json
import queue
import shlex
import subprocess
import sys
import threading
from collections import deque
from pathlib import Path
from typing import Any, Iterable, Iterator

import attrs

from ._resources import data_dir


@attrs.frozen
class Case:
    id: str
    description: str
    request: dict[str, Any]
    expect: dict[str, Any]
    spec: str | None = None


@attrs.define
class Outcome:
    case: Case
    status: str  # passed | failed | skipped | known | fixed
    got: Any = None
    why: str = ""


def suite_dir() -> Path:
    return data_dir("conformance")


def load_cases(root: Path | None = None) -> list[Case]:
    root = root or suite_dir()
    cases: list[Case] = []
    for path in sorted(root.rglob("*.json")):
        if path.name == "schema.json":
            continue
        doc = json.loads(path.read_text(encoding="utf-8"))
        prefix = path.relative_to(root).with_suffix("").as_posix()
        for raw in doc["cases"]:
            cases.append(Case(
                id=f"{prefix}:{raw['id']}",
                description=raw.get("description", ""),
                request=raw["request"],
                expect=raw["expect"],
                spec=raw.get("spec"),
            ))
    return cases


def finding_set(findings: Iterable[dict[str, Any]]) -> set[tuple]:
    return {(f.get("severity"), f.get("kind"), f.get("tier"), f.get("key")) for f in findings}


def reply_signature(line: Any) -> Any:
    """What a ``reply`` comparison looks at (D4): the line up to the tail, and
    the tail's first word (the offending token); the rest is wording."""
    if not isinstance(line, str):
        return line
    head, mark, tail = line.partition(" // ")
    return (head, tail.split(" ", 1)[0] if mark else None)


def same_json(a: Any, b: Any, *, ordered: bool = False) -> bool:
    """Equality of JSON values, where Python's ``==`` is too loose: ``true`` is not ``1``.

    Object members compare in any order, except a JSON form's ``slots``,
    which hold the line's slots in written order (D1).
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        if ordered and list(a) != list(b):
            return False
        return a.keys() == b.keys() and all(same_json(a[k], b[k], ordered=k == "slots") for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    return a == b


def compare(expect: dict[str, Any], got: dict[str, Any]) -> str:
    """'' when ``got`` satisfies ``expect``, else what differs."""
    for key, want in expect.items():
        if key not in got:
            return f"missing {key!r}"
        have = got[key]
        if key == "reply":
            if reply_signature(have) != reply_signature(want):
                return f"reply: expected {json.dumps(want, ensure_ascii=False)}, got {json.dumps(have, ensure_ascii=False)}"
        elif key == "findings":
            if not isinstance(have, list):
                return "findings is not a list"
            w, h = finding_set(want), finding_set(have)
            if w != h:
                return f"findings differ: expected {sorted(map(str, w))}, got {sorted(map(str, h))}"
        elif not same_json(have, want):
            return f"{key}: expected {json.dumps(want, ensure_ascii=False)}, got {json.dumps(have, ensure_ascii=False)}"
    return ""


class ImplError(RuntimeError):
    """The implementation could not answer a case (dead, hung, or not speaking JSON)."""


class StartError(RuntimeError):
    """The implementation command cannot be started at all."""


class _Impl:
    """The implementation process, restarted when it dies, hangs or garbles."""

    STDERR_LINES = 20

    def __init__(self, command: list[str]) -> None:
        self.command = command
        self.proc: subprocess.Popen[str] | None = None
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: deque[str] = deque(maxlen=self.STDERR_LINES)
        self.starts = 0

    def start(self) -> None:
        try:
            self.proc = subprocess.Popen(
                self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True, encoding="utf-8", errors="replace", bufsize=1,
            )
        except OSError as exc:
            raise StartError(f"cannot start {shlex.join(self.command)}: {exc.strerror or exc}") from None
        self.starts += 1
        self.lines = queue.Queue()
        self.stderr = deque(maxlen=self.STDERR_LINES)
        proc, lines, errors = self.proc, self.lines, self.stderr

        def pump_out() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.put(line)
            lines.put(None)

        def pump_err() -> None:
            assert proc.stderr is not None
            for line in proc.stderr:
                errors.append(line.rstrip("\n"))

        threading.Thread(target=pump_out, daemon=True).start()
        threading.Thread(target=pump_err, daemon=True).start()

    def _stderr_note(self) -> str:
        # give the reader thread a moment to collect the last words
        for _ in range(20):
            if self.proc is None or self.proc.poll() is not None:
                break
            threading.Event().wait(0.01)
        threading.Event().wait(0.05)
        tail = [line for line in self.stderr if line.strip()]
        return ("; stderr: " + " | ".join(tail[-5:])) if tail else ""

    def ask(self, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(request, ensure_ascii=True) + "\n")
            self.proc.stdin.flush()
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            self.stop()
            raise ImplError(f"timed out: no response in {timeout:g}s (implementation restarted)") from None
        except OSError as exc:
            note = self._stderr_note()
            self.stop()
            raise ImplError(f"implementation died: {exc.strerror or exc}{note}") from None
        if line is None:
            code = self.proc.wait()
            note = self._stderr_note()
            self.stop()
            raise ImplError(f"implementation exited with status {code} without answering{note}")
        try:
            response = json.loads(line)
        except json.JSONDecodeError:
            self.stop()
            raise ImplError(f"response is not JSON (implementation restarted): {line.strip()[:200]!r}") from None
        if not isinstance(response, dict):
            raise ImplError(f"response is not a JSON object: {line.strip()[:200]}")
        return response

    def stop(self) -> None:
        if self.proc is not None:
            try:
                self.proc.kill()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
            for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                try:
                    if stream is not None:
                        stream.close()
                except OSError:
                    pass
            self.proc = None


def default_impl() -> list[str]:
    return [sys.executable, "-m", "rogerwilco", "adapter"]


def select(cases: list[Case], run: list[str] | None, skip: list[str] | None) -> list[Case]:
    out = []
    for case in cases:
        if run and not any(fnmatch.fnmatchcase(case.id, pat) for pat in run):
            continue
        if skip and any(fnmatch.fnmatchcase(case.id, pat) for pat in skip):
            continue
        out.append(case)
    return out


def read_known(path: str | None) -> set[str]:
    """Case ids or globs, one per line; ``#`` starts a comment."""
    if not path:
        return set()
    known = set()
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            known.add(line)
    return known


def is_known(case_id: str, known: Iterable[str]) -> bool:
    return any(case_id == pat or fnmatch.fnmatchcase(case_id, pat) for pat in known)


def stale_known(cases: list[Case], known: Iterable[str]) -> list[str]:
    """Entries of a known-failures list that name no selected case."""
    return sorted(pat for pat in known if not any(is_known(c.id, [pat]) for c in cases))


def run_cases(
    cases: list[Case],
    impl: list[str] | None = None,
    *,
    timeout: float = 10.0,
    known: set[str] = frozenset(),  # type: ignore[assignment]
) -> Iterator[Outcome]:
    """Every case's outcome, in order. Raises StartError if the command cannot run."""
    process = _Impl(impl or default_impl())
    try:
        for case in cases:
            listed = is_known(case.id, known)
            try:
                got = process.ask(case.request, timeout)
            except ImplError as exc:
                yield Outcome(case, "known" if listed else "failed", None, str(exc))
                continue
            if got.get("ok") is False and got.get("error") == "unsupported":
                yield Outcome(case, "skipped", got, "unsupported")
                continue
            expect = {"ok": True, **case.expect} if "ok" not in case.expect else case.expect
            diff = compare(expect, got)
            if diff and got.get("ok") is False and "ok" not in case.expect:
                diff = f"the implementation answered ok: false: {got.get('error', '(no error given)')}"
            if diff:
                yield Outcome(case, "known" if listed else "failed", got, diff)
            else:
                yield Outcome(case, "fixed" if listed else "passed", got)
    finally:
        process.stop()


def impl_command(text: str | None) -> list[str]:
    return shlex.split(text) if text else default_impl()
