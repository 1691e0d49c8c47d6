"""The conformance adapter: one JSON request per line in, one response out.

The contract is ``shared``'s conformance protocol: every response has ``ok``;
an op the implementation lacks answers ``{"ok": false, "error":
"unsupported"}``. Ops register themselves with :func:`op` in modules under
:mod:`rogerwilco.ops`, which :func:`load_ops` imports.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys
from typing import IO, Any, Callable

from . import ops as _ops_pkg
from .errors import RW1Error
from .vocab import Receiver

Handler = Callable[[dict[str, Any]], dict[str, Any]]
OPS: dict[str, Handler] = {}
_receivers: dict[str, Receiver] = {}


def op(name: str) -> Callable[[Handler], Handler]:
    def decorate(fn: Handler) -> Handler:
        OPS[name] = fn
        return fn

    return decorate


def load_ops() -> dict[str, Handler]:
    for info in pkgutil.iter_modules(_ops_pkg.__path__):
        importlib.import_module(f"{_ops_pkg.__name__}.{info.name}")
    return OPS


def receiver_for(request: dict[str, Any]) -> Receiver:
    """The receiver a request describes (``profiles``: names or objects), cached."""
    profiles = request.get("profiles") or []
    key = json.dumps(profiles, sort_keys=True)
    if key not in _receivers:
        _receivers[key] = Receiver(profiles)
    return _receivers[key]


def handle(request: Any) -> dict[str, Any]:
    if not isinstance(request, dict) or not isinstance(request.get("op"), str):
        return {"ok": False, "error": "bad request: an object with op"}
    handler = load_ops().get(request["op"])
    if handler is None:
        return {"ok": False, "error": "unsupported"}
    try:
        response = handler(request)
    except RW1Error as exc:
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    except (KeyError, TypeError, ValueError) as exc:
        return {"ok": False, "error": f"bad request: {type(exc).__name__}: {exc}"}
    return {"ok": True, **response}


def serve(stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> int:
    stdin = stdin if stdin is not None else sys.stdin
    stdout = stdout if stdout is not None else sys.stdout
    load_ops()
    for line in stdin:
        line = line.strip()
        if not line:
            continue
        try:
            request = json.loads(line)
        except json.JSONDecodeError as exc:
            response = {"ok": False, "error": f"bad request: not JSON ({exc.msg})"}
        else:
            try:
                response = handle(request)
            except Exception as exc:  # noqa: BLE001 - the adapter answers every request
                response = {"ok": False, "error": f"internal error: {type(exc).__name__}: {exc}"}
        stdout.write(json.dumps(response, ensure_ascii=False) + "\n")
        stdout.flush()
    return 0
