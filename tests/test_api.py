"""The package's front door: the names a user imports from ``rogerwilco``."""

from __future__ import annotations

import io

import pytest

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


def test_every_error_of_the_package_is_a_value_error():
    """A refusal is a bad value: frameworks that catch ValueError (pydantic validators) treat it as one."""
    with pytest.raises(ValueError) as caught:
        rogerwilco.loads("RW1 HO a-1 from=a to=b item=x ask=PAYY")
    assert isinstance(caught.value, rogerwilco.RW1Error) and caught.value.token == "ask=PAYY"


def test_a_readback_report_says_each_tiers_status_in_its_json():
    from rogerwilco.readback import check_rb

    ho = "RW1 HO research-01 from=research to=writer item=gh:crox/site#42 ask=DRAFT due=20261002"
    rb = "RW1 RB writer-01 re=research-01 from=writer to=research item=gh:crox/site#42 ask=DRAFT due=20261002"
    tiers = check_rb(ho, rb).to_json()["tiers"]
    assert [(t["tier"], t["name"]) for t in tiers] == [(1, "receipt"), (2, "integrity"), (3, "echo"),
                                                         (4, "comprehension"), (5, "execution")]
    assert tiers[0]["status"] == "passed" and tiers[1]["status"] == "not checked"
