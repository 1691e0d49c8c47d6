"""Adapter op check-thread: a conversation's threads (spec 5.4)."""

from __future__ import annotations

from typing import Any

from ..adapter import op, receiver_for
from ...checks.thread import check_thread


@op("check-thread")
def check_thread_op(request: dict[str, Any]) -> dict[str, Any]:
    lines = request["lines"]
    if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
        raise TypeError("lines is a list of strings")
    report = check_thread(lines, now=request.get("now"), profiles=receiver_for(request))
    return report.to_json()
