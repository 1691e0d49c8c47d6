"""The distributed example: its partition function is the scanner, and it runs (or says what it needs)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from rogerwilco.scan import scan

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "examples" / "distributed" / "scan_dask.py"


def load_example():
    spec = importlib.util.spec_from_file_location("scan_dask", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_a_partition_gives_exactly_the_scanner_records():
    module = load_example()
    files = sorted(str(p) for p in (ROOT / "examples" / "logs").iterdir())
    assert module.scan_partition(files) == [r.to_dict() for r in scan([Path(f) for f in files])]


def test_the_example_runs_on_the_local_scheduler_or_names_what_it_needs(tmp_path, capsys):
    module = load_example()
    out = tmp_path / "records.parquet"
    code = module.main([str(ROOT / "examples" / "logs"), "--out", str(out), "--partitions", "2"])
    captured = capsys.readouterr()
    if importlib.util.find_spec("dask") is None:
        assert code == 2 and "pip install" in captured.err
        return
    import pyarrow.parquet as pq

    expected = sum(1 for _ in scan(ROOT / "examples" / "logs"))
    assert code == 0 and pq.read_table(out).num_rows == expected
    assert "('message', 'HO')" in captured.out
