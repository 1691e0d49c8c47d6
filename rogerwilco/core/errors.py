"""The package's one exception hierarchy.

Exceptions are for input that cannot be read at all, or for a strict
constructor refusing a line. Checks return findings instead. Every error
carries the ``why`` code the spec assigns (``UNK`` or ``VER``), the offending
token as written, and where it sits: line number (when the text came from a
stream), column (1-based, in code points) and the source line for a caret.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, TypeVar

from .display import caret_lines, printable as printable  # re-exported: the one escaping function for text shown to a person

_Error = TypeVar("_Error", bound="RW1Error")
# BaseException's own args, which RW1Error's args property reads and writes once the wording is worked out.
_ARGS: Any = BaseException.__dict__["args"]
# BaseException's own constructor, which sets args: RW1Error.of makes an error through it.
_NEW: Any = BaseException.__new__
# What a lazily worded error works out when one of them is first read.
_WORDING = frozenset({"message", "token", "column"})


class RW1Error(ValueError):
    """Base class of every error this package raises.

    A ``ValueError``: a refused line or an unusable argument is a value the
    caller gave, so validators that catch ``ValueError`` (pydantic's among
    them) report it as a validation failure rather than a crash.
    """

    _word: Callable[[], tuple[str, str, int | None]]  # an error worded later: its wording, until first read

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

    @classmethod
    def of(cls: type[_Error], message: str, token: str, column: int | None, line: int | None, text: str | None,
           diagnose: Callable[[], tuple[Any, ...]] | None, why: str = "UNK") -> _Error:
        """``cls(message, why=why, token=token, column=column, line=line, text=text, diagnose=diagnose)``, made
        without the keyword call: the refusals ``loads`` raises for every refused line are made this way."""
        error: _Error = _NEW(cls, message)
        held = error.__dict__
        held["message"], held["why"], held["token"], held["column"] = message, why, token, column
        held["line"], held["text"], held["_findings"], held["_diagnose"] = line, text, (), diagnose
        return error

    @classmethod
    def worded_later(cls: type[_Error], word: Callable[[], tuple[str, str, int | None]], *, why: str = "UNK",
                     line: int | None = None, text: str | None = None,
                     diagnose: Callable[[], tuple[Any, ...]] | None = None) -> _Error:
        """The error whose ``message``, ``token`` and ``column`` ``word`` works out when first read.

        Its class is the verdict, decided cheaply; its wording is worked out
        the first time anything shows it or reads it (``str()``, ``repr()``,
        ``args``, any of the three attributes, ``caret()``, pickling), and is
        then what the error would have held from the start. A program that only
        catches the error never pays for the words.
        """
        error: _Error = _NEW(cls)
        held = error.__dict__
        held["why"], held["line"], held["text"] = why, line, text
        held["_findings"], held["_diagnose"], held["_word"] = (), diagnose, word
        return error

    def _settle(self) -> None:
        """Work out the wording of an error worded later (nothing for any other)."""
        word = self.__dict__.pop("_word", None)
        if word is None:
            return
        message, token, column = word()
        for name, value in (("message", message), ("token", token), ("column", column)):
            self.__dict__.setdefault(name, value)
        _ARGS.__set__(self, (self.__dict__["message"],))

    if not TYPE_CHECKING:  # hidden from the type checker, which would otherwise take any attribute as there

        def __getattr__(self, name: str) -> Any:
            # Reached only for an attribute the error does not hold: the wording of an error worded later.
            if name in _WORDING and "_word" in self.__dict__:
                self._settle()
                return self.__dict__[name]
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}", name=name, obj=self)

    @property
    def args(self) -> tuple[Any, ...]:
        """``(message,)``, as for any exception (an error worded later works its wording out first)."""
        self._settle()
        return _ARGS.__get__(self)  # type: ignore[no-any-return]

    @args.setter
    def args(self, value: tuple[Any, ...]) -> None:
        _ARGS.__set__(self, value)

    def __repr__(self) -> str:
        self._settle()
        return ValueError.__repr__(self)

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
        self._settle()
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
