"""The package's front door: the names a user imports from ``rogerwilco``."""

from __future__ import annotations

import io

import rogerwilco


def test_records_api_at_the_top_level():
    lines = ["noise", "RW1 HO a-1 from=a to=b item=x ask=DRAFT", "RW1 HO a-2 from=a"]
    records = [r.to_dict() for r in rogerwilco.scan(lines)]
    assert [(r["record"], r["line"]) for r in records] == [("message", 2), ("diagnostic", 3)]
    assert records[0]["json"] == rogerwilco.loads(lines[1]).to_json()
    assert records[1]["token"] == "to"
    table = rogerwilco.to_arrow(rogerwilco.scan(lines))
    assert table.num_rows == 2


def test_the_scan_module_stays_importable():
    from rogerwilco.scan import scan as scan_fn

    assert scan_fn is rogerwilco.scan


def test_load_and_dump_round_trip_a_stream():
    text = "RW1 HO a-1 from=a to=b item=x ask=DRAFT\nRW1 ST b-1 from=b to=a item=x pct=50\n"
    messages = [r.message for r in rogerwilco.load(io.BytesIO(text.encode()))]
    out = io.StringIO()
    rogerwilco.dump(messages, out)
    assert out.getvalue() == text
