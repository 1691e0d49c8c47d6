"""Scan a set of logs with Dask into Parquet partitioned by date, on any Dask scheduler.

    python examples/distributed/scan_dask.py 'examples/logs/*' --out /tmp/records
    python examples/distributed/scan_dask.py 's3://bucket/logs/*.gz' --out /tmp/records --scheduler tcp://host:8786

The scan runs where Dask runs it: with ``--scheduler`` on that cluster (a
``dask.distributed.Client``), else on Dask's default scheduler; this script
never sets one. Inputs must be readable from the workers (a shared file
system or fsspec URLs). Needs ``pip install 'rogerwilco[distributed] @ git+https://github.com/croxio/rogerwilco'``.
"""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="scan logs with Dask into date-partitioned Parquet")
    ap.add_argument("inputs", nargs="+", help="files, directories, globs or fsspec URLs")
    ap.add_argument("--out", required=True, help="a new (or empty) directory for date=YYYY-MM-DD/part-N.parquet")
    ap.add_argument("--scheduler", help="a dask.distributed scheduler address (default: Dask's default)")
    ap.add_argument("--files-per-partition", type=int, default=1)
    args = ap.parse_args(argv)
    try:
        from rogerwilco.errors import RW1Error
        from rogerwilco.scan.with_dask import records_dataframe, write_parquet
    except ImportError as exc:  # pragma: no cover - the package itself is missing
        sys.stderr.write(f"{exc}\n")
        return 2
    client = None
    try:
        if args.scheduler:
            from dask.distributed import Client

            client = Client(args.scheduler)
        frame = records_dataframe(args.inputs, files_per_partition=args.files_per_partition)
        counts = frame.groupby(["record", "type"], observed=True).size().compute()
        print("records by kind:", {f"{k[0]} {k[1]}": int(v) for k, v in sorted(counts.items())})
        written = write_parquet(frame, args.out)
        print(f"wrote {len(written)} files under {args.out}")
    except RW1Error as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    finally:
        if client is not None:
            client.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
