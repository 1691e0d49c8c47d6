"""No path prints user text raw: escape sequences never reach a terminal (D14).

Each command is driven with ESC/CSI/OSC 8 and invisible characters in the
places a user supplies text (a line argument, a file name, an option value),
on its error paths as well as its reports; nothing it writes may hold a
control character other than the line breaks it writes itself, and the
offending text is shown escaped.
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rogerwilco.front.cli import main
from rogerwilco.core.errors import printable

CSI = "\x1b[2J\x1b[32mPASSED"
OSC8 = "\x1b]8;;http://x.example\x1b\\link\x1b]8;;\x1b\\"
HO = "RW1 HO a-1 from=a to=b item=x ask=FIX"


_HIDDEN = {"Cc", "Cf", "Cs", "Zs", "Zl", "Zp"}  # controls, format characters, surrogates, separators


def _clean(text: str) -> bool:
    """Nothing a person cannot see, or that drives a terminal, but the line breaks the CLI writes."""
    return all(ch in "\n " or unicodedata.category(ch) not in _HIDDEN for ch in text)


CASES = [
    ["make-rb", "--ho", HO + CSI, "--n", "1"],
    ["check-rb", "--ho", HO + CSI, "--rb", "RW1 RB b-1 from=b to=a re=a-1 rb=ok"],
    ["check-dn", "--ho", HO + CSI, "--dn", "RW1 DN b-1 from=b to=a re=a-1 out=OK"],
    ["check-ho", "--line", HO + OSC8, "--record", "/nonexistent\x1b[2J.json"],
    ["reply", "--as", "b", "--n", "1", "garbage" + OSC8],
    ["reply", "--as", "b\x1b[2J", "--n", "1", "RW1 HO a-1 from=a to=b item=x ask=FIXX"],
    ["digest", "RW1 HO \x1b[2Jx"],
    ["validate", "/nonexistent/f\x1b[2Jx.rw1"],
    ["validate", "--profile", "nosuch\x1b[2J", "/dev/null"],
    ["check-thread", "/nonexistent\x1b]8;;x\x1b\\"],
    ["validate", "--format", "\x1b[2J"],
    ["encode", "/nonexistent\u202e.json"],
]


@pytest.mark.parametrize("argv", CASES, ids=[" ".join(a[:2]) for a in CASES])
def test_error_paths_escape_what_the_user_gave(argv, capsys):
    with pytest.raises(SystemExit) if "--format" in argv else _nothing():
        main(argv)
    out, err = capsys.readouterr()
    assert _clean(out) and _clean(err), (out, err)
    assert "\\x1b" in err or "\\u202e" in err, err


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_a_file_name_with_escapes_is_shown_escaped_in_a_report(tmp_path, capsys):
    path = tmp_path / "f\x1b[2Jx.rw1"
    path.write_text(HO + "X\n")
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert _clean(out) and "f\\x1b[2Jx.rw1:1:" in out


def test_invisible_characters_are_shown_escaped():
    assert printable("acct=12\u200b34\u00a0x\u2066") == "acct=12\\u200b34\\xa0x\\u2066"
    assert printable("\U000e0001") == "\\U000e0001"
    assert printable("plain text, é ✓ 表") == "plain text, é ✓ 表"


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_printable_output_shows_nothing_invisible(text):
    assert _clean(printable(text).replace("\n", "\\n"))
