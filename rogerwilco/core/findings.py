"""Findings: what every check returns, as plain values.

A finding is the fact a check established, in the fixed shape of the
conformance contract: ``severity`` (``fail`` or ``note``), ``kind`` (from a
fixed table per check), ``tier`` (1-5 for readback tiers, else None) and
``key`` (the slot or constraint key concerned, else None), with a ``message``
for people. Line findings also carry the ``why`` code a refusal would use,
the offending ``token`` as written and its 1-based ``column``. A check that
compares two sides keeps both values, ``sender_value`` (what the sender
wrote) and ``receiver_value`` (what the receiver read back or reported), for
side-by-side reports. (They were ``sender`` and ``receiver``, a name that
said two things next to the ``Receiver`` class; the old names read and build
for one release, with a DeprecationWarning.)
"""

from __future__ import annotations

import warnings
from typing import Any, Iterable

import attrs

FAIL = "fail"
NOTE = "note"


_RENAMED = {"sender": "sender_value", "receiver": "receiver_value"}


def _renamed(old: dict[str, Any]) -> dict[str, Any]:
    """The values given under the old names, warned about, under the new ones."""
    unknown = sorted(set(old) - set(_RENAMED))
    if unknown:
        raise TypeError(f"Finding() got an unexpected keyword argument {unknown[0]!r}")
    for name in old:
        warnings.warn(f"Finding({name}=...) is now Finding({_RENAMED[name]}=...); the old name goes in the "
                      "next release", DeprecationWarning, stacklevel=3)
    return {_RENAMED[name]: value for name, value in old.items()}


@attrs.frozen(kw_only=True, init=False)
class Finding:
    severity: str
    kind: str
    message: str
    tier: int | None = None
    key: str | None = None
    token: str | None = None
    column: int | None = None
    why: str | None = None
    sender_value: Any = None  # the sender's value, for side-by-side reports
    receiver_value: Any = None  # the receiver's value
    hint: str | None = None  # "did you mean": for people and editors, never part of a reply
    fix: str | None = None  # the token that would replace ``token`` (an editor's quick fix)

    def __init__(self, *, severity: str, kind: str, message: str, tier: int | None = None,
                 key: str | None = None, token: str | None = None, column: int | None = None,
                 why: str | None = None, sender_value: Any = None, receiver_value: Any = None,
                 hint: str | None = None, fix: str | None = None, **old: Any) -> None:
        if old:
            given = _renamed(old)
            sender_value = given.get("sender_value", sender_value)
            receiver_value = given.get("receiver_value", receiver_value)
        _fill(self, severity, kind, message, tier, key, token, column, why, sender_value, receiver_value, hint, fix)

    @property
    def sender(self) -> Any:
        """Deprecated: :attr:`sender_value`."""
        warnings.warn("Finding.sender is now Finding.sender_value; the old name goes in the next release",
                      DeprecationWarning, stacklevel=2)
        return self.sender_value

    @property
    def receiver(self) -> Any:
        """Deprecated: :attr:`receiver_value` (not the ``Receiver`` that holds profiles)."""
        warnings.warn("Finding.receiver is now Finding.receiver_value; the old name goes in the next release",
                      DeprecationWarning, stacklevel=2)
        return self.receiver_value

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


# Each field's slot, set straight: a Finding is filled once, when made, and attrs' own __init__ sets each frozen
# field through object.__setattr__ by name, which costs a check (a refused line's) a third of its time.
(_SEVERITY, _KIND, _MESSAGE, _TIER, _KEY, _TOKEN, _COLUMN, _WHY, _SENDER_VALUE, _RECEIVER_VALUE, _HINT,
 _FIX) = (Finding.__dict__[field.name].__set__ for field in attrs.fields(Finding))
_NEW = object.__new__


def _fill(finding: Finding, severity: str, kind: str, message: str, tier: int | None, key: str | None,
          token: str | None, column: int | None, why: str | None, sender_value: Any, receiver_value: Any,
          hint: str | None, fix: str | None) -> Finding:
    _SEVERITY(finding, severity)
    _KIND(finding, kind)
    _MESSAGE(finding, message)
    _TIER(finding, tier)
    _KEY(finding, key)
    _TOKEN(finding, token)
    _COLUMN(finding, column)
    _WHY(finding, why)
    _SENDER_VALUE(finding, sender_value)
    _RECEIVER_VALUE(finding, receiver_value)
    _HINT(finding, hint)
    _FIX(finding, fix)
    return finding


def passed(findings: Iterable[Finding]) -> bool:
    return not any(f.failed for f in findings)


def fail(*, kind: str, message: str, tier: int | None = None, key: str | None = None, token: str | None = None,
         column: int | None = None, why: str | None = None, sender_value: Any = None, receiver_value: Any = None,
         hint: str | None = None, fix: str | None = None, **old: Any) -> Finding:
    """A ``fail`` finding; every other field (``tier key token column why sender_value receiver_value hint
    fix``) by name."""
    if old:
        return Finding(severity=FAIL, kind=kind, message=message, tier=tier, key=key, token=token, column=column,
                       why=why, sender_value=sender_value, receiver_value=receiver_value, hint=hint, fix=fix, **old)
    return _fill(_NEW(Finding), FAIL, kind, message, tier, key, token, column, why, sender_value, receiver_value,
                 hint, fix)


def note(*, kind: str, message: str, tier: int | None = None, key: str | None = None, token: str | None = None,
         column: int | None = None, why: str | None = None, sender_value: Any = None, receiver_value: Any = None,
         hint: str | None = None, fix: str | None = None, **old: Any) -> Finding:
    """A ``note`` finding; every other field by name, as for :func:`fail`."""
    if old:
        return Finding(severity=NOTE, kind=kind, message=message, tier=tier, key=key, token=token, column=column,
                       why=why, sender_value=sender_value, receiver_value=receiver_value, hint=hint, fix=fix, **old)
    return _fill(_NEW(Finding), NOTE, kind, message, tier, key, token, column, why, sender_value, receiver_value,
                 hint, fix)
