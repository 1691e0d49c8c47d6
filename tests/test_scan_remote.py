"""Inputs as fsspec URLs: read like local files; an input that cannot be read is one diagnostic and the scan goes on."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import fsspec
import pytest
from fsspec.implementations.memory import MemoryFileSystem

from rogerwilco.front.cli import main
from rogerwilco.io.scan import Inputs, Tally, scan

DATA = Path(__file__).parent / "data" / "scan"


def rows(source, **kw):
    return [{**r.to_dict(), "file": None} for r in scan(source, **kw)]


@pytest.fixture
def memfs():
    fs = fsspec.filesystem("memory")
    root = "/rw-remote-test"
    fs.pipe(f"{root}/logs/prefixed.log", (DATA / "prefixed.log").read_bytes())
    fs.pipe(f"{root}/logs/events.jsonl.gz", gzip.compress((DATA / "events.jsonl").read_bytes()))
    fs.pipe(f"{root}/logs/slack-export.json", (DATA / "slack-export.json").read_bytes())
    yield root
    fs.rm(root, recursive=True)


def test_a_memory_url_reads_like_the_local_file(memfs):
    assert rows(f"memory://{memfs}/logs/prefixed.log") == rows(DATA / "prefixed.log")
    assert rows(f"memory://{memfs}/logs/events.jsonl.gz") == rows(DATA / "events.jsonl")
    assert rows(f"memory://{memfs}/logs/slack-export.json") == rows(DATA / "slack-export.json")
    records = list(scan(f"memory://{memfs}/logs/prefixed.log"))
    assert records and all(r.file == f"memory://{memfs}/logs/prefixed.log" for r in records)


def test_a_file_url_reads_like_the_path():
    assert rows((DATA / "prefixed.log").resolve().as_uri()) == rows(DATA / "prefixed.log")


def test_a_directory_and_a_glob_are_walked_in_order(memfs):
    by_dir = list(scan(f"memory://{memfs}/logs"))
    by_glob = list(scan(f"memory://{memfs}/logs/*"))
    assert [r.to_dict() for r in by_dir] == [r.to_dict() for r in by_glob]
    files = [r.file for r in by_dir]
    assert files == sorted(files) and len(set(files)) == 3
    only_logs = list(scan(f"memory://{memfs}/logs/*.log"))
    assert {r.file for r in only_logs} == {f"memory://{memfs}/logs/prefixed.log"}


def test_an_input_that_cannot_be_read_is_one_diagnostic_and_the_scan_goes_on(memfs):
    tally = Tally()
    names = (f"memory://{memfs}/missing.log", f"memory://{memfs}/nothing/*.log", "nosuchproto://x/y.log",
             f"memory://{memfs}/logs/prefixed.log")
    records = list(scan(Inputs(names), tally=tally))
    bad = [r for r in records if r.reason == "unreadable"]
    assert [r.file for r in bad] == list(names[:3])
    assert all(r.record == "diagnostic" and r.line == 0 and r.unvalidated and r.message for r in bad)
    assert "no input matches" in bad[1].message and "nosuchproto" in bad[2].message
    assert [{**r.to_dict(), "file": None} for r in records[3:]] == rows(DATA / "prefixed.log")
    assert tally.reasons["unreadable"] == 3


class Flaky(MemoryFileSystem):
    """A file system whose files fail after 3 MiB (a dropped connection)."""

    protocol = "flaky"

    @classmethod
    def _strip_protocol(cls, path):
        return super()._strip_protocol(path.replace("flaky://", "memory://", 1))

    def _open(self, path, mode="rb", **kw):
        inner = super()._open(path, mode, **kw)
        real_read, real_readinto = inner.read, inner.readinto

        def fail_after_first_block():
            if inner.tell() > 3 << 20:
                raise ConnectionResetError(104, "connection reset by peer")

        def read(n=-1):
            fail_after_first_block()
            return real_read(n)

        def readinto(buffer):
            fail_after_first_block()
            return real_readinto(buffer)

        inner.read, inner.readinto = read, readinto
        return inner


def test_a_read_that_fails_midway_keeps_what_was_read_and_adds_one_diagnostic():
    fsspec.register_implementation("flaky", Flaky, clobber=True)
    fs = Flaky()
    lines = [f"2026-10-01T00:00:{i % 60:02d}Z RW1 ST a-{i} from=a to=b item=x:{i}" if i % 100 == 0
             else f"2026-10-01T00:00:{i % 60:02d}Z INFO noise line {i}" for i in range(120000)]
    fs.pipe("/flaky/big.log", ("\n".join(lines) + "\n").encode())
    try:
        records = list(scan("flaky:///flaky/big.log"))
    finally:
        fs.rm("/flaky", recursive=True)
    assert 0 < len(records) - 1 < 1200
    assert records[-1].reason == "unreadable" and "connection reset" in records[-1].message
    assert all(r.is_message for r in records[:-1])


def test_cli_reads_urls_and_reports_the_unreadable_one(memfs, capsys):
    code = main(["scan", f"memory://{memfs}/logs/prefixed.log", f"memory://{memfs}/gone.log", "--no-summary"])
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0
    assert out[-1]["reason"] == "unreadable" and out[-1]["file"] == f"memory://{memfs}/gone.log"
    assert len(out) == 1 + len(list(scan(DATA / "prefixed.log")))
    assert main(["scan", f"memory://{memfs}/gone.log", "--strict", "--no-summary"]) == 1


def test_one_object_has_one_name_however_it_is_reached(memfs):
    from rogerwilco.io.scan.partitioned import expand_inputs

    named = f"memory://{memfs.lstrip('/')}/logs/prefixed.log"  # memory://rw-remote-test/...: two slashes
    walked = f"memory://{memfs}/logs"
    names = {r.file for r in scan(named)} | {r.file for r in scan(walked) if r.file.endswith("prefixed.log")}
    assert names == {f"memory://{memfs}/logs/prefixed.log"}
    assert expand_inputs(named) == [f"memory://{memfs}/logs/prefixed.log"] == expand_inputs(walked)[1:2]
