"""Slack exports: each message reported once (its ``text`` preferred over its ``blocks`` copy)."""

from __future__ import annotations

import json
from typing import Any

import attrs

from ..records import Record
from ...core.vocab import Receiver
from .frames import _SLACK_ENTITIES, JsonPath, _may_hold
from .records import _too_long, records_of_line
from .sources import Chunk
from .timestamps import Clock, parse_time_text


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


def _slack_records(chunk: Chunk, lines: list[bytes], receiver: Receiver, clock: Clock | None = None) -> list[Record]:
    """The records of a chunk of a Slack export, each message reported once.

    A Slack message carries its text twice: the ``text`` member and, in
    ``blocks``, the rich-text copy (``blocks[].elements[].elements[].text``).
    Records are held until their message (a top-level element) ends; then a
    record found in the message's ``blocks`` is dropped when its candidate
    text is part of the message's own ``text``, which is preferred. Each
    record takes its time from its message's ``ts`` member (epoch seconds).
    """
    clock = clock or Clock()
    out: list[Record] = []
    tracker = JsonPath(chunk.json_state)
    limit = chunk.max_line_bytes
    held: list[tuple[Record, tuple | None, Any]] = []  # (record, its JSON path, its message's index)
    texts: dict[Any, str] = {}
    times: dict[Any, str] = {}

    def release() -> None:
        stamps: dict[Any, Any] = {}
        for record, path, element in held:
            if (path is not None and len(path) > 2 and path[1] == "blocks" and path[0] in texts
                    and record.text in texts[path[0]]):
                continue
            if element in times:
                if element not in stamps:
                    stamps[element] = clock.note(*parse_time_text(times[element], clock.tz))
                if stamps[element] is not None:
                    record = attrs.evolve(record, ts=stamps[element])
            out.append(record)
        held.clear()
        texts.clear()
        times.clear()

    for i, raw in enumerate(lines):
        number = chunk.first + i
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        element = tracker.stack[0][1] if tracker.stack else None
        if i in chunk.overlong:
            if chunk.overlong[i][1]:
                held.append((_too_long(chunk.file, number, chunk.overlong[i][0], limit), None, element))
            continue
        if len(raw) > limit:
            if _may_hold(raw):
                held.append((_too_long(chunk.file, number, len(raw), limit), None, element))
            continue
        text = raw.decode("utf-8", "surrogateescape")
        whole = tracker.depth == 0
        strings = tracker.feed(text)
        for path, body, _column in strings:
            if len(path) == 2 and isinstance(path[0], int):
                if path[1] == "text":
                    texts[path[0]] = _slack_text(body)
                elif path[1] == "ts":
                    times[path[0]] = body
        if _may_hold(raw):
            fields = [(_pointer(path) if whole else (path[-1] if path and isinstance(path[-1], str) else ""),
                       body, column) for path, body, column in strings]
            records = records_of_line(text, receiver, file=chunk.file, line=number, slack=True,
                                      strings=fields if strings else None)
            for record in records:
                where = next((path for path, body, column in strings
                              if column <= record.column <= column + len(body)), None)
                held.append((record, where, where[0] if where else element))
        if tracker.depth <= 1:
            release()
    release()
    return out


def _compact_records(chunk: Chunk, receiver: Receiver, clock: Clock | None = None) -> list[Record]:
    """The records of a chunk of a compact Slack export (one entry per message, see ``compact_chunks``).

    The same records as the line-by-line reader gives for the same export:
    fields are pointers from the array (``/12/text``), columns count from the
    physical line's start, a candidate in ``blocks`` that is part of the
    message's ``text`` is dropped, and the message's ``ts`` is the time.
    """
    clock = clock or Clock()
    out: list[Record] = []
    limit = chunk.max_line_bytes
    elements = chunk.elements
    assert elements is not None  # a compact export's chunk is cut between its messages
    for i, raw in enumerate(chunk.data.split(b"\n")[:-1]):
        number, before, index = elements[i]
        if i in chunk.overlong:
            if chunk.overlong[i][1]:
                out.append(attrs.evolve(_too_long(chunk.file, number, chunk.overlong[i][0], limit), column=before + 1))
            continue
        if not _may_hold(raw):
            continue
        text = raw.decode("utf-8", "surrogateescape")
        records = records_of_line(text, receiver, file=chunk.file, line=number, slack=True)
        if not records:
            continue
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            value = None
        own = _slack_text(json.dumps(value["text"])[1:-1]) if isinstance(value, dict) and isinstance(
            value.get("text"), str) else None
        ts = None
        if isinstance(value, dict) and isinstance(value.get("ts"), str):
            ts = clock.note(*parse_time_text(value["ts"], clock.tz))
        for record in records:
            field = record.field or ""
            if own is not None and field.startswith("/blocks/") and record.text in own:
                continue
            out.append(attrs.evolve(record, column=record.column + before, field=f"/{index}{field}", ts=ts))
    return out
