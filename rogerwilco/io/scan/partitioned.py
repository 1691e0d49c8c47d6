"""Scans split by file for cluster engines, and partitioned Parquet written all or nothing.

Files are independent conversations, so a scan parallelises by file: each
task scans whole files with the ordinary scanner (the records equal those of
``rogerwilco scan -j 1``, file for file, in input order) and hands back an
Arrow table with the exported schema (:func:`rogerwilco.io.records.arrow_schema`).
The Dask and Spark routes (:mod:`.with_dask`, :mod:`.with_spark`) are built
on :func:`expand_inputs` and :func:`scan_table`.

Parquet is partitioned by the UTC date of ``ts`` (``date=2026-10-01/``;
records without a time go to ``date=__HIVE_DEFAULT_PARTITION__/``, the Hive
convention). Writing is all or nothing: every task writes its files under a
staging directory inside the output (``_staging-<token>/``, each file under a
temporary name renamed when complete); only when every task has succeeded
are the files moved into place, and when any task fails the staging
directory is removed, so no partition is ever half written. A complete
output holds an empty ``_SUCCESS``, as Spark's own writer leaves. Both routes
write their files here, with pyarrow and the one Arrow schema, so their files
are the same column by column, type by type, metadata included.
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path
from typing import Any, Iterable, Sequence

from ...core.errors import RW1Error
from ..records import arrow_schema, to_arrow_batch
from .._pyarrow import import_pyarrow
from ...core.vocab import Receiver, as_receiver
from . import rows
from .engine import ScanOptions
from .records import Tally, records_of_chunk, scan
from .sources import is_glob, is_url, iter_file_chunks, local_glob

#: The partition column added to written Parquet: the UTC date of ``ts``.
DATE_COLUMN = "date"
#: The partition value of records with no time (the Hive default partition).
NO_DATE = "__HIVE_DEFAULT_PARTITION__"


def expand_inputs(paths_or_glob: str | os.PathLike | Iterable[str | os.PathLike]) -> list[str]:
    """The files to scan, each named as ``rogerwilco scan`` names it in the ``file`` column.

    A local directory is walked (sorted), a local glob expanded (sorted), a
    URL kept as it is when it names one file; a URL directory or glob is
    expanded through fsspec. A name that matches nothing raises RW1Error.
    """
    names = [paths_or_glob] if isinstance(paths_or_glob, (str, os.PathLike)) else list(paths_or_glob)
    out: list[str] = []
    for item in names:
        name = os.fspath(item)
        if is_url(name):
            out.extend(_expand_url(name))
        elif is_glob(name):
            out.extend(local_glob(name))
        elif os.path.isdir(name):
            out.extend(str(p) for p in sorted(q for q in Path(name).rglob("*") if q.is_file()))
        elif os.path.isfile(name):
            out.append(name)
        else:
            raise RW1Error(f"cannot read {name}: no such file or directory")
    return out


def process_local(files: Iterable[str]) -> list[str]:
    """The inputs only this process can read: ``memory://`` objects live in the memory of the process that
    made them, so workers in other processes find nothing there."""
    return [name for name in files if name.startswith("memory://")]


def refuse_unshared(files: Iterable[str], workers: str) -> None:
    """RW1Error, before any task runs, naming the first input the workers (other processes) cannot read."""
    unshared = process_local(files)
    if unshared:
        raise RW1Error(f"cannot read {unshared[0]} on {workers}: a memory:// object lives in this process only; "
                       "put the inputs where the workers can read them (a shared file system or object storage)")


def _expand_url(url: str) -> list[str]:
    """The files a URL names, as the scan names them (an input that cannot be read keeps its own name,
    and its task reports it)."""
    from .sources import _url_sources

    return [name for name, _ in _url_sources(url)]


def scan_table(paths: Sequence[str], profiles: Any = None, options: ScanOptions | None = None, *,
               dictionary: bool = True, batch_size: int = 65536):
    """One task's work: every record of ``paths`` (in order) as an Arrow table with the exported schema."""
    pa = import_pyarrow()
    options = options or ScanOptions()
    schema = arrow_schema(options.json_column, dictionary=dictionary)
    batches = []
    if rows.available and options.json_column == "struct":
        # a batch a chunk, its rows written as they are found (no Record where the C scanner is sure)
        receiver = Receiver.all_bundled() if profiles is None else as_receiver(profiles)
        clock = options.clock()
        for path in paths:
            for chunk in iter_file_chunks(path):
                sink = rows.ArrowRows(Tally(), dictionary=dictionary)
                records_of_chunk(chunk, receiver, clock, sink=sink)
                batch = sink.output()
                if batch is not None:
                    batches.append(batch)
        if not batches:
            batches.append(to_arrow_batch([], options.json_column, dictionary=dictionary))
        return pa.Table.from_batches(batches, schema=schema)
    buf: list = []
    for path in paths:
        for record in scan(path, profiles, tz=options.tz, year=options.year):
            buf.append(record)
            if len(buf) >= batch_size:
                batches.append(to_arrow_batch(buf, options.json_column, dictionary=dictionary))
                buf = []
    if buf or not batches:
        batches.append(to_arrow_batch(buf, options.json_column, dictionary=dictionary))
    return pa.Table.from_batches(batches, schema=schema)


def with_date(table):
    """The table with the partition column: ``ts``'s UTC date as ``YYYY-MM-DD``, or the Hive default."""
    pa = import_pyarrow()
    import pyarrow.compute as pc

    dates = pc.strftime(table.column("ts"), format="%Y-%m-%d")
    dates = pc.fill_null(dates, NO_DATE)
    return table.append_column(pa.field(DATE_COLUMN, pa.string(), nullable=False), dates)


def _fs(out: str):
    from .sources import _fsspec

    return _fsspec().core.url_to_fs(out)


def new_staging(out: str | os.PathLike) -> str:
    """A fresh staging directory inside ``out``; ``out`` must be absent or empty (no mixing with earlier output)."""
    out = os.fspath(out)
    fs, root = _fs(out)
    if fs.exists(root) and fs.ls(root):
        raise RW1Error(f"{out} is not empty: write partitioned records to a new directory")
    staging = f"{root.rstrip('/')}/_staging-{uuid.uuid4().hex}"
    fs.makedirs(staging, exist_ok=True)
    return fs.unstrip_protocol(staging) if is_url(out) else staging


def write_staged(table, staging: str, part: str) -> list[str]:
    """Write one task's table under ``staging``, one file per date; each file is written under a
    temporary name and renamed when complete. Returns the files written (relative to ``staging``)."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    fs, root = _fs(staging)
    table = with_date(table) if DATE_COLUMN not in table.column_names else table
    written = []
    dates = table.column(DATE_COLUMN)
    for date in sorted(set(dates.to_pylist())):
        rows = table.filter(pc.equal(dates, date)).drop_columns([DATE_COLUMN])
        rel = f"{DATE_COLUMN}={date}/part-{part}.parquet"
        final = f"{root}/{rel}"
        temp = f"{root}/{DATE_COLUMN}={date}/.part-{part}.parquet.tmp"
        fs.makedirs(f"{root}/{DATE_COLUMN}={date}", exist_ok=True)
        with fs.open(temp, "wb") as fh:
            pq.write_table(rows, fh)
        fs.mv(temp, final)
        written.append(rel)
    return written


#: The empty file a complete output holds (the Hadoop committers' marker, which Spark, Hive and
#: schedulers that wait on a job's output look for).
SUCCESS = "_SUCCESS"


def publish(staging: str, out: str | os.PathLike, written: Iterable[Iterable[str]]) -> list[str]:
    """Move every staged file into place (all tasks have succeeded), remove the staging directory, and mark
    the output complete with :data:`SUCCESS`. Returns the files moved (relative to ``out``)."""
    fs, root = _fs(os.fspath(out))
    _, stage_root = _fs(staging)
    moved = []
    for rel in sorted(r for task in written for r in task):
        fs.makedirs(f"{root}/{rel.rsplit('/', 1)[0]}", exist_ok=True)
        fs.mv(f"{stage_root}/{rel}", f"{root}/{rel}")
        moved.append(rel)
    fs.rm(stage_root, recursive=True)
    fs.pipe_file(f"{root}/{SUCCESS}", b"")
    return moved


def discard(staging: str) -> None:
    """Remove a staging directory and everything in it (a task failed: nothing is published)."""
    fs, root = _fs(staging)
    # Tasks still running when another failed may write for a moment more: remove until the directory
    # stays gone (bounded), so no half-written partition is left behind.
    for _ in range(50):
        try:
            if fs.exists(root):
                fs.rm(root, recursive=True)
        except OSError:  # a file landed while the tree was being removed
            pass
        time.sleep(0.1)
        if not fs.exists(root):
            break
    parent = root.rsplit("/", 1)[0]
    try:
        if fs.exists(parent) and not fs.ls(parent):
            fs.rmdir(parent)
    except OSError:
        pass
