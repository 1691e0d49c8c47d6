"""Which accept path this process uses: the compiled one (the C scanner) or pure Python.

The accept path (:mod:`rogerwilco.core.accept`: a valid line straight to its
Message or JSON form) is Python. A wheel built where a C compiler exists
(``pip install .``) carries the C scanner, the extension
``rogerwilco.core._scan`` (:mod:`rogerwilco.core.scanner` builds its tables
from each vocabulary at run time), which reads each line first and hands the
lines it is not sure of to the Python accept path, then the full pass;
elsewhere, and in an editable install, the package is pure Python. Both decide
every line alike (``tests/test_scanner.py`` holds them to it); the compiled
one is faster.

At import, the package takes the scanner when it is built, unless the
environment variable ``RW1_PURE`` is set to anything but ``""`` or ``"0"``,
or the scanner was built from other sources than the ``_scan.c`` beside it
(a clone edited since ``python hatch_build.py --inplace``).

``compiled``
    True when the C scanner is in use.
``active``
    ``"compiled"`` or ``"pure"``.
``reason``
    Why the pure path is in use (``""`` when compiled).
``implementation``
    The Python accept module (:mod:`rogerwilco.core.accept`): what a line the
    scanner is not sure of goes through, and every line when it is not built.
``scanning``, ``scan_reason``
    The same as ``compiled`` and ``reason``, by the names they had when a
    second compiled path stood between the two.

The scanner reads lines first for ``loads``, for the batch path
(``json_form``, ``json_forms``: ``scan`` takes it) and for the quiet accept
attempt of ``validate_stream(..., quiet_first=True)`` (lint, check-thread): it
settles the lines it is sure of and hands the rest to the Python accept path.
It also writes the JSON text of ``scan``'s records (what
``json.dumps(value, ensure_ascii=True)`` writes, to the character), the json
column of their Arrow batches column by column (``json_compact``,
``json_struct_columns``: what ``json.dumps(value, ensure_ascii=False,
separators=(",", ":"))`` writes), a message record's whole line of JSON Lines
from a plain log line or a candidate it is sure of, no Record built
(``line_row``, ``json_row``), finds the one message of a plain log line
(``plain_start``: lint's logs), takes lint's accept path a message at a
time (``plain_steps``: :mod:`rogerwilco.checks._plain`'s steps), and finds
the string values of a JSON line that may hold a message (``json_strings``)
and reads a log line's time in its commonest form (``utc_time``).
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from datetime import datetime

from . import accept as _pure
from . import scanner as _scanner
from .scanner import source_stamp
from .verdict import forced_pure

__all__ = [
    "COMPILED_MODULE",
    "accept_quiet",
    "active",
    "compiled",
    "implementation",
    "json_compact",
    "json_compact_text",
    "json_form",
    "json_forms",
    "json_object",
    "json_row",
    "line_row",
    "json_strings",
    "plain_start",
    "plain_steps",
    "json_struct_columns",
    "json_text",
    "loads_line",
    "reason",
    "scan_reason",
    "scanning",
    "source_stamp",
    "utc_time",
]

COMPILED_MODULE = "rogerwilco.core._scan"


#: RW1_PURE set: the pure accept path alone, no C scanner (read as the quick path of `validate` reads it)
_FORCED_PURE = forced_pure()

implementation: ModuleType = _pure

# The entry points the package calls: the Python accept path's, wrapped by the C scanner below where it is built.
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
# row(text, receiver, keys, file, line, column, field, ts, version): the line of JSON Lines (newline included) of a
# scan's message record for a candidate the C scanner is sure of, what Record.to_jsonl writes, with no Message, form
# dict or Record built; or None: not sure (the candidate goes through json_form and a Record); only the C scanner
# writes it
json_row: Callable[[str, Any, tuple[str, ...], str, int, int, str | None, datetime | None, int], str | None] | None = None
# line_row(text, receiver, keys, file, line, version): (type, the line of JSON Lines of its one record) for a plain
# log line (its own frame) holding one candidate the C scanner is sure of, its time read as the Python path reads
# it; or None: not sure (the line goes through records_of_line); only the C scanner writes it
line_row: Callable[[str, Any, tuple[str, ...], str, int, int], tuple[str, str] | None] | None = None
# plain_start(text): where the one candidate of a log line starts, running to its end, when the line is its own
# frame (what frames_of and candidates give: [Frame(text, 1)] and that one candidate), or -1: not sure (they read
# the line then); only the C scanner finds it
plain_start: Callable[[str], int] | None = None
# PlainSteps(named, last, items, open, room, held, kept, not_plain_ho, readback, blockers).take: lint's accept path,
# rogerwilco.checks._plain.PlainThreads.take step for step on PlainThreads' own state; only the C scanner has it
# (without it, None: PlainThreads.take steps itself)
plain_steps: Any = None
# json.dumps(value, ensure_ascii=False, separators=(",", ":")), or None: not sure (a float, a subclass, a lone
# surrogate: the caller writes it then); a record's JSON form in Parquet's json column; only the C scanner writes it
json_compact: Callable[[Any], str | None] | None = None


def json_compact_text(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, separators=(",", ":"))``: the C scanner's text where it is sure
    (:data:`json_compact`), else json.dumps's (the same text)."""
    written = json_compact(value) if json_compact is not None else None
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")) if written is None else written

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

# The C scanner reads each line first where it is built; a line it is not sure of goes to the accept path above.
if _FORCED_PURE:
    _scan, reason = None, "RW1_PURE is set"
else:
    _scan, reason = _scanner.load()
compiled: bool = _scan is not None
active: str = "compiled" if compiled else "pure"
scanning, scan_reason = compiled, reason
if _scan is not None:
    loads_line = _scanner.loads_with(_scan, loads_line)
    accept_quiet = _scanner.quiet_with(_scan, accept_quiet)
    json_forms = _scanner.forms_with(_scan, json_form, _pure.form_or_result)
    json_form = _scanner.form_with(_scan, json_form)
    json_text = _scanner.text_with(_scan, json_text)
    json_object = _scan.scan.dumps_object
    json_row = _scan.scan.row
    line_row = _scan.scan.line_row
    plain_start = _scan.scan.plain_start
    plain_steps = _scan.scan.PlainSteps
    json_compact = _scan.scan.compact
    json_struct_columns = _scan.scan.struct_columns
    json_strings = _scan.scan.strings
    utc_time = _scan.scan.utc_time
