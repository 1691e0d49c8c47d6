"""Scans on Spark: a set of paths or a glob as a Spark DataFrame (``mapInArrow``), and date-partitioned Parquet.

The files are spread over tasks (one partition per ``files_per_partition``
files); each task scans its files with the ordinary scanner and hands Spark
Arrow record batches with the exported schema (:func:`rogerwilco.io.records.
spark_schema`; dictionary columns as plain strings, ``ts`` in the session's
zone, the same instants). Parquet is written by the tasks themselves, as on
the Dask route (:mod:`.partitioned`: pyarrow, the Arrow schema with its
dictionary columns and its ``rogerwilco.io.records.version`` metadata, staged
and published all or nothing, ``_SUCCESS`` when complete), so the files of
every route are the same. Inputs must be readable from the executors (a
shared file system or fsspec URLs; ``memory://`` inputs, which only this
process can read, are refused before the job starts).

The Python the executors run: on a ``local`` master, when neither
``PYSPARK_PYTHON`` nor ``spark.pyspark.python`` says otherwise, the tasks run
this interpreter (the one that has this package), not whatever ``python3``
is first on the ``PATH``.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Iterable, Iterator

from ...core.errors import RW1Error
from ..records import spark_schema
from .._pyarrow import import_pyarrow
from .engine import ScanOptions
from .partitioned import discard, expand_inputs, new_staging, publish, refuse_unshared, scan_table, write_staged


def _groups(files: list[str], files_per_partition: int) -> list[list[str]]:
    if files_per_partition < 1:
        raise RW1Error("files_per_partition must be at least 1")
    return [files[i:i + files_per_partition] for i in range(0, len(files), files_per_partition)]


class _ScanBatches:
    """The ``mapInArrow`` function: rows of file groups in, record batches out (picklable)."""

    def __init__(self, profiles: Any, options: ScanOptions, zone: str) -> None:
        self.profiles, self.options, self.zone = profiles, options, zone

    def __call__(self, batches: Iterator[Any]) -> Iterator[Any]:
        pa = import_pyarrow()
        for batch in batches:
            for files in batch.column("files").to_pylist():
                table = scan_table(files, self.profiles, self.options, dictionary=False)
                at = table.schema.get_field_index("ts")
                table = table.set_column(at, table.schema.field("ts").with_type(pa.timestamp("us", tz=self.zone)),
                                         table.column("ts").cast(pa.timestamp("us", tz=self.zone)))
                yield from table.to_batches()


def _run_this_python(spark: Any) -> None:
    """On a local master, the tasks run this interpreter unless the user said which (see the module doc)."""
    context = spark.sparkContext
    if os.environ.get("PYSPARK_PYTHON") or context.getConf().get("spark.pyspark.python"):
        return
    if context.master.startswith("local"):
        # the executors are this machine: python3 on the PATH may be another interpreter, without this
        # package or pyarrow; pythonExec is what every Python task the context starts from now on runs
        context.pythonExec = sys.executable


class _WriteGroup:
    """The task of :func:`write_parquet`: one group of files scanned and written under the staging directory."""

    def __init__(self, profiles: Any, options: ScanOptions, staging: str, width: int) -> None:
        self.profiles, self.options, self.staging, self.width = profiles, options, staging, width

    def __call__(self, group: tuple[int, list[str]]) -> list[str]:
        index, files = group
        return write_staged(scan_table(files, self.profiles, self.options), self.staging, f"{index:0{self.width}d}")


def records_dataframe(spark: Any, paths_or_glob: str | os.PathLike | Iterable[str | os.PathLike],
                      profiles: Any = None, *, tz: str | None = None, year: int | None = None,
                      json_column: str = "struct", files_per_partition: int = 1):
    """A Spark DataFrame of every record of the inputs, with :func:`rogerwilco.io.records.spark_schema`.

    ``paths_or_glob``: a path, a directory, a glob or an fsspec URL, or a list
    of them (expanded on the driver). ``profiles`` as for
    :func:`rogerwilco.io.scan.scan` (names or paths; default every bundled profile).
    """
    from pyspark.sql import types as T

    files = expand_inputs(paths_or_glob)
    refuse_unshared(files, "the Spark executors")  # their Python workers are other processes, even on local[n]
    options = ScanOptions(tz=tz, year=year, json_column=json_column)
    options.clock()  # a bad zone is an error here, not in every task
    _run_this_python(spark)
    groups = _groups(files, files_per_partition)
    source = spark.createDataFrame(
        spark.sparkContext.parallelize([(i, g) for i, g in enumerate(groups)], max(1, len(groups))),
        T.StructType([T.StructField("part", T.IntegerType(), False),
                      T.StructField("files", T.ArrayType(T.StringType(), False), False)]))
    zone = spark.conf.get("spark.sql.session.timeZone")
    return source.mapInArrow(_ScanBatches(profiles, options, zone), spark_schema(options.json_column))


def write_parquet(spark: Any, paths_or_glob: Any, out: str | os.PathLike, profiles: Any = None, *,
                  tz: str | None = None, year: int | None = None, json_column: str = "struct",
                  files_per_partition: int = 1) -> list[str]:
    """Scan the inputs and write Parquet partitioned by the UTC date of ``ts`` (``out/date=YYYY-MM-DD/``).

    One Spark task per group of ``files_per_partition`` files scans them and writes its files, as the Dask
    route's tasks do: the Arrow schema of :func:`rogerwilco.io.records.arrow_schema` (dictionary columns,
    ``ts`` as UTC microseconds, the schema version in the metadata). ``out`` must be absent or empty; if
    any task fails nothing is published and the error is raised. Returns the files written, relative to
    ``out``, which holds ``_SUCCESS`` when complete.
    """
    files = expand_inputs(paths_or_glob)
    refuse_unshared(files, "the Spark executors")  # their Python workers are other processes, even on local[n]
    options = ScanOptions(tz=tz, year=year, json_column=json_column)
    options.clock()  # a bad zone is an error here, not in every task
    _run_this_python(spark)
    groups = list(enumerate(_groups(files, files_per_partition)))
    staging = new_staging(out)
    try:
        tasks = spark.sparkContext.parallelize(groups, max(1, len(groups)))
        written = tasks.map(_WriteGroup(profiles, options, staging, max(5, len(str(len(groups)))))).collect()
        return publish(staging, out, written)
    except BaseException:
        discard(staging)
        raise


__all__ = [
    "records_dataframe",
    "write_parquet",
]
