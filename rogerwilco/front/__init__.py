"""The front ends: CLI commands, adapter ops, MCP, A2A, rendering, the tool, tools and integrations.

See docs/architecture.md for the layers and what each may import."""
