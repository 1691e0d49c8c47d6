"""Every streaming path holds a bounded amount of memory, whatever its input.

Each case runs the command in a subprocess on an input several times larger
than the path's bound (one runaway line of ``ROGERWILCO_MEMORY_MB`` MiB, 24
by default), and compares the child's peak RSS with the same command on a
one-line input: the difference must stay well under the input's size. Run
larger by hand with ``ROGERWILCO_MEMORY_MB=512 pytest tests/test_memory_bounds.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rogerwilco.core import _lru
from rogerwilco.front import adapter, tools
from tests.bounds import HANG

ROOT = Path(__file__).resolve().parent.parent
MB = int(os.environ.get("ROGERWILCO_MEMORY_MB", "24"))
HO = "RW1 HO a-1 from=a to=b item=x ask=FIX"

CHILD = r"""
import resource, sys
from rogerwilco.front.cli import main
code = main(sys.argv[1:])
sys.stdout.flush()
sys.__stderr__.write(f"\nPEAK-KIB {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss} EXIT {code}\n")
"""


def _feed(stdin, size: int, line: bytes) -> None:
    """Write a runaway line of ``size`` bytes, then one good line, without holding it."""
    chunk = b"y" * (1 << 20)
    stdin.write(line[:-1] if line.endswith(b"\n") else line)
    written = 0
    while written < size:
        stdin.write(chunk)
        written += len(chunk)
    stdin.write(b"\n" + line)


def peak(args: list[str], size: int, line: bytes = HO.encode() + b"\n") -> tuple[int, int, str]:
    """Peak RSS (KiB), exit code and stderr of ``rogerwilco ARGS`` reading a runaway line of ``size`` bytes."""
    proc = subprocess.Popen([sys.executable, "-c", CHILD, *args], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, cwd=ROOT)
    assert proc.stdin is not None and proc.stderr is not None
    try:
        if size:
            _feed(proc.stdin, size, line)
        else:
            proc.stdin.write(line)
        proc.stdin.close()
    except BrokenPipeError:
        pass  # the command stopped reading at its bound, as it may
    err = proc.stderr.read().decode()
    proc.wait(timeout=HANG)
    marker = err.rsplit("PEAK-KIB ", 1)[1].split()
    return int(marker[0]), int(marker[2]), err


CASES = {
    "validate": (["validate", "-"], 1),
    "parse": (["parse", "-"], 1),
    "encode": (["encode", "-"], 1),
    "digest": (["digest", "-"], 2),
    "reply": (["reply", "--as", "b", "--n", "1", "-"], 2),
    "check-thread": (["check-thread", "--now", "20260101T0000Z", "-"], None),
    "lint": (["lint", "-"], None),
    "adapter": (["adapter"], 0),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_runaway_line_is_refused_in_bounded_memory(name):
    args, exit_code = CASES[name]
    line = (json.dumps({"op": "digest", "line": HO}) + "\n").encode() if name == "adapter" else (HO + "\n").encode()
    base, _, _ = peak(args, 0, line)
    size = MB << 20
    high, code, err = peak(args, size, line)
    assert "internal error" not in err and "Traceback" not in err
    if exit_code is not None:
        assert code == exit_code, err
    growth = high - base
    assert growth < (size >> 10) // 3, f"{name}: peak grew {growth} KiB on a {size >> 10} KiB line"


def test_the_adapter_answers_an_overlong_request_and_goes_on(capsys):
    import io

    stream = io.BytesIO(b'{"op": "digest", "line": "' + b"x" * 5000 + b'"}\n' + json.dumps({"op": "digest", "line": HO}).encode() + b"\n")
    out = io.StringIO()
    adapter.serve(stream, out, max_bytes=1000)
    first, second = (json.loads(x) for x in out.getvalue().splitlines())
    assert first == {"ok": False, "error": "bad request: the request line is 5028 bytes; the limit is 1000"}
    assert second["ok"] is True


def _inline(i: int) -> dict:
    return {"profile": f"p{i}", "version": "1", "extends": "RW1", "slots": []}


def test_the_adapter_keeps_a_bounded_number_of_receivers():
    adapter._receivers.clear()
    for i in range(3 * _lru.RECEIVER_CACHE_SIZE):
        adapter.receiver_for({"profiles": [_inline(i)]})
    assert len(adapter._receivers) == _lru.RECEIVER_CACHE_SIZE
    recent = adapter.receiver_for({"profiles": [_inline(3 * _lru.RECEIVER_CACHE_SIZE - 1)]})
    assert adapter.receiver_for({"profiles": [_inline(3 * _lru.RECEIVER_CACHE_SIZE - 1)]}) is recent


def test_the_mcp_server_keeps_a_bounded_number_of_receivers():
    tools._receivers.clear()  # the server's tools read their receivers through rogerwilco.front.tools
    for i in range(3 * _lru.RECEIVER_CACHE_SIZE):
        tools._receiver({"profiles": [_inline(i)]})
    assert len(tools._receivers) == _lru.RECEIVER_CACHE_SIZE


def test_the_cache_drops_the_least_recently_used():
    cache: _lru.LRUCache[int] = _lru.LRUCache(2)
    cache.get("a", lambda: 1)
    cache.get("b", lambda: 2)
    cache.get("a", lambda: 0)  # a is used again: b is now the oldest
    cache.get("c", lambda: 3)
    assert cache.get("a", lambda: -1) == 1 and cache.get("b", lambda: -2) == -2


# ---- check-thread and lint: memory per message ----------------------------------------------------

#: ``ROGERWILCO_THREAD_LINES=300000`` runs the per-message cases at the size of the benchmark's figure
THREAD_LINES = int(os.environ.get("ROGERWILCO_THREAD_LINES", "20000"))
#: peak-RSS growth a message may cost in check_thread, whose report is an object in memory (measured:
#: about 600 B, against 2,500 B and more before the lines were kept small)
PER_LINE_BYTES = {"api": 1000}
#: the check-thread command and lint keep their working state on disk (the command its report too): their
#: peak RSS may grow by this much, whatever the length of the conversation (measured for the command: 3 MiB
#: from 2,000 to 20,000 lines, 4 MiB from 20,000 to 300,000, none from there to 1,000,000: fixed caches
#: filling)
FLAT_KIB = 10 * 1024
THREAD_CHILD = r"""
import os, resource, sys
sys.path.insert(0, sys.argv[3])
from thread_bench import conversation, data_file, log_file
how, lines = sys.argv[1], int(sys.argv[2])
if how == "api":
    from rogerwilco.checks.thread import check_thread
    report = check_thread(conversation(lines), now="20261003T0900Z")
    count = len(report.ledger.handoffs)
elif how == "cli":
    from rogerwilco.front.cli import main
    path = data_file(lines)
    out = os.open(os.devnull, os.O_WRONLY)
    os.dup2(out, 1)
    count = main(["check-thread", "--now", "20261003T0900Z", "--format", "json", str(path)])
elif how == "report":  # the HTML report, written to nowhere: check-thread's bound, and the lines drawn as read
    from rogerwilco.front.cli import main
    count = main(["report", "--now", "20261003T0900Z", str(data_file(lines)), "-o", os.devnull])
elif how == "lint":
    from rogerwilco.io.lint import lint_stream
    with open(data_file(lines), "rb") as fh:
        count = len(lint_stream(fh, file="t.rw1", now="20261003T0900Z"))
else:  # the same conversation inside a log, each message after a timestamp: lint's embedded mode
    from rogerwilco.io.lint import lint_stream
    with open(log_file(lines), "rb") as fh:
        count = len(lint_stream(fh, file="t.log", now="20261003T0900Z"))
try:  # this process's own high-water mark (ru_maxrss keeps the forking parent's across exec)
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
except OSError:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
sys.stderr.write(f"PEAK-KIB {peak} COUNT {count}\n")
"""


#: the bound the runs below set on the parts held in memory (rogerwilco/checks/_components.py), so both sizes
#: pass it and the spill's flat memory is what is measured
PARTS_BOUND = 1 << 20


def _thread_peak(how: str, lines: int) -> tuple[int, int]:
    env = {**os.environ, "RW1_PARTS_MEMORY_BYTES": str(PARTS_BOUND)}
    done = subprocess.run([sys.executable, "-c", THREAD_CHILD, how, str(lines), str(ROOT / "benchmarks")],
                          capture_output=True, text=True, cwd=ROOT, timeout=HANG, env=env)
    marker = done.stderr.rsplit("PEAK-KIB ", 1)[1].split()
    return int(marker[0]), int(marker[2])


@pytest.mark.parametrize("how", ["cli", "lint", "lint-log", "report"])
def test_check_thread_and_lint_run_in_memory_that_does_not_grow_with_the_conversation(how):
    # The conversation is cut into the parts that touch nothing else (in memory up to a bound, set low here, then
    # on disk); each batch of parts is checked alone, and the command's findings and ledger rows go to disk, read
    # back in order as the report is written: past the bound, ten times the lines, the same peak.
    small, count = _thread_peak(how, THREAD_LINES // 10)
    large, count_large = _thread_peak(how, THREAD_LINES)
    if how in ("cli", "report"):
        assert count in (0, 1) and count_large in (0, 1)  # exit codes, never an internal error
    print(f"{how}: {small} KiB at {THREAD_LINES // 10} lines, {large} KiB at {THREAD_LINES}")
    assert large - small < FLAT_KIB, f"{how} grew {large - small} KiB from {THREAD_LINES // 10} lines"


@pytest.mark.parametrize("how", sorted(PER_LINE_BYTES))
def test_check_thread_keeps_a_few_hundred_bytes_a_message(how):
    # check_thread reads the conversation whole and returns its report as an object: every id is kept (a
    # re= may name any message, earlier or later) and every HO has its ledger entry, so memory grows with
    # the conversation; what one message costs is bounded: its envelope, not the whole message, whose text
    # is read again on demand from a spooled file. Measured as the growth of peak RSS between a tenth of
    # the conversation and all of it. (check_thread_spooled is the flat path, above.)
    small, _ = _thread_peak(how, THREAD_LINES // 10)
    large, count = _thread_peak(how, THREAD_LINES)
    assert count > THREAD_LINES // 5  # the conversation was read whole: a ledger entry per HO
    per_line = (large - small) * 1024 / (THREAD_LINES - THREAD_LINES // 10)
    print(f"{how}: {per_line:.0f} bytes a line", small, large, count)
    assert per_line < PER_LINE_BYTES[how], f"{how}: {per_line:.0f} bytes a line"
