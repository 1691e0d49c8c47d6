"""The Dask route: records as a Dask DataFrame and date-partitioned Parquet on a two-worker cluster,
record for record equal to `rogerwilco scan -j 1`; a failed task publishes nothing."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from dask.distributed import Client, LocalCluster, get_task_stream

from rogerwilco.front.cli import main
from rogerwilco.core.errors import RW1Error
from rogerwilco.io.records import COLUMNS, arrow_schema
from rogerwilco.io.scan.partitioned import expand_inputs
from rogerwilco.io.scan.with_dask import records_dataframe, write_parquet

ROOT = Path(__file__).parent.parent
INPUTS = [str(ROOT / "examples" / "logs"), str(ROOT / "tests" / "data" / "scan")]
KEY = ("file", "line", "column", "field", "text")


def rows(table: pa.Table) -> list[dict]:
    """Records as plain rows in a stable order (file, line, column), partition column dropped."""
    if "date" in table.column_names:
        table = table.drop_columns(["date"])
    out = table.select(list(COLUMNS)).to_pylist()
    return sorted(out, key=lambda r: tuple("" if r[k] is None else r[k] for k in KEY))


@pytest.fixture(scope="module")
def baseline(tmp_path_factory) -> list[dict]:
    """What `rogerwilco scan -j 1` writes for the same inputs."""
    out = tmp_path_factory.mktemp("j1") / "records.parquet"
    assert main(["scan", *INPUTS, "-o", str(out), "-j", "1", "--no-summary"]) in (0, 1)
    table = pq.read_table(out)
    assert table.schema.equals(arrow_schema(), check_metadata=False)
    return rows(table)


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as c:
            yield c


def test_inputs_are_named_as_the_cli_names_them():
    files = expand_inputs(INPUTS)
    assert files == [str(p) for d in INPUTS for p in sorted(q for q in Path(d).rglob("*") if q.is_file())]
    assert str(ROOT / "tests" / "data" / "scan" / "prefixed.log.gz") in files
    assert expand_inputs(str(ROOT / "examples" / "logs" / "*.log")) == [str(ROOT / "examples" / "logs" / "prefixed.log")]
    with pytest.raises(RW1Error, match="no input matches"):
        expand_inputs(str(ROOT / "nothing-here" / "*.log"))


def test_the_dataframe_has_the_exported_schema_and_the_records_of_scan_j1(client, baseline):
    frame = records_dataframe(INPUTS)
    assert list(frame.columns) == list(COLUMNS)
    assert frame.npartitions == len(expand_inputs(INPUTS))
    with get_task_stream(client) as stream:
        pdf = frame.compute()
    assert stream.data, "the active client's scheduler ran the tasks"
    table = pa.Table.from_pandas(pdf, schema=arrow_schema(), preserve_index=False)
    assert rows(table) == baseline


def test_partitioned_parquet_equals_scan_j1_and_is_split_by_date(client, baseline, tmp_path):
    out = tmp_path / "records"
    with get_task_stream(client) as stream:
        written = write_parquet(INPUTS, out)
    assert stream.data
    assert written and all(w.startswith("date=") for w in written)
    dates = {w.split("/")[0] for w in written}
    assert "date=2026-10-01" in dates and "date=__HIVE_DEFAULT_PARTITION__" in dates
    assert not [p for p in out.iterdir() if p.name.startswith("_staging")]
    assert (out / "_SUCCESS").is_file()
    table = pq.read_table(out, partitioning="hive")
    assert rows(table) == baseline
    for path in out.glob("date=*/*.parquet"):
        day = path.parent.name.split("=", 1)[1]
        ts = pq.read_table(path).column("ts").to_pylist()
        assert all((t is None) if day == "__HIVE_DEFAULT_PARTITION__" else t.date().isoformat() == day for t in ts)


def test_a_failed_task_leaves_no_partition_behind(client, tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    for i in range(4):
        (logs / f"{i}.log").write_text(f"2026-10-0{i + 1}T00:00:00Z RW1 ST a-{i} from=a to=b item=x:{i}\n")
    frame = records_dataframe(str(logs))
    (logs / "2.log").unlink()  # the task of this file fails: its input is gone
    out = tmp_path / "records"
    with pytest.raises(Exception, match="cannot read"):
        write_parquet(frame, out)
    assert not out.exists() or not list(out.rglob("*"))


def test_output_must_be_new_or_empty(tmp_path):
    out = tmp_path / "records"
    out.mkdir()
    (out / "old.parquet").write_bytes(b"x")
    with pytest.raises(RW1Error, match="not empty"):
        write_parquet(INPUTS, out)


def test_the_example_runs_without_setting_a_scheduler(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("scan_dask", ROOT / "examples" / "distributed" / "scan_dask.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    source = (ROOT / "examples" / "distributed" / "scan_dask.py").read_text()
    assert "dask.config.set" not in source and "scheduler=" not in source
    out = tmp_path / "records"
    assert module.main([str(ROOT / "examples" / "logs"), "--out", str(out)]) == 0
    captured = capsys.readouterr().out
    assert "message HO" in captured and "wrote" in captured
    from rogerwilco.io.scan import scan

    assert pq.read_table(out, partitioning="hive").num_rows == sum(1 for _ in scan(ROOT / "examples" / "logs"))


def test_a_frame_made_with_json_as_text_is_written_as_text(tmp_path):
    import json

    frame = records_dataframe(str(ROOT / "examples" / "logs" / "prefixed.log"), json_column="text")
    out = tmp_path / "records"
    write_parquet(frame, out)
    table = pq.read_table(out, partitioning="hive")
    assert table.schema.field("json").type == pa.string()
    assert {json.loads(j)["type"] for j in table.column("json").to_pylist() if j} >= {"HO", "RB"}


def test_a_memory_input_the_workers_cannot_read_is_an_error_before_any_task(client):
    import dask
    import fsspec

    fs = fsspec.filesystem("memory")
    fs.pipe("/rw-dask-test/a.log", b"RW1 ST a-1 from=a to=b item=x:1\n")
    try:
        with get_task_stream(client) as stream:
            with pytest.raises(RW1Error, match=r"memory:///rw-dask-test/a\.log on the Dask workers"):
                records_dataframe("memory:///rw-dask-test/")
        assert not stream.data
        with dask.config.set(scheduler="threads"):  # tasks in this process: the object is there
            assert len(records_dataframe("memory:///rw-dask-test/").compute()) == 1
    finally:
        fs.rm("/rw-dask-test", recursive=True)
