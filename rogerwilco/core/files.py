"""Files a user names as configuration: read only when regular and small.

A profile, a lint configuration, a baseline, a crosswalk, a case file or a
JSON argument file is named by whoever wrote a command line or a repository's
``pyproject.toml``; lint reads the latter from any repository it is pointed
at. Each is read whole, so one that is not a regular file (``/dev/zero``, a
FIFO that never ends, a directory) or one far larger than any real file of
its kind would hold the process for ever or take all its memory. Every such
read goes through :func:`read_limited`: the file is checked with ``stat``
before anything opens it (opening a FIFO for reading blocks until a writer
comes), opened without blocking, checked again on the open descriptor (the
name may have changed in between), and read no further than its cap.

The caps are far above any real file of each kind (the bundled profiles are
under 8 KiB) and are documented in ``docs/profiles.md`` and ``docs/lint.md``.
"""

from __future__ import annotations

import os
import stat

from .errors import RW1Error

MIB = 1024 * 1024
#: a profile document (``--profile FILE``, ``profiles = [...]`` in a lint configuration)
PROFILE_MAX_BYTES = 4 * MIB
#: a lint configuration file (``rogerwilco.toml``, ``pyproject.toml``)
CONFIG_MAX_BYTES = 4 * MIB
#: a lint baseline (one short entry per recorded finding)
BASELINE_MAX_BYTES = 64 * MIB
#: a crosswalk, a conformance case file, a JSON object given as a file argument
DATA_MAX_BYTES = 16 * MIB

# what a non-regular file is, in the words of an error
_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"))


def _kind(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def _size(n: int) -> str:
    return f"{n / MIB:.1f} MiB" if n >= MIB else f"{n:,} bytes"


def _refuse_unless_regular(path: str, what: str, mode: int, error: type[RW1Error]) -> None:
    if not stat.S_ISREG(mode):
        raise error(f"{what} {path} is {_kind(mode)}, not a regular file: give the path of a file")


def _too_large(path: str, what: str, limit: int, error: type[RW1Error]) -> RW1Error:
    return error(f"{what} {path} is larger than {_size(limit)}, the most a {what} may be")


def read_limited(path: str | os.PathLike[str], *, what: str, limit: int,
                 error: type[RW1Error] = RW1Error) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes.

    Raises ``error`` naming the file and the reason for anything else;
    OSError (no such file, no permission) reaches the caller, which knows how
    to name a missing file of its kind.
    """
    path = os.fspath(path)  # a string, not a pathlib.Path: reading the core vocabulary need not import pathlib
    _refuse_unless_regular(path, what, os.stat(path).st_mode, error)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        _refuse_unless_regular(path, what, info.st_mode, error)
        if info.st_size > limit:
            raise _too_large(path, what, limit, error)
        data = fh.read(limit + 1)  # a file that grew after the stat is still cut at the cap
    if len(data) > limit:
        raise _too_large(path, what, limit, error)
    return data


def read_text(path: str | os.PathLike[str], *, what: str, limit: int) -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes; anything else is an RW1Error naming the file."""
    try:
        return read_limited(path, what=what, limit=limit).decode("utf-8")
    except OSError as exc:
        raise RW1Error(f"cannot read the {what} {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RW1Error(f"the {what} {path} is not UTF-8 text") from None


_STREAM_SUFFIXES = frozenset({".rw1"})


def is_stream_file(name: str) -> bool:
    """Whether a file is linted as an RW1 stream (``.rw1``, standard input) rather than for embedded lines.

    The suffix is ``pathlib``'s (the last dot of the last part, not a leading
    one), read without importing ``pathlib``: ``validate`` asks this of every
    file with a refused line, and a one-line call should not pay for it.
    """
    if name in ("-", "<stdin>", "<stream>"):
        return True
    parts = [part for part in name.split("/") if part not in ("", ".")]
    base = parts[-1] if parts else ""
    dot = base.rfind(".")
    return 0 < dot < len(base) - 1 and base[dot:].lower() in _STREAM_SUFFIXES
