"""Scans on Spark: a set of paths or a glob as a Spark DataFrame (``mapInArrow``), and date-partitioned Parquet.

The files are spread over tasks (one partition per ``files_per_partition``
files); each task scans its files with the ordinary scanner and hands Spark
Arrow record batches with the exported schema (:func:`rogerwilco.io.records.
spark_schema`; dictionary columns as plain strings, ``ts`` in the session's
zone, the same instants). Parquet is written with Spark's own commit
protocol: tasks write under ``_temporary`` and a failed job is aborted and
cleaned up, so no partition is half written. Inputs must be readable from
the executors (a shared file system or fsspec URLs).
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Iterator

from ...core.errors import RW1Error
from ..records import spark_schema
from .._pyarrow import import_pyarrow
from .engine import ScanOptions
from .partitioned import DATE_COLUMN, expand_inputs, scan_table, with_date


def _groups(files: list[str], files_per_partition: int) -> list[list[str]]:
    if files_per_partition < 1:
        raise RW1Error("files_per_partition must be at least 1")
    return [files[i:i + files_per_partition] for i in range(0, len(files), files_per_partition)]


class _ScanBatches:
    """The ``mapInArrow`` function: rows of file groups in, record batches out (picklable)."""

    def __init__(self, profiles: Any, options: ScanOptions, zone: str, dated: bool) -> None:
        self.profiles, self.options, self.zone, self.dated = profiles, options, zone, dated

    def __call__(self, batches: Iterator[Any]) -> Iterator[Any]:
        pa = import_pyarrow()
        for batch in batches:
            for files in batch.column("files").to_pylist():
                table = scan_table(files, self.profiles, self.options, dictionary=False)
                if self.dated:
                    table = with_date(table)
                at = table.schema.get_field_index("ts")
                table = table.set_column(at, table.schema.field("ts").with_type(pa.timestamp("us", tz=self.zone)),
                                         table.column("ts").cast(pa.timestamp("us", tz=self.zone)))
                yield from table.to_batches()


def _frame(spark: Any, paths_or_glob: Any, profiles: Any, options: ScanOptions, files_per_partition: int,
           dated: bool):
    from pyspark.sql import types as T

    files = expand_inputs(paths_or_glob)
    options.clock()  # a bad zone is an error here, not in every task
    groups = _groups(files, files_per_partition)
    source = spark.createDataFrame(
        spark.sparkContext.parallelize([(i, g) for i, g in enumerate(groups)], max(1, len(groups))),
        T.StructType([T.StructField("part", T.IntegerType(), False),
                      T.StructField("files", T.ArrayType(T.StringType(), False), False)]))
    schema = spark_schema(options.json_column)
    if dated:
        schema = schema.add(T.StructField(DATE_COLUMN, T.StringType(), False))
    zone = spark.conf.get("spark.sql.session.timeZone")
    return source.mapInArrow(_ScanBatches(profiles, options, zone, dated), schema)


def records_dataframe(spark: Any, paths_or_glob: str | os.PathLike | Iterable[str | os.PathLike],
                      profiles: Any = None, *, tz: str | None = None, year: int | None = None,
                      json_column: str = "struct", files_per_partition: int = 1):
    """A Spark DataFrame of every record of the inputs, with :func:`rogerwilco.io.records.spark_schema`.

    ``paths_or_glob``: a path, a directory, a glob or an fsspec URL, or a list
    of them (expanded on the driver). ``profiles`` as for
    :func:`rogerwilco.io.scan.scan` (names or paths; default every bundled profile).
    """
    return _frame(spark, paths_or_glob, profiles, ScanOptions(tz=tz, year=year, json_column=json_column),
                  files_per_partition, dated=False)


def write_parquet(spark: Any, paths_or_glob: Any, out: str | os.PathLike, profiles: Any = None, *,
                  tz: str | None = None, year: int | None = None, json_column: str = "struct",
                  files_per_partition: int = 1) -> None:
    """Scan the inputs and write Parquet partitioned by the UTC date of ``ts`` (``out/date=YYYY-MM-DD/``).

    ``ts`` is written as microsecond timestamps (``TIMESTAMP_MICROS``, what
    pyarrow and DuckDB read as UTC times). ``out`` must not exist; if any
    task fails the job is aborted and nothing is published.
    """
    out = os.fspath(out)
    if os.path.exists(out) and os.listdir(out):
        raise RW1Error(f"{out} is not empty: write partitioned records to a new directory")
    frame = _frame(spark, paths_or_glob, profiles, ScanOptions(tz=tz, year=year, json_column=json_column),
                   files_per_partition, dated=True)
    key = "spark.sql.parquet.outputTimestampType"
    before = spark.conf.get(key)
    spark.conf.set(key, "TIMESTAMP_MICROS")
    try:
        frame.write.mode("overwrite" if os.path.exists(out) else "errorifexists").partitionBy(DATE_COLUMN).parquet(out)
    finally:
        spark.conf.set(key, before)


__all__ = [
    "records_dataframe",
    "write_parquet",
]
