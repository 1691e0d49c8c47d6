"""The conformance adapter: one JSON request per line in, one response out.

The contract is ``shared``'s conformance protocol: every response has ``ok``;
an op the implementation lacks answers ``{"ok": false, "error":
"unsupported"}``. Ops register themselves with :func:`op` in modules under
:mod:`rogerwilco.front.ops`, which :func:`load_ops` imports.

Contract version 2: ``{"op": "start", "contract": 2}`` is answered with the
handshake (this implementation, its ops and its bundled profiles), and every
response echoes the request's ``seq`` when it has one, errors included. A
client that never says ``start`` and sends no ``seq`` speaks version 1 and
gets version 1 answers.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys
from typing import IO, Any, Callable

from . import ops as _ops_pkg
from ..core._lru import RECEIVER_CACHE_SIZE, LRUCache
from ..core.errors import RW1Error
from ..core.vocab import BUNDLED_PROFILES, Receiver

Handler = Callable[[dict[str, Any]], dict[str, Any]]
OPS: dict[str, Handler] = {}
_receivers: LRUCache[Receiver] = LRUCache(RECEIVER_CACHE_SIZE)

#: The longest request line the adapter reads (a line of up to 64 KiB, JSON-escaped, and inline profiles).
MAX_REQUEST_BYTES = 1024 * 1024


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
    """The receiver a request describes, cached (the most recent few, see :mod:`rogerwilco.core._lru`).

    ``profiles`` is a list of bundled profile names or profile objects given
    inline (the contract). A file path is refused: a request never makes the
    adapter read the file system.
    """
    profiles = request.get("profiles") or []
    if not isinstance(profiles, list):
        raise ValueError("profiles is a list of bundled profile names or profile objects")
    for entry in profiles:
        if isinstance(entry, str) and entry not in BUNDLED_PROFILES:
            raise ValueError(f"unknown profile {entry!r}: give a bundled name ({', '.join(BUNDLED_PROFILES)}) "
                             "or the profile object inline")
        if not isinstance(entry, (str, dict)):
            raise ValueError("a profile is a bundled name or an object")
    return _receivers.get(_receivers.key(profiles), lambda: Receiver.load(profiles))


def int_field(request: dict[str, Any], name: str) -> int:
    """A non-negative integer field of a request (not a float, not a boolean)."""
    value = request[name]
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} is a non-negative integer")
    return value


CONTRACT = 2


def handshake() -> dict[str, Any]:
    """The answer to ``start``: what this implementation is and what it can do."""
    from ..core._version import __version__

    return {
        "contract": CONTRACT,
        "implementation": {"name": "rogerwilco", "version": __version__, "language": "python",
                           "homepage": "https://pypi.org/project/rogerwilco/"},
        "ops": sorted(load_ops()),
        "profiles": list(BUNDLED_PROFILES),
    }


def handle(request: Any) -> dict[str, Any]:
    response = _handle(request)
    if isinstance(request, dict) and "seq" in request:
        response["seq"] = request["seq"]
    return response


def _handle(request: Any) -> dict[str, Any]:
    if not isinstance(request, dict) or not isinstance(request.get("op"), str):
        return {"ok": False, "error": "bad request: an object with op"}
    if request["op"] == "start":
        return {"ok": True, **handshake()}
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


def serve(stdin: IO[str] | IO[bytes] | None = None, stdout: IO[str] | None = None,
          *, max_bytes: int = MAX_REQUEST_BYTES) -> int:
    """Answer each request line; a line is read in bounded chunks, never
    whole, and one longer than ``max_bytes`` is answered with an error."""
    from ..io.stream import read_lines

    stdin = stdin if stdin is not None else sys.stdin
    stdout = stdout if stdout is not None else sys.stdout
    load_ops()
    for raw in read_lines(stdin, max_bytes=max_bytes, bare_cr=False):
        if raw.text is None:
            assert raw.problem is not None
            if raw.problem.kind == "too-long":
                response = {"ok": False, "error": f"bad request: the request {raw.problem.message}"}
            else:
                response = {"ok": False, "error": "bad request: not UTF-8"}
            stdout.write(json.dumps(response, ensure_ascii=True) + "\n")
            stdout.flush()
            continue
        line = raw.text.strip()
        if not line:
            continue
        try:
            request = json.loads(line)
        except json.JSONDecodeError as exc:
            response = {"ok": False, "error": f"bad request: not JSON ({exc.msg})"}
        except (ValueError, RecursionError) as exc:
            response = {"ok": False, "error": f"bad request: unusable JSON ({type(exc).__name__})"}
        else:
            try:
                response = handle(request)
            except Exception as exc:  # noqa: BLE001 - the adapter answers every request
                response = {"ok": False, "error": f"internal error: {type(exc).__name__}: {exc}"}
                if isinstance(request, dict) and "seq" in request:
                    response["seq"] = request["seq"]
        stdout.write(json.dumps(response, ensure_ascii=True) + "\n")
        stdout.flush()
    return 0
