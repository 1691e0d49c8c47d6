"""lint and check-thread give, byte for byte, the findings and reports they gave before their per-line work was
made cheaper (one parse a line, the thread walk's facts derived once).

The fixture ``tests/data/parity/outputs.json`` holds the JSON output of ``lint`` (every finding, with its
column, hint, fix and fingerprint) and of ``check-thread`` (the whole report, in memory and spooled) on every
shipped example stream and log, and on a generated mixed conversation (valid handoffs with every kind of
close, refused lines, notes, repeated ids, replies to nothing), as a stream and inside a log. It was written
by the code before that work; ``python tests/test_lint_parity.py --write`` writes it again, which a change
of what the checks find (not of how fast) calls for.
"""

from __future__ import annotations

import importlib.util
import io
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "data" / "parity" / "outputs.json"
NOW = "20261003T0900Z"
EXAMPLES = sorted(p for p in (ROOT / "examples").rglob("*") if p.suffix in (".rw1", ".log")
                  and "node_modules" not in p.parts)

_spec = importlib.util.spec_from_file_location("thread_bench", ROOT / "benchmarks" / "thread_bench.py")
assert _spec is not None and _spec.loader is not None
thread_bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(thread_bench)

#: what is done to every n-th line of the generated conversation: each makes a finding of another kind
_MUTATIONS = (
    (7, lambda line: line.replace("ask=FIX", "ask=FIXX")),  # an unknown code (a refused HO or a readback)
    (11, lambda line: line + " itme=jira:OPS-1"),  # an unknown key (a note)
    (13, lambda line: line.replace(" from=", " out=OK from=", 1) if " HO " in line else line),  # off-type slot
    (17, lambda line: line.replace(" ", "  ", 1)),  # a syntax error
    (19, lambda line: line.replace("re=", "re=x", 1)),  # a reply to nothing
    (23, lambda line: line.replace("due=20261010", "due=20261001")),  # a due date passed
    (29, lambda line: line.replace("RW1 ", "RW2 ", 1)),  # another version
    (31, lambda line: ""),  # a blank line
    (37, lambda line: line.replace("out=OK", "out=PARTIAL")),
    (41, lambda line: line.replace("RW1 DN", "RW1 FL").replace("out=OK", "why=ERR")),
)


def mixed_lines(count: int = 1500) -> list[str]:
    """The generated conversation with its mutations, a repeated line and a respelled id among them."""
    lines = list(thread_bench.conversation(count))
    for i, line in enumerate(lines):
        for every, change in _MUTATIONS:
            if i % every == every - 1:
                line = change(line)
                break
        lines[i] = line
    lines.insert(200, lines[100])  # one message delivered twice
    lines.insert(300, lines[150].replace("jira:OPS-", "jira:OPS-9"))  # an id used again for another message
    return lines + _BROKEN_LATER


#: lines that break handoffs of the conversation's first units late in the stream
_BROKEN_LATER = [
    "RW1 FL dev0-900000 re=lead0-1 from=dev0 to=lead0 item=jira:OPS-0 why=ERR",  # closed twice
    "RW1 CX auditor-1 re=lead3-1 from=auditor to=dev3 item=jira:OPS-3 why=REVOKED",  # a cancel from a third agent
    "RW1 DN dev3-900000 re=lead3-1 from=dev3 to=lead3 item=jira:OPS-3 out=OK",  # the act after a cancel
    "RW1 HO lead4-900000 from=lead4 to=auditor item=jira:OPS-4 ask=FIX",  # two owners
    "RW1 ST lead0-0 from=lead0 to=dev0 item=jira:OPS-0",  # an id that does not go forward
    "RW1 AQ dev6-900000 from=dev6 to=lead6 need=TEXT by=20261001 // which?",  # a question never answered
    "RW1 HO lead7-900000 from=lead7 to=dev7 item=jira:OPS-700 ask=FIX exp=20261002T1700Z",  # open past exp
]


def _as_log(lines: list[str]) -> str:
    return "".join(f"2026-10-02T14:{n // 60 % 60:02}:{n % 60:02}Z INFO sent {line}\n" for n, line in enumerate(lines))


def inputs() -> dict[str, bytes]:
    """Name -> bytes of every input the fixture covers (a name ending .rw1 is a stream, any other a log)."""
    out = {p.relative_to(ROOT).as_posix(): p.read_bytes() for p in EXAMPLES}
    lines = mixed_lines()
    out["generated/mixed.rw1"] = ("\n".join(lines) + "\n").encode()
    out["generated/mixed.log"] = _as_log(lines).encode()
    return out


class Unseekable(io.BytesIO):
    """Bytes read as from a pipe: no going back."""

    def seekable(self) -> bool:
        return False


def outputs(name: str, data: bytes, *, seekable: bool = True) -> dict[str, str]:
    """lint's findings and check-thread's reports on one input, as JSON text (``seekable``: lint reads it as a
    file it can read again, else as a pipe)."""
    from rogerwilco.checks.thread import check_thread, check_thread_spooled
    from rogerwilco.io.lint import lint_stream
    from rogerwilco.io.stream import validate_stream

    given = io.BytesIO(data) if seekable else Unseekable(data)
    out = {"lint": json.dumps([f.to_json() for f in lint_stream(given, file=name, now=NOW)], ensure_ascii=True)}
    if name.endswith(".rw1"):
        stream = validate_stream(io.BytesIO(data), None, file=name, quiet_first=True)  # as the command reads it
        with check_thread_spooled(stream, now=NOW, batch_lines=64) as report:
            out["check-thread"] = "".join(report.json_chunks())
        whole = check_thread(io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"), now=NOW)
        out["check_thread"] = json.dumps(whole.to_json(), ensure_ascii=True)
    return out


def all_outputs() -> dict[str, dict[str, str]]:
    return {name: outputs(name, data) for name, data in inputs().items()}


def test_the_fixture_covers_every_shipped_example():
    recorded = json.loads(FIXTURE.read_text(encoding="utf-8"))
    assert sorted(recorded) == sorted(inputs())


@pytest.mark.parametrize("name", sorted(inputs()))
def test_lint_and_check_thread_say_what_they_said(name):
    recorded = json.loads(FIXTURE.read_text(encoding="utf-8"))[name]
    got = outputs(name, inputs()[name])
    for what in recorded:
        assert got[what] == recorded[what], f"{what} of {name} changed"


def test_the_generated_conversation_makes_findings_of_every_kind():
    """The mixed conversation is a test of the checks only if it trips them."""
    recorded = json.loads(FIXTURE.read_text(encoding="utf-8"))["generated/mixed.rw1"]
    codes = {f["code"] for f in json.loads(recorded["lint"])}
    assert {"RW001", "RW002", "RW003", "RW010", "RW011", "RW100", "RW101", "RW102", "RW103", "RW104", "RW105", "RW106",
            "RW107", "RW109", "RW110", "RW111", "RW112"} <= codes


def _every_line() -> list[str]:
    from rogerwilco.io.scan.frames import candidates, frames_of

    out = []
    for data in inputs().values():
        for line in data.decode("utf-8").splitlines():
            out.append(line)
            out.extend(cand for frame in frames_of(line) for _, cand in candidates(frame.text))
    return out


def test_the_quiet_accept_path_takes_only_lines_the_full_pass_takes_with_nothing_to_say():
    """What lint and check-thread read through the accept path alone is what the never-guess pass takes with
    no finding, and the same message; a line with a note (an unknown key, a slot of another type) is not."""
    from rogerwilco.core.semantics import check_line
    from rogerwilco.core.speedups import accept_quiet
    from rogerwilco.core.vocab import Receiver

    receiver = Receiver.all_bundled()
    taken = noted = 0
    for n, line in enumerate(_every_line(), start=1):
        full = check_line(line, receiver, line_number=n, file="f")
        quiet = accept_quiet(line, receiver, n, "f")
        if quiet is not None:
            taken += 1
            assert full.findings == () and full.message == quiet and full.message.source == quiet.source, line
        elif full.message is not None and full.findings:
            noted += 1
    assert taken > 1000 and noted > 100  # both kinds of line are there


def _reading_again(monkeypatch) -> list[str]:
    """Every line lint or check-thread reads again after its first read (a list the calls are put in)."""
    from rogerwilco.checks import thread
    from rogerwilco.io import lint

    again: list[str] = []
    for module, name in ((lint, "loads_line"), (thread, "_reread")):
        real = getattr(module, name)
        monkeypatch.setattr(module, name, lambda text, *a, real=real, **k: again.append(text) or real(text, *a, **k))
    return again


def test_lint_and_check_thread_read_each_line_once_while_it_fits_in_memory(monkeypatch):
    from rogerwilco.checks.thread import check_thread_spooled
    from rogerwilco.io.lint import lint_stream
    from rogerwilco.io.stream import validate_stream

    again = _reading_again(monkeypatch)
    data = inputs()["generated/mixed.rw1"]
    assert len(lint_stream(io.BytesIO(data), file="mixed.rw1", now=NOW)) > 100
    with check_thread_spooled(validate_stream(io.BytesIO(data), None, quiet_first=True), now=NOW) as report:
        assert not report.passed
    assert again == []


@pytest.mark.parametrize("bound", ["0", "200000", "600000"])
def test_findings_are_the_same_when_the_messages_or_the_lines_leave_memory(monkeypatch, bound):
    """0: every line spills to disk at once; 200000: the messages are let go after a few hundred lines, then the
    lines spill; 600000: the messages are let go, the lines stay. Each line past that point is read again."""
    from rogerwilco.checks import _components

    monkeypatch.setenv("RW1_PARTS_MEMORY_BYTES", bound)
    again = _reading_again(monkeypatch)
    name = "generated/mixed.rw1"
    recorded = json.loads(FIXTURE.read_text(encoding="utf-8"))[name]
    got = outputs(name, inputs()[name])
    for what in recorded:
        assert got[what] == recorded[what], f"{what} of {name} changed"
    assert len(again) > 1000
    assert int(bound) < 1500 * (_components.held_by("x" * 80) + _components.kept_by("x" * 80))


@pytest.mark.parametrize("bound", ["0", "60000", None])
def test_a_logs_findings_are_the_same_when_the_places_leave_memory(monkeypatch, bound):
    """A log read from a pipe keeps where each candidate sits as it is read. 0: it goes to disk at once; 60000:
    every few dozen candidates (the places may hold a third of the bound); None: the default bound, all in
    memory. The findings (their columns and physical lines) are those of a file, whose lines a finding is
    about are read again at the end."""
    if bound is not None:
        monkeypatch.setenv("RW1_PARTS_MEMORY_BYTES", bound)
    logs = {name: data for name, data in inputs().items() if not name.endswith(".rw1")}
    assert "generated/mixed.log" in logs
    for name, data in logs.items():
        recorded = json.loads(FIXTURE.read_text(encoding="utf-8"))[name]
        assert outputs(name, data, seekable=False)["lint"] == recorded["lint"], f"lint of {name} changed"


def test_a_log_rewritten_while_it_is_linted_keeps_each_findings_own_place(tmp_path):
    """A file's lines are read again for its findings' places: a line rewritten in place since holds its
    candidate no more, and the finding keeps the candidate's text and its column there (never another
    line's)."""
    from rogerwilco.io.lint import lint_stream

    path = tmp_path / "app.log"
    lines = ["2026-10-02T14:00:00Z INFO sent RW1 HO a-1 from=a to=b item=x ask=FIX",
             "2026-10-02T14:00:01Z INFO sent RW1 HO a-2 from=a to=c item=y ask=FIX"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    class Rewritten(io.FileIO):
        """The file, rewritten in place once it has been read through."""

        def __next__(self) -> bytes:
            try:
                return super().__next__()
            except StopIteration:
                if not getattr(self, "done", False):
                    self.done = True
                    path.write_text("x" * 200 + "\n" + lines[1] + "\n", encoding="utf-8")
                raise

    with Rewritten(path, "r") as fh:
        found = {f.line: (f.column, f.text) for f in lint_stream(fh, file="app.log")}
    prefix = len("2026-10-02T14:00:01Z INFO sent ")
    assert found[1] == (8, lines[0][prefix:])  # the id's column in the candidate's own text: its line changed
    assert found[2] == (prefix + 8, lines[1])  # read again: the physical line, and the id's column in it


def _validate(capsys, path: Path, *argv: str) -> tuple[int, str, str]:
    from rogerwilco.front.cli import main

    code = main(["validate", *argv, str(path)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv", [(), ("--format", "json"), ("--quiet",), ("--strict",)])
def test_validate_says_what_the_full_pass_says_of_every_line(tmp_path, monkeypatch, capsys, argv):
    """validate reads a line with nothing to say through the accept path alone (from the QUIET_FROM-th line):
    its output, refusals, notes, summary and exit status are those of the full pass on every line."""
    from rogerwilco.io import stream

    path = tmp_path / "mixed.rw1"
    lines = mixed_lines()
    path.write_bytes(("\n".join(lines * 2) + "\n").encode())
    assert len(lines) * 2 > 2 * stream.QUIET_FROM
    fast = _validate(capsys, path, *argv)
    monkeypatch.setattr(stream, "QUIET_FROM", 10**9)
    monkeypatch.setattr("rogerwilco.front.commands.lines.QUIET_FROM", 10**9)
    assert fast == _validate(capsys, path, *argv)
    assert fast[0] == 1 and (fast[1] + fast[2]).count("\n") > 200  # refusals and (but with --quiet) notes


def test_validate_gives_the_full_pass_only_the_lines_with_something_to_say(tmp_path, monkeypatch, capsys):
    from rogerwilco.io import stream

    path = tmp_path / "clean.rw1"
    path.write_bytes(("\n".join(thread_bench.conversation(3000)) + "\n").encode())
    full: list[str] = []
    real = stream.check_line
    monkeypatch.setattr(stream, "check_line", lambda text, *a, **k: full.append(text) or real(text, *a, **k))
    code, out, _ = _validate(capsys, path)
    assert code == 0 and "3000 lines, 3000 valid" in out
    assert len(full) == stream.QUIET_FROM - 1  # the lines before it: a short input never loads the accept path


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_lint_parity.py --write")
    FIXTURE.write_text(json.dumps(all_outputs(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {FIXTURE.relative_to(ROOT)}")
