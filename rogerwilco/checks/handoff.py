"""Which HOs are one handoff: kept as an alias of :mod:`rogerwilco.checks.lifecycle`, where the rule lives."""

from __future__ import annotations

from .lifecycle import REISSUE, RESEND, Envelope, Enveloped, Lookup, is_duplicate_answer, issue_link, same_parties

__all__ = ["Envelope", "REISSUE", "RESEND", "is_duplicate_answer", "issue_link", "same_parties"]
