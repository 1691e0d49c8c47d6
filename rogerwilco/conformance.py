"""The conformance harness: the language-neutral suite against any adapter.

Theory of operation
-------------------
Cases are JSON files under ``conformance/<area>/<name>.json`` (format in the
shared contract, schema in ``conformance/schema.json``). The implementation
under test is a command; the harness starts it once, writes one request per
line, and reads one response per line, in order, with a per-case timeout. A
case passes when every field of ``expect`` matches the response; ``findings``
compare as the set of ``(severity, kind, tier, key)``. ``"ok": false,
"error": "unsupported"`` counts as skipped. A timed-out or dead
implementation is restarted so that one bad case cannot sink the rest.

A case's full id is ``<area>/<name>:<id>``; ``--run`` and ``--skip`` take
globs over it, and a known-failures file lists ids (one per line, ``#``
comments) that are reported but do not fail the run.
"""

from __future__ import annotations

import fnmatch
import json
import queue
import shlex
import subprocess
import sys
import threading
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


def compare(expect: dict[str, Any], got: dict[str, Any]) -> str:
    """'' when ``got`` satisfies ``expect``, else what differs."""
    for key, want in expect.items():
        if key not in got:
            return f"missing {key!r}"
        have = got[key]
        if key == "findings":
            if not isinstance(have, list):
                return "findings is not a list"
            w, h = finding_set(want), finding_set(have)
            if w != h:
                return f"findings differ: expected {sorted(map(str, w))}, got {sorted(map(str, h))}"
        elif have != want:
            return f"{key}: expected {json.dumps(want, ensure_ascii=False)}, got {json.dumps(have, ensure_ascii=False)}"
    return ""


class _Impl:
    """The implementation process, restarted when it dies or hangs."""

    def __init__(self, command: list[str]) -> None:
        self.command = command
        self.proc: subprocess.Popen[str] | None = None
        self.lines: queue.Queue[str | None] = queue.Queue()

    def start(self) -> None:
        self.proc = subprocess.Popen(
            self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, encoding="utf-8", bufsize=1,
        )
        self.lines = queue.Queue()
        proc, lines = self.proc, self.lines

        def pump() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.put(line)
            lines.put(None)

        threading.Thread(target=pump, daemon=True).start()

    def ask(self, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(request, ensure_ascii=False) + "\n")
            self.proc.stdin.flush()
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            self.stop()
            raise TimeoutError(f"no response in {timeout}s") from None
        except OSError as exc:
            self.stop()
            raise RuntimeError(f"implementation died: {exc}") from None
        if line is None:
            self.stop()
            raise RuntimeError("implementation exited")
        try:
            return json.loads(line)
        except json.JSONDecodeError:
            raise RuntimeError(f"response is not JSON: {line.strip()[:200]}") from None

    def stop(self) -> None:
        if self.proc is not None:
            try:
                self.proc.kill()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
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
    if not path:
        return set()
    known = set()
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            known.add(line)
    return known


def run_cases(
    cases: list[Case],
    impl: list[str] | None = None,
    *,
    timeout: float = 10.0,
    known: set[str] = frozenset(),  # type: ignore[assignment]
) -> Iterator[Outcome]:
    process = _Impl(impl or default_impl())
    try:
        for case in cases:
            try:
                got = process.ask(case.request, timeout)
            except (TimeoutError, RuntimeError) as exc:
                status = "known" if case.id in known else "failed"
                yield Outcome(case, status, None, str(exc))
                continue
            if isinstance(got, dict) and got.get("ok") is False and got.get("error") == "unsupported":
                yield Outcome(case, "skipped", got, "unsupported")
                continue
            expect = {"ok": True, **case.expect} if "ok" not in case.expect else case.expect
            diff = compare(expect, got if isinstance(got, dict) else {})
            if diff:
                yield Outcome(case, "known" if case.id in known else "failed", got, diff)
            else:
                yield Outcome(case, "fixed" if case.id in known else "passed", got)
    finally:
        process.stop()


def impl_command(text: str | None) -> list[str]:
    return shlex.split(text) if text else default_impl()
