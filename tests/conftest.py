"""Test configuration: property tests are reproducible in CI.

Under ``CI`` (set by the CI runner) hypothesis draws the same examples on
every run, so a landing never depends on luck; locally it explores afresh
each run, and the example database remembers any failure it finds.

``reference_dir`` is the published reference codec, unpacked: the folder
``RW1_REFERENCE_DIR`` names (``.ci/run`` sets it), or, when it is unset, a
copy this fixture downloads (``pip download``, hash pinned) into pytest's
cache, so a ``pytest`` run by hand needs nothing set.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


# --------------------------------------------------------------------------
# The published reference codec, rogerwilco 0.3.0: its suite and its profiles
# are what this package is measured against. It is downloaded, never vendored
# and never installed (its import name is this package's). CI downloads it once
# (.ci/run) and names the unpacked folder in RW1_REFERENCE_DIR; a run by hand
# without it downloads into pytest's cache. A failed download fails the tests
# that need it: they are never skipped.

@pytest.fixture(scope="session")
def reference_dir() -> Path:
    """The unpacked reference codec: its ``profiles/`` and ``tests/conformance.jsonl`` (``tests/reference.py``)."""
    from tests.reference import ReferenceUnavailable, reference_dir as find

    try:
        return find()
    except ReferenceUnavailable as exc:
        pytest.fail(str(exc), pytrace=False)


#: (tests, seconds) the run spent on tests that use a PostgreSQL server, reported at the end
_ON_POSTGRESQL = [0, 0.0]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Time each test that uses PostgreSQL (its engine parameter, the cluster fixtures or a server-only file)."""
    import time

    from tests.pg import uses_postgresql

    if not uses_postgresql(item):
        return (yield)
    started = time.monotonic()
    try:
        return (yield)
    finally:
        _ON_POSTGRESQL[0] += 1
        _ON_POSTGRESQL[1] += time.monotonic() - started


def pytest_terminal_summary(terminalreporter) -> None:
    """The slow snippets and commands of the run, with their time: reported, never failed (tests/bounds.py);
    and what the tests on PostgreSQL cost."""
    from tests.bounds import SLOW, SLOW_SECONDS

    if _ON_POSTGRESQL[0]:
        terminalreporter.section("PostgreSQL")
        terminalreporter.write_line(f"{_ON_POSTGRESQL[0]} test(s) used a PostgreSQL server, "
                                    f"{_ON_POSTGRESQL[1]:.1f} s of the run (server start included)")
    if SLOW:
        terminalreporter.section(f"snippets that took {SLOW_SECONDS:g} s or more")
        for what, took in sorted(SLOW, key=lambda item: -item[1]):
            terminalreporter.write_line(f"{took:7.1f} s  {what}")
