"""The package version, in one place (pyproject.toml carries the same number; a test compares them)."""

__version__ = "0.4.0"
