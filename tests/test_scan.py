"""scan: every embedded message found with its place, every broken candidate a diagnostic."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rogerwilco import Receiver, check_line
from rogerwilco.cli import main
from rogerwilco.scan import (
    CANDIDATE_RE, COLUMNS, Chunk, Record, Tally, _csv_cell, decode_json_string, format_csv, format_jsonl,
    iter_chunks, iter_file_chunks, records_of_chunk, records_of_line, run_scan, scan, to_arrow,
)

DATA = Path(__file__).parent / "data" / "scan"
EXAMPLES = Path(__file__).parent.parent / "examples" / "logs"
KEYS = ("record", "line", "column", "field", "text", "type", "id", "why", "reason", "token")
CORPUS = ("plain.rw1", "prefixed.log", "chat.md", "events.jsonl", "slack-export.json", "hard.log")
RECEIVER = Receiver.all_bundled()


def expected(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / f"{name}.expected.jsonl").read_text(encoding="utf-8").splitlines()]


def got(path: Path) -> list[dict]:
    return [{k: r.to_dict()[k] for k in KEYS} for r in scan(path, max_line_bytes=65536)]


@pytest.mark.parametrize("name", CORPUS)
def test_corpus_gives_the_expected_records(name):
    assert got(DATA / name) == expected(name)


@pytest.mark.parametrize("compressed,plain", [
    ("prefixed.log.gz", "prefixed.log"), ("chat.md.bz2", "chat.md"), ("events.jsonl.xz", "events.jsonl"),
])
def test_compressed_files_are_opened_by_magic_bytes(compressed, plain):
    assert got(DATA / compressed) == expected(plain)


def test_compression_is_detected_on_stdin_too():
    data = (DATA / "prefixed.log.gz").read_bytes()
    records = [{k: r.to_dict()[k] for k in KEYS} for r in scan(io.BufferedReader(io.BytesIO(data)))]
    assert records == expected("prefixed.log")


def test_shipped_examples_are_the_tested_corpus():
    for path in EXAMPLES.iterdir():
        assert path.read_bytes() == (DATA / path.name).read_bytes(), path.name


def test_every_message_in_the_corpus_is_the_core_parse_of_its_text():
    for name in CORPUS:
        for record in scan(DATA / name):
            result = check_line(record.text, RECEIVER)
            if record.is_message:
                assert result.message is not None and record.json == result.message.to_json()
            elif record.reason not in ("encoding", "too-long"):
                assert result.refusal is not None and result.refusal.token == record.token


def test_columns_point_at_the_candidate_in_the_physical_line():
    for name in ("plain.rw1", "prefixed.log", "chat.md", "events.jsonl", "slack-export.json"):
        lines = (DATA / name).read_text(encoding="utf-8").splitlines()
        for record in scan(DATA / name):
            at = lines[record.line - 1][record.column - 1:]
            # a JSON string may write the version token itself with escapes; the corpus does not
            assert at.startswith(record.text[:6]), (name, record.line)


def test_slack_entities_are_decoded_only_in_a_slack_export():
    slack = {r.id: r for r in scan(DATA / "slack-export.json")}
    assert slack["research-01"].json["tail"] == "hero copy & subhead, <120 words>"
    member = '    "text": "RW1 ST ops-1 from=ops to=builder item=x:1 \\/\\/ a &amp; b",\n'
    plain = list(scan([member]))
    assert plain[0].json["tail"] == "a &amp; b"


def test_a_candidate_in_backticks_ends_at_the_backtick_and_the_next_one_is_found():
    line = "see `RW1 ST a-1 from=a to=b item=x:1` and `RW1 ST a-2 from=a to=b item=x:2` ok"
    records = records_of_line(line, RECEIVER, file="f", line=1)
    assert [(r.id, r.column) for r in records] == [("a-1", 6), ("a-2", 44)]
    assert all(r.is_message for r in records)


def test_prose_that_looks_like_rw1_is_reported_not_dropped():
    records = records_of_line("we use RW1 HO messages", RECEIVER, file="f", line=3)
    assert [(r.record, r.reason, r.token, r.column) for r in records] == [("diagnostic", "syntax", "messages", 8)]
    assert records_of_line("RW1 is great, RWLock too, xRW1 HO a-1", RECEIVER, file="f", line=1) == []


def test_version_token_after_a_letter_is_not_a_candidate():
    assert CANDIDATE_RE.search("ARW1 HO") is None and CANDIDATE_RE.search("[a]RW1 HO") is not None


def test_a_multiline_json_string_yields_each_of_its_lines():
    line = json.dumps({"out": "a\nRW1 ST a-1 from=a to=b item=x:1\r\nRW1 ST a-2 from=a to=b item=x:2"})
    records = records_of_line(line, RECEIVER, file="f", line=1)
    assert [r.id for r in records] == ["a-1", "a-2"] and all(r.is_message for r in records)
    assert [r.field for r in records] == ["/out", "/out"]
    assert line[records[1].column - 1:].startswith("RW1 ST a-2")


def test_a_json_line_that_is_not_json_is_scanned_as_text():
    line = '[writer] RW1 ST a-1 from=a to=b item=x:1 // said "RW1 is fine"'
    (record,) = records_of_line(line, RECEIVER, file="f", line=1)
    assert record.is_message and record.column == 10 and record.json["tail"] == 'said "RW1 is fine"'


# ---- reading: chunks, long lines, order --------------------------------------


def test_an_overlong_line_is_skipped_in_bounded_memory_and_reported():
    big = b"RW1 " + b"x" * 50_000 + b"\nRW1 ST a-1 from=a to=b item=x:1\n" + b"y" * 50_000 + b"\n"
    chunks = list(iter_chunks(io.BytesIO(big), "f", chunk_bytes=4096, max_line_bytes=1000))
    assert max(len(c.data) for c in chunks) < 300_000 // 2
    records = [r for c in chunks for r in records_of_chunk(c, RECEIVER)[0]]
    assert sum(records_of_chunk(c, RECEIVER)[1] for c in chunks) == 3
    # the line of x's holds "RW1 " but no candidate; the line of y's holds nothing: neither is reported
    assert [(r.line, r.record) for r in records] == [(2, "message")]
    long_candidate = b"RW1 ST a-1 from=a to=b item=" + b"z" * 5000 + b"\n"
    chunks = list(iter_chunks(io.BytesIO(long_candidate), "f", chunk_bytes=1024, max_line_bytes=1000))
    (record,) = [r for c in chunks for r in records_of_chunk(c, RECEIVER)[0]]
    assert (record.line, record.reason) == (1, "too-long")


lines_strategy = st.lists(st.one_of(
    st.sampled_from([
        "RW1 ST a-1 from=a to=b item=x:1", "2026 INFO [a] RW1 HO a-2 from=a to=b item=x:2 ask=FIX",
        "noise RWLock", "RW1 HO broken", '{"m": "RW1 ST a-3 from=a to=b item=x:3"}', "", "> RW2 ST a-4 from=a",
    ]),
    st.text(alphabet=st.characters(blacklist_characters="\n\r"), max_size=40),
), max_size=40)


@settings(max_examples=60, deadline=None)
@given(lines=lines_strategy, chunk=st.integers(min_value=1, max_value=300))
def test_chunking_never_changes_the_records_or_the_line_count(lines, chunk):
    data = "".join(line + "\n" for line in lines).encode("utf-8", "surrogatepass")
    whole = list(iter_chunks(io.BytesIO(data), "f", chunk_bytes=1 << 20))
    parts = list(iter_chunks(io.BytesIO(data), "f", chunk_bytes=chunk))
    recs = lambda cs: [r for c in cs for r in records_of_chunk(c, RECEIVER)[0]]  # noqa: E731
    assert recs(parts) == recs(whole)
    assert sum(records_of_chunk(c, RECEIVER)[1] for c in parts) == len(lines)


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=400) | st.text(max_size=200).map(lambda t: ("RW1 " + t).encode("utf-8", "surrogatepass")))
def test_any_bytes_give_records_never_an_exception(data):
    for chunk in iter_chunks(io.BytesIO(data), "f", chunk_bytes=64, max_line_bytes=128):
        records, _ = records_of_chunk(chunk, RECEIVER)
        for record in records:
            assert record.record in ("message", "diagnostic")
            assert (record.json is not None) == record.is_message
            assert record.is_message or (record.why in ("UNK", "VER") and record.reason)
            json.loads(format_jsonl([record]))


@settings(max_examples=200, deadline=None)
@given(prefix=st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r`'\""), max_size=20),
       rest=st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=30),
       letter=st.sampled_from("HRADSUFCXZ"))
def test_nothing_that_looks_like_rw1_is_dropped(prefix, rest, letter):
    line = f"{prefix} RW1 {letter}{rest}"
    if line.lstrip()[:1] in ("{", "[", '"'):
        return  # JSON-shaped lines are covered by the JSON tests
    records = records_of_line(line, RECEIVER, file="f", line=1)
    assert records, line
    assert records[0].column == line.index(f" RW1 {letter}") + 2 or records[0].column < line.index(f" RW1 {letter}") + 2


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=60), ascii_only=st.booleans())
def test_json_strings_decode_as_json_does_with_each_column(text, ascii_only):
    literal = json.dumps(text, ensure_ascii=ascii_only)
    decoded = decode_json_string(literal[1:-1], 5)
    assert decoded is not None
    out, cols = decoded
    assert out == json.loads(literal)
    assert len(cols) == len(out) and cols == sorted(cols) and (not cols or cols[0] == 5)


def test_ordered_parallel_output_equals_single_process(tmp_path):
    lines = []
    for i in range(3000):
        lines.append(f"2026 INFO [a] RW1 ST a-{i} from=a to=b item=x:{i}" if i % 3 else f"noise {i}")
        if i % 97 == 0:
            lines.append(f"RW1 HO a-{i} from=a to=b ask=FIXX")
    path = tmp_path / "big.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    single = "".join(out for out, _ in run_scan(iter_file_chunks([path], chunk_bytes=2048), "jsonl", jobs=1))
    double = "".join(out for out, _ in run_scan(iter_file_chunks([path], chunk_bytes=2048), "jsonl", jobs=2))
    assert single == double
    numbers = [json.loads(x)["line"] for x in double.splitlines()]
    assert numbers == sorted(numbers) and len(numbers) == 2000 + 31


# ---- records API ---------------------------------------------------------------


def test_scan_takes_paths_lines_and_directories(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.log").write_text("RW1 ST a-1 from=a to=b item=x:1\n")
    (tmp_path / "b.log").write_text("x\nRW1 ST b-1 from=b to=a item=x:1\n")
    assert [(r.file.endswith("b.log"), r.line) for r in scan(tmp_path)] == [(True, 2), (False, 1)]
    mixed = list(scan(["noise", "RW1 ST c-1 from=c to=a item=x:1", tmp_path / "b.log"]))
    assert [(r.file, r.line, r.id) for r in mixed] == [("<lines>", 2, "c-1"), (str(tmp_path / "b.log"), 2, "b-1")]
    with pytest.raises(TypeError):
        list(scan([42]))


def test_scan_counts_what_it_saw():
    tally = Tally()
    records = list(scan(DATA / "plain.rw1", tally=tally))
    assert tally.lines == 10 and tally.files == 1
    assert sum(tally.messages.values()) == sum(r.is_message for r in records) == 6
    assert dict(tally.diagnostics) == {"UNK": 2, "VER": 1}


def test_to_arrow_has_the_stable_schema_and_every_record():
    pytest.importorskip("pyarrow")  # the optional extra; installed in the test environment
    records = list(scan(DATA / "chat.md"))
    table = to_arrow(records)
    assert table.column_names == list(COLUMNS)
    assert table.num_rows == len(records)
    rows = table.to_pylist()
    assert [json.loads(r["json"]) if r["json"] else None for r in rows] == [r.json for r in records]
    assert to_arrow([]).num_rows == 0 and to_arrow([]).schema == table.schema


# ---- output safety --------------------------------------------------------------


def test_csv_cells_cannot_start_a_formula():
    for value in ("=HYPERLINK(\"x\")", "+1", "-1", "@SUM(A1)"):
        assert _csv_cell(value) == "'" + value
    assert _csv_cell("\tx")[:1] not in ("\t", "=", "+", "-", "@")
    assert _csv_cell("RW1 ST") == "RW1 ST" and _csv_cell(None) == ""
    assert "\r" not in _csv_cell("a\rb") and "\n" not in _csv_cell("a\nb")


def test_csv_output_neutralises_a_formula_from_a_log():
    member = '    "=HYPERLINK(1)": "RW1 ST a-1 from=a to=b item=x:1",\n'
    text = format_csv(scan([member]), header=True)
    import csv

    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows[0]["field"] == "'=HYPERLINK(1)" and rows[0]["record"] == "message"


def test_no_log_text_can_forge_a_second_output_line():
    tricky = ["RW1 ST a-1 from=a to=b item=x:1 // tail with \u2028 and \u0085 inside",
              "RW1 ST a-2 from=a to=b item=x:1 // ok \u2029"]
    records = list(scan(tricky))
    out = format_jsonl(records)
    assert len(out.splitlines()) == len(records) == 2
    assert len(format_csv(records).splitlines()) == 2


# ---- the command ------------------------------------------------------------------


def run(capsys, *argv):
    code = main(["scan", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_jsonl_summary_and_exit_codes(capsys):
    code, out, err = run(capsys, str(DATA / "prefixed.log"))
    assert code == 0
    assert [json.loads(x)["line"] for x in out.splitlines()] == [r["line"] for r in expected("prefixed.log")]
    assert "lines read" in err and "10" in err and "why=VER" in err
    code, _, _ = run(capsys, "--strict", str(DATA / "prefixed.log"))
    assert code == 1
    code, _, _ = run(capsys, "--strict", str(DATA / "chat.md"), "--messages-only", "--no-summary")
    assert code == 1
    code, _, err = run(capsys, str(DATA / "nope.log"))
    assert code == 2 and "nope.log" in err and "Traceback" not in err


def test_cli_messages_only_and_jobs(capsys):
    code, out, _ = run(capsys, "--messages-only", "-j", "2", "--no-summary", str(DATA / "chat.md"), str(DATA / "events.jsonl"))
    records = [json.loads(x) for x in out.splitlines()]
    assert code == 0 and all(r["record"] == "message" for r in records)
    assert len(records) == sum(r["record"] == "message" for n in ("chat.md", "events.jsonl") for r in expected(n))


def test_cli_csv_and_parquet(capsys, tmp_path):
    code, out, _ = run(capsys, "-o", "csv", "--no-summary", str(DATA / "plain.rw1"))
    assert code == 0 and out.splitlines()[0] == ",".join(COLUMNS) and len(out.splitlines()) == 10
    pq = pytest.importorskip("pyarrow.parquet")
    target = tmp_path / "r.parquet"
    code, _, _ = run(capsys, "-o", "parquet", "--out", str(target), "--no-summary", str(DATA / "plain.rw1"))
    table = pq.read_table(target)
    assert code == 0 and table.num_rows == 9 and table.column_names == list(COLUMNS)
    code, _, err = run(capsys, "-o", "parquet", str(DATA / "plain.rw1"))
    assert code == 2 and "--out" in err


def test_cli_reads_stdin(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(b"x RW1 ST a-1 from=a to=b item=x:1\n"))))
    code, out, _ = run(capsys, "--no-summary")
    (record,) = [json.loads(x) for x in out.splitlines()]
    assert code == 0 and record["file"] == "<stdin>" and record["column"] == 3
