"""``rogerwilco report``: the file it writes, its data, its escaping, and ``--serve`` (the browser tests are
tests/test_report_browser.py)."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from hypothesis import given, settings, strategies as st

from rogerwilco.checks.thread import check_thread
from rogerwilco.front.render.report import safe_json
from rogerwilco.io.lint import THREAD_KINDS

ROOT = Path(__file__).resolve().parent.parent
SECTION8 = ROOT / "examples" / "spec-section8.rw1"
INJECTION = ROOT / "tests" / "data" / "report" / "injection.rw1"
NOW = "20261003T0000Z"


def run(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rogerwilco", *args], input=stdin, capture_output=True, cwd=ROOT)


def data_of(page: str) -> dict:
    match = re.search(r'<script type="application/json" id="rw1-data">(.*?)</script>', page, re.S)
    assert match is not None
    return json.loads(match.group(1))


def report_of(conversation: Path, tmp_path: Path, *extra: str) -> tuple[str, subprocess.CompletedProcess]:
    out = tmp_path / "report.html"
    result = run("report", str(conversation), "-o", str(out), "--now", NOW, *extra)
    return out.read_text(encoding="utf-8"), result


def test_the_report_of_section8_holds_every_line_and_check_threads_findings(tmp_path):
    page, result = report_of(SECTION8, tmp_path)
    assert result.returncode == 1  # as check-thread: findings that fail
    assert b"Traceback" not in result.stderr
    data = data_of(page)
    lines = SECTION8.read_text(encoding="utf-8").splitlines()
    assert [row[0] for row in data["messages"]] == list(range(1, len(lines) + 1))
    assert [row[1] for row in data["messages"]] == lines
    expected = check_thread(lines, now=NOW).to_json()
    thread = [{k: v for k, v in f.items() if k != "src"} for f in data["findings"] if f["src"] == "check-thread"]
    assert thread == [{k: v for k, v in f.items() if v is not None} for f in expected["findings"]]
    assert data["handoffs"] == expected["ledger"]["handoffs"]
    assert data["items"] == expected["ledger"]["items"]
    assert data["meta"]["fails"] == sum(1 for f in expected["findings"] if f["severity"] == "fail")


def test_each_readback_is_judged_with_its_tiers(tmp_path):
    page, _ = report_of(ROOT / "examples" / "readback" / "01-misread-envelope.rw1", tmp_path)
    (check,) = data_of(page)["readbacks"]
    assert (check["check"], check["ho"], check["id"], check["passed"]) == ("check-rb", "ops-03", "builder-05", False)
    assert check["tiers"]["3"] == "failed" and check["tiers"]["1"] == "passed"
    page, _ = report_of(ROOT / "examples" / "readback" / "04-wrong-amount.rw1", tmp_path)
    (check,) = data_of(page)["readbacks"]
    assert [(f["kind"], f["key"], f["sender_value"], f["receiver_value"]) for f in check["findings"]] == [
        ("mismatch", "amt", "5400.00", "5100.00")]  # side by side, as check-rb prints them
    page, _ = report_of(ROOT / "examples" / "readback" / "06-done-differs.rw1", tmp_path, "--profile", "pay")
    (check,) = data_of(page)["readbacks"]
    assert check["check"] == "check-dn" and check["passed"] is False


def test_lint_findings_are_in_and_lints_thread_rules_are_not_told_twice(tmp_path):
    page, _ = report_of(SECTION8, tmp_path)
    lint = [f for f in data_of(page)["findings"] if f["src"] == "lint"]
    assert lint and all(f["line"] >= 1 for f in lint)
    codes = {f["kind"].split()[0] for f in lint}
    assert codes == {"RW100", "RW104"}  # ids used twice with different messages; an AQ never answered
    assert not codes & set(THREAD_KINDS.values())  # check-thread's own findings, told once


def test_nothing_a_message_carries_reaches_the_page_as_markup(tmp_path):
    page, _ = report_of(INJECTION, tmp_path)
    head, _, rest = page.partition('<script type="application/json" id="rw1-data">')
    data_text, _, tail = rest.partition("</script>")
    assert not re.search(r"[<>&\u2028\u2029]", data_text)  # nothing in the data can end it or open markup
    assert not re.search(r"[^\x20-\x7e]", data_text)  # ASCII alone: every other character is an escape
    assert json.loads(data_text)["messages"][0][1].endswith('</script><script>window.__rw1_injected="script"</script>')
    assert "__rw1_injected" not in head + tail  # the payloads live in the data alone
    assert page.count("<script") == 2


def test_the_page_allows_its_own_script_alone(tmp_path):
    page, _ = report_of(SECTION8, tmp_path)
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', page).group(1)
    script = page.rsplit("<script>", 1)[1].rsplit("</script>", 1)[0]
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    assert f"script-src 'sha256-{digest}'" in policy
    assert "default-src 'none'" in policy
    assert not re.search(r"(src|href)=\"(https?:)?//", page)  # no external asset
    assert "innerHTML" not in script and "javascript:" not in script


def test_safe_json_escapes_what_could_end_a_script_element():
    text = safe_json({"t": "</script><!-- & \u2028\u2029 \u202e"})
    assert text == '{"t":"\\u003c/script\\u003e\\u003c!-- \\u0026 \\u2028\\u2029 \\u202e"}'
    assert json.loads(text) == {"t": "</script><!-- & \u2028\u2029 \u202e"}


@settings(max_examples=300, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
                    max_leaves=12))
def test_safe_json_of_any_value_is_ascii_with_no_markup_and_reads_back(value):
    text = safe_json(value)
    assert not re.search(r"[<>&]|[^\x20-\x7e]", text)
    assert json.loads(text) == value


def test_standard_input_is_read_like_a_file(tmp_path):
    out = tmp_path / "stdin.html"
    result = run("report", "-", "-o", str(out), "--now", NOW, stdin=SECTION8.read_bytes())
    assert result.returncode == 1
    data = data_of(out.read_text(encoding="utf-8"))
    assert data["meta"]["file"] == "<stdin>" and len(data["messages"]) == 19


def test_bad_arguments_get_a_clear_error_and_no_traceback(tmp_path):
    result = run("report", str(SECTION8), "-o", str(tmp_path / "x.html"), "--now", "tomorrow")
    assert result.returncode == 2 and b"YYYYMMDDTHHMMZ" in result.stderr and b"Traceback" not in result.stderr
    result = run("report", str(tmp_path / "missing.rw1"), "-o", str(tmp_path / "x.html"))
    assert result.returncode == 2 and b"cannot read" in result.stderr
    result = run("report", str(SECTION8), "-o", str(tmp_path / "no" / "such" / "x.html"), "--now", NOW)
    assert result.returncode == 2 and b"cannot write" in result.stderr and b"Traceback" not in result.stderr


def test_serve_answers_on_loopback_with_the_page_alone():
    server = subprocess.Popen([sys.executable, "-m", "rogerwilco", "report", str(SECTION8), "--serve", "--now", NOW],
                              cwd=ROOT, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    try:
        assert server.stderr is not None
        first = io.TextIOWrapper(server.stderr, encoding="utf-8").readline()
        match = re.search(r"http://127\.0\.0\.1:([0-9]+)/", first)
        assert match is not None, first
        with urllib.request.urlopen(match.group(0)) as response:
            page = response.read().decode("utf-8")
            assert response.headers["Content-Type"] == "text/html; charset=utf-8"
        assert len(data_of(page)["messages"]) == 19
        for path in ("../README.md", "README.md", "/etc/passwd"):  # no folder is served, not even the current one
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{match.group(1)}/{path}")
                raise AssertionError(f"{path} was served")
            except urllib.error.HTTPError as exc:
                assert exc.code == 404
    finally:
        server.terminate()
        server.wait()


def test_a_readback_is_judged_as_the_check_judges_it_not_as_of_now(tmp_path):
    # the HO's exp= has passed by --now, but the RB was sent before it: a line carries no time of sending, so the
    # readback is judged as the check's replay judges it, and the open handoff is the check's open-past-exp
    conversation = tmp_path / "late.rw1"
    conversation.write_text("RW1 HO a-1 from=a to=b item=x:1 ask=FIX exp=20261002T1000Z\n"
                            "RW1 RB b-1 re=a-1 from=b to=a item=x:1 ask=FIX exp=20261002T1000Z\n", encoding="utf-8")
    page, _ = report_of(conversation, tmp_path)
    data = data_of(page)
    (check,) = data["readbacks"]
    assert check["passed"] is True and not [f for f in check["findings"] if f["kind"] == "expired"]
    assert data["handoffs"][0]["readback"] == "passed"
    assert [f["kind"] for f in data["findings"] if f["severity"] == "fail"] == ["open-past-exp"]


def test_a_line_the_check_leaves_out_of_the_thread_is_not_judged(tmp_path):
    # section 8 reuses research-01 and writer-01 for a second exchange (lines 6 and 7): the check leaves the second
    # messages out of the thread (form), so the readback of line 7 is not judged against line 1's handoff
    page, _ = report_of(SECTION8, tmp_path)
    judged = [(c["check"], c["id"]) for c in data_of(page)["readbacks"]]
    assert judged == [("check-rb", "writer-01"), ("check-rb", "payer-1"), ("check-dn", "payer-2"),
                      ("check-rb", "builder-05"), ("check-rb", "builder-06")]
