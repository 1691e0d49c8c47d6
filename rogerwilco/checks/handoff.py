"""Which HOs are one handoff (spec 5 rule 1): the rule in one place.

An HO is one *issue* of a handoff. A later HO carries an earlier one forward
when it goes between the same two agents about the same item and its ``re=``
names

* the earlier HO itself: a **re-send** after a silent receiver, or
* an RB of the earlier HO, from that HO's receiver: a **re-issue** after a
  void readback.

An HO whose ``re=`` names anything else (a relay's HO answering the HO it
received comes from a different sender; an HO to the ``alt=`` a refusal
named goes to someone else) starts a handoff of its own.

A re-send answered ``UN why=DUP`` by its receiver is a **duplicate**: the
receiver already read the handoff back, the UN closes that re-send alone and
the earlier issue stays live.

:func:`rogerwilco.checks.thread.check_thread` groups a conversation's HOs with
:func:`issue_link` and :func:`is_duplicate_answer`; the tool's store
(:mod:`rogerwilco.front.tool`) applies the same two functions to the HOs it has
prepared and the RBs it has written, so both agree on what one handoff is.
Only the envelope of a message matters here (type, id, ``re``, ``from``,
``to``, ``item``), so a caller may pass :class:`Envelope` records instead of
whole messages.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Optional, Protocol

RESEND = "resend"
REISSUE = "reissue"


class Enveloped(Protocol):
    """What the rule reads of a message, read-only (a Message, an Envelope, a stored row)."""

    @property
    def type(self) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def re(self) -> Optional[str]: ...
    @property
    def from_(self) -> str: ...
    @property
    def to(self) -> str: ...
    @property
    def item(self) -> Optional[str]: ...


class Envelope(NamedTuple):
    """What the rule reads of a message."""

    type: str
    id: str
    re: Optional[str]
    from_: str
    to: str
    item: Optional[str]

    @classmethod
    def of(cls, message: Any) -> "Envelope":
        return cls(message.type, message.id, message.re, message.from_, message.to, message.item)


Lookup = Callable[[str], Optional[Enveloped]]


def same_parties(a: Enveloped, b: Enveloped) -> bool:
    """One handoff goes between the same two agents about the same item."""
    return (a.from_, a.to, a.item) == (b.from_, b.to, b.item)


def issue_link(ho: Enveloped, lookup: Lookup) -> tuple[str, str] | None:
    """``(earlier HO id, RESEND | REISSUE)`` when ``ho`` carries an earlier issue forward, else None.

    ``lookup`` maps an id to the message with that id (or None when it is not
    known).
    """
    if ho.type != "HO" or ho.re is None:
        return None
    named = lookup(ho.re)
    if named is None:
        return None
    if named.type == "HO" and same_parties(named, ho):
        return named.id, RESEND
    if named.type == "RB" and named.re is not None:
        earlier = lookup(named.re)
        if earlier is not None and earlier.type == "HO" and same_parties(earlier, ho) and named.from_ == earlier.to:
            return earlier.id, REISSUE
    return None


def is_duplicate_answer(answer: Enveloped, why: Optional[str], ho: Enveloped, link: tuple[str, str] | None) -> bool:
    """Whether ``answer`` (with its ``why=``) is the receiver's ``UN why=DUP`` to the re-send ``ho``.

    ``link`` is :func:`issue_link` of ``ho``.
    """
    return (answer.type == "UN" and why == "DUP" and answer.re == ho.id and link is not None
            and link[1] == RESEND and answer.from_ == ho.to)


__all__ = [
    "Envelope",
    "REISSUE",
    "RESEND",
    "is_duplicate_answer",
    "issue_link",
    "same_parties",
]
