"""Ctrl-C: one line saying what was written, exit 130, and no output file left looking complete.

A report or record file is written to a temporary file beside its path and
renamed at the end (rogerwilco/front/commands/_output.py): an interrupted run
leaves no partial file and a previous report as it was.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rogerwilco.front.cli import main
from rogerwilco.front.commands import _output
from rogerwilco.io import lint as lint_module
from tests.bounds import HANG

ROOT = Path(__file__).resolve().parent.parent
STREAM = ROOT / "examples" / "spec-section8.rw1"
LOGS = ROOT / "examples" / "logs"


@pytest.fixture(autouse=True)
def _fresh_outputs(monkeypatch):
    monkeypatch.setattr(_output, "_FILES", [])


def _stop_after_the_first(real):
    """``real``, raising KeyboardInterrupt (as Ctrl-C does) once it has given its first value."""
    def stopped(*args, **kwargs):
        for n, value in enumerate(real(*args, **kwargs)):
            if n:
                raise KeyboardInterrupt
            yield value
    return stopped


def test_an_interrupted_lint_keeps_the_previous_report(tmp_path, monkeypatch, capsys):
    report = tmp_path / "report.txt"
    report.write_text("the previous report\n", encoding="utf-8")
    monkeypatch.setattr(lint_module, "lint_paths", _stop_after_the_first(lint_module.lint_paths))
    code = main(["lint", "--no-config", "-o", str(report), str(STREAM), str(STREAM)])
    err = capsys.readouterr().err.strip()
    assert code == 130
    assert err == f"rogerwilco: interrupted: {report} not written (a file already there is kept as it was)"
    assert report.read_text(encoding="utf-8") == "the previous report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.txt"]  # no temporary file left


def test_a_ctrl_c_python_wraps_while_a_class_is_made_is_still_an_interrupt(tmp_path, monkeypatch, capsys):
    """Python 3.10 turns a KeyboardInterrupt raised inside ``__set_name__`` (a module importing when Ctrl-C
    comes) into a RuntimeError whose cause it is: still Ctrl-C, not an internal error."""
    report = tmp_path / "report.txt"
    report.write_text("the previous report\n", encoding="utf-8")

    def wrapped(real):
        def stopped(*args, **kwargs):
            try:
                yield from _stop_after_the_first(real)(*args, **kwargs)
            except KeyboardInterrupt as exc:
                raise RuntimeError("Error calling __set_name__ on 'Field' instance 'buffer'") from exc
        return stopped

    monkeypatch.setattr(lint_module, "lint_paths", wrapped(lint_module.lint_paths))
    code = main(["lint", "--no-config", "-o", str(report), str(STREAM), str(STREAM)])
    err = capsys.readouterr().err.strip()
    assert code == 130
    assert err == f"rogerwilco: interrupted: {report} not written (a file already there is kept as it was)"
    assert report.read_text(encoding="utf-8") == "the previous report\n"


def test_a_finished_lint_replaces_the_report(tmp_path, capsys):
    report = tmp_path / "report.txt"
    report.write_text("the previous report\n", encoding="utf-8")
    assert main(["lint", "--no-config", "-o", str(report), str(STREAM)]) == 1
    assert "RW100" in report.read_text(encoding="utf-8") and sorted(p.name for p in tmp_path.iterdir()) == ["report.txt"]


def test_a_report_to_a_pipe_is_written_into_the_pipe_not_renamed_over_it(tmp_path, capsys):
    # `-o /dev/null` as root once put a regular file where the device was: a path that is not a regular file is
    # written in place. A named pipe stands in for the device; the test holds both its ends, so nothing blocks.
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    held = os.open(pipe, os.O_RDWR | os.O_NONBLOCK)
    try:
        assert main(["lint", "--no-config", "-o", str(pipe), str(STREAM)]) == 1
        assert pipe.is_fifo()
        assert b"RW100" in os.read(held, 1 << 16)
    finally:
        os.close(held)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_a_written_report_is_readable_as_any_new_file_is(tmp_path, capsys):
    report = tmp_path / "report.txt"
    mask = os.umask(0o022)
    try:
        assert main(["lint", "--no-config", "-o", str(report), str(STREAM)]) == 1
    finally:
        os.umask(mask)
    assert report.stat().st_mode & 0o777 == 0o644


def test_a_report_through_a_symbolic_link_replaces_its_target_and_keeps_the_link(tmp_path, capsys):
    target = tmp_path / "real.txt"
    target.write_text("the previous report\n", encoding="utf-8")
    link = tmp_path / "report.txt"
    link.symlink_to(target)
    assert main(["lint", "--no-config", "-o", str(link), str(STREAM)]) == 1
    assert link.is_symlink() and "RW100" in target.read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_an_interrupted_scan_leaves_no_output_file(tmp_path, monkeypatch, capsys, fmt):
    import rogerwilco.io.scan as scan_package

    out = tmp_path / f"records.{fmt}"
    monkeypatch.setattr(scan_package, "run_scan", _stop_after_the_first(scan_package.run_scan))
    code = main(["scan", "-f", fmt, "-o", str(out), str(LOGS)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 130 and err[-1] == f"rogerwilco: interrupted: {out} not written (a file already there is kept as it was)"
    assert list(tmp_path.iterdir()) == []


def _ctrl_c_at_its_default(argv: list[str]) -> list[str]:
    """``argv`` run with SIGINT at its default action and unblocked, as a terminal's Ctrl-C finds a command.

    A process ignoring SIGINT passes that on through ``exec`` (a test run started in the background of a
    shell without job control ignores it), and Python then leaves it ignored: the command would read on to
    the end and exit 1, with nothing to say. The command is right to; the test must not depend on it."""
    reset = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
             "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}); os.execv(sys.argv[1], sys.argv[1:])")
    return [sys.executable, "-c", reset, *argv]


def test_a_command_started_with_ctrl_c_ignored_keeps_ignoring_it(tmp_path):
    """The other side of :func:`_ctrl_c_at_its_default`: under ``nohup`` (SIGINT ignored) a Ctrl-C does not stop
    the run, which reads to its end and writes its report."""
    report = tmp_path / "report.txt"
    ignore = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
              "os.execv(sys.argv[1], sys.argv[1:])")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    proc = subprocess.Popen([sys.executable, "-c", ignore, sys.executable, "-m", "rogerwilco", "lint", "--no-config",
                             "-o", str(report), "-"], stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=tmp_path, env=env)
    assert proc.stdin is not None
    proc.stdin.write(STREAM.read_text(encoding="utf-8"))
    proc.stdin.flush()
    started = time.monotonic()
    while not any(p.name.endswith(".partial") for p in tmp_path.iterdir()):
        assert proc.poll() is None and time.monotonic() - started < HANG
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=HANG)
    assert proc.returncode == 1 and err == ""  # findings: the stream's report, written whole
    assert "RW100" in report.read_text(encoding="utf-8")


def test_ctrl_c_on_a_real_run_says_what_was_written(tmp_path):
    report = tmp_path / "report.txt"
    report.write_text("the previous report\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    proc = subprocess.Popen(_ctrl_c_at_its_default([sys.executable, "-m", "rogerwilco", "lint", "--no-config", "-o",
                                                    str(report), "-"]),
                            stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env)
    assert proc.stdin is not None
    proc.stdin.write(STREAM.read_text(encoding="utf-8"))
    proc.stdin.flush()  # stdin stays open: the run waits for more lines, its report not yet written
    started = time.monotonic()
    while not any(p.name.endswith(".partial") for p in tmp_path.iterdir()):  # the run is writing: Ctrl-C now
        assert proc.poll() is None and time.monotonic() - started < HANG
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=HANG)
    assert proc.returncode == 130, err
    assert err.strip() == f"rogerwilco: interrupted: {report} not written (a file already there is kept as it was)"
    assert report.read_text(encoding="utf-8") == "the previous report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.txt"]


class _Terminal:
    """stderr as a terminal shows it to the progress bar (the bar itself is drawn by rich)."""

    def __init__(self) -> None:
        import io

        self.buffer = io.StringIO()

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> int:
        return self.buffer.write(text)

    def flush(self) -> None:
        pass


def test_the_progress_of_a_line_check_follows_the_open_file(tmp_path, monkeypatch):
    from rogerwilco.front.render.progress import FileProgress

    first, second = tmp_path / "a.rw1", tmp_path / "b.rw1"
    first.write_bytes(b"x" * 5000)
    second.write_bytes(b"y" * 3000)
    monkeypatch.setattr(sys, "stderr", _Terminal())
    with FileProgress("lint", 8000, threshold=1) as progress:
        assert progress._progress is not None  # a terminal and a large enough input: a bar
        with open(first, "rb") as fh:
            progress.reading(fh)
            fh.read()
        with open(second, "rb", buffering=0) as fh:
            progress.reading(fh)
            fh.read(1000)
            started = time.monotonic()
            while progress._progress.tasks[0].completed != 6000:  # the first file whole, 1000 bytes of the second
                assert time.monotonic() - started < HANG
                time.sleep(0.05)
    assert FileProgress("lint", 8000)._progress is None  # too small to be worth a bar
    monkeypatch.setattr(sys, "stderr", open(os.devnull, "w"))  # not a terminal: no bar
    assert FileProgress("lint", 10**9)._progress is None


def test_ctrl_c_inside_code_run_from_a_string_still_exits_130(tmp_path):
    """A Ctrl-C that lands inside ``eval``/``exec`` (an import building a namedtuple, say) is handled like any:
    ``python -m rogerwilco`` says its line and exits 130, not killed by SIGINT (status -2)."""
    site = tmp_path / "site"
    site.mkdir()
    # the interrupt arrives while the lint command runs code from a string, as it once did in an import
    (site / "sitecustomize.py").write_text(
        "import rogerwilco.front.commands.lint as m\n"
        "def interrupted(args):\n"
        "    eval('(_ for _ in ()).throw(KeyboardInterrupt)')\n"
        "m.cmd_lint = interrupted\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)]), "NO_COLOR": "1"}
    proc = subprocess.run([sys.executable, "-m", "rogerwilco", "lint", "--no-config", str(STREAM)],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=HANG)
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr.strip() == "rogerwilco: interrupted: stopped before the end; what was printed so far is incomplete"
