"""conformance/README.md quotes only what a run shows.

Every case id it names exists (a glob names at least one case), and each
figure in its "Figures" section is the last line that the command above it
prints today. When a case is added, a run prints a new figure: update the
guide with it.
"""

from __future__ import annotations

import fnmatch
import re
import shlex
from pathlib import Path

from rogerwilco.front.cli import main
from rogerwilco.front.conformance import load_cases

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "conformance" / "README.md").read_text(encoding="utf-8")
CASE_ID = re.compile(r"\b([a-z][a-z0-9-]*/[a-z][a-z0-9-]*:[a-z0-9*][a-z0-9*._-]*)")


def test_every_case_id_the_guide_names_exists():
    ids = [c.id for c in load_cases()]
    quoted = sorted(set(CASE_ID.findall(README)))
    assert len(quoted) >= 10
    missing = [q for q in quoted if not any(fnmatch.fnmatchcase(i, q) for i in ids)]
    assert missing == []


def _figures() -> list[tuple[str, str]]:
    section = README.split("## Figures", 1)[1]
    block = section.split("```", 2)[1].strip().splitlines()
    pairs = list(zip(block[0::2], block[1::2]))
    assert pairs and all(cmd.startswith("rogerwilco conformance") for cmd, _ in pairs)
    return pairs


def test_every_figure_is_what_a_run_prints(capsys):
    for command, figure in _figures():
        args = shlex.split(command)[1:]
        args = [str(ROOT / a) if a.startswith("examples/") else a for a in args]
        if "--impl" in args:
            i = args.index("--impl") + 1
            args[i] = " ".join(str(ROOT / p) if p.startswith("examples/") else p for p in shlex.split(args[i]))
        main(args)
        last = capsys.readouterr().out.rstrip("\n").splitlines()[-1]
        assert last == figure, f"conformance/README.md quotes {figure!r} for `{command}`; a run prints {last!r}"
