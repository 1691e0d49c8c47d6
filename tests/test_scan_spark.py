"""The Spark route: records through mapInArrow with the exported schema on local[2], and date-partitioned
Parquet, record for record equal to `rogerwilco scan -j 1`; a failed job publishes nothing."""

from __future__ import annotations

from datetime import timezone
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from rogerwilco.front.cli import main
from rogerwilco.core.errors import RW1Error
from rogerwilco.io.records import COLUMNS, spark_schema
from rogerwilco.io.scan.partitioned import expand_inputs
from rogerwilco.io.scan.with_spark import records_dataframe, write_parquet

ROOT = Path(__file__).parent.parent
INPUTS = [str(ROOT / "examples" / "logs"), str(ROOT / "tests" / "data" / "scan")]
KEY = ("file", "line", "column", "field", "text")


def normal(row: dict) -> dict:
    row = {k: row[k] for k in COLUMNS}
    if row["ts"] is not None:
        row["ts"] = row["ts"].astimezone(timezone.utc) if row["ts"].tzinfo else row["ts"].replace(tzinfo=timezone.utc)
    return row


def rows(items: list[dict]) -> list[dict]:
    return sorted((normal(r) for r in items), key=lambda r: tuple("" if r[k] is None else r[k] for k in KEY))


@pytest.fixture(scope="module")
def baseline(tmp_path_factory) -> list[dict]:
    out = tmp_path_factory.mktemp("j1") / "records.parquet"
    assert main(["scan", *INPUTS, "-o", str(out), "-j", "1", "--no-summary"]) in (0, 1)
    return rows(pq.read_table(out).to_pylist())


@pytest.fixture(scope="module")
def spark():
    # no PYSPARK_PYTHON: on a local master the route has its tasks run this interpreter (tests/test_records_routes.py)
    session = (SparkSession.builder.master("local[2]").appName("rogerwilco-scan-test")
               .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
               .config("spark.sql.session.timeZone", "Europe/Paris")  # not UTC: ts must still be the same instants
               .config("spark.driver.memory", "512m").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def test_records_through_map_in_arrow_equal_scan_j1_and_write_date_partitions(spark, baseline, tmp_path):
    frame = records_dataframe(spark, INPUTS, files_per_partition=3)
    assert frame.schema == spark_schema() and frame.rdd.getNumPartitions() == -(-len(expand_inputs(INPUTS)) // 3)
    out = tmp_path / "records"  # the same mapInArrow plan, plus the date column: one job for both checks
    write_parquet(spark, INPUTS, out, files_per_partition=3)
    days = sorted(p.name for p in out.iterdir() if p.is_dir())
    assert "date=2026-10-01" in days and "date=__HIVE_DEFAULT_PARTITION__" in days
    table = pq.read_table(out, partitioning="hive")
    assert rows(table.to_pylist()) == baseline
    for path in out.glob("date=2026-*/*.parquet"):
        ts = pq.read_table(path).column("ts").to_pylist()
        assert {t.astimezone(timezone.utc).date().isoformat() for t in ts} == {path.parent.name[5:]}


def test_a_failed_task_publishes_nothing(spark, tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    for i in range(3):
        (logs / f"{i}.log").write_text(f"2026-10-0{i + 1}T00:00:00Z RW1 ST a-{i} from=a to=b item=x:{i}\n")
    frame_inputs = [str(p) for p in sorted(logs.iterdir())]
    (logs / "1.log").unlink()
    out = tmp_path / "records"
    with pytest.raises(Exception):
        write_parquet(spark, [str(logs / "0.log"), str(logs / "2.log"), frame_inputs[1]], out)
    assert not list(out.rglob("*.parquet")) if out.exists() else True
    with pytest.raises(RW1Error, match="cannot read"):
        records_dataframe(spark, frame_inputs)  # expanded on the driver: a missing input is named at once


def test_a_memory_input_is_an_error_before_the_job_starts(spark, tmp_path):
    import fsspec

    fs = fsspec.filesystem("memory")
    fs.pipe("/rw-spark-test/a.log", b"RW1 ST a-1 from=a to=b item=x:1\n")
    try:
        with pytest.raises(RW1Error, match=r"memory:///rw-spark-test/a\.log on the Spark executors"):
            records_dataframe(spark, "memory:///rw-spark-test/")
        with pytest.raises(RW1Error, match="Spark executors"):
            write_parquet(spark, "memory:///rw-spark-test/a.log", tmp_path / "out")
        assert not (tmp_path / "out").exists()
    finally:
        fs.rm("/rw-spark-test", recursive=True)


@pytest.mark.parametrize("version", ["2.2.0", "2.3.3", "3.0.0", "3.1.1"])
def test_the_spark_extra_admits_exactly_the_pandas_pyspark_supports(version, monkeypatch):
    # PySpark itself says which pandas it supports: an error below its minimum, a FutureWarning from 3.0.0
    import warnings

    import pandas
    from packaging.requirements import Requirement
    from pyspark.errors import PySparkException
    from pyspark.sql.pandas.utils import require_minimum_pandas_version

    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    (pin,) = [Requirement(r) for r in extras["spark"] if Requirement(r).name == "pandas"]
    monkeypatch.setattr(pandas, "__version__", version)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            require_minimum_pandas_version()
            supported = True
        except (FutureWarning, PySparkException, ImportError):
            supported = False
    assert pin.specifier.contains(version) == supported, (str(pin), version)
