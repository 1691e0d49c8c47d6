"""Progress on stderr for a long run: bytes read, rate and time left, on a terminal only.

``scan`` draws its bar from the positions its readers report; the commands that
read a file through the line readers (``lint``, ``validate``, ``check-thread``)
draw the same bar from where the open file stands, read by a small thread from
the file's descriptor, so no reader needs to know it is watched.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import IO, TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

#: bytes of input before a bar is worth drawing for the commands that check every line (about two seconds)
LINE_CHECK_THRESHOLD = 4 * 1024 * 1024
_TICK = 0.25  # seconds between two looks at the open file


def progress_bar(console: "Console", total: int, label: str = "scan") -> "Progress":
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn, TransferSpeedColumn

    return Progress(
        TextColumn(f"[bold]{label}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(), TimeRemainingColumn(),
        console=console, transient=True,
    )


def wants_progress(stream: IO[str], total: int, threshold: int) -> bool:
    """A bar only on a terminal, and only when the input is large."""
    return bool(getattr(stream, "isatty", lambda: False)()) and total >= threshold


def sizes(names: Iterable[str]) -> int:
    """The bytes of the regular files among ``names`` (stdin and what cannot be read count nothing)."""
    total = 0
    for name in names:
        try:
            total += os.path.getsize(name) if name != "-" and os.path.isfile(name) else 0
        except OSError:
            continue
    return total


class FileProgress:
    """A bar for a run over files read one after another: where the open file stands, plus the files done.

    A no-op unless stderr is a terminal and the input is at least ``threshold`` bytes."""

    def __init__(self, label: str, total: int, threshold: int = LINE_CHECK_THRESHOLD) -> None:
        self._progress: "Progress | None" = None
        self._done = 0
        self._size = 0
        self._file: IO[bytes] | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if wants_progress(sys.stderr, total, threshold):
            from . import make_console

            self._progress = progress_bar(make_console(file=sys.stderr), total, label)
            self._task = self._progress.add_task(label, total=total)

    def __enter__(self) -> "FileProgress":
        if self._progress is not None:
            self._progress.start()
            self._thread = threading.Thread(target=self._watch, name="rogerwilco-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._progress is not None:
            self._progress.stop()

    def reading(self, fh: IO[bytes]) -> None:
        """``fh`` is the file being read now; the one before it is done (its whole size counts)."""
        self._done += self._size
        try:
            self._size = os.fstat(fh.fileno()).st_size
        except (OSError, ValueError, AttributeError):  # not a file on disk (stdin from a pipe)
            self._size = 0
        self._file = fh

    @staticmethod
    def _position(fh: IO[bytes]) -> int:
        try:
            return os.lseek(fh.fileno(), 0, os.SEEK_CUR)  # where the OS stands: the reader's buffer is a little ahead
        except (OSError, ValueError, AttributeError):  # closed, or not seekable
            return 0

    def _watch(self) -> None:
        assert self._progress is not None
        while not self._stop.wait(_TICK):
            current = self._file
            at = self._done + (self._position(current) if current is not None else 0)
            self._progress.update(self._task, completed=at)
