"""Output files written whole or not at all, and what an interrupted run says about them.

A report or a record file appears at its path only when the run that writes
it finishes: it is written to a temporary file beside the path and renamed over
it at the end (a rename within one folder is atomic), so a run stopped by
Ctrl-C, a full disk or an error never leaves a file that looks complete, and a
previous report at that path stays as it was. The CLI's Ctrl-C line
(:func:`interrupted_line`) says which files were written and which were not.
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator

from ...core.errors import RW1Error

#: every output file of this run, in order, and whether it is in place
_FILES: list[tuple[str, bool]] = []


@contextmanager
def output_path(path: str) -> Iterator[str]:
    """A temporary path beside ``path``, for a writer that takes a path (Parquet); renamed to ``path`` when the
    block finishes, removed when it raises.

    A path that is not a regular file (``/dev/null``, a pipe, a terminal) is written in place: a rename would put a
    file where the device was. A symbolic link is followed, so the link stays and its target is replaced."""
    target = Path(os.path.realpath(path))
    if target.exists() and not target.is_file():
        _FILES.append((path, False))
        yield str(target)
        _FILES[-1] = (path, True)
        return
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent or ".")
    except OSError as exc:
        raise RW1Error(f"cannot write {path}: {exc.strerror}") from None
    os.close(fd)
    _as_a_new_file(temporary)
    index = len(_FILES)
    _FILES.append((path, False))
    try:
        yield temporary
        os.replace(temporary, target)
    except BaseException:
        with _quietly():
            os.unlink(temporary)
        raise
    _FILES[index] = (path, True)


@contextmanager
def output_file(path: str, *, newline: str | None = "\n") -> Iterator[IO[str]]:
    """``path`` opened for text, written whole or not at all (:func:`output_path`)."""
    with output_path(path) as temporary:
        with open(temporary, "w", encoding="utf-8", newline=newline) as fh:
            yield fh


def interrupted_line() -> str:
    """One line for a run stopped by Ctrl-C: what it wrote and what it did not."""
    if not _FILES:
        return "interrupted: stopped before the end; what was printed so far is incomplete"
    said = [f"{path} written" if done else f"{path} not written (a file already there is kept as it was)"
            for path, done in _FILES]
    return "interrupted: " + "; ".join(said)


def _as_a_new_file(path: str) -> None:
    """Give ``path`` the mode ``open()`` gives a new file (``mkstemp`` makes it readable by its owner only)."""
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(path, 0o666 & ~mask)


@contextmanager
def _quietly() -> Iterator[None]:
    try:
        yield
    except OSError:
        pass
