"""The checks: readback, comprehension, evidence, crosswalk, the handoff lifecycle, the endpoint, threads.

See docs/architecture.md for the layers and what each may import."""
