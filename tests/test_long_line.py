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

import pytest

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


def _under_caret(shown: str, caret: str) -> str:
    """The text a terminal shows above the carets (columns counted in cells: wide characters take two)."""
    from rogerwilco.core.display import cells

    pad, marks = len(caret) - len(caret.lstrip(" ")), caret.count("^")
    at, i = 0, 0
    while at < pad:
        at += cells(shown[i])
        i += 1
    while i < len(shown) and not cells(shown[i]):
        i += 1  # a combining mark belongs to the cell before it
    out = ""
    while marks > 0 and i < len(shown):
        out += shown[i]
        marks -= cells(shown[i])
        i += 1
        while i < len(shown) and not cells(shown[i]):
            out += shown[i]
            i += 1
    return out


WIDE = "RW1 ST a-1 from=a to=b item=x:1 " + " ".join(f"x_k{i}=名前{i}e\u0301" for i in range(60))


@pytest.mark.parametrize("width", [20, 40, 79, 120])
@pytest.mark.parametrize("text,token", [
    ("RW1 ST a-1 from=a to=b item=x:1 " + " ".join(f"x_k{i}=v{i}" for i in range(80)) + " ask=PAYY // t", "ask=PAYY"),
    (WIDE + " ask=PAYY // 日本語", "ask=PAYY"),
    (WIDE.replace("x_k30=", "x_K30="), "x_K30=名前30e\u0301"),  # a token holding wide and combining characters
    ("RW1 ST a-1 from=a to=b item=x:1 " + "é" * 300 + " x=1", "x=1"),
    ("RW1 ST a-1 from=a to=b item=x:1 x=\u200b" + "y" * 300, "x=\u200b"),  # an escape in the token
])
def test_the_caret_excerpt_fits_the_width_and_sits_under_the_token(text, token, width):
    from rogerwilco.core.display import cells, printable

    shown, caret = caret_lines(text, text.index(token) + 1, token, width)
    assert cells(shown) <= width and len(caret) <= width
    assert _under_caret(shown, caret) == printable(token)[:len(_under_caret(shown, caret))]
    assert len(_under_caret(shown, caret)) >= min(len(printable(token)), 5)
    assert ("\u2026" in shown) == (cells(printable(text)) >= width)


def test_a_caret_after_the_line_end_fits_too():
    text = "RW1 HO ops-1 from=ops to=builder ask=FIX " + "x_a=1 " * 40 + "x_b=2"
    shown, caret = caret_lines(text, len(text) + 1, "", 40)
    assert shown.startswith("\u2026") and shown.endswith("x_b=2") and caret == " " * len(shown) + "^"
    assert len(caret) <= 40


@pytest.mark.parametrize("command", [["validate"], ["lint", "--isolated"]])
def test_validate_and_lint_cut_the_excerpt_to_the_terminal_width(tmp_path, command):
    import os
    import subprocess
    import sys
    from pathlib import Path

    from rogerwilco.core.display import cells

    stream = tmp_path / "wide.rw1"
    stream.write_text(WIDE + " ask=PAYY // 日本語\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent), "NO_COLOR": "1", "COLUMNS": "60",
           "PYTHONIOENCODING": "utf-8"}
    out = subprocess.run([sys.executable, "-m", "rogerwilco", *command, str(stream)], capture_output=True, env=env,
                         text=True, encoding="utf-8").stdout.splitlines()
    shown, caret = out[1], out[2]
    assert cells(shown) < 60 and shown.startswith("  \u2026") and caret.strip() == "^" * 8
    assert _under_caret(shown, caret) == "ask=PAYY"
