"""A small bounded cache: what a long-running server keeps between requests.

The adapter and the MCP server compile a :class:`~rogerwilco.vocab.Receiver`
for every distinct set of profiles a request names; a client that sends a
new inline profile with every request must not grow the server without
bound. The cache keeps the ``maxsize`` most recently used entries, keyed by
a SHA-256 of the request's canonical JSON (so a key's size does not depend
on the profile's).
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from typing import Any, Callable, Generic, TypeVar

T = TypeVar("T")

#: How many receivers a server keeps compiled (least recently used goes first).
RECEIVER_CACHE_SIZE = 32


class LRUCache(Generic[T]):
    def __init__(self, maxsize: int) -> None:
        if maxsize < 1:
            raise ValueError("maxsize is at least 1")
        self.maxsize = maxsize
        self._entries: OrderedDict[str, T] = OrderedDict()

    @staticmethod
    def key(value: Any) -> str:
        text = json.dumps(value, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("ascii")).hexdigest()

    def get(self, key: str, make: Callable[[], T]) -> T:
        try:
            self._entries.move_to_end(key)
            return self._entries[key]
        except KeyError:
            value = make()  # may raise: nothing is cached then
            self._entries[key] = value
            if len(self._entries) > self.maxsize:
                self._entries.popitem(last=False)
            return value

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        self._entries.clear()
