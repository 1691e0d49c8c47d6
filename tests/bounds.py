"""How long a test waits on a child process, a queue or a lock before calling it hung.

A test that is merely slow on a busy machine must not fail: every wait in the
suite is bounded by CI's own limit for a whole run (90 minutes), so only a
hang reaches it. ``RW1_TEST_HANG_SECONDS`` sets a shorter bound by hand, to
find a hang sooner on a quiet machine.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TypeVar

CI_LIMIT = 90 * 60  # seconds: the CI run's own limit
HANG = float(os.environ.get("RW1_TEST_HANG_SECONDS", CI_LIMIT))

# Snippets that took long enough to be worth naming in the run's summary
# (tests/conftest.py prints them): a slow one is reported, never failed.
SLOW_SECONDS = 10.0
SLOW: list[tuple[str, float]] = []

T = TypeVar("T")


def timed(what: str, run: Callable[[], T]) -> T:
    """``run()``, noting ``what`` in ``SLOW`` when it takes ``SLOW_SECONDS`` or more."""
    started = time.monotonic()
    try:
        return run()
    finally:
        took = time.monotonic() - started
        if took >= SLOW_SECONDS:
            SLOW.append((what, took))
