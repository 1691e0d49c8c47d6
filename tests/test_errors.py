"""An error worded later: its class decided at once, its wording worked out when first read, then as if eager."""

from __future__ import annotations

import copy
import pickle

import pytest

from rogerwilco.core.errors import RefusedError, RW1Error, RW1SyntaxError

TEXT = "RW1 HO a-1 from=a  to=b"
WORDING = ("two spaces in a row at column 17", "to=b", 19)

# Each way a caller may first read an error: the wording must be there whichever comes first.
READERS = {
    "str": str, "repr": repr, "args": lambda e: e.args, "message": lambda e: e.message, "token": lambda e: e.token,
    "column": lambda e: e.column, "caret": lambda e: e.caret(), "pickle": lambda e: pickle.dumps(e),
    "copy": copy.copy, "format": lambda e: f"{e}", "getattr": lambda e: getattr(e, "column"),
}


def _eager(cls: type[RW1Error] = RW1SyntaxError) -> RW1Error:
    message, token, column = WORDING
    return cls(message, why="UNK", token=token, column=column, line=4, text=TEXT)


def _later(calls: list[int], cls: type[RW1Error] = RW1SyntaxError) -> RW1Error:
    def word() -> tuple[str, str, int | None]:
        calls.append(1)
        return WORDING

    return cls.worded_later(word, why="UNK", line=4, text=TEXT)


def _seen(error: RW1Error) -> tuple:
    return (type(error), str(error), repr(error), error.args, error.message, error.token, error.column, error.why,
            error.line, error.text, error.caret(), error.findings,
            {k: v for k, v in vars(error).items() if not k.startswith("_")})


@pytest.mark.parametrize("reader", sorted(READERS))
def test_an_error_worded_later_reads_as_the_eager_one_whichever_is_read_first(reader) -> None:
    calls: list[int] = []
    error = _later(calls)
    READERS[reader](error)
    assert _seen(error) == _seen(_eager())
    assert len(calls) == 1  # worked out once


@pytest.mark.parametrize("cls", [RW1SyntaxError, RefusedError])
def test_an_error_worded_later_is_worded_only_when_read(cls) -> None:
    calls: list[int] = []
    with pytest.raises(cls) as caught:
        raise _later(calls, cls)
    assert isinstance(caught.value, RW1Error) and isinstance(caught.value, ValueError)
    assert (caught.value.why, caught.value.line, calls) == ("UNK", 4, [])  # the verdict alone: no words yet
    assert str(caught.value) == "line 4, column 19: two spaces in a row at column 17" and calls == [1]


def test_an_error_worded_later_pickles_as_the_eager_one() -> None:
    again = pickle.loads(pickle.dumps(_later([])))
    assert _seen(again) == _seen(_eager())


def test_an_attribute_no_error_has_is_the_usual_attribute_error() -> None:
    for error in (_later([]), _eager()):
        with pytest.raises(AttributeError, match="^'RW1SyntaxError' object has no attribute 'path'$") as caught:
            error.path  # noqa: B018
        assert caught.value.name == "path" and not hasattr(error, "__notes__")
