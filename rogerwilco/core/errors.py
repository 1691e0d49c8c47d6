"""The package's one exception hierarchy.

Exceptions are for input that cannot be read at all, or for a strict
constructor refusing a line. Checks return findings instead. Every error
carries the ``why`` code the spec assigns (``UNK`` or ``VER``), the offending
token as written, and where it sits: line number (when the text came from a
stream), column (1-based, in code points) and the source line for a caret.
"""

from __future__ import annotations

from typing import Any, Callable

from .display import caret_lines, printable as printable  # re-exported: the one escaping function for text shown to a person


class RW1Error(ValueError):
    """Base class of every error this package raises.

    A ``ValueError``: a refused line or an unusable argument is a value the
    caller gave, so validators that catch ``ValueError`` (pydantic's among
    them) report it as a validation failure rather than a crash.
    """

    def __init__(
        self,
        message: str,
        *,
        why: str = "UNK",
        token: str = "",
        column: int | None = None,
        line: int | None = None,
        text: str | None = None,
        findings: tuple[Any, ...] = (),
        diagnose: Callable[[], tuple[Any, ...]] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.why = why
        self.token = token
        self.column = column
        self.line = line
        self.text = text
        self._findings = tuple(findings)
        # The full diagnosis (every finding, with its hints), worked out when first read: a
        # program that only catches the error never pays for text it does not show.
        self._diagnose = diagnose

    @property
    def findings(self) -> tuple[Any, ...]:
        """Every finding of the refused line, as ``check_line`` gives them."""
        if self._diagnose is not None:
            self._findings, self._diagnose = tuple(self._diagnose()), None
        return self._findings

    @findings.setter
    def findings(self, value: tuple[Any, ...]) -> None:
        self._findings, self._diagnose = tuple(value), None

    def diagnosed_by(self, diagnose: Callable[[], tuple[Any, ...]]) -> RW1Error:
        """This error, its findings worked out by ``diagnose`` when first read."""
        self._findings, self._diagnose = (), diagnose
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with its findings worked out (the diagnosis is a closure, which does not pickle)."""
        state = {**self.__dict__, "_findings": self.findings, "_diagnose": None}
        return (type(self), self.args, state)

    def __str__(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.column is not None:
            where.append(f"column {self.column}")
        prefix = ", ".join(where)
        return f"{prefix}: {self.message}" if prefix else self.message

    def caret(self) -> str:
        """The source line with a caret under the offending token."""
        if self.text is None or self.column is None:
            return str(self)
        shown, caret = caret_lines(self.text, self.column, self.token)
        return f"{shown}\n{caret}"


class RW1SyntaxError(RW1Error):
    """The line does not match the RW1 grammar."""


class RefusedError(RW1Error):
    """The line is well formed but must be refused (spec 5 rule 2, decisions D4)."""


class EncodeError(RW1Error):
    """A JSON form or message cannot be written as a valid line (D3)."""


class ProfileError(RW1Error):
    """A profile file is malformed or redefines the core (D5)."""

    def __init__(self, message: str, *, path: str = "$", **kw: Any) -> None:
        super().__init__(message, **kw)
        self.path = path

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


__all__ = [
    "EncodeError",
    "ProfileError",
    "RW1Error",
    "RW1SyntaxError",
    "RefusedError",
]
