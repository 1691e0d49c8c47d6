"""Adapter ops of the core: parse, encode, digest, reply."""

from __future__ import annotations

from typing import Any

from ..adapter import int_field, op, receiver_for
from ...core.errors import RW1Error
from ...core.message import Message
from ...core.semantics import check_line, refusal_for
from ...core.vocab import Receiver


def _refused(why: str | None, token: str | None) -> dict[str, Any]:
    return {"valid": False, "why": why or "UNK", "token": token or ""}


@op("parse")
def parse(request: dict[str, Any]) -> dict[str, Any]:
    result = check_line(request["line"], receiver_for(request))
    if result.message is not None:
        return {"valid": True, "json": result.message.to_json()}
    first = result.refusal
    return _refused(first.why if first else "UNK", first.token if first else "")


@op("encode")
def encode(request: dict[str, Any]) -> dict[str, Any]:
    receiver = receiver_for(request)  # a profile that does not load is a bad request, not a refusal of the form
    try:
        message = Message.from_json(request["json"], receiver)
        return {"valid": True, "line": message.to_line()}
    except RW1Error as exc:
        return _refused(exc.why, exc.token)


@op("digest")
def digest(request: dict[str, Any]) -> dict[str, Any]:
    receiver = receiver_for(request) if request.get("profiles") else Receiver.all_bundled()
    return {"h": Message.from_line(request["line"], receiver).digest()}


@op("reply")
def reply(request: dict[str, Any]) -> dict[str, Any]:
    result = check_line(request["line"], receiver_for(request))
    return {"reply": refusal_for(result, request["as"], int_field(request, "n"))}
