"""The ``rogerwilco`` command's entry point, and its quick path for ``validate``.

An agent runs ``rogerwilco validate`` on every line it is about to send or
act on, and most of those lines are valid. Loading the package (attrs, the
message classes, the vocabulary, the semantic pass) costs several times what
checking a short input does. So before the package is loaded, this module
tries the one case that needs none of it: ``rogerwilco validate`` of files,
lines or standard input, with no option, its summary going to a pipe or a
file (plain text), every line of which the C scanner is sure is valid with
nothing to say under the bundled profiles (:mod:`rogerwilco.core.verdict`).
It then writes the summary ``validate`` writes for such an input
(``1 line, 1 valid, 0 refused, 0 notes``) and exits 0.

Anything else goes to the command, with nothing written: another command,
any option but ``--quiet`` and ``--strict`` (which change nothing for such
an input), ``--core-only`` and ``--profile NAME`` of a bundled profile (the
receiver the verdict is made for), standard input beside other inputs or
on a terminal, a terminal or forced colour on stdout, a file that is not a regular file, inputs larger
than :data:`QUICK_MAX_BYTES` together, a byte-order mark, a carriage return,
bytes that are not UTF-8, a blank line, no C scanner (or ``RW1_PURE`` set),
and any line the scanner is not sure of. Standard input is judged line by
line as it arrives; on the first line not settled here, what was read is put
back in front of the rest (``sys.stdin`` replays it) and the command reads
the whole input from its start. The answer is the command's answer either
way; ``tests/test_quick.py`` compares the two on valid, refused, noted and
awkward inputs.
"""

from __future__ import annotations

import io
import os
import sys

from ..core._version import __version__

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    from typing import Any, Callable

#: the largest input the quick path reads (all files and lines together); a longer one goes to the command,
#: which shows progress and reads it as a stream
QUICK_MAX_BYTES = 64 * 1024
#: names of compressed files, which validate does not read (it names the command that does)
COMPRESSED = (".gz", ".bz2", ".xz", ".zip", ".zst")
#: validate's options that change nothing for an input of valid lines with nothing to say: no notes to leave
#: out (--quiet) or to fail on (--strict); --core-only and --profile NAME (a bundled profile) are read too
_SAME_SUMMARY = ("-q", "--quiet", "--strict")
#: how a FILE|LINE argument that is a line starts (commands._common.is_line_argument)
LINE_PREFIX = "RW1 "


#: what ``rogerwilco --version`` says: the reference codec 0.3.0 on the package index has the same name
VERSION_LINE = (f"rogerwilco {__version__}: the RW1 reference implementation, successor to the "
                "rogerwilco 0.3.0 reference codec")


def run() -> None:
    """The console script (and ``python -m rogerwilco``): the quick path where it settles the run (``validate``
    of valid lines, or ``--version`` alone), else the command (:func:`rogerwilco.front.cli.main`)."""
    closed_streams_to_devnull()
    if sys.argv[1:] == ["--version"]:
        raise SystemExit(_write(VERSION_LINE + "\n", 0))
    try:
        code = quick_validate(sys.argv[1:])
    except KeyboardInterrupt:  # Ctrl-C before anything was written
        sys.stderr.write("\nrogerwilco: interrupted: stopped before the end; nothing was written\n")
        raise SystemExit(130) from None
    if code is None:
        from .cli import main

        code = main()
    raise SystemExit(code)


def quick_validate(argv: list[str]) -> int | None:
    """``validate``'s exit status where the quick path settles the run (its summary written), else None: nothing
    written, and standard input, where some of it was read, given back to the command whole."""
    if not argv or argv[0] != "validate":
        return None
    read = _options(argv[1:])
    if read is None:
        return None
    given, held = read
    stdin = given in ([], ["-"])
    if not stdin and any(not value or value.startswith("-") for value in given):
        return None  # standard input beside other inputs
    from .render import counted, plain_output

    if not plain_output():
        return None  # a terminal, or forced colour: the command's console styles the summary
    if stdin and getattr(sys.stdin, "isatty", lambda: True)():
        return None  # the command tells a terminal it is waiting for lines
    try:
        from ..core.verdict import load

        verdicts = load(held)
        if verdicts is None:
            return None
        count = _from_stdin(verdicts) if stdin else _from_inputs(given, verdicts)
    except Exception:  # noqa: BLE001 - whatever went wrong here, nothing is written yet: the command answers
        return None
    if count is None:
        return None
    counts = {"lines": count, "valid": count, "refused": 0, "notes": 0}
    return _write(", ".join(counted(n, name) for name, n in counts.items()) + "\n", 0)


def _options(args: list[str]) -> tuple[list[str], tuple[str, ...] | None] | None:
    """(the inputs, the bundled profiles held: None every one, () none) of validate's arguments, where every option
    among them is one the quick path reads (``--quiet``, ``--strict``, ``--core-only``, ``--profile NAME`` of a
    bundled profile, each as the command reads it); else None."""
    given: list[str] = []
    named: list[str] = []
    core_only = False
    values = iter(args)
    for value in values:
        if value in _SAME_SUMMARY:
            continue
        if value == "--core-only":
            core_only = True
        elif value in ("-p", "--profile"):
            named.append(next(values, ""))
        elif value.startswith("--profile="):
            named.append(value[len("--profile="):])
        elif value.startswith("-") and value != "-":
            return None  # another option, or one written another way (argparse reads -pNAME, --prof NAME too)
        else:
            given.append(value)
    return given, () if core_only else tuple(named) if named else None


def _write(text: str, code: int) -> int:
    """``text`` on stdout, then ``code``: the exit status stays what was found when the reader has gone (| head)."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        stdout_to_devnull()
    return code


def _sure(raw: bytes, first: bool, verdicts: Callable[[str], bool]) -> bool:
    """Whether one physical line (no terminator) is one the command counts valid with nothing to say."""
    if not raw or b"\r" in raw or (first and raw.startswith(b"\xef\xbb\xbf")):
        return False  # blank, a carriage return (a line end or a note), a byte-order mark (stripped, then read)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return verdicts(text)


def _from_inputs(given: list[str], verdicts: Callable[[str], bool]) -> int | None:
    """How many lines the files and line arguments hold, where the quick path may read them and every one is
    sure; else None."""
    count = size = 0
    for value in given:
        if value.startswith(LINE_PREFIX):
            if os.path.exists(value):
                return None  # the command notes that a file of that name exists
            try:
                data = value.encode("utf-8")
            except UnicodeEncodeError:
                return None
        else:
            if os.path.splitext(value)[1].lower() in COMPRESSED or not os.path.isfile(value):
                return None
            try:
                if os.path.getsize(value) > QUICK_MAX_BYTES - size:
                    return None
                with open(value, "rb") as fh:
                    data = fh.read(QUICK_MAX_BYTES - size + 1)
            except OSError:
                return None
            if data.endswith(b"\n"):
                data = data[:-1]
        size += len(data)
        if size > QUICK_MAX_BYTES:
            return None
        lines = data.split(b"\n")
        if not all(_sure(raw, number == 0, verdicts) for number, raw in enumerate(lines)):
            return None
        count += len(lines)
    return count


def _from_stdin(verdicts: Callable[[str], bool]) -> int | None:
    """How many lines standard input holds, where every one is sure and all of them fit QUICK_MAX_BYTES; else
    None, with what was read given back (``sys.stdin`` replays it, then reads on).

    Lines are judged as they arrive: one the scanner is not sure of hands the input to the command at once, so
    a slow writer's findings are not held back, and the command reads it all from the start."""
    source = sys.stdin.buffer
    read: list[bytes] = []
    try:
        count = _sure_stream(source, read, verdicts)
    except BaseException:
        _give_back(b"".join(read), source)
        raise
    if count is None and read:
        _give_back(b"".join(read), source)
    return count


def _sure_stream(source: Any, read: list[bytes], verdicts: Callable[[str], bool]) -> int | None:
    """_from_stdin's reading: every chunk read is kept in ``read``."""
    pending = b""
    count = size = 0
    while True:
        chunk = source.read1(QUICK_MAX_BYTES)
        if not chunk:
            break
        read.append(chunk)
        size += len(chunk)
        *complete, pending = (pending + chunk).split(b"\n")
        if size > QUICK_MAX_BYTES or not all(_sure(raw, count + i == 0, verdicts) for i, raw in enumerate(complete)):
            return None
        count += len(complete)
    if pending:
        if not _sure(pending, count == 0, verdicts):
            return None
        count += 1
    return count or None


class _Replay(io.RawIOBase):
    """What the quick path read of standard input, then the rest of it: the command reads it all."""

    def __init__(self, head: bytes, rest: Any, owner: Any) -> None:
        self._head = memoryview(head)
        self._rest = rest
        self._owner = owner  # the stream ``rest`` belongs to, kept open while the rest is read

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        return self._rest.readinto(buffer)


def _give_back(head: bytes, rest: Any) -> None:
    stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BufferedReader(_Replay(head, rest, stdin)), encoding=stdin.encoding,
                                 errors=stdin.errors, line_buffering=bool(stdin.line_buffering))


def closed_streams_to_devnull() -> None:
    """A process started with stdin, stdout or stderr closed (``>&-``) has None there: it reads nothing from a
    closed stdin and what it writes to a closed stream goes nowhere, its exit status unchanged."""
    for name, mode in (("stdin", "r"), ("stdout", "w"), ("stderr", "w")):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, mode, encoding="utf-8"))  # noqa: SIM115 - the process's own stream


def stdout_to_devnull() -> None:
    """Point file descriptor 1 at the null device: the interpreter's last flush then has nowhere to fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # a stdout with no descriptor (a test's capture)
        pass
