"""Records: what ``rogerwilco scan`` writes, one per candidate found in a log.

A record is a ``message`` (the candidate passed ``check_line``; its JSON form
and envelope are filled) or a ``diagnostic`` (why it was refused). The
columns are a stable schema shared by every output format; see
``docs/scan.md``.
"""

from __future__ import annotations

from typing import Any

import attrs


#: The record columns, in order (the stable schema of every output format).
COLUMNS = (
    "record", "file", "line", "column", "field", "text",
    "type", "id", "from", "to", "re", "item", "json",
    "why", "reason", "token", "message",
)


@attrs.frozen(kw_only=True)
class Record:
    """One candidate found in a log: a message, or a diagnostic saying why not.

    ``record`` is ``"message"`` or ``"diagnostic"``. ``line`` and ``column``
    are 1-based (column in code points of the physical line). ``field`` is
    the JSON location the candidate was read from, else None. For a message,
    ``json`` is its JSON form and the envelope columns are filled; for a
    diagnostic, ``why`` (``UNK`` or ``VER``), ``reason`` (the finding kind:
    ``syntax``, ``enum``, ``missing``, ``too-long``, ``encoding`` ...),
    ``token`` (the offending text as written) and ``message`` say why, and
    ``type``/``id`` are filled where the line got that far.
    """

    record: str
    file: str
    line: int
    column: int
    text: str
    field: str | None = None
    type: str | None = None
    id: str | None = None
    from_: str | None = None
    to: str | None = None
    re: str | None = None
    item: str | None = None
    json: dict | None = None
    why: str | None = None
    reason: str | None = None
    token: str | None = None
    message: str | None = None

    @property
    def is_message(self) -> bool:
        return self.record == "message"

    def to_dict(self) -> dict[str, Any]:
        """The record as a plain object with the documented column names."""
        return {
            "record": self.record, "file": self.file, "line": self.line, "column": self.column,
            "field": self.field, "text": self.text, "type": self.type, "id": self.id,
            "from": self.from_, "to": self.to, "re": self.re, "item": self.item, "json": self.json,
            "why": self.why, "reason": self.reason, "token": self.token, "message": self.message,
        }
