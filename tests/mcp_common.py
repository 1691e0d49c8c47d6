"""What the MCP tests share: the providers' documented limits on a tool's input schema."""

from __future__ import annotations

from typing import Any, Iterator


def provider_refusals(schema: dict) -> list[str]:
    """What the providers' tool APIs refuse in a tool's input schema, as their documentation states it.

    Anthropic's Messages API (and Claude on Bedrock and Vertex AI, which take the same tool
    definition): ``input_schema`` is an object schema, and ``oneOf``, ``anyOf`` and ``allOf`` are not
    supported at its top level. Gemini on Vertex AI: a function's ``parameters`` is an OpenAPI schema
    object, which has ``anyOf`` but no ``oneOf``, anywhere.
    """
    found = [f"top-level {key}" for key in ("oneOf", "anyOf", "allOf", "not", "enum") if key in schema]
    if schema.get("type") != "object":
        found.append(f"top-level type {schema.get('type')!r}")
    if "oneOf" in set(_keywords(schema)):
        found.append("oneOf")
    return found


def _keywords(schema: Any) -> Iterator[str]:
    """Every keyword of a schema and its subschemas (property names are names, not keywords)."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            yield key
            children = value.values() if key in ("properties", "$defs", "definitions") and isinstance(value, dict) else [value]
            for child in children:
                yield from _keywords(child)
    elif isinstance(schema, list):
        for item in schema:
            yield from _keywords(item)
