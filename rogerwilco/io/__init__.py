"""Input and output: streams, scan, records, lint and SARIF.

See docs/architecture.md for the layers and what each may import."""
