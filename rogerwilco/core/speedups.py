"""Which accept path this process uses: the compiled one or pure Python.

The accept path (:mod:`rogerwilco.core.accept`: a valid line straight to its
Message or JSON form) is written as typed Python that mypyc compiles. A wheel
built where a C compiler exists (``pip install .``) carries the compiled twin,
the extension ``rogerwilco.core._accept_c``, built from the very text of
``accept.py``; elsewhere, and in an editable install, the package is pure
Python. Both decide every line alike (``tests/test_compiled.py`` holds them to
it); the compiled one is faster.

At import, the package takes the compiled twin when it is there, unless the
environment variable ``RW1_PURE`` is set to anything but ``""`` or ``"0"``, or
the twin was built from another ``accept.py`` than the one beside it (a clone
edited since ``python hatch_build.py --inplace``).

``compiled``
    True when the compiled accept path is in use.
``active``
    ``"compiled"`` or ``"pure"``.
``reason``
    Why the pure path is in use (``""`` when compiled).
``scanning``
    True when the C scanner (:mod:`rogerwilco.core.scanner`, the extension
    ``rogerwilco.core._scan``) reads lines first for ``loads``, for the batch
    path (``json_form``, ``json_forms``: ``scan`` takes it) and for the
    quiet accept attempt of ``validate_stream(..., quiet_first=True)`` (lint,
    check-thread): it settles the lines it is sure of and hands the rest to
    the accept path above.
    ``RW1_PURE`` turns it off too.
    It also writes the JSON text of ``scan``'s records (what
    ``json.dumps(value, ensure_ascii=True)`` writes, to the character), the
    json column of their Arrow batches column by column (``json_compact``,
    ``json_struct_columns``: what ``json.dumps(value, ensure_ascii=False,
    separators=(",", ":"))`` writes), and
    finds the string values of a JSON line that may hold a message
    (``json_strings``) and reads a log line's time in its commonest form
    (``utc_time``).
``scan_reason``
    Why the scanner is not in use (``""`` when it is).
"""

from __future__ import annotations

import importlib
import json
import os
import zlib
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from datetime import datetime

from . import accept as _pure
from . import scanner as _scanner

__all__ = [
    "COMPILED_MODULE",
    "accept_quiet",
    "active",
    "compiled",
    "implementation",
    "json_compact",
    "json_form",
    "json_forms",
    "json_object",
    "json_strings",
    "json_struct_columns",
    "json_text",
    "loads_line",
    "reason",
    "scan_reason",
    "scanning",
    "source_stamp",
    "utc_time",
]

COMPILED_MODULE = "rogerwilco.core._accept_c"


def source_stamp(text: str) -> str:
    """The stamp a compiled twin carries of the source it was built from (hatch_build.py writes it)."""
    data = text.encode("utf-8")
    return f"{zlib.crc32(data):08x}{len(data):08x}"


#: RW1_PURE set: the pure accept path alone, no compiled twin and no C scanner
_FORCED_PURE = os.environ.get("RW1_PURE", "") not in ("", "0")


def _choose() -> tuple[ModuleType, str]:
    """(the accept module to use, why it is the pure one or "")."""
    if _FORCED_PURE:
        return _pure, "RW1_PURE is set"
    try:
        twin = importlib.import_module(COMPILED_MODULE)
    except ImportError:
        return _pure, "the compiled accept path is not built (pip install . builds it where a C compiler exists)"
    source = Path(_pure.__file__ or "")
    if source.suffix == ".py" and source.is_file():
        if getattr(twin, "BUILT_FROM", None) != source_stamp(source.read_text(encoding="utf-8")):
            return _pure, "the compiled accept path was built from another accept.py (python hatch_build.py --inplace)"
    return twin, ""


implementation, reason = _choose()
compiled: bool = implementation is not _pure
active: str = "compiled" if compiled else "pure"

# The entry points the package calls, from the module in use (typed as the pure module's).
loads_line = _pure.loads_line
# lint's and check-thread's first try: the Message of a line with no finding at all (not even a note), or None
accept_quiet = _pure.accept_quiet
json_form = _pure.json_form
json_forms = _pure.json_forms
# the JSON text of a value, as json.dumps(value, ensure_ascii=True) writes it (a record's JSON form in JSON Lines)
json_text = json.JSONEncoder(ensure_ascii=True).encode


# json.dumps(dict(zip(keys, values)), ensure_ascii=True), a value that is a time in UTC written as RFC 3339 text with
# microseconds and "Z" (a record's ts), or None: not sure (the caller writes it then); only the C scanner writes it
# (without it, None: a record's line is written field by field)
json_object: Callable[[tuple[str, ...], tuple[Any, ...]], str | None] | None = None
# json.dumps(value, ensure_ascii=False, separators=(",", ":")), or None: not sure (a float, a subclass, a lone
# surrogate: the caller writes it then); a record's JSON form in Parquet's json column; only the C scanner writes it
json_compact: Callable[[Any], str | None] | None = None
# (columns, unsure) of the json struct column of Arrow records: for each key a list of forms[i].get(key), then the
# slots' json_compact texts (None where the form is None), and the indexes of the forms it is not sure of (left
# None in every column: the caller writes them); only the C scanner writes them
json_struct_columns: Callable[[list[Any], tuple[str, ...]], tuple[list[list[Any]], list[int]]] | None = None
# (JSON pointer, raw body, column) of each string value of the JSON text text[at:] (one json.loads accepted) whose
# raw body holds "RW" or "\u", in order, or None: not sure (scan's frames of a JSON line); only the C scanner reads
# them (without it, None: the caller reads them itself)
json_strings: Callable[[str, int], list[tuple[str, str, int]] | None] | None = None
# utc_time(text, end, whole): the time in UTC that text[:end] starts with (whole: that is all of it) when it is
# written YYYY-MM-DD[T ]HH:MM:SS[.fraction]Z, or None: not sure (scan's ts column reads the text itself then); only
# the C scanner reads it
utc_time: Callable[[str, int, bool], datetime | None] | None = None



def _refusing_in_python(accept: Any) -> Any:
    """``loads_line`` through the compiled ``accept``, a refused line's error raised from Python frames only.

    An exception that passes through a compiled function gets a traceback entry made up for it (a code
    object and a frame, mypyc's ``CPy_AddTraceback``), which costs several valid lines: a refused line
    would cost 10x a valid one for that alone. The compiled ``accept`` refuses a line that is not a
    ``str`` with the TypeError the pure ``loads_line`` imitates.
    """
    from .semantics import strict_message
    from .vocab import Receiver, as_receiver

    def loads_line(text: str, profiles: Any = None, line_number: int | None = None) -> Any:
        receiver = profiles if profiles.__class__ is Receiver else as_receiver(profiles)
        message = accept(text, receiver, line_number)
        if message is not None:
            return message
        return strict_message(text, receiver, line_number=line_number)

    return loads_line


if compiled:
    loads_line = _refusing_in_python(implementation.accept)
    accept_quiet = implementation.accept_quiet
    json_form = implementation.json_form
    json_forms = implementation.json_forms

# The C scanner reads each line first where it is built; a line it is not sure of goes to the accept path above.
if _FORCED_PURE:
    _scan, scan_reason = None, "RW1_PURE is set"
else:
    _scan, scan_reason = _scanner.load()
scanning: bool = _scan is not None
if _scan is not None:
    loads_line = _scanner.loads_with(_scan, loads_line)
    accept_quiet = _scanner.quiet_with(_scan, accept_quiet)
    json_forms = _scanner.forms_with(_scan, json_form, implementation.form_or_result)
    json_form = _scanner.form_with(_scan, json_form)
    json_text = _scanner.text_with(_scan, json_text)
    json_object = _scan.scan.dumps_object
    json_compact = _scan.scan.compact
    json_struct_columns = _scan.scan.struct_columns
    json_strings = _scan.scan.strings
    utc_time = _scan.scan.utc_time
