"""One long line is checked in time linear in its length (issue 11 item 4).

The work is counted, not timed: the never-guess pass gets the line's slots
as a sequence that counts every walk over it (iteration, ``index``,
slicing). A linear pass walks the slots a fixed number of times whatever
their number; the old pass walked them again for every repeated key, so its
count grew with the repeats. The timing figures are in
``benchmarks/long_line_bench.py``.
"""

from __future__ import annotations

import io

from rogerwilco import check_line
from rogerwilco.core.display import _CARET_WIDTH as CARET_WIDTH, caret_lines
from rogerwilco.front.render import make_console
from rogerwilco.front.render.lines import finding_text
from rogerwilco.core.semantics import check_raw
from rogerwilco.core.syntax import parse_raw
from rogerwilco.core.vocab import Receiver

HEAD = "RW1 HO a-1 from=a to=b item=x ask=FIX "


class CountingSlots(tuple):
    walks = 0

    def __iter__(self):
        CountingSlots.walks += 1
        return super().__iter__()

    def index(self, *args):
        CountingSlots.walks += 1
        return super().index(*args)

    def __getitem__(self, item):
        if isinstance(item, slice):
            CountingSlots.walks += 1
        return super().__getitem__(item)


def walks_for(line: str) -> tuple[int, object]:
    raw = parse_raw(line)
    raw = raw._replace(tokens=CountingSlots(raw.tokens))
    CountingSlots.walks = 0
    result = check_raw(raw, Receiver.all_bundled())
    return CountingSlots.walks, result


def test_repeated_keys_are_found_in_a_fixed_number_of_walks_over_the_slots():
    counts = []
    for n in (10, 100, 1000):
        walks, result = walks_for(HEAD + " ".join(["a=1"] * n))
        assert [f.kind for f in result.findings].count("repeated") == n - 1
        counts.append(walks)
    assert counts[0] == counts[1] == counts[2] <= 3, counts


def test_unknown_and_bad_keys_are_reported_in_a_fixed_number_of_walks():
    counts = []
    for n in (10, 100, 1000):
        line = HEAD + " ".join(f"k{i}=1" if i % 2 else f"pri{i}=9" for i in range(n))
        walks, _ = walks_for(line)
        counts.append(walks)
        walks, _ = walks_for(HEAD + "p=pay " + " ".join(f"k{i}=1" for i in range(n)))
        counts.append(walks)
    assert len(set(counts[0::2])) == 1 and len(set(counts[1::2])) == 1, counts


def test_repeats_keep_their_columns_and_order():
    line = HEAD + "a=1 b=2 a=3 c=4 a=5 b=6"
    result = check_line(line)
    repeats = [(f.token, f.column) for f in result.findings if f.kind == "repeated"]
    assert repeats == [("a=3", line.index("a=3") + 1), ("a=5", line.index("a=5") + 1), ("b=6", line.index("b=6") + 1)]
    assert result.findings[0].kind == "repeated"


def test_a_64_kib_line_of_16000_repeats_is_checked_and_reported_in_bounded_output():
    line = HEAD + " ".join(["a=1"] * 16_000)
    assert len(line.encode()) > 64_000
    result = check_line(line, line_number=1)
    assert sum(f.kind == "repeated" for f in result.findings) == 15_999
    last = result.findings[15_998]
    assert last.column == len(line) - 2
    buf = io.StringIO()
    console = make_console(buf, width=400, color=False)
    for finding in result.findings[:200]:
        console.print(finding_text(result, finding, "big.rw1"))
    per_finding = len(buf.getvalue()) / 200
    assert per_finding < 2 * CARET_WIDTH + 200  # a window of the line, not the whole line per finding


def test_the_caret_window_points_at_the_token():
    text = "x" * 500 + " tok=1 " + "y" * 500
    shown, caret = caret_lines(text, 502, "tok=1")
    assert len(shown) <= CARET_WIDTH + 6
    assert shown[caret.index("^"):caret.index("^") + 5] == "tok=1" and caret.count("^") == 5
    shown, caret = caret_lines("RW1 HO a\u200b-1", 8, "a\u200b-1")
    assert shown == "RW1 HO a\\u200b-1" and caret == " " * 7 + "^" * len("a\\u200b-1")
