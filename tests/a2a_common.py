"""What both A2A test files share: the spec's lines, the receiver, a refusal's facts."""

from __future__ import annotations

from pathlib import Path

from rogerwilco import Receiver
from rogerwilco.front.a2a import from_a2a

ROOT = Path(__file__).resolve().parent.parent
SPEC = (ROOT / "examples" / "spec-section8.rw1").read_text(encoding="utf-8").splitlines()
ALL = Receiver.all_bundled()
HO = SPEC[0]


def refusal(obj) -> tuple:
    """(kind, key, token, why) of the first refusal of a carried message."""
    out = from_a2a(obj, ALL)
    assert not out.ok and out.message is None
    first = out.refusal
    return first.kind, first.key, first.token, first.why
