"""Helpers shared by the subcommands: inputs, profiles, output format."""

from __future__ import annotations

import argparse
import io
import os
import sys
from contextlib import contextmanager
from typing import IO, Iterator

from ...core.errors import RW1Error
from ...core.vocab import BUNDLED_PROFILES, Receiver
from ..quick import COMPRESSED, LINE_PREFIX  # (what the quick path reads as the command does)


class UsageError(RW1Error):
    """An argument given in the wrong place (a line where a file goes, a file where a line goes): exit 2."""


def is_line_argument(value: str | None) -> bool:
    """Whether a FILE-or-LINE argument is a line: it starts with ``RW1 ``.

    The prefix settles it, even where a file of that very name exists (its
    path is then given as ``./NAME``): a line is never opened as a path, and a
    path never read as a line.
    """
    return value is not None and value.startswith(LINE_PREFIX)


@contextmanager
def open_line_or_file(value: str | None) -> Iterator[IO[bytes]]:
    """validate's argument: a line (:func:`is_line_argument`) as a one-line stream, else a file or stdin."""
    if is_line_argument(value):
        assert value is not None
        if os.path.exists(value):
            note(f"read as a line; a file of that name exists: give ./{value} to read the file")
        yield io.BytesIO(line_argument(value).encode("utf-8") + b"\n")
        return
    with open_input(value) as fh:
        yield fh


def default_inputs() -> list[str]:
    """What ``lint`` and ``scan`` read when given no path: standard input when something is piped in, the
    current folder when it is a terminal (nobody is typing a log at it)."""
    return ["."] if getattr(sys.stdin, "isatty", lambda: False)() else ["-"]


def add_profiles(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--profile", "-p", action="append", dest="profiles", metavar="NAME|PATH",
        help=f"a profile the receiver holds (repeatable; default: the bundled {', '.join(BUNDLED_PROFILES)})",
    )
    parser.add_argument("--core-only", action="store_true", help="hold no profile: core vocabulary only")


def receiver_from(args: argparse.Namespace) -> Receiver:
    if getattr(args, "core_only", False):
        return Receiver()
    profiles = getattr(args, "profiles", None)
    return Receiver.load(profiles) if profiles else Receiver.all_bundled()


def add_format(parser: argparse.ArgumentParser, choices=("text", "json")) -> None:
    parser.add_argument("--format", "-f", choices=choices, default=choices[0], help="output format")




@contextmanager
def open_input(name: str | None) -> Iterator[IO[bytes]]:
    """A file or stdin ('-' or none), as bytes.

    What a new user gives by mistake is recognised and the right form shown:
    a line where a file is expected, a directory, a compressed file; and a
    terminal on stdin is told that the command is waiting for lines.
    """
    if name in (None, "-"):
        if getattr(sys.stdin, "isatty", lambda: False)():
            note("reading lines from standard input (end with Ctrl-D); give a FILE to read a file instead")
        yield sys.stdin.buffer
        return
    # os.path, not pathlib: importing pathlib would be a cost of every run. An empty name is the current folder, as
    # pathlib reads it.
    path = name or "."
    if not os.path.exists(path) and name.lstrip().startswith(("RW1 ", "RW")) and " " in name:
        raise UsageError(f"{name[:40]}{'...' if len(name) > 40 else ''} is a line, not a file: give a file of lines, "
                       "or the line on stdin:  printf '%s\\n' 'RW1 ...' | rogerwilco COMMAND")
    if os.path.isdir(path):
        raise RW1Error(f"{name} is a directory: `rogerwilco scan {name}` reads every file in it "
                       "(and `rogerwilco lint` lints them)")
    if os.path.splitext(path)[1].lower() in COMPRESSED and os.path.isfile(path):
        raise RW1Error(f"{name} is compressed: `rogerwilco scan {name}` reads it "
                       f"(or decompress it first: zcat {name} | rogerwilco COMMAND -)")
    try:
        fh = open(name, "rb")
    except OSError as exc:
        raise RW1Error(f"cannot read {name}: {exc.strerror}") from None
    with fh:
        yield fh


@contextmanager
def reading_progress(label: str, fh: IO[bytes], name: str | None) -> Iterator[None]:
    """A progress bar on stderr while ``fh`` (the file ``name``) is read, when stderr is a terminal and the
    file is large (:class:`rogerwilco.front.render.progress.FileProgress`)."""
    if not sys.stderr.isatty() or name in (None, "-") or is_line_argument(name):
        yield
        return
    from ..render.progress import FileProgress, sizes

    with FileProgress(label, sizes([str(name)])) as progress:
        progress.reading(fh)
        yield


def line_argument(value: str | None, *, max_bytes: int | None = None) -> str:
    """A LINE argument: the text itself, or '-' for one line on stdin.

    One line of stdin is read, in bounded pieces: a line longer than
    ``max_bytes`` (64 KiB, as the stream readers) is refused with its size,
    never held. A terminator is stripped, and so is a CR left at the end of
    an argument (a line copied from a Windows file), with a note on stderr.
    """
    from ...io.stream import DEFAULT_MAX_BYTES

    limit = DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
    if value in (None, "-"):
        stream = sys.stdin.buffer
        data = stream.readline(limit + 2)
        if len(data) > limit and not data.endswith(b"\n") or len(data.rstrip(b"\r\n")) > limit:
            size = len(data.rstrip(b"\r\n"))
            while not data.endswith(b"\n"):
                data = stream.readline(64 * 1024)
                if not data:
                    break
                size += len(data.rstrip(b"\r\n"))
            raise RW1Error(f"the line on standard input is {size} bytes; the limit is {limit}")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise RW1Error("standard input is not UTF-8") from None
        return text[:-1].removesuffix("\r") if text.endswith("\n") else text
    if not value.startswith("RW") and os.path.isfile(value):
        raise UsageError(f"{value} is a file, not a line: give the line itself (it starts with {LINE_PREFIX!r}), "
                         "or - to read it from standard input")
    if value.endswith("\r\n") or value.endswith("\n"):
        value = value[:-1].removesuffix("\r")
        note("a line terminator at the end of the line argument was stripped")
    elif value.endswith("\r"):
        value = value[:-1]
        note("a CR (\\r) at the end of the line argument was stripped (a line copied from a Windows file?)")
    return value


def json_argument(value: str | None, what: str) -> str:
    """A JSON argument (the reference's ``from-json '<json>'``, ``check-ho HO '<record json>'``): the text itself,
    or - for one line of stdin; a file's path given here is named as such, never parsed as JSON."""
    if value in (None, "-"):
        return line_argument(value)
    assert value is not None
    if not value.lstrip().startswith(("{", "[")) and os.path.isfile(value):
        raise UsageError(f"{value} is a file, not {what}: give the JSON text itself, e.g. '{{\"acct\": \"...\"}}'")
    return value


def note(text: str) -> None:
    """A note for the person at the terminal, on stderr; never changes the exit code."""
    sys.stderr.write(f"rogerwilco: note: {text}\n")


def display_name(name: str | None) -> str:
    return "<stdin>" if name in (None, "-") else str(name)
