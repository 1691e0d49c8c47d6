"""Test configuration: property tests are reproducible in CI.

Under ``CI`` (set by the CI runner) hypothesis draws the same examples on
every run, so a landing never depends on luck; locally it explores afresh
each run, and the example database remembers any failure it finds.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
