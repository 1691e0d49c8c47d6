"""Slack exports: each message reported once (its ``text`` preferred over its ``blocks`` copy)."""

from __future__ import annotations

import json
from typing import Any

from ..records import Record
from ..vocab import Receiver
from .frames import _SLACK_ENTITIES, JsonPath, _may_hold
from .records import _too_long, records_of_line
from .sources import Chunk


def _pointer(path: tuple) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


def _slack_text(body: str) -> str:
    try:
        text = json.loads('"' + body + '"') if "\\" in body else body
    except ValueError:
        return ""
    for entity, char in _SLACK_ENTITIES:
        text = text.replace(entity, char)
    return text


def _slack_records(chunk: Chunk, lines: list[bytes], receiver: Receiver) -> list[Record]:
    """The records of a chunk of a Slack export, each message reported once.

    A Slack message carries its text twice: the ``text`` member and, in
    ``blocks``, the rich-text copy (``blocks[].elements[].elements[].text``).
    Records are held until their message (a top-level element) ends; then a
    record found in the message's ``blocks`` is dropped when its candidate
    text is part of the message's own ``text``, which is preferred.
    """
    out: list[Record] = []
    tracker = JsonPath(chunk.json_state)
    limit = chunk.max_line_bytes
    held: list[tuple[Record, tuple | None]] = []
    texts: dict[Any, str] = {}

    def release() -> None:
        for record, path in held:
            if (path is not None and len(path) > 2 and path[1] == "blocks" and path[0] in texts
                    and record.text in texts[path[0]]):
                continue
            out.append(record)
        held.clear()
        texts.clear()

    for i, raw in enumerate(lines):
        number = chunk.first + i
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if i in chunk.overlong:
            if chunk.overlong[i][1]:
                held.append((_too_long(chunk.file, number, chunk.overlong[i][0], limit), None))
            continue
        if len(raw) > limit:
            if _may_hold(raw):
                held.append((_too_long(chunk.file, number, len(raw), limit), None))
            continue
        text = raw.decode("utf-8", "surrogateescape")
        whole = tracker.depth == 0
        strings = tracker.feed(text)
        for path, body, _column in strings:
            if len(path) == 2 and path[1] == "text" and isinstance(path[0], int):
                texts[path[0]] = _slack_text(body)
        if _may_hold(raw):
            fields = [(_pointer(path) if whole else (path[-1] if path and isinstance(path[-1], str) else ""),
                       body, column) for path, body, column in strings]
            records = records_of_line(text, receiver, file=chunk.file, line=number, slack=True,
                                      strings=fields if strings else None)
            for record in records:
                where = next((path for path, body, column in strings
                              if column <= record.column <= column + len(body)), None)
                held.append((record, where))
        if tracker.depth <= 1:
            release()
    release()
    return out
