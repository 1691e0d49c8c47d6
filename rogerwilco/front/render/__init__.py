"""Rendering: the only layer that imports rich.

Reports are composed from rich renderables and printed on a console made by
:func:`make_console`, which honours ``NO_COLOR`` and pipes (no colour, no
markup surprises) and can write to a string for tests.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing: the quick path reads this module)
if TYPE_CHECKING:
    from typing import IO

    from rich.console import Console


_COLOR = "auto"


def set_color(mode: str) -> None:
    """``--color auto|always|never``: auto colours a terminal unless ``NO_COLOR`` is set, and any output when
    ``FORCE_COLOR`` is (:func:`env_color`)."""
    global _COLOR
    _COLOR = mode


def env_color() -> bool | None:
    """What the environment says of colour under ``--color auto``: ``NO_COLOR`` (no-color.org) False,
    ``FORCE_COLOR`` (force-color.org: colour even into a pipe, as CI logs want) True, each when set and not
    empty, ``NO_COLOR`` winning; None when neither is set (then colour follows the terminal)."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return None


def plain_output(file: IO[str] | None = None) -> bool:
    """Whether a report to ``file`` (stdout) is plain text: no colour and not a terminal.

    Then a command may write the reports' plain text itself, without loading
    rich: a console would write exactly that text (``tests/test_cli.py``).
    """
    stream = file if file is not None else sys.stdout
    stream = getattr(stream, "unescaped", stream)
    if _COLOR == "always" or (_COLOR == "auto" and env_color()):
        return False
    return not bool(getattr(stream, "isatty", lambda: False)())


def terminal_columns(file: IO[str] | None = None) -> int | None:
    """The width a report to ``file`` (stdout) is read at: ``COLUMNS`` when set, else the terminal's when
    ``file`` is one; None for a pipe or a file (no width wraps it)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    stream = file if file is not None else sys.stdout
    stream = getattr(stream, "unescaped", stream)
    try:
        return os.get_terminal_size(stream.fileno()).columns or None if stream.isatty() else None
    except (AttributeError, ValueError, OSError):
        return None


#: the indent of a caret excerpt under a finding
EXCERPT_INDENT = "  "


def excerpt_width(file: IO[str] | None = None) -> int | None:
    """The cells a caret excerpt may take in a report to ``file`` (:func:`terminal_columns` less its indent and
    one cell a terminal keeps for its cursor), so the excerpt never wraps; None: the default window."""
    columns = terminal_columns(file)
    return None if columns is None else columns - len(EXCERPT_INDENT) - 1


def make_console(file: IO[str] | None = None, *, width: int | None = None, color: bool | None = None) -> "Console":
    from rich.console import Console

    stream = file if file is not None else sys.stdout
    if color is None and _COLOR != "auto":
        color = _COLOR == "always"
    # the CLI's escaping stderr: a console escapes what it prints itself and writes its own styles
    stream = getattr(stream, "unescaped", stream)
    tty = bool(getattr(stream, "isatty", lambda: False)())
    if color is None:
        from_env = env_color()
        color = tty if from_env is None else from_env
    return Console(
        file=stream,
        width=width,
        no_color=not color,
        color_system=("auto" if tty else "standard") if color else None,
        force_terminal=True if color and not tty else None,
        highlight=False,
        emoji=False,
        markup=False,
        soft_wrap=width is None and not getattr(stream, "isatty", lambda: False)(),
    )


_PLURALS = {"lines": "line", "notes": "note", "files": "file", "findings": "finding", "messages": "message",
            "statements": "statement", "fails": "fail", "root causes": "root cause", "consequences": "consequence"}


def counted(n: int, plural: str) -> str:
    """``1 line``, ``2 lines``: a count with its noun agreeing (words that are not nouns stay as they are)."""
    return f"{n} {_PLURALS.get(plural, plural) if n == 1 else plural}"
