"""``rogerwilco parse`` reads a long input through the batch path: the same output, byte for byte, as the full
pass gives every line (its JSON form on stdout, why not on stderr, the exit status)."""

from __future__ import annotations

import random

from rogerwilco.front.cli import main
from rogerwilco.front.commands import lines as lines_command
from rogerwilco.io import stream

from .test_accept import HOSTILE, _bench, conformance_lines


def _mixed(count: int) -> bytes:
    """Valid lines of both corpora, with noted, refused, hostile, blank, bare-CR, CRLF and non-UTF-8 lines
    among them (a seeded draw)."""
    draw = random.Random(31)
    valid = _bench.corpora(["realistic"], count, False)["realistic"] + _bench.corpus(count // 4)
    cases = conformance_lines()
    out: list[bytes] = []
    for number in range(count):
        line = draw.choice(valid)
        roll = draw.random()
        if roll < 0.05:
            line += " x_seen=1 zeta=2"  # an extension and an unknown key: valid, with notes
        elif roll < 0.10:
            line = line.replace("from=", "from=!", 1)  # refused
        elif roll < 0.13:
            at = draw.randrange(len(line))
            line = line[:at] + draw.choice(HOSTILE) + line[at + 1:]
        elif roll < 0.16:
            line = draw.choice(cases)
        elif roll < 0.17:
            line = ""
        data = line.encode("utf-8", "surrogatepass")
        if roll > 0.995:
            data += b"\xff"  # not UTF-8
        end = b"\r" if 0.98 < roll <= 0.99 else b"\r\n" if 0.97 < roll <= 0.98 else b"\n"
        out.append(data + end)
    return b"".join(out)


def test_parse_through_the_batch_path_writes_what_the_full_pass_writes(tmp_path, capsys, monkeypatch) -> None:
    path = tmp_path / "mixed.rw1"
    path.write_bytes(_mixed(3 * stream.QUIET_FROM))
    settled = []
    batch = lines_command._batch_text

    def counting():
        form_text = batch()

        def counted(text, receiver):
            found = form_text(text, receiver)
            settled.append(found is not None)
            return found

        return counted

    monkeypatch.setattr(lines_command, "_batch_text", counting)
    fast = (main(["parse", str(path)]), *capsys.readouterr())
    assert sum(settled) > stream.QUIET_FROM  # the batch path wrote most lines past QUIET_FROM
    assert not all(settled)  # and left some to the full pass
    monkeypatch.setattr(lines_command, "QUIET_FROM", 10 ** 9)  # every line through the full pass
    full = (main(["parse", str(path)]), *capsys.readouterr())
    assert fast == full
    code, out, err = full
    assert code == 1 and out.count("\n") > 2 * stream.QUIET_FROM and err.count("\n") > 100


def test_parse_shows_its_progress_on_a_terminal(tmp_path, monkeypatch, capsys) -> None:
    from rogerwilco.front.render import progress

    path = tmp_path / "talk.rw1"
    path.write_bytes(_mixed(50))
    shown = []

    class Recorded(progress.FileProgress):
        def __init__(self, label: str, total: int, threshold: int = 1) -> None:
            shown.append((label, total))
            super().__init__(label, total, threshold=1)  # any size: a bar

    class Terminal:
        def __init__(self) -> None:
            self.written: list[str] = []

        def isatty(self) -> bool:
            return True

        def write(self, text: str) -> int:
            self.written.append(text)
            return len(text)

        def flush(self) -> None:
            pass

    monkeypatch.setattr(progress, "FileProgress", Recorded)
    monkeypatch.setattr("sys.stderr", Terminal())
    main(["parse", str(path)])
    assert shown == [("parse", path.stat().st_size)]
