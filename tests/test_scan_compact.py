"""A Slack export written on one line is streamed message by message: the same records as reading the line
whole, in memory bounded by one message and one block."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

from rogerwilco import Receiver
from rogerwilco.io.scan import Tally, iter_chunks, records_of_chunk, scan

DATA = Path(__file__).parent / "data" / "scan"
RECEIVER = Receiver.all_bundled()


def as_rows(records):
    return [r.to_dict() for r in records]


def test_a_compact_export_gives_the_records_of_the_whole_line(tmp_path):
    for name in ("slack-export.json", "slack-blocks.json"):
        path = tmp_path / name
        items = json.loads((DATA / name).read_text(encoding="utf-8"))
        path.write_text(json.dumps(items) + "\n", encoding="utf-8")
        limit = max(len(json.dumps(m)) for m in items) + 1
        assert path.stat().st_size > limit
        whole, streamed = Tally(), Tally()
        expected = as_rows(scan(path, tally=whole))
        got = as_rows(scan(path, max_line_bytes=limit, tally=streamed))
        assert expected and got == [{**r, "file": str(path)} for r in expected]
        assert streamed.lines == whole.lines == 1


def messages(n: int, seed: int = 5) -> list[dict]:
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        text = rnd.choice([
            f"RW1 ST ops-{i} from=ops to=builder item=jira:OPS-{i} // café “quoted” \\ back",
            f"noise é {i} " * rnd.randint(1, 40),
            f"see:\nRW1 HO ops-{i} from=ops to=builder item=x:{i} ask=FIX pri=9",
            f"RW1 ST ops-{i} from=ops to=builder item=jira:OPS-{i} &amp; more",
        ])
        out.append({"type": "message", "text": text, "ts": f"{1790000000 + i}.000100",
                    "blocks": [{"type": "rich_text", "elements": [{"type": "rich_text_section", "elements": [
                        {"type": "text", "text": text}]}]}],
                    "files": [{"name": "x" * rnd.randint(0, 300)}]})
    return out


def test_each_message_of_a_large_compact_export_is_read_in_place():
    rnd = random.Random(9)
    items = messages(1500)
    items.insert(700, {"type": "message", "text": "RW1 ST big-1 from=a to=b item=x:1 // " + "y" * 30000, "ts": "1"})
    parts = [json.dumps(m, ensure_ascii=rnd.random() < 0.5) for m in items]
    text, offsets = "[", []
    for i, part in enumerate(parts):
        offsets.append(len(text))  # code points before the message on the line
        text += part + (",  " if (i + 1) % 100 else ",\n ") if i < len(parts) - 1 else part
    text += "]\n"
    data = text.encode("utf-8")
    assert len(data) > 3 * 256 * 1024  # strings and messages are cut between blocks
    limit = 20000
    chunks = list(iter_chunks(io.BytesIO(data), "x", chunk_bytes=8192, max_line_bytes=limit))
    assert len(chunks) > 20
    got = [r for c in chunks for r in records_of_chunk(c, RECEIVER)[0]]
    line_of = [text.count("\n", 0, at) + 1 for at in offsets]
    column_of = [at - (text.rfind("\n", 0, at) + 1) for at in offsets]
    expected = []
    for i, part in enumerate(parts):
        if len(part.encode()) > limit:
            expected.append(("x", line_of[i], column_of[i] + 1, None, "too-long"))
            continue
        for r in scan(io.BufferedReader(io.BytesIO(("[" + part + "]\n").encode())), RECEIVER):
            assert r.field.startswith("/0/")
            expected.append(("x", line_of[i], r.column - 1 + column_of[i], f"/{i}" + r.field[2:], r.text))
    assert [(r.file, r.line, r.column, r.field, r.text or r.reason) for r in got] == expected
    assert sum(records_of_chunk(c, RECEIVER)[1] for c in chunks) == text.count("\n")
    assert all(r.ts is not None for r in got if r.reason != "too-long")
