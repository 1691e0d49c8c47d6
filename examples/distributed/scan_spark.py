"""Scan a set of logs with Spark into Parquet partitioned by date.

    python examples/distributed/scan_spark.py 'examples/logs/*' --out /tmp/records-spark [--master local[2]]

Each task scans its files with the ordinary scanner and hands Spark Arrow
batches (``mapInArrow``) with the exported schema. Needs
``pip install 'rogerwilco[spark] @ git+https://github.com/croxio/rogerwilco'`` and Java 17; inputs must be readable from
the executors.
"""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="scan logs with Spark into date-partitioned Parquet")
    ap.add_argument("inputs", nargs="+", help="files, directories, globs or fsspec URLs")
    ap.add_argument("--out", required=True, help="a new directory for date=YYYY-MM-DD/part-*.parquet")
    ap.add_argument("--master", default="local[2]", help="Spark master (default local[2])")
    ap.add_argument("--files-per-partition", type=int, default=1)
    args = ap.parse_args(argv)
    from pyspark.sql import SparkSession

    from rogerwilco.errors import RW1Error
    from rogerwilco.scan.with_spark import records_dataframe, write_parquet

    spark = SparkSession.builder.master(args.master).appName("rogerwilco-scan").getOrCreate()
    try:
        frame = records_dataframe(spark, args.inputs, files_per_partition=args.files_per_partition)
        frame.groupBy("record", "type").count().orderBy("record", "type").show()
        write_parquet(spark, args.inputs, args.out, files_per_partition=args.files_per_partition)
        print(f"wrote {args.out}")
    except RW1Error as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
