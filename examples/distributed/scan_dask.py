"""Scan a directory of logs too large for one machine with Dask bags.

Each partition is a list of file paths; each worker runs the ordinary
scanner over its files (``rogerwilco.scan.scan``) and returns plain records,
so the same code runs on the local scheduler here and on a cluster
(``dask.distributed.Client("tcp://scheduler:8786")``) unchanged: only the
paths must be readable from the workers (a shared file system, or fsspec
URLs opened by the worker). Order inside a file is kept; files are
independent conversations, so no order is needed between partitions.

    python examples/distributed/scan_dask.py examples/logs --out records.parquet

Needs dask (``pip install "dask[bag]"``) and, for ``--out``, pyarrow
(``pip install "rogerwilco[parquet]"``).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path


def scan_partition(paths: list[str]) -> list[dict]:
    """One partition: every record of its files, as plain dicts (picklable, schema-stable)."""
    from rogerwilco.scan import scan

    return [record.to_dict() for record in scan([Path(p) for p in paths])]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="scan a directory of logs with Dask bags (local scheduler)")
    ap.add_argument("root", help="directory of logs (walked recursively; gz/bz2/xz read by magic bytes)")
    ap.add_argument("--partitions", type=int, default=4, help="number of partitions (default 4)")
    ap.add_argument("--out", help="write all records to this Parquet file")
    args = ap.parse_args(argv)
    try:
        import dask
        import dask.bag as db
    except ImportError:
        sys.stderr.write("this example needs dask: pip install 'dask[bag]'\n")
        return 2
    files = sorted(str(p) for p in Path(args.root).rglob("*") if p.is_file())
    if not files:
        sys.stderr.write(f"no files under {args.root}\n")
        return 2
    bag = db.from_sequence(files, npartitions=min(args.partitions, len(files)))
    records = bag.map_partitions(scan_partition)
    with dask.config.set(scheduler="processes"):  # the local scheduler; a Client makes it a cluster
        counts = records.map(lambda r: (r["record"], r["type"] if r["record"] == "message" else r["why"])).frequencies().compute()
        print("records by kind:", dict(sorted(Counter(dict(counts)).items())))
        if args.out:
            from rogerwilco.scan import COLUMNS, Record, to_arrow

            import pyarrow.parquet as pq

            rows = records.compute()
            table = to_arrow(Record.from_dict(row) for row in rows)
            assert table.column_names == list(COLUMNS)
            pq.write_table(table, args.out)
            print(f"wrote {table.num_rows} records to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
