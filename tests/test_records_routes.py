"""The Parquet each route writes, compared file by file: `rogerwilco scan -o parquet` on one machine, the Dask
route and the Spark route (local[2]) write the same columns with the same types (dictionary columns
included) and the same schema metadata, and the same records; both cluster routes mark a complete output
with ``_SUCCESS``.

The Spark route runs in a fresh interpreter whose ``PATH`` puts first a ``python3`` that is not this one
(it refuses to run), with ``PYSPARK_PYTHON`` unset: the route itself has its local tasks run this
interpreter. One Spark start for both checks keeps the test bounded on a small machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from rogerwilco.front.cli import main
from rogerwilco.io.records import COLUMNS, RECORDS_VERSION
from rogerwilco.io.scan import with_dask

ROOT = Path(__file__).resolve().parent.parent
INPUTS = [str(ROOT / "examples" / "logs"), str(ROOT / "tests" / "data" / "scan" / "events.jsonl")]
KEY = ("file", "line", "column", "field", "text")

SPARK_JOB = """
import json, sys
from pyspark.sql import SparkSession
from rogerwilco.io.scan.with_spark import write_parquet

session = (SparkSession.builder.master("local[2]").appName("rogerwilco-routes")
           .config("spark.ui.enabled", "false").config("spark.driver.memory", "512m").getOrCreate())
session.sparkContext.setLogLevel("ERROR")
written = write_parquet(session, json.loads(sys.argv[1]), sys.argv[2])
session.stop()
print(json.dumps(written))
"""


def spark_route(out: Path, tmp_path: Path) -> list[str]:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for name in ("python3", "python"):
        impostor = elsewhere / name
        impostor.write_text("#!/bin/sh\necho 'not the interpreter that has rogerwilco' >&2\nexit 3\n")
        impostor.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")}
    env["PATH"] = f"{elsewhere}{os.pathsep}{env.get('PATH', '')}"
    proc = subprocess.run([sys.executable, "-c", SPARK_JOB, json.dumps(INPUTS), str(out)], capture_output=True,
                          text=True, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("routes")
    single = base / "single.parquet"
    assert main(["scan", *INPUTS, "-o", str(single), "-j", "1", "--no-summary"]) in (0, 1)
    dask_written = with_dask.write_parquet(INPUTS, base / "dask")
    spark_written = spark_route(base / "spark", base)
    assert dask_written == spark_written and dask_written
    return {"single": single, "dask": base / "dask", "spark": base / "spark"}


def files(out: Path) -> list[Path]:
    return [out] if out.is_file() else sorted(out.glob("date=*/*.parquet"))


def test_every_file_of_every_route_has_the_same_columns_types_and_metadata(outputs):
    reference = pq.read_schema(outputs["single"])
    assert reference.names == list(COLUMNS)
    assert reference.metadata == {b"rogerwilco.io.records.version": str(RECORDS_VERSION).encode()}
    for route, out in outputs.items():
        for path in files(out):
            schema = pq.read_schema(path)
            for want, got in zip(reference, schema, strict=True):
                assert (got.name, str(got.type), got.nullable) == (want.name, str(want.type), want.nullable), (route, path)
            assert schema.metadata == reference.metadata, (route, path)


def test_every_route_writes_the_same_records(outputs):
    def rows(out: Path) -> list[dict]:
        table = pq.read_table(out, partitioning="hive") if out.is_dir() else pq.read_table(out)
        found = table.select(list(COLUMNS)).to_pylist()
        return sorted(found, key=lambda r: tuple("" if r[k] is None else r[k] for k in KEY))

    single = rows(outputs["single"])
    assert single and rows(outputs["dask"]) == single == rows(outputs["spark"])


def test_both_cluster_routes_mark_a_complete_output(outputs):
    for route in ("dask", "spark"):
        out = outputs[route]
        assert (out / "_SUCCESS").is_file() and (out / "_SUCCESS").stat().st_size == 0
        assert not [p for p in out.iterdir() if p.name.startswith(("_staging", "_temporary"))]
