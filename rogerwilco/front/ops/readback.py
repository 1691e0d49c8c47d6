"""Adapter ops of the readback: make-rb, check-rb, check-ho, check-dn (contract table)."""

from __future__ import annotations

from typing import Any

from ..adapter import op, receiver_for
from ...checks.readback import check_dn, check_ho, check_rb, make_rb


def _answer(report: Any) -> dict[str, Any]:
    """The contract's answer to a check: the verdict and the findings (the per-tier table stays with the API)."""
    out = report.to_json()
    out.pop("tiers", None)
    return out


def _mapping(request: dict[str, Any], name: str) -> dict[str, Any] | None:
    value = request.get(name)
    if value is not None and not isinstance(value, dict):
        raise ValueError(f"{name} is an object of slot values")
    return value


@op("make-rb")
def make_rb_op(request: dict[str, Any]) -> dict[str, Any]:
    n = request["n"]
    if isinstance(n, bool) or not isinstance(n, int):
        raise ValueError("n is an integer")
    message = make_rb(
        request["ho"], n, profiles=receiver_for(request),
        acc=request.get("acc"), do=request.get("do"), not_=request.get("not"), asm=request.get("asm"),
        eta=request.get("eta"), values=_mapping(request, "values"), digest=bool(request.get("digest", True)),
    )
    return {"line": message.to_line()}


@op("check-rb")
def check_rb_op(request: dict[str, Any]) -> dict[str, Any]:
    return _answer(check_rb(request["ho"], request["rb"], profiles=receiver_for(request),
                    expect_acc=request.get("expect_acc"), record=_mapping(request, "record"), now=request.get("now")))


@op("check-ho")
def check_ho_op(request: dict[str, Any]) -> dict[str, Any]:
    record = _mapping(request, "record")
    if record is None:
        raise ValueError("check-ho needs a record")
    adds = request.get("relay_adds")
    if adds is not None and (not isinstance(adds, list) or not all(isinstance(a, str) for a in adds)):
        raise ValueError("relay_adds is a list of slot names")
    return _answer(check_ho(request["line"], record, profiles=receiver_for(request), relay_adds=adds))


@op("check-dn")
def check_dn_op(request: dict[str, Any]) -> dict[str, Any]:
    return _answer(check_dn(request["ho"], request["dn"], request.get("rb"), profiles=receiver_for(request),
                            record=_mapping(request, "record"), now=request.get("now")))
