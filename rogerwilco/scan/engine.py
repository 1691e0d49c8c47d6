"""The engine behind ``rogerwilco scan``: chunks in, formatted output out, in input order, over N processes."""

from __future__ import annotations

import sys
from collections import deque
from typing import Any, Iterable, Iterator

from ..vocab import Receiver
from .outputs import format_csv, format_jsonl, to_arrow_batch
from .records import Tally, records_of_chunk
from .sources import Chunk

_WORKER_RECEIVER: Receiver | None = None


def _worker_init(profile_spec: tuple | None) -> None:
    global _WORKER_RECEIVER
    _WORKER_RECEIVER = Receiver.all_bundled() if profile_spec is None else Receiver(profile_spec)


def _work(chunk: Chunk, fmt: str, receiver: Receiver | None = None) -> tuple[Any, Tally]:
    receiver = receiver or _WORKER_RECEIVER
    assert receiver is not None
    records, nlines = records_of_chunk(chunk, receiver)
    tally = Tally(lines=nlines)
    for record in records:
        tally.count(record)
    if fmt == "jsonl":
        out: Any = format_jsonl(records)
    elif fmt == "csv":
        out = format_csv(records)
    elif fmt == "parquet":
        out = to_arrow_batch(records) if records else None
    else:
        out = records
    return out, tally


def run_scan(chunks: Iterable[Chunk], fmt: str, *, jobs: int = 1, profile_spec: tuple | None = None,
             receiver: Receiver | None = None) -> Iterator[tuple[Any, Tally]]:
    """Formatted output and tally per chunk, in input order, over ``jobs`` processes.

    ``profile_spec`` is what a worker builds its receiver from (None: every
    bundled profile; a tuple of names, paths or profile objects; ``()``: core
    only). At most ``2 * jobs`` chunks are in flight.
    """
    if jobs <= 1:
        receiver = receiver or (Receiver.all_bundled() if profile_spec is None else Receiver(profile_spec))
        for chunk in chunks:
            yield _work(chunk, fmt, receiver)
        return
    import multiprocessing

    ctx = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    pool = ctx.Pool(jobs, initializer=_worker_init, initargs=(profile_spec,))
    try:
        inflight: deque = deque()
        for chunk in chunks:
            inflight.append(pool.apply_async(_work, (chunk, fmt)))
            if len(inflight) >= 2 * jobs:
                yield inflight.popleft().get()
        while inflight:
            yield inflight.popleft().get()
    finally:
        pool.terminate()
        pool.join()
