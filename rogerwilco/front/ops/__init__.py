"""Adapter ops, one module per area; each registers with ``adapter.op``."""
