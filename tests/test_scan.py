"""scan: every embedded message found with its place, every broken candidate a diagnostic."""

from __future__ import annotations

import io
import re
import json
from pathlib import Path

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rogerwilco import Receiver, check_line
from rogerwilco.front.cli import main
from rogerwilco.io.scan import frames as frames_module
from rogerwilco.io.scan import records as records_module
from rogerwilco.io.records import struct_texts
from rogerwilco.io.scan.frames import _may_hold

from .test_scanner import scan as built_scan  # the fixture: the built scanner, or one built for the run
from rogerwilco.io.scan import (
    CANDIDATE_RE, COLUMNS, Chunk, Record, Tally, _csv_cell, decode_json_string, format_csv, format_jsonl,
    iter_chunks, iter_file_chunks, records_of_chunk, records_of_line, run_scan, scan, to_arrow,
)

DATA = Path(__file__).parent / "data" / "scan"
EXAMPLES = Path(__file__).parent.parent / "examples" / "logs"
KEYS = ("record", "line", "column", "field", "text", "type", "id", "from", "to", "re", "item", "why", "reason", "token", "ts",
        "unvalidated")
CORPUS = ("plain.rw1", "prefixed.log", "chat.md", "events.jsonl", "slack-export.json", "slack-blocks.json", "hard.log")
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


_JSON_LEAVES = st.sampled_from(["RW1 HO a-1", "x", "RW\\u0031 ST", 1, None, True, "a/b~c RW", "\u2028RW1 \ud800"])
_JSON_KEYS = st.sampled_from(["a", "b", "~/", "RW", "", "k\"/", "\ud83d\ude00"])
_JSON_VALUES = st.recursive(_JSON_LEAVES, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_JSON_KEYS, inner, max_size=4),
                            max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(value=_JSON_VALUES.filter(lambda v: isinstance(v, (list, dict))), ascii_only=st.booleans(),
       repeat=st.booleans(), prefix=st.sampled_from(["", "[svc] ", "2026-10-01T00:00:00Z "]))
def test_json_strings_walked_from_the_parsed_value_are_the_tokenized_ones(value, ascii_only, repeat, prefix):
    """A JSON line's strings are found by walking its parsed value beside its string literals; a repeated key
    (held once by the parsed object) sends it to the token walk. Either way: every string that may hold a
    candidate, its pointer, raw body and column, as the token walk gives them."""
    text = json.dumps(value, ensure_ascii=ascii_only)
    if repeat and text.startswith("{") and len(text) > 2:
        text = '{"a": "RW1 ST first", ' + text[1:] if value else text  # a key "a" written twice, maybe
    line = prefix + text
    at = len(prefix)
    walked = frames_module._json_strings(line, at, {})
    assert walked == frames_module._tokenized_strings(line, at)
    direct = frames_module._walked_strings(json.loads(text), [(m.group(1), m.start(1) + 1)
                                                              for m in frames_module._JSON_STRING.finditer(line, at)])
    assert direct is None or direct == walked
    if repeat and isinstance(value, dict) and "a" in value:
        assert direct is None  # the repeated key is seen, not mistaken for a value


_LINE_PIECES = st.sampled_from([b"RW1", b" ", b"\n", b"HO", b"ab", b"x-1", b"\\u0052", b"RW", b"\t", b"\xc2\xa0", b"\r",
                                b"noise", b"ST", b"RW12 Z", b"\\n", b"\\", b"u", b"\xe3\x80\x80"])


@settings(max_examples=500, deadline=None)
@given(pieces=st.lists(_LINE_PIECES, max_size=40))
def test_the_lines_a_chunk_search_reads_are_those_the_line_test_passes(pieces):
    """One search of a chunk finds every line the per-line byte test passes, even where a match from the line
    before runs on through whitespace and line ends into the line's own version token."""
    data = b"".join(pieces) + b"\n"
    lines = data.split(b"\n")[:-1]
    found = records_module._lines_to_read(data, {})
    assert all(lines[index] == raw for index, raw in found)
    assert [(i, raw) for i, raw in found if _may_hold(raw)] == [(i, raw) for i, raw in enumerate(lines) if _may_hold(raw)]


def test_a_chunk_search_reads_the_overlong_placeholders_too():
    assert records_module._lines_to_read(b"a\n\nRW1 HO x\n\n", {1: (5, True), 3: (9, False)}) == [
        (1, b""), (2, b"RW1 HO x"), (3, b"")]


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
    assert [r["json"]["id"] if r["json"] else None for r in rows] == [r.json["id"] if r.json else None for r in records]
    assert [json.loads(r["json"]["slots"]) if r["json"] else None for r in rows] == [
        r.json["slots"] if r.json else None for r in records]
    text_rows = to_arrow(records, json_column="text").to_pylist()
    assert [json.loads(r["json"]) if r["json"] else None for r in text_rows] == [r.json for r in records]
    assert to_arrow([]).num_rows == 0 and to_arrow([]).schema == table.schema


# ---- output safety --------------------------------------------------------------


def test_csv_cells_cannot_start_a_formula():
    for value in ("=HYPERLINK(\"x\")", "+1", "-1", "@SUM(A1)"):
        assert _csv_cell(value) == "'" + value
    assert _csv_cell("\tx")[:1] not in ("\t", "=", "+", "-", "@")
    assert _csv_cell("RW1 ST") == "RW1 ST" and _csv_cell(None) == ""
    assert "\r" not in _csv_cell("a\rb") and "\n" not in _csv_cell("a\nb")


def _reference_cell(value):
    """A CSV cell as it was written before its fast paths: every text through printable, a dict through json.dumps."""
    from rogerwilco.core.errors import printable

    if value is None:
        return ""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":")) if isinstance(value, dict) else str(value)
    text = printable(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


_CELL_TEXT = st.text(st.characters(blacklist_categories=())) | st.sampled_from(["=1", "+x", "-", "@a", "\tb", "\rc"])
_CELLS = (st.none() | st.booleans() | st.integers() | _CELL_TEXT | _CELL_TEXT.map(type("Sub", (str,), {}))
          | st.dictionaries(_CELL_TEXT, st.none() | _CELL_TEXT | st.floats() | st.integers() | st.lists(_CELL_TEXT),
                            max_size=3))


@settings(max_examples=300, deadline=None)
@given(_CELLS)
def test_a_csv_cell_is_the_cell_written_without_fast_paths(value):
    """The fast paths (printable ASCII as it is, a dict's text from the C writer) change no cell: controls,
    invisible characters, lone surrogates, floats, str subclasses and formula starts alike."""
    assert _csv_cell(value) == _reference_cell(value)


def test_csv_of_the_mixed_log_is_the_csv_written_without_fast_paths(tmp_path):
    import csv as csv_module

    records = list(scan([_differential_log(tmp_path)]))
    buf = io.StringIO()
    writer = csv_module.writer(buf, lineterminator="\n")
    for r in records:
        d = r.to_dict()
        writer.writerow([_reference_cell(d[c]) for c in COLUMNS])
    assert format_csv(records) == buf.getvalue() and len(records) > 2000


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
    code, out, _ = run(capsys, "-f", "csv", "--no-summary", str(DATA / "plain.rw1"))
    assert code == 0 and out.splitlines()[0] == ",".join(COLUMNS) and len(out.splitlines()) == 10
    pq = pytest.importorskip("pyarrow.parquet")
    target = tmp_path / "r.parquet"
    code, _, _ = run(capsys, "-f", "parquet", "-o", str(target), "--no-summary", str(DATA / "plain.rw1"))
    table = pq.read_table(target)
    assert code == 0 and table.num_rows == 9 and table.column_names == list(COLUMNS)
    code, _, err = run(capsys, "-f", "parquet", str(DATA / "plain.rw1"))
    assert code == 2 and "-o PATH" in err


def test_cli_o_is_the_output_file_as_in_lint(capsys, tmp_path):
    # -o names the file (the format follows its suffix), as lint's -o does
    target = tmp_path / "records.csv"
    code, out, _ = run(capsys, "-o", str(target), "--no-summary", str(DATA / "plain.rw1"))
    lines = target.read_text(encoding="utf-8").splitlines()
    assert code == 0 and out == "" and lines[0] == ",".join(COLUMNS) and len(lines) == 10
    jsonl = tmp_path / "records.out"
    code, _, _ = run(capsys, "--output", str(jsonl), "-f", "jsonl", "--no-summary", str(DATA / "plain.rw1"))
    assert code == 0 and len([json.loads(x) for x in jsonl.read_text(encoding="utf-8").splitlines()]) == 9
    code, _, err = run(capsys, "-o", str(tmp_path / "a"), "--out", str(tmp_path / "b"), str(DATA / "plain.rw1"))
    assert code == 2 and "both name the output file" in err


def test_cli_the_old_spelling_o_format_still_works_with_a_note(capsys, tmp_path):
    code, out, err = run(capsys, "-o", "csv", "--no-summary", str(DATA / "plain.rw1"))
    assert code == 0 and out.splitlines()[0] == ",".join(COLUMNS)
    assert "`-o csv` names the format, the old spelling: give `-f csv`" in err
    pq = pytest.importorskip("pyarrow.parquet")
    target = tmp_path / "r.parquet"
    code, _, err = run(capsys, "-o", "parquet", "--out", str(target), "--no-summary", str(DATA / "plain.rw1"))
    assert code == 0 and pq.read_table(target).num_rows == 9 and "give `-f parquet`" in err


def test_cli_reads_stdin(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(b"x RW1 ST a-1 from=a to=b item=x:1\n"))))
    code, out, _ = run(capsys, "--no-summary")
    (record,) = [json.loads(x) for x in out.splitlines()]
    assert code == 0 and record["file"] == "<stdin>" and record["column"] == 3


# ---- review fixes: BOM, quotes, embedded JSON, wrappers, loose candidates, code spans ----


BOM_LINE = '\ufeff{"msg":"RW1 ST ops-1 from=ops to=builder item=url:https:\\/\\/x.io\\/a","level":"info"}'


def test_a_leading_bom_is_stripped_from_a_file_a_stream_and_lines(tmp_path):
    path = tmp_path / "bom.jsonl"
    path.write_bytes(BOM_LINE.encode("utf-8") + b"\n")
    gz = tmp_path / "bom.jsonl.gz"
    import gzip

    gz.write_bytes(gzip.compress(path.read_bytes()))
    for source in (path, gz, io.BufferedReader(io.BytesIO(path.read_bytes())), [BOM_LINE]):
        (record,) = scan(source)
        assert record.is_message and record.field == "/msg" and record.item == "url:https://x.io/a"
        assert record.column == BOM_LINE.index("RW1")  # counted after the BOM


def test_a_bom_does_not_hide_a_slack_export(tmp_path):
    path = tmp_path / "slack.json"
    path.write_bytes(b"\xef\xbb\xbf" + (DATA / "slack-export.json").read_bytes())
    assert [r.id for r in scan(path)] == [r["id"] for r in expected("slack-export.json")]
    assert next(r for r in scan(path) if r.id == "research-01").json["tail"] == "hero copy & subhead, <120 words>"


def test_a_quoted_candidate_ends_at_its_closing_quote():
    line = "batch ['RW1 ST ops-1 from=ops to=builder item=jira:OPS-1', 'RW1 ST ops-2 from=ops to=builder item=jira:OPS-2']"
    records = records_of_line(line, RECEIVER, file="f", line=1)
    assert [(r.record, r.id, r.item) for r in records] == [("message", "ops-1", "jira:OPS-1"), ("message", "ops-2", "jira:OPS-2")]
    assert [line[r.column - 1:].startswith(r.text) for r in records] == [True, True]
    logfmt = 'level=info msg="RW1 ST ops-1 from=ops to=builder item=jira:OPS-1" caller="bus.go:42"'
    (record,) = records_of_line(logfmt, RECEIVER, file="f", line=1)
    assert record.is_message and record.item == "jira:OPS-1" and record.json["slots"] == {}
    # a quote inside the text that is not followed by a delimiter does not end it
    quoted = "say: \"RW1 ST ops-1 from=ops to=builder item=jira:OPS-1 // it's x\"fine\" done"
    (record,) = records_of_line(quoted, RECEIVER, file="f", line=1)
    assert record.json["tail"] == 'it\'s x"fine'


def test_a_json_object_after_a_log_prefix_is_decoded():
    line = '2026-10-01T12:00:01.000Z stdout F {"msg":"RW1 ST ops-2 from=ops to=builder item=jira:OPS-2","level":"info"}'
    (record,) = records_of_line(line, RECEIVER, file="f", line=1)
    assert record.is_message and record.item == "jira:OPS-2" and record.field == "/msg"
    assert line[record.column - 1:].startswith("RW1 ST ops-2")
    escaped = '[agent] {"event": {"parts": ["x", "RW1 ST ops-3 from=ops to=builder item=url:https:\\/\\/x.io\\/b"]}}'
    (record,) = records_of_line(escaped, RECEIVER, file="f", line=1)
    assert (record.item, record.field) == ("url:https://x.io/b", "/event/parts/1")
    assert escaped[record.column - 1:].startswith("RW1 ST ops-3")
    # a message whose tail holds JSON stays one candidate to the end of the line
    tail = 'INFO RW1 ST ops-4 from=ops to=builder item=jira:OPS-4 // payload {"k": "RW1 ST x-1"}'
    (record,) = records_of_line(tail, RECEIVER, file="f", line=1)
    assert record.is_message and record.json["tail"] == 'payload {"k": "RW1 ST x-1"}'


@pytest.mark.parametrize("left,right", [("**", "**"), ("__", "__"), ("*", "*"), ("_", "_"), ("(", ")"), ("[", "]"), ("<", ">")])
def test_a_wrapper_around_a_candidate_is_left_off(left, right):
    line = f"done: {left}RW1 ST ops-9 from=ops to=builder item=jira:OPS-9{right}"
    (record,) = records_of_line(line, RECEIVER, file="f", line=1)
    assert record.is_message and record.item == "jira:OPS-9" and record.column == 7 + len(left)
    # a closer inside a tail stays; only the one that ends the candidate goes
    (record,) = records_of_line(f"{left}RW1 ST ops-9 from=ops to=builder item=jira:OPS-9 // a {right} b{right}",
                                RECEIVER, file="f", line=1)
    assert record.json["tail"] == f"a {right} b"


@pytest.mark.parametrize("line,token", [
    ("RW1  HO ops-1 from=ops to=builder item=jira:OPS-1 ask=FIX", "HO"),
    ("RW1\tHO ops-2 from=ops to=builder item=jira:OPS-2 ask=FIX", "RW1\tHO"),
    ("RW1\u00a0HO ops-3 from=ops to=builder item=jira:OPS-3 ask=FIX", "RW1\u00a0HO"),
    ("RW1 ho ops-4 from=ops to=builder item=jira:OPS-4 ask=FIX", "ho"),
    ("2026 INFO [ops] RW1 Ho ops-5 from=ops to=builder item=jira:OPS-5 ask=FIX", "Ho"),
])
def test_a_broken_candidate_is_a_diagnostic_in_a_file_and_fails_strict(tmp_path, capsys, line, token):
    path = tmp_path / "broken.log"
    path.write_text("noise\n" + line + "\n", encoding="utf-8")
    (record,) = scan(path)
    assert (record.record, record.line, record.reason, record.token) == ("diagnostic", 2, "syntax", token)
    assert line[record.column - 1:].startswith("RW1")
    code, _, _ = run(capsys, "--strict", "--no-summary", str(path))
    assert code == 1


def test_prose_with_a_version_token_stays_out():
    for line in ("the RW1 format", "RW1 is great", "sending RW1 as agreed; protocol RW1 in use", "RW1\tformat",
                 "use RW1 or RW2.", "RW12 ok"):
        assert records_of_line(line, RECEIVER, file="f", line=1) == [], line


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("RW1 2\t\u00a0\u2003\u3000hoHOsx-=:`\"'*_([<>])a-")), max_size=40))
def test_the_bytes_prefilter_never_misses_a_candidate(text):
    from rogerwilco.io.scan import _may_hold

    if CANDIDATE_RE.search(text):
        assert _may_hold(text.encode("utf-8"))


def test_a_double_backtick_code_span_ends_at_a_double_backtick():
    line = "see ``RW1 ST ops-8 from=ops to=builder item=jira:OPS-8 // the `x` flag`` and `RW1 ST ops-9 from=ops to=b item=x:9`"
    records = records_of_line(line, RECEIVER, file="f", line=1)
    assert [(r.id, r.record) for r in records] == [("ops-8", "message"), ("ops-9", "message")]
    assert records[0].json["tail"] == "the `x` flag"
    # a longer run of backticks inside does not close a two-backtick span
    line = "``RW1 ST ops-8 from=ops to=builder item=jira:OPS-8 // a ```b``` c``"
    (record,) = records_of_line(line, RECEIVER, file="f", line=1)
    assert record.json["tail"] == "a ```b``` c"


def test_a_slack_message_with_blocks_is_reported_once():
    records = list(scan(DATA / "slack-blocks.json"))
    # ops-1 and ops-2: the text member, not its block copy (text before or after blocks);
    # ops-3: only in a block (the text member differs), so the block is read
    assert [(r.id, r.line, r.field) for r in records] == [("ops-1", 5, "text"), ("ops-2", 29, "text"), ("ops-3", 37, "text")]
    assert records[0].json["tail"] == "a & b"



def test_slack_blocks_are_read_once_minified_at_any_chunk_size_and_in_parallel(tmp_path):
    minified = tmp_path / "min.json"
    minified.write_text(json.dumps(json.loads((DATA / "slack-blocks.json").read_text(encoding="utf-8"))) + "\n")
    assert [(r.id, r.field) for r in scan(minified)] == [("ops-1", "/0/text"), ("ops-2", "/1/text"),
                                                       ("ops-3", "/2/blocks/0/text/text")]
    whole = [r.to_dict() for r in scan(DATA / "slack-blocks.json")]
    for size in (1, 64, 700):
        chunks = list(iter_file_chunks([DATA / "slack-blocks.json"], chunk_bytes=size))
        assert [r.to_dict() for c in chunks for r in records_of_chunk(c, RECEIVER)[0]] == whole
        parallel = "".join(out for out, _ in run_scan(iter_file_chunks([DATA / "slack-blocks.json"], chunk_bytes=size),
                                                      "jsonl", jobs=2))
        assert [json.loads(x) for x in parallel.splitlines()] == whole


def test_a_slack_message_too_large_for_memory_is_cut_and_still_read():
    from rogerwilco.io.scan import _element_chunks

    lines = (DATA / "slack-blocks.json").read_bytes().splitlines(keepends=True)
    small = [Chunk("f", 1 + i, b"".join(lines[i:i + 3]), slack=True) for i in range(0, len(lines), 3)]
    chunks = list(_element_chunks(small, hard_limit=300))
    assert max(len(c.data) for c in chunks) < 300 + max(len(c.data) for c in small)
    assert len(chunks) > 3 and b"".join(c.data for c in chunks) == b"".join(lines)
    assert [c.first for c in chunks] == sorted(c.first for c in chunks)
    ids = [r.id for c in chunks for r in records_of_chunk(c, RECEIVER)[0]]
    assert set(ids) == {"ops-1", "ops-2", "ops-3"}  # a message cut in two may show its block copy too


def test_a_local_glob_is_an_input_in_the_cli_as_a_file_url_is(tmp_path, capsys, monkeypatch):
    logs = tmp_path / "logs"
    (logs / "deep").mkdir(parents=True)
    (logs / "a.log").write_text("RW1 ST a-1 from=a to=b item=x:1\n", encoding="utf-8")
    (logs / "deep" / "b.log").write_text("RW1 ST a-2 from=a to=b item=x:2\n", encoding="utf-8")
    (logs / "c.txt").write_text("RW1 ST a-3 from=a to=b item=x:3\n", encoding="utf-8")

    def files_of(*names):
        assert main(["scan", *names, "--no-summary"]) == 0
        return [json.loads(line)["file"] for line in capsys.readouterr().out.splitlines()]

    assert files_of(str(logs / "**" / "*.log")) == [str(logs / "a.log"), str(logs / "deep" / "b.log")]
    assert len(files_of((logs / "*.log").as_uri().replace("%2A", "*"))) == 1
    monkeypatch.chdir(tmp_path)
    assert files_of("logs/*.log") == ["logs/a.log"]
    assert main(["scan", str(logs / "*.csv"), "--no-summary"]) == 2
    assert "no input matches" in capsys.readouterr().err


CR_STREAM = ("RW1 ST a-1 from=a to=b item=x:1\rRW1 HO a-2 from=a to=b item=x ask=PAYY\r\n"
             "RW1 ST a-3 from=a to=b item=x:1\r\rRW1 HO a-4 from=a to=b item=x ask=FIXX\r")


@pytest.mark.parametrize("suffix", [".rw1", ".log"])
def test_a_bare_cr_ends_a_line_in_scan_as_in_validate_and_lint(tmp_path, capsys, suffix):
    # the lines: 1 a-1, 2 a-2 (refused), 3 a-3, 4 blank, 5 a-4 (refused)
    path = tmp_path / f"cr{suffix}"
    path.write_bytes(CR_STREAM.encode("ascii"))
    assert main(["scan", "--no-summary", str(path)]) == 0
    records = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(r["line"], r["id"], r["record"]) for r in records] == [
        (1, "a-1", "message"), (2, "a-2", "diagnostic"), (3, "a-3", "message"), (5, "a-4", "diagnostic")]
    assert main(["lint", "--isolated", "-f", "json", "--select", "RW003", str(path)]) == 1
    assert [f["line"] for f in json.loads(capsys.readouterr().out)] == [2, 5]
    assert main(["validate", "-f", "json", str(path)]) == 1
    refused = [r["line"] for r in map(json.loads, capsys.readouterr().out.splitlines()) if r["findings"]
               and r["findings"][0]["severity"] == "fail"]
    assert refused == [2, 5]


class _Trickle(io.RawIOBase):
    def __init__(self, data: bytes, step: int) -> None:
        self.data, self.step = data, step

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        piece, self.data = self.data[:self.step], self.data[self.step:]
        return piece


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=40).map(lambda b: bytes(b"a\r\n"[x % 3] for x in b)), st.integers(1, 7))
def test_bare_crs_read_as_line_feeds_whatever_the_blocks(data, step):
    from rogerwilco.io.scan.sources import _LineEnds

    stream = _LineEnds(_Trickle(data, step))
    got = b"".join(iter(lambda: stream.read(step), b""))
    expected = re.sub(rb"\r\n|\r", lambda m: m.group() if m.group() == b"\r\n" else b"\n", data)
    assert got == expected


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=40).map(lambda b: bytes(b"a\r\n"[x % 3] for x in b)))
def test_lint_reads_a_log_into_the_lines_the_stream_reader_gives(data):
    from rogerwilco.io.lint import _log_lines
    from rogerwilco.io.stream import read_lines

    assert [text for _, text in _log_lines(io.BytesIO(data))] == [line.text for line in read_lines(io.BytesIO(data))]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=40).map(lambda b: bytes(b"a\r\n\xef"[x % 4] for x in b)), st.sets(st.integers(1, 12)))
def test_lint_reads_again_the_log_lines_it_wants_numbered_as_before(data, wanted):
    """A log's lines read again for the places of the findings (only those wanted, up to the last): the same
    numbers and text as the whole read gives them."""
    from rogerwilco.io.lint import _log_lines

    whole = [(n, t) for n, t in _log_lines(io.BytesIO(data)) if n in wanted]
    assert list(_log_lines(io.BytesIO(data), wanted)) == whole


# ---- the scan read with the C scanner first, against pure Python ---------------------------------------

def _differential_log(tmp_path: Path) -> Path:
    """The benchmark's mixed log (2,000 lines), then every conformance line and hostile variants of messages,
    each bare, behind a log prefix, in a JSON Lines record and in a quote."""
    import importlib.util

    from .test_accept import HOSTILE, conformance_lines

    spec = importlib.util.spec_from_file_location("scan_bench", Path(__file__).parent.parent / "benchmarks" / "scan_bench.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    path = tmp_path / "mixed.log"
    bench.make_log(path, 2000, seed=11)
    messages = conformance_lines()
    base = "RW1 HO ops-1 from=ops to=builder item=jira:OPS-7 ask=FIX // tail"
    messages += [base[:at] + piece + base[at:] for piece in HOSTILE for at in (4, 11, 21, 43, 56, len(base))]
    with open(path, "a", encoding="utf-8", errors="surrogatepass") as out:
        for i, text in enumerate(messages):
            if "\n" in text or "\r" in text:
                text = text.replace("\r", " ").replace("\n", " ")
            out.write(f"{text}\n2026-10-01T09:14:{i % 60:02d}Z INFO [ops] {text}\n")
            out.write(json.dumps({"ts": 1790000000 + i, "event": {"msg": text}}) + "\n")
            out.write(f"> {text}\n")
    return path


def _escaped(value):
    """A record's value as Arrow holds it: every lone surrogate written as its escape (UTF-8 has none)."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {_escaped(k): _escaped(v) for k, v in value.items()}
    return value


def _arrow_from_dicts(records: list) -> "object":
    """The Arrow batch built row by row from each record's dict: the writer's reference."""
    import pyarrow as pa

    from rogerwilco.io.records import _json_value, arrow_schema

    schema = arrow_schema("struct")
    rows = [{**{k: _escaped(v) for k, v in r.to_dict().items()}, "json": _json_value(r.json, "struct"), "ts": r.ts}
            for r in records]
    arrays = []
    for c in COLUMNS:
        typ = schema.field(c).type
        values = [row[c] for row in rows]
        if pa.types.is_dictionary(typ):
            arrays.append(pa.array(values, type=pa.string()).dictionary_encode().cast(typ))
        else:
            arrays.append(pa.array(values, type=typ))
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


@pytest.mark.parametrize("receiver", [RECEIVER, Receiver(), *(Receiver.load([name]) for name in RECEIVER.names)],
                         ids=lambda r: "+".join(r.names) or "core")
def test_the_scan_with_the_c_scanner_first_is_the_scan_in_pure_python(tmp_path, monkeypatch, receiver):
    """Every record of the mixed log, conformance and hostile lines, each bundled profile alone and all: the
    same with the C scanner first as through the pure Python accept path, JSON Lines byte for byte (and as
    json.dumps writes each record's dict), Arrow column by column, types and metadata."""
    import pyarrow as pa

    from rogerwilco.core import accept as python_path

    path = _differential_log(tmp_path)
    fast = list(scan([path], receiver))
    monkeypatch.setattr(records_module, "json_form", python_path.json_form)
    slow = list(scan([path], receiver))
    assert fast == slow and len(fast) > 2000
    text = format_jsonl(fast)
    assert text == format_jsonl(slow) == "".join(json.dumps(r.to_dict(), ensure_ascii=True) + "\n" for r in slow)
    assert any("\ud800" in r.text for r in fast)  # a record Arrow holds with the surrogate as its escape
    table, reference = to_arrow(fast), pa.Table.from_batches([_arrow_from_dicts(slow)])
    assert table.schema.equals(reference.schema, check_metadata=True)
    assert table.equals(reference)


def test_a_lone_surrogate_from_a_json_escape_reaches_parquet_as_its_escape(tmp_path, capsys):
    """Arrow's strings are UTF-8: a candidate holding U+D800 (decoded from ``\\ud800`` in a JSON line) is written
    with the six characters ``\\ud800``, as CSV shows it, not lost and not an internal error."""
    import pyarrow.parquet as pq

    log = tmp_path / "in.log"
    log.write_text('{"msg": "RW1 HO a-2 from=a to=b item=x ask=DRAFT x_k=\\ud800"}\n'
                   '{"msg": "RW1 HO a-1 from=a to=b item=x ask=DRAFT", "note": "\\ud800"}\n', encoding="utf-8")
    out = tmp_path / "out.parquet"
    assert main(["scan", str(log), "-o", str(out)]) == 0
    table = pq.read_table(out)
    assert table.column("text").to_pylist() == ["RW1 HO a-2 from=a to=b item=x ask=DRAFT x_k=\\ud800",
                                                "RW1 HO a-1 from=a to=b item=x ask=DRAFT"]
    assert table.column("token").to_pylist() == ["x_k=\\ud800", None]
    assert table.column("record").to_pylist() == ["diagnostic", "message"]


_ANY_TEXT = st.text(st.characters(blacklist_categories=())) | st.lists(st.sampled_from(
    ["\ud800", "\udfff", "\U0001f600", "\u2028", "\x00", "\x1f", "\x7f", "\\", '"', "\u00e9", "x", " "])).map("".join)
_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | _ANY_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_ANY_TEXT, inner, max_size=3), max_leaves=12)
_FORMS = st.none() | st.fixed_dictionaries(
    {"v": st.just("RW1"), "type": st.sampled_from(["HO", "RB", "DN"])},
    optional={"id": _ANY_TEXT, "from": _ANY_TEXT, "to": _ANY_TEXT, "re": st.none() | _ANY_TEXT,
              "item": _ANY_TEXT, "tail": st.none() | _ANY_TEXT, "x_other": _JSON_VALUES,
              "slots": st.none() | st.dictionaries(_ANY_TEXT, _JSON_VALUES, max_size=5) | _JSON_VALUES})


@settings(max_examples=150, deadline=None)
@given(forms=st.lists(_FORMS, max_size=8), json_column=st.sampled_from(["struct", "text"]), writers=st.booleans())
def test_the_json_column_is_each_forms_json_dumps(forms, json_column, writers):
    """The json column, built column by column (by the C scanner where it is built, else in Python), is what
    json.dumps of each record's form gives, row by row: the envelope as it is and the slots as compact JSON
    text (struct), or the form as that text; a lone surrogate written as its escape, a float and a key that is
    not text as json.dumps writes them, a missing form a null."""
    pa = pytest.importorskip("pyarrow")
    from rogerwilco.core import speedups
    from rogerwilco.io.records import _array, _json_struct_type, _json_value, to_arrow_batch

    records = [Record(record="message" if form else "diagnostic", file="f.log", line=n, column=1, text="RW1",
                      json=form) for n, form in enumerate(forms, start=1)]
    with pytest.MonkeyPatch.context() as patch:
        if not writers:  # the Python path: what a machine without the C scanner takes
            patch.setattr(speedups, "json_compact", None)
            patch.setattr(speedups, "json_struct_columns", None)
        got = to_arrow_batch(records, json_column).column("json")
    typ = _json_struct_type() if json_column == "struct" else pa.string()
    want = _array(pa, [_json_value(form, json_column) for form in forms], typ)
    assert got.type == want.type
    assert got.to_pylist() == want.to_pylist()
    assert got.equals(want)


# ---- rows written as they are found: no Record for what the C scanner settles -----------------------------------

def _scan_output(path: Path, fmt: str, receiver, options=None) -> tuple[object, list]:
    """The output (JSON Lines text, or an Arrow table) and the tallies of a scan, chunk by chunk, as the command
    runs it."""
    from rogerwilco.io.scan.engine import run_scan
    from rogerwilco.io.scan.sources import iter_file_chunks

    parts, tallies = [], []
    for produced, tally in run_scan(iter_file_chunks([path]), fmt, receiver=receiver, options=options):
        parts.append(produced)
        tallies.append(tally)
    if fmt == "jsonl":
        return "".join(parts), tallies
    import pyarrow as pa

    return pa.Table.from_batches([b for b in parts if b is not None]), tallies


@pytest.fixture
def rows_of(monkeypatch, built_scan):
    """The rows module writing with the built scanner (also where the package runs pure), and what it wrote."""
    from rogerwilco.io.scan import rows

    taken = {"line": 0, "candidate": 0}
    monkeypatch.setattr(rows, "available", True)
    monkeypatch.setattr(rows, "line_row", built_scan.scan.line_row)
    monkeypatch.setattr(rows, "json_row", built_scan.scan.row)
    monkeypatch.setattr(rows, "_columns_type", lambda: built_scan.scan.Columns)
    for sink in (rows.JsonLinesRows, rows.ArrowRows):
        for road in ("line", "candidate"):
            def counted(self, *args, _write=getattr(sink, road), _road=road):
                wrote = _write(self, *args)
                taken[_road] += wrote
                return wrote
            monkeypatch.setattr(sink, road, counted)
    return rows, taken


@pytest.mark.parametrize("receiver", [RECEIVER, Receiver(), Receiver.load(["pay"])],
                         ids=lambda r: "+".join(r.names) or "core")
@pytest.mark.parametrize("zone", [None, "+02:00"])
@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_rows_written_as_found_are_the_records_written_one_by_one(tmp_path, monkeypatch, rows_of, receiver, zone,
                                                                  fmt):
    """The mixed log, conformance and hostile lines (bare, behind a log prefix, in JSON, in a quote): the scan with
    the C scanner writing rows as it finds them is the one that builds a Record a candidate, JSON Lines byte for
    byte and the Arrow batches value for value, schema and metadata, the tallies too; and the rows written whole
    from a line or a candidate are most of the log's messages (the road is taken)."""
    from rogerwilco.io.scan.engine import ScanOptions

    rows, taken = rows_of
    path = _differential_log(tmp_path)
    options = ScanOptions(tz=zone, year=2026 if zone else None)
    fast, fast_tallies = _scan_output(path, fmt, receiver, options)
    monkeypatch.setattr(rows, "available", False)
    slow, slow_tallies = _scan_output(path, fmt, receiver, options)
    assert [attrs.asdict(t) for t in fast_tallies] == [attrs.asdict(t) for t in slow_tallies]
    if fmt == "jsonl":
        assert fast == slow and fast.count("\n") > 2000
        messages = fast.count('{"record": "message"')
    else:
        assert fast.schema.equals(slow.schema, check_metadata=True) and fast.num_rows > 2000
        assert fast.equals(slow)
        assert any("\\ud800" in text for text in fast.column("text").to_pylist())  # a surrogate, escaped
        messages = fast.column("record").to_pylist().count("message")
    assert taken["line"] >= messages // 2 and taken["line"] + taken["candidate"] >= messages * 9 // 10, (taken, messages)


def test_an_arrow_row_of_any_record_is_the_batch_to_arrow_batch_builds(built_scan) -> None:
    """Records the scan does not write whole (diagnostics, a time in another zone or none, lone surrogates, null
    envelope fields, a form whose slots only json.dumps writes) written by Columns.record: the batch is
    to_arrow_batch's."""
    from datetime import datetime, timedelta, timezone

    from rogerwilco.io.records import Record, to_arrow_batch
    from rogerwilco.io.scan import rows

    form = {"v": "RW1", "type": "HO", "id": "a-1", "re": None, "from": "a", "to": "b", "item": "x\ud800",
            "slots": {"ask": "FIX", "n": 1.5, "k": ["\u00e9", "\udfff"]}, "tail": "t\u2028"}
    made = [
        Record(record="message", file="f\udc80.log", line=1, column=2, text="RW1 HO a-1", type="HO", id="a-1",
               from_="a", to="b", item="x", json=form, ts=datetime(2026, 10, 1, 9, 0, tzinfo=timezone(timedelta(hours=2)))),
        Record(record="diagnostic", file="f", line=2**40, column=0, text="", why="UNK", reason="too-long", token="",
               message="line is long", unvalidated=True),
        Record(record="message", file="f", line=3, column=1, text="RW1 AN a-2", json={"v": "RW1"},
               ts=datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=timezone.utc)),
        Record(record="message", file="f", line=4, column=1, text="", json={"v": "RW1", "slots": {}},
               ts=datetime(1, 1, 1, tzinfo=timezone.utc)),
    ]
    columns = built_scan.scan.Columns()
    for record in made:
        columns.record((record.record, record.file, record.line, record.column, record.field, record.text,
                        record.type, record.id, record.from_, record.to, record.re, record.item, record.why,
                        record.reason, record.token, record.message, record.unvalidated),
                       None if record.json is None else struct_texts(record.json), rows._micros(record.ts))
    assert columns.rows == len(made)
    batch, reference = rows.batch_of(columns.buffers()), to_arrow_batch(made)
    assert batch.schema.equals(reference.schema, check_metadata=True)
    assert batch.equals(reference)
    with pytest.raises(TypeError):
        columns.record(("message",) * 17, None, None)  # line and column must be ints


_PREFIXES = st.sampled_from([
    "", " ", "\t", "2026-10-01T09:14:03Z ", "2026-10-01T09:14:03.123456789Z INFO ", "2026-10-01 09:14:03z [ops] ",
    "2026-10-01T09:14:03 ", "2026-10-01T09:14:03+02:00 ", "2026-02-30T09:14:03Z ", "2026-10-01T23:59:60Z ",
    "2026-10-01T09:14:03Z1 ", "Oct  1 09:14:03 host app: ", "[01/Oct/2026:09:14:03 +0000] ", "1790000000 ",
    "ops: ", "> ", "[ops] ", "\u0663 ", "\u00a0", "\u3000", "id=7 ", "x", "9", "RWx ", "RW ", "RW1", "RW12 ", "`", "'",
    '"', "*", "_", "(", "[", "<", "**", "{", '{"a": ', "[1, ", "[ ]", "{ }", "\ud800 ", "\udc85 ", "\u2028",
])
_BODIES = st.sampled_from([
    "RW1 HO ops-1 from=ops to=builder item=jira:OPS-7 ask=FIX // tail",
    "RW1 RB dev-2 re=ops-1 from=dev to=ops item=jira:OPS-7 ask=FIX due=20261002 h=c40bba4360dc",
    "RW1 AN a-1 re=b-2 from=a to=b val=plain",
    "RW1 HO a-1 from=a to=b item=x ask=DRAFT p=pay amt=EUR:12.50 net=EUR:10.00 vat=EUR:2.50",
    "RW1 HO a-1 from=a to=b item=x ask=DRAFTT",
    "RW1 ST a-3 from=a to=b item=x pct=40 eta=20261003 x_k=v // \u00e9 \U0001f600",
    "RW1 HO a-1 from=a to=b item=x ask=FIX` and more", "RW1 DN a-1 re=b-1 from=a to=b item=x out=OK art=sha256:9f3e1c **",
    "RW2 ST a-1 from=a to=b item=x", "RW1 hello", "RW1  HO a-1 from=a to=b item=x ask=FIX", "rw1 HO a-1",
])


@settings(max_examples=400, deadline=None)
@given(_PREFIXES, _PREFIXES, _BODIES, st.sampled_from(["", " ", "\r", "x", "\u0085", "\udcff", '"}', " RW1 AN a-2"]),
       st.sampled_from([RECEIVER, Receiver()]))
def test_a_line_written_in_one_call_is_the_record_the_python_path_writes(built_scan, first, second, body, end,
                                                                          receiver):
    """A plain line the C scanner writes whole (``line_row``) gives the one record ``records_of_line`` gives, to the
    byte, with the type counted; a line it is not sure of (JSON-shaped, quoted, a time only Python reads, a second
    candidate's shape) it leaves alone."""
    from rogerwilco.io.records import COLUMNS, RECORDS_VERSION
    from rogerwilco.io.scan.timestamps import Clock

    from rogerwilco.io.records import to_arrow_batch
    from rogerwilco.io.scan.rows import batch_of

    text = first + second + body + end
    got = built_scan.scan.line_row(text, receiver, COLUMNS, "f.log", 3, RECORDS_VERSION)
    columns = built_scan.scan.Columns()
    typ = columns.line(text, receiver, "f.log", 3)
    clock = Clock()
    reference = records_module.records_of_line(text, receiver, file="f.log", line=3, clock=clock)
    if got is None and typ is None:
        assert columns.rows == 0
        return
    assert len(reference) == 1 and reference[0].is_message and clock.unreadable == 0
    assert got is None or got == (reference[0].type, reference[0].to_jsonl())
    assert typ is None or (typ == reference[0].type and batch_of(columns.buffers()).equals(to_arrow_batch(reference)))


def test_a_line_written_in_one_call_covers_the_common_log_line(built_scan) -> None:
    """The road is taken where it should be: a time in UTC or no digit before the candidate."""
    from rogerwilco.io.records import COLUMNS, RECORDS_VERSION

    body = "RW1 HO ops-1 from=ops to=builder item=jira:OPS-7 ask=FIX // tail"
    for prefix in ("", "2026-10-01T09:14:03Z INFO [ops] ", "2026-10-01 09:14:03.5Z ", "ops: ", "INFO sent "):
        got = built_scan.scan.line_row(prefix + body, RECEIVER, COLUMNS, "f", 1, RECORDS_VERSION)
        assert got is not None and got[0] == "HO" and f'"column": {len(prefix) + 1},' in got[1]
    for prefix in ("2026-10-01T09:14:03 ", "[ops] ", "`", '{"m": 1} ', "id=7 "):
        assert built_scan.scan.line_row(prefix + body, RECEIVER, COLUMNS, "f", 1, RECORDS_VERSION) is None


def test_every_pair_of_prefixes_written_in_one_call_is_the_python_record(built_scan) -> None:
    """Every line of two prefixes and a body above (about 23,000): each the C scanner writes whole is the record
    the Python path writes, and it writes a share of them (those with a time in UTC or no digit before a valid
    candidate)."""
    from rogerwilco.io.records import COLUMNS, RECORDS_VERSION
    from rogerwilco.io.scan.timestamps import Clock

    from rogerwilco.io.records import to_arrow_batch
    from rogerwilco.io.scan.rows import batch_of

    settled, columns, records = 0, built_scan.scan.Columns(), []
    for first in _PREFIXES.elements:
        for second in _PREFIXES.elements:
            for body in _BODIES.elements:
                text = first + second + body
                got = built_scan.scan.line_row(text, RECEIVER, COLUMNS, "f.log", settled, RECORDS_VERSION)
                typ = columns.line(text, RECEIVER, "f.log", settled)
                assert typ == (None if got is None else got[0]), text  # no time here only one writer takes
                if got is None:
                    continue
                clock = Clock()
                reference = records_module.records_of_line(text, RECEIVER, file="f.log", line=settled, clock=clock)
                assert len(reference) == 1 and clock.unreadable == 0, text
                assert got == (reference[0].type, reference[0].to_jsonl()), text
                records += reference
                settled += 1
    assert settled >= 1000 and columns.rows == settled
    batch, reference_batch = batch_of(columns.buffers()), to_arrow_batch(records)
    assert batch.schema.equals(reference_batch.schema, check_metadata=True) and batch.equals(reference_batch)


@pytest.mark.parametrize("dictionary", [True, False])
def test_a_cluster_task_writes_its_rows_as_found_and_gives_the_same_table(tmp_path, monkeypatch, rows_of,
                                                                          dictionary):
    """Dask's and Spark's task (``scan_table``, dictionary columns or plain strings as Spark takes them): the table
    written row by row is the one built from the scan's Records, and its messages took the C road."""
    from rogerwilco.io.scan.partitioned import scan_table

    rows, taken = rows_of
    path = str(_differential_log(tmp_path))
    fast = scan_table([path, path], dictionary=dictionary)
    monkeypatch.setattr(rows, "available", False)
    slow = scan_table([path, path], dictionary=dictionary)
    assert fast.schema.equals(slow.schema, check_metadata=True) and fast.num_rows > 4000
    assert fast.equals(slow)
    assert taken["line"] + taken["candidate"] >= fast.column("record").to_pylist().count("message") * 9 // 10


def _plain_start_agrees(scan_module, text: str) -> bool:
    """Whether ``plain_start`` of ``text`` is frames_of's and candidates' reading of it (its one frame the line,
    its one candidate from there to the end) wherever it is sure; whether it was sure."""
    from rogerwilco.io.scan.frames import Frame, candidates, frames_of

    at = scan_module.plain_start(text)
    if at < 0:
        assert at == -1, text
        return False
    assert frames_of(text) == [Frame(text, 1)], text
    assert list(candidates(text)) == [(at, text[at:])], text
    return True


@settings(max_examples=400, deadline=None)
@given(_PREFIXES, _PREFIXES, _BODIES, st.sampled_from(["", " ", "\r", "x", "\u0085", "\udcff", '"}', " RW1 AN a-2",
                                                        " `RW1 AN a-2`", " {\"a\": 1}"]))
def test_a_plain_lines_candidate_found_in_c_is_the_one_python_finds(built_scan, first, second, body, end):
    """lint reads a log line the C scanner is sure of (``plain_start``) without frames_of and candidates: where it
    is sure, its answer is theirs."""
    _plain_start_agrees(built_scan.scan, first + second + body + end)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("RW1 2\t\u00a0hoHOsx-=:`\"'*_([<>]){}a-\udcff")), max_size=40))
def test_plain_start_is_never_sure_of_a_line_python_reads_otherwise(built_scan, text):
    _plain_start_agrees(built_scan.scan, text)


def test_plain_start_is_sure_of_the_common_log_line(built_scan) -> None:
    """Every line of two prefixes and a body above: the scanner's answer is Python's wherever it is sure, and it
    is sure of a third of them (a candidate behind prefixes that open nothing), the common log line among them."""
    sure = total = 0
    for first in _PREFIXES.elements:
        for second in _PREFIXES.elements:
            for body in _BODIES.elements:
                total += 1
                sure += _plain_start_agrees(built_scan.scan, first + second + body)
    assert sure > total // 3
    body = "RW1 HO ops-1 from=ops to=builder item=jira:OPS-7 ask=FIX // tail"
    for prefix in ("", "2026-10-01T09:14:03Z INFO [ops] ", "Oct  1 09:14:03 host app: ", "id=7 ", "> "):
        assert built_scan.scan.plain_start(prefix + body) == len(prefix)
    with pytest.raises(TypeError):
        built_scan.scan.plain_start(b"RW1 HO a-1")
