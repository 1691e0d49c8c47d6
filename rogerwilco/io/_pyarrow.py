"""pyarrow, imported when a records or scan path first needs it, with the extra to install when it is missing."""

from __future__ import annotations

from typing import Any

from ..core.errors import RW1Error


def import_pyarrow() -> Any:
    try:
        import pyarrow
    except ImportError:
        raise RW1Error("Parquet and Arrow output need pyarrow: pip install 'rogerwilco[parquet]'") from None
    return pyarrow
