"""Scans on Dask: a set of paths or a glob as a Dask DataFrame, and partitioned Parquet written in parallel.

Nothing here picks a scheduler: the work runs on whatever Dask would use
(a ``dask.distributed.Client`` when one is active, else Dask's default), so
the same call runs on a laptop and on a cluster. Each partition is the
records of one group of files, scanned by a worker with the ordinary scanner;
``meta`` is the exported schema (:func:`rogerwilco.io.records.arrow_schema` as
pandas reads it). The inputs must be readable from the workers (a shared
file system, or fsspec URLs); ``memory://`` inputs, which only this process
can read, are refused before any task runs unless the workers are in this
process.
"""

from __future__ import annotations

import os
from typing import Any, Iterable

from ...core.errors import RW1Error
from ..records import arrow_schema
from .._pyarrow import import_pyarrow
from .engine import ScanOptions
from .partitioned import discard, expand_inputs, new_staging, publish, refuse_unshared, scan_table, write_staged


def _dask():
    try:
        import dask
        import dask.dataframe as dd
    except ImportError:
        raise RW1Error("the Dask route needs dask: pip install 'rogerwilco[distributed]'") from None
    return dask, dd


def _groups(files: list[str], files_per_partition: int) -> list[tuple[str, ...]]:
    if files_per_partition < 1:
        raise RW1Error("files_per_partition must be at least 1")
    return [tuple(files[i:i + files_per_partition]) for i in range(0, len(files), files_per_partition)]


def _to_pandas(table):
    """An Arrow table of records as pandas, the ``json`` struct kept as an Arrow struct column
    (``pd.ArrowDtype``), which Dask carries as it is (an ``object`` column of dicts it would turn into text)."""
    import pandas as pd

    def mapper(typ):
        return pd.ArrowDtype(typ) if import_pyarrow().types.is_struct(typ) else None

    frame = table.to_pandas(types_mapper=mapper)
    for name in ("record", "type", "why", "reason"):  # categories as text even when a partition has none
        categories = frame[name].cat.categories
        if categories.dtype != "str":
            frame[name] = frame[name].astype(pd.CategoricalDtype(pd.Index(categories, dtype="str")))
    return frame


def _in_this_process(get: Any) -> bool:
    """Whether the scheduler Dask would use runs its tasks in this process (threads, synchronous, or a
    ``distributed`` cluster whose workers are all in-process)."""
    import dask.local
    import dask.threaded

    if get in (dask.threaded.get, dask.local.get_sync):
        return True
    client = getattr(get, "__self__", None)
    if client is None or not hasattr(client, "scheduler_info"):
        return False
    workers = client.scheduler_info(n_workers=-1).get("workers", {})
    return bool(workers) and all(address.startswith("inproc://") for address in workers)


def meta(json_column: str = "struct"):
    """The empty pandas frame Dask takes as ``meta``: the exported schema, categories unknown."""
    from dask.dataframe.utils import clear_known_categories

    return clear_known_categories(_to_pandas(arrow_schema(json_column).empty_table()))


class _ScanPartition:
    """A picklable partition function: the records of a group of files as a pandas frame."""

    def __init__(self, profiles: Any, options: ScanOptions) -> None:
        self.profiles, self.options = profiles, options

    def __call__(self, files: tuple[str, ...]):
        return _to_pandas(scan_table(files, self.profiles, self.options))


def records_dataframe(paths_or_glob: str | os.PathLike | Iterable[str | os.PathLike], profiles: Any = None, *,
                      tz: str | None = None, year: int | None = None, json_column: str = "struct",
                      files_per_partition: int = 1):
    """A Dask DataFrame of every record of the inputs, one partition per ``files_per_partition`` files.

    ``paths_or_glob``: a path, a directory, a glob or an fsspec URL, or a list
    of them. ``profiles`` as for :func:`rogerwilco.io.scan.scan` (names or
    paths, so it pickles; default every bundled profile). The partitions
    follow the files' order, and each keeps its file's order.
    """
    dask, dd = _dask()
    files = expand_inputs(paths_or_glob)
    if not _in_this_process(dask.base.get_scheduler()):
        refuse_unshared(files, "the Dask workers")
    options = ScanOptions(tz=tz, year=year, json_column=json_column)
    options.clock()  # a bad zone is an error here, not in every task
    return dd.from_map(_ScanPartition(profiles, options), _groups(files, files_per_partition),
                       meta=meta(json_column), enforce_metadata=False)


def _write_partition(frame, staging: str, part: str, json_column: str) -> list[str]:
    pa = import_pyarrow()
    schema = arrow_schema(json_column)
    # from_pandas adds its own "pandas" metadata; the files carry the records schema's alone, as on every route
    table = pa.Table.from_pandas(frame, schema=schema, preserve_index=False).replace_schema_metadata(schema.metadata)
    return write_staged(table, staging, part)


def write_parquet(records: Any, out: str | os.PathLike, *, json_column: str = "struct", **scan_kw: Any) -> list[str]:
    """Write records as Parquet partitioned by the date of ``ts`` (``out/date=YYYY-MM-DD/part-N.parquet``).

    ``records`` is a Dask DataFrame from :func:`records_dataframe` (its
    ``json`` column keeps the form it was made with), or what that function
    takes (then ``json_column`` and ``scan_kw`` go to it). Every partition is
    written by its own task, in parallel, on the active scheduler. All or
    nothing: if any task fails, nothing is left in ``out`` and the error is
    raised. Returns the files written, relative to ``out``.
    """
    dask, dd = _dask()
    if isinstance(records, dd.DataFrame):
        import pandas as pd

        frame = records  # its json column says how it was made
        json_column = "struct" if isinstance(frame._meta["json"].dtype, pd.ArrowDtype) else "text"
    else:
        frame = records_dataframe(records, json_column=json_column, **scan_kw)
    staging = new_staging(out)
    try:
        parts = frame.to_delayed()
        width = max(5, len(str(len(parts))))
        tasks = [dask.delayed(_write_partition)(part, staging, f"{i:0{width}d}", json_column)
                 for i, part in enumerate(parts)]
        written = dask.compute(*tasks)
        return publish(staging, out, written)
    except BaseException:
        discard(staging)
        raise


__all__ = [
    "meta",
    "records_dataframe",
    "write_parquet",
]
