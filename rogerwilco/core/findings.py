"""Findings: what every check returns, as plain values.

A finding is the fact a check established, in the fixed shape of the
conformance contract: ``severity`` (``fail`` or ``note``), ``kind`` (from a
fixed table per check), ``tier`` (1-5 for readback tiers, else None) and
``key`` (the slot or constraint key concerned, else None), with a ``message``
for people. Line findings also carry the ``why`` code a refusal would use,
the offending ``token`` as written and its 1-based ``column``.
"""

from __future__ import annotations

from typing import Any, Iterable

import attrs

FAIL = "fail"
NOTE = "note"


@attrs.frozen(kw_only=True)
class Finding:
    severity: str
    kind: str
    message: str
    tier: int | None = None
    key: str | None = None
    token: str | None = None
    column: int | None = None
    why: str | None = None
    sender: Any = None  # the sender's value, for side-by-side reports
    receiver: Any = None  # the receiver's value
    hint: str | None = None  # "did you mean": for people and editors, never part of a reply
    fix: str | None = None  # the token that would replace ``token`` (an editor's quick fix)

    @property
    def failed(self) -> bool:
        return self.severity == FAIL

    def to_json(self) -> dict[str, Any]:
        """The contract's shape: severity, kind, tier, key, message (+ extras when set)."""
        out: dict[str, Any] = {
            "severity": self.severity,
            "kind": self.kind,
            "tier": self.tier,
            "key": self.key,
            "message": self.message,
        }
        for name in ("token", "column", "why", "hint", "fix"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out

    def signature(self) -> tuple[str, str, int | None, str | None]:
        """What conformance compares: (severity, kind, tier, key)."""
        return (self.severity, self.kind, self.tier, self.key)


def passed(findings: Iterable[Finding]) -> bool:
    return not any(f.failed for f in findings)
