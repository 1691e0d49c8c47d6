"""The transcript in docs/agents.md is what examples/agents/transcript.py prints."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.bounds import HANG

pytest.importorskip("mcp", reason="the mcp extra (the MCP SDK) is not installed")
pytest.importorskip("mcp.server.mcpserver", reason="these tests drive the server with the SDK 2 client; tests/test_mcp_sdk1.py covers SDK 1")

ROOT = Path(__file__).resolve().parent.parent


def test_the_documented_transcript_is_the_output_of_the_script():
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "agents" / "transcript.py")],
                          capture_output=True, text=True, cwd=ROOT, timeout=HANG)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.rstrip("\n")
    assert "payer -> scheduler: <RB> = RW1 RB payer-1 re=scheduler-1" in out
    assert out.count('< {"passed": true') == 4
    doc = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    assert "```text\n" + out + "\n```" in doc
