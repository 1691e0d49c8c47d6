"""D14: bidirectional controls are refused in a line; other invisible characters show escaped.

(A line may hold no other invisible character either, but a tail's bound
joiners and selectors: D16, tests/test_invisible.py.)

The refusal holds on every path that reads a line: the grammar (Lark), the
fast path derived from it, the JSON Schema of the JSON form and the
JavaScript port. What a person is shown goes through one function,
:func:`rogerwilco.core.display.printable`, which makes every invisible character
visible and never shows two different values alike.
"""

from __future__ import annotations

import io
import re
import shutil
import unicodedata
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rogerwilco import Message
from rogerwilco.front.conformance import ImplProcess
from rogerwilco.core.display import INVISIBLE_RANGES, printable
from rogerwilco.core.errors import EncodeError
from rogerwilco.core.jsonform_schema import schema
from rogerwilco.checks.readback import check_dn
from rogerwilco.front.render import make_console
from rogerwilco.front.render.readback import report_renderable
from rogerwilco.core.semantics import check_line
from rogerwilco.core.syntax import BIDI_CONTROLS, line_regex, parse_raw_lark
from rogerwilco.core.errors import RW1SyntaxError

BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
LINE = "RW1 HO a-1 from=a to=b item=x:1 ask=FIX acct=1234 // pay the 12 invoices"
PORT = Path(__file__).resolve().parents[1] / "examples" / "ports" / "js" / "adapter.js"


def test_the_bidi_set_is_the_one_d14_lists():
    assert BIDI_CONTROLS == frozenset(BIDI)


@pytest.mark.parametrize("ch", list(BIDI))
@pytest.mark.parametrize("where", ["acct=12{}34", "pay the 12{} invoices", "item=x:{}1"])
def test_a_bidi_control_anywhere_in_a_line_is_a_syntax_error(ch, where):
    target = where.format("")
    line = LINE.replace(target, where.format(ch))
    assert line != LINE
    result = check_line(line)
    assert not result.valid
    first = result.refusal
    assert first.kind == "syntax" and first.why == "UNK"
    assert f"U+{ord(ch):04X}" in first.message and "bidirectional" in first.message
    assert ch in first.token  # the token is the chunk as written
    # Both paths refuse it: the derived fast path and the grammar itself.
    assert line_regex().fullmatch(line) is None
    with pytest.raises(RW1SyntaxError):
        parse_raw_lark(line)


def test_the_same_line_without_the_control_is_valid():
    assert check_line(LINE).valid


@pytest.mark.parametrize("ch", list(BIDI))
def test_a_json_form_holding_a_bidi_control_is_refused_by_encode_and_the_schema(ch):
    form = Message.from_line(LINE).to_json()
    validator = jsonschema.Draft202012Validator(schema(None))
    assert validator.is_valid(form)
    for key in ("acct", None):
        bad = {**form, "slots": dict(form["slots"])}
        if key:
            bad["slots"][key] = "12" + ch + "34"
        else:
            bad["tail"] = "pay " + ch + "the invoices"
        assert not validator.is_valid(bad), (key, ch)
        with pytest.raises(EncodeError):
            Message.from_json(bad)


def test_the_javascript_port_refuses_bidi_controls_as_python_does():
    node = shutil.which("node")
    assert node is not None, "node is needed to run the JavaScript port"
    impl = ImplProcess([node, str(PORT)])
    try:
        for ch in BIDI:
            line = LINE.replace("acct=1234", f"acct=12{ch}34")
            got = impl.ask({"op": "parse", "line": line, "profiles": []}, 30)
            assert got["valid"] is False, (ch, got)
            assert got["why"] == "UNK" and got["token"] == f"acct=12{ch}34"
            reply = impl.ask({"op": "reply", "line": line, "as": "me", "n": 1, "profiles": []}, 30)
            assert reply["reply"].startswith(f"RW1 UN me-1 re=a-1 from=me to=a why=UNK // acct=12\\u{ord(ch):04x}34 ")
            assert ch not in reply["reply"]
    finally:
        impl.stop()


# ---------------------------------------------------------------- printable

@pytest.mark.parametrize("text, shown", [
    ("acct=12\u200b34", "acct=12\\u200b34"),  # zero-width space
    ("a\u00a0b", "a\\xa0b"),  # no-break space
    ("\ufeffRW1", "\\ufeffRW1"),  # byte order mark
    ("\u202e4321", "\\u202e4321"),
    ("emoji \U0001f469\u200d\U0001f4bb", "emoji \U0001f469\\u200d\U0001f4bb"),  # the joiner shows, the faces stay
    ("tag \U000e0041", "tag \\U000e0041"),
    ("\x1b[2J", "\\x1b[2J"),
    ("crème brûlée", "crème brûlée"),
    ("C:\\temp", "C:\\temp"),
    ("plain ascii", "plain ascii"),
])
def test_printable_escapes_what_a_person_cannot_see(text, shown):
    assert printable(text) == shown


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(codec=None) | st.sampled_from(list(BIDI + "\\xuU\u200b\u00a0\ufeff")), max_size=40))
def test_printable_leaves_nothing_invisible_and_is_idempotent(text):
    shown = printable(text)
    assert printable(shown) == shown  # a message quoting an escaped token is not escaped twice
    for ch in shown:
        code = ord(ch)
        assert ch == " " or not any(lo <= code <= hi for lo, hi in INVISIBLE_RANGES)
        assert ch == " " or unicodedata.category(ch) not in ("Cc", "Cf", "Zs", "Zl", "Zp", "Cs")
    # Only invisible characters change, each into its escape.
    assert shown == "".join(c if printable(c) == c else printable(c) for c in text)
    for c in set(text):
        assert printable(c) == c or re.fullmatch(r"\\x[0-9a-f]{2}|\\u[0-9a-f]{4}|\\U[0-9a-f]{8}", printable(c))
        assert (printable(c) == c) == (c == " " or not any(lo <= ord(c) <= hi for lo, hi in INVISIBLE_RANGES))


def test_a_report_on_a_refused_done_report_shows_the_invisible_character_escaped():
    # D16 refuses the zero-width space in a value, so the DN does not parse; the report names it escaped.
    ho = "RW1 HO scheduler-1 from=scheduler to=payer item=inv:7 ask=PAY p=pay rb=exec amt=10.00 cur=EUR acct=DE1234"
    dn = ("RW1 DN payer-1 re=scheduler-1 from=payer to=scheduler item=inv:7 out=OK p=pay amt=10.00 cur=EUR "
          "acct=DE12\u200b34")
    report = check_dn(ho, dn, profiles=["pay"])
    buf = io.StringIO()
    make_console(buf, width=120, color=False).print(report_renderable(report))
    text = buf.getvalue()
    assert [f.kind for f in report.findings if f.severity == "fail"] == ["form"]
    assert "DE12\\u200b34" in text and "\u200b" not in text and "U+200B" in text


def test_profile_check_shows_a_profile_version_escaped(tmp_path, capsys):
    from rogerwilco.front.cli import main

    path = tmp_path / "p.json"
    path.write_text('{"profile": "p", "version": "1\\u202e\\u001b[2J", "extends": "RW1"}', encoding="utf-8")
    assert main(["profile", "check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\u202e" not in out and "\x1b[2J" not in out and "\\u202e" in out
