"""The engine behind ``rogerwilco scan``: chunks in, formatted output out, in input order, over N processes."""

from __future__ import annotations

import sys
from collections import deque
from typing import Any, Iterable, Iterator

import attrs

from ...core.vocab import Receiver
from . import rows
from .outputs import format_csv, format_jsonl, to_arrow_batch
from .records import Tally, records_of_chunk
from .sources import Chunk
from .timestamps import Clock, zone

_WORKER_RECEIVER: Receiver | None = None


@attrs.frozen
class ScanOptions:
    """How records are made beyond the profiles: the zone of zone-less times (``--tz``), the year of
    syslog times (``--year``), and the Arrow type of the ``json`` column (``--json-column``)."""

    tz: str | None = None
    year: int | None = None
    json_column: str = "struct"

    def clock(self) -> Clock:
        return Clock(zone(self.tz), self.year)


def _worker_init(profile_spec: tuple | None) -> None:
    global _WORKER_RECEIVER
    _WORKER_RECEIVER = Receiver.all_bundled() if profile_spec is None else Receiver.load(profile_spec)


def _work(chunk: Chunk, fmt: str, receiver: Receiver | None = None,
          options: ScanOptions | None = None) -> tuple[Any, Tally]:
    receiver = receiver or _WORKER_RECEIVER
    assert receiver is not None
    options = options or ScanOptions()
    clock = options.clock()
    if rows.available and (fmt == "jsonl" or (fmt == "parquet" and options.json_column == "struct")):
        # each record written as it is found; a message the C scanner is sure of with no Record built
        tally = Tally()
        sink = rows.JsonLinesRows(tally) if fmt == "jsonl" else rows.ArrowRows(tally)
        tally.lines = records_of_chunk(chunk, receiver, clock, sink=sink)[1]
        tally.unreadable_ts = clock.unreadable
        return sink.output(), tally
    records, nlines = records_of_chunk(chunk, receiver, clock)
    tally = Tally(lines=nlines, unreadable_ts=clock.unreadable)
    for record in records:
        tally.count(record)
    if fmt == "jsonl":
        out: Any = format_jsonl(records)
    elif fmt == "csv":
        out = format_csv(records)
    elif fmt == "parquet":
        out = to_arrow_batch(records, options.json_column) if records else None
    else:
        out = records
    return out, tally


def run_scan(chunks: Iterable[Chunk], fmt: str, *, jobs: int = 1, profile_spec: tuple | None = None,
             receiver: Receiver | None = None, options: ScanOptions | None = None) -> Iterator[tuple[Any, Tally]]:
    """Formatted output and tally per chunk, in input order, over ``jobs`` processes.

    ``profile_spec`` is what a worker builds its receiver from (None: every
    bundled profile; a tuple of names, paths or profile objects; ``()``: core
    only). At most ``2 * jobs`` chunks are in flight.
    """
    options = options or ScanOptions()
    if jobs <= 1:
        receiver = receiver or (Receiver.all_bundled() if profile_spec is None else Receiver.load(profile_spec))
        for chunk in chunks:
            yield _work(chunk, fmt, receiver, options)
        return
    import multiprocessing

    ctx = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    pool = ctx.Pool(jobs, initializer=_worker_init, initargs=(profile_spec,))
    try:
        inflight: deque = deque()
        for chunk in chunks:
            inflight.append(pool.apply_async(_work, (chunk, fmt, None, options)))
            if len(inflight) >= 2 * jobs:
                yield inflight.popleft().get()
        while inflight:
            yield inflight.popleft().get()
    finally:
        pool.terminate()
        pool.join()
