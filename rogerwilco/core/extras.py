"""Optional extras: which ``pip install 'rogerwilco[...]'`` brings a missing package.

Core rogerwilco needs only lark, attrs and rich. Everything else is an extra
(``pyproject.toml``); when a command reaches for one that is not installed,
the user reads the install line, never a traceback or "internal error".
"""

from __future__ import annotations

#: top-level import name -> the extra that installs it
EXTRA_OF_MODULE = {
    "pyarrow": "parquet",
    "mcp": "mcp",
    "anyio": "mcp",
    "a2a": "a2a",
    "dask": "distributed",
    "distributed": "distributed",
    "pyspark": "spark",
    "pandas": "dataframes",
    "polars": "dataframes",
    "fsspec": "remote",
    "aiohttp": "remote",
    "duckdb": "duckdb",
    "bpe_openai": "tokens",
    "lark_js": "ports",
    "agents": "openai-agents",
    "pydantic_ai": "pydantic-ai",
    "langgraph": "langgraph",
    "langchain_core": "langgraph",
    "shtab": "completion",
}
#: packages no extra installs: the line to run instead
OTHER_PACKAGES = {
    "s3fs": "pip install s3fs",
    "gcsfs": "pip install gcsfs",
    "adlfs": "pip install adlfs",
    "tomli": "pip install tomli (or use Python 3.11 or later)",
}


def install_hint(exc: ImportError) -> str:
    """``X needs the optional package Y: pip install 'rogerwilco[Z]'`` for an import that failed."""
    name = (getattr(exc, "name", None) or "").split(".")[0]
    if not name:
        return f"an optional package is missing ({exc}); pip install 'rogerwilco[dev]' installs every extra"
    extra = EXTRA_OF_MODULE.get(name)
    if extra is not None:
        return f"this needs the optional package {name}, which is not installed: pip install 'rogerwilco[{extra}]'"
    other = OTHER_PACKAGES.get(name)
    if other is not None:
        return f"this needs the package {name}, which is not installed: {other}"
    return f"this needs the package {name}, which is not installed: pip install {name}"


def missing_extra(exc: ImportError, what: str) -> ImportError:
    """``exc`` as the same kind of error, saying that ``what`` needs it and which line installs it.

    For a module that imports its extra's packages at the top (the framework integrations): raise it
    ``from exc`` so that ``import rogerwilco.integrations.langgraph`` without the extra reads
    ``rogerwilco.integrations.langgraph needs the optional package langgraph, which is not installed:
    pip install 'rogerwilco[langgraph]'``.
    """
    hint = install_hint(exc).removeprefix("this ")
    return type(exc)(f"{what} {hint}", name=exc.name, path=exc.path)
