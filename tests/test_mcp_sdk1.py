"""The MCP server on the SDK's first major, beside the clients that pin it.

``langchain-mcp-adapters`` pins ``mcp<2``; the ``mcp`` extra takes ``mcp>=1.24,<3``, so the two share one
environment. This test makes that environment (a fresh virtual environment: this package with its
``mcp`` extra, ``mcp<2`` and ``langchain-mcp-adapters``, resolved by pip), then has LangChain's adapter
start ``rogerwilco mcp`` over stdio and call its tools, and crosses the majors both ways: an SDK 1 client
against the server on SDK 2 (this environment), an SDK 2 client against the server on SDK 1.

``RW1_MCP1_SPEC`` picks the SDK 1 versions (default ``mcp>=1.24,<2``: the newest 1.x; ``mcp==1.24.0`` for
the oldest); ``RW1_MCP1_VENV`` names a directory to keep the environment in between runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from tests.bounds import HANG

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent / "mcp_sdk1"
HO = (ROOT / "examples" / "spec-section8.rw1").read_text().splitlines()[7]
SPEC_RB_DIGEST = "h=a7a82de76607"


def _bin(env: Path, name: str) -> Path:
    return env / ("Scripts" if os.name == "nt" else "bin") / name


@pytest.fixture(scope="module")
def sdk1(tmp_path_factory) -> Path:
    """The python of an environment holding rogerwilco[mcp], mcp 1.x and langchain-mcp-adapters."""
    kept = os.environ.get("RW1_MCP1_VENV")
    env = Path(kept) if kept else tmp_path_factory.mktemp("mcp-sdk1") / "venv"
    python = _bin(env, "python")
    if not python.exists():
        venv.create(env, with_pip=True)
    spec = os.environ.get("RW1_MCP1_SPEC", "mcp>=1.24,<2")
    proc = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                           "-e", f"{ROOT}[mcp]", spec, "langchain-mcp-adapters>=0.3"],
                          capture_output=True, text=True, timeout=HANG)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return python


def _versions(python: Path) -> dict:
    code = ("import json, importlib.metadata as m; print(json.dumps({d: m.version(d) for d in "
            "('mcp', 'langchain-mcp-adapters', 'rogerwilco')}))")
    return json.loads(subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True).stdout)


def _run(python: Path | str, script: str, *args: str) -> list[dict]:
    proc = subprocess.run([str(python), str(HERE / script), *args], capture_output=True, text=True, timeout=HANG,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stderr == "", proc.stderr  # the servers it started said nothing on stderr: no internal error
    return [json.loads(line) for line in proc.stdout.splitlines()]


def test_one_environment_holds_the_extra_and_a_client_pinned_to_sdk1(sdk1):
    versions = _versions(sdk1)
    assert versions["mcp"].split(".")[0] == "1" and versions["rogerwilco"]
    check = subprocess.run([str(sdk1), "-m", "pip", "check"], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout


def test_langchains_adapter_calls_the_server_running_on_sdk1(sdk1):
    # the connection docs/agents.md gives for LangGraph, started by this environment's interpreter
    doc = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    documented = json.loads(doc.split("LangGraph, through `langchain-mcp-adapters`")[1].split("```json\n")[1]
                            .split("```")[0])["rogerwilco"]
    assert documented["command"] == "rogerwilco"
    connection = {**documented, "command": str(sdk1), "args": ["-m", "rogerwilco", *documented["args"]]}
    tools, made, refused = _run(sdk1, "langchain_client.py", json.dumps(connection), HO)
    assert tools["tools"] == sorted(["validate", "digest", "make_rb", "check_rb", "check_ho", "check_dn",
                                     "check_thread", "legend"])
    line = made["artifact"]["structured_content"]["line"]
    assert line.startswith("RW1 RB payer-1 re=scheduler-1") and line.endswith(SPEC_RB_DIGEST)
    error = json.loads(refused["content"][0]["text"])
    assert error["ok"] is False and error["error"]["token"] == "ask=PAYY" and error["error"]["why"] == "UNK"


@pytest.mark.parametrize("client, server", [("sdk1", "sdk2"), ("sdk2", "sdk1"), ("sdk1", "sdk1")])
def test_either_major_of_client_talks_to_either_major_of_server(sdk1, client, server):
    pythons = {"sdk1": str(sdk1), "sdk2": sys.executable}
    hello, listed, made, refused, unknown = _run(pythons[client], "sdk_client.py", HO, pythons[server], "-m", "rogerwilco",
                                        "mcp")
    assert hello == {"server": "rogerwilco", "instructions": True}
    assert len(listed["tools"]) == 8 and listed["output_schemas"] is True
    assert made["is_error"] is False and made["structured"]["line"].endswith(SPEC_RB_DIGEST)
    assert made["text"] == made["structured"]
    assert refused["is_error"] is True and refused["structured"]["error"]["token"] == "ask=PAYY"
    assert unknown["error_code"] == -32602 and "readback" in unknown["message"]


def _documented_client() -> str:
    doc = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    return doc.split("From Python, the SDK's own client starts and drives it")[1].split("```python\n")[1].split("```")[0]


@pytest.mark.parametrize("major", ["sdk1", "sdk2"])
def test_the_documented_client_runs_on_either_major(sdk1, major, tmp_path):
    python = str(sdk1) if major == "sdk1" else sys.executable
    launch = 'StdioServerParameters(command="rogerwilco", args=["mcp"])'
    block = _documented_client()
    assert launch in block
    script = tmp_path / "client.py"
    # the same server, started by this environment's interpreter rather than whichever rogerwilco is on PATH
    script.write_text(block.replace(launch, f'StdioServerParameters(command={python!r}, args=["-m", "rogerwilco", "mcp"])'))
    proc = subprocess.run([python, str(script)], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.startswith("RW1 RB writer-1 re=research-01 ")
