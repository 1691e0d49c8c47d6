"""``rogerwilco report`` in a real browser: the system Chromium, headless, driven by Playwright.

tests/browser/report_check.mjs opens each report (playwright-core and axe-core from tests/browser's lockfile,
installed with ``npm ci`` on first use) and says what it saw; this file judges it. Chromium is Debian's
(``apt-get install -y chromium``, which ``.ci/run`` does): a machine without it fails here, it never skips.
The screenshots are kept under ``tests/browser/artifacts/`` (or ``$RW1_REPORT_ARTIFACTS``), for CI to keep.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.jstools import run_node

ROOT = Path(__file__).resolve().parent.parent
BROWSER = ROOT / "tests" / "browser"
CHROMIUM = Path("/usr/bin/chromium")
SECTION8 = ROOT / "examples" / "spec-section8.rw1"
#: the planted-fault examples: each a handoff and its void readback, or a done report that differs from its plan
FAULTS = sorted((ROOT / "examples" / "readback").glob("0*.rw1"))
INJECTION = ROOT / "tests" / "data" / "report" / "injection.rw1"
STATEMENT = ROOT / "tests" / "data" / "report" / "statement.rw1"
NOW = "20261003T0000Z"


def _artifacts() -> Path:
    folder = Path(os.environ.get("RW1_REPORT_ARTIFACTS", BROWSER / "artifacts"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _report(conversation: Path, out: Path) -> None:
    # named from the repository's root, as a user names it: the page's title shows this name
    result = subprocess.run([sys.executable, "-m", "rogerwilco", "report", str(conversation.relative_to(ROOT)), "-o", str(out),
                             "--now", NOW], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode in (0, 1), result.stderr
    assert out.is_file(), result.stderr


@pytest.fixture(scope="module")
def seen() -> dict:
    assert CHROMIUM.is_file(), ("Chromium is not installed: apt-get install -y chromium "
                                "(the browser tests use Debian's Chromium; .ci/run installs it)")
    assert SECTION8.is_file(), "examples/spec-section8.rw1 (the spec's section 8 conversation) is missing"
    assert FAULTS, "no planted-fault examples under examples/readback/"
    folder = _artifacts()
    pages = []
    for name, conversation, extra in [("spec-section8", SECTION8, {"clickLine": 15, "filter": "fail"}),
                                      *((path.stem, path, {"clickLine": 2}) for path in FAULTS),
                                      ("statement", STATEMENT, {"clickLine": 2}),
                                      ("injection", INJECTION, {"injection": True})]:
        html = folder / f"{name}.html"
        _report(conversation, html)
        pages.append({"name": name, "html": str(html), "screenshot": str(folder / f"{name}.png"), **extra})
    plan = folder / "plan.json"
    plan.write_text(json.dumps({"chromium": str(CHROMIUM), "pages": pages}), encoding="utf-8")
    out = run_node("report_check.mjs", str(plan), folder=BROWSER)
    (folder / "seen.json").write_text(json.dumps(out, indent=2), encoding="utf-8")
    return out


def _page(seen: dict, name: str) -> dict:
    return next(p for p in seen["pages"] if p["name"] == name)


def _valid_lines(path: Path) -> list[int]:
    from rogerwilco import Receiver
    from rogerwilco.core.semantics import check_line

    receiver = Receiver.all_bundled()
    lines = path.read_bytes().decode("utf-8").split("\n")
    return [n for n, text in enumerate(lines, start=1) if text and check_line(text, receiver).message is not None]


def test_every_example_renders_without_a_console_error_or_a_request(seen):
    assert [p["name"] for p in seen["pages"]] == ["spec-section8", *(path.stem for path in FAULTS), "statement"]
    for page in seen["pages"]:
        assert page["ready"] and page["errors"] == [], (page["name"], page["errors"])
        assert page["requests"] == [], page["name"]  # nothing leaves the file: no network, no external asset


def test_one_arrow_per_message_in_order(seen):
    for name, path in [("spec-section8", SECTION8), *((p.stem, p) for p in FAULTS)]:
        page = _page(seen, name)
        assert page["arrowLines"] == _valid_lines(path), name
        assert page["arrows"] == page["messages"], name


def test_a_messages_findings_are_marked_on_its_arrow(seen):
    # section 8: the ids used again (lines 6, 7, 18), the second close (12), the question (13), the handoff
    # open past its due date (16): the lines check-thread's and lint's findings are about
    assert _page(seen, "spec-section8")["marked"] == [6, 7, 12, 13, 16, 18]
    # the handoff left open (a note on the HO) and held by its void readback (a note on the RB)
    assert _page(seen, "01-misread-envelope")["marked"] == [1, 2]


def test_a_void_readback_says_so_on_its_arrow(seen):
    assert _page(seen, "spec-section8")["voids"] == [15]  # builder-05 read FIX as BUILD
    assert _page(seen, "01-misread-envelope")["voids"] == [2]
    assert _page(seen, "06-done-differs")["voids"] == [2]  # the done report differs from the plan
    assert _page(seen, "statement")["voids"] == []


def test_clicking_a_void_readback_shows_its_failing_tier(seen):
    envelope = _page(seen, "01-misread-envelope")  # ask=FIX read back as BUILD: tier 3
    assert envelope["clicked"]["failedTiers"] == ["3"]
    assert "3 echo: \u2717 failed" in envelope["clicked"]["tierText"]
    assert envelope["clicked"]["line"].startswith("RW1 RB builder-05 ")
    assert envelope["clicked"]["digest"].startswith("h=") and len(envelope["clicked"]["digest"]) == 14
    assert json.loads(envelope["clicked"]["json"])["slots"]["ask"] == "BUILD"
    assert _page(seen, "04-wrong-amount")["clicked"]["failedTiers"] == ["5"]  # 5400.00 read back as 5100.00
    assert _page(seen, "04-wrong-amount")["clicked"]["diff"] == [["amt", "\u2717 mismatch", "5400.00", "5100.00"]]
    section8 = _page(seen, "spec-section8")  # line 15: builder-05 reads ops-03's FIX as BUILD
    assert section8["clicked"]["failedTiers"] == ["3"]
    assert section8["afterKey"] == "16"  # the down arrow moves the selection to the next message
    assert section8["backKey"] == "15"  # and the up arrow back


def test_a_tools_statement_is_named_with_its_token(seen):
    page = _page(seen, "statement")
    assert page["clicked"]["failedTiers"] == []
    assert page["statements"] == ["The tool's statement: x_tok=48b7d454843440507a0846bc63fcd906, to be confirmed by "
                                  "exp=20261201T1950Z; the readback relays it, checked here as any readback is."]
    assert _page(seen, "spec-section8")["statements"] == []


def test_the_severity_filter_narrows_the_findings_table(seen):
    page = _page(seen, "spec-section8")
    assert page["filteredRows"] < page["findingRows"]
    assert page["filteredSeverities"] and set(page["filteredSeverities"]) == {"fail"}


def test_an_injection_conversation_executes_nothing(seen):
    (page,) = seen["injection"]
    assert page["flag"] is None  # no injected script ran (the page's CSP was bypassed: escaping alone held)
    assert page["ready"] and page["errors"] == []
    assert page["rows"] == len(INJECTION.read_bytes().splitlines())  # every line drawn and opened
    assert page["scripts"] == 2 and page["images"] == 0
    assert page["javascriptLinks"] == 0 and page["handlers"] == 0
    assert page["marks"] > 0  # bidi and zero-width characters are shown as marks, not obeyed


def test_a_screenshot_of_each_example_is_kept_and_not_blank(seen):
    for page in seen["pages"]:
        shot = _artifacts() / f"{page['name']}.png"
        assert shot.is_file() and shot.read_bytes().startswith(b"\x89PNG"), page["name"]
        assert page["ink"]["differ"] > page["ink"]["pixels"] // 50, page["name"]  # more than 2% of it drawn


def test_no_serious_accessibility_violation(seen):
    for page in seen["axe"]:
        serious = [v for v in page["violations"] if v["impact"] in ("serious", "critical")]
        assert serious == [], page["name"]
