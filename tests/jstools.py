"""The JavaScript tools some tests drive: node, and the npm packages of tests/js/.

``tests/js/package.json`` pins them and ``package-lock.json`` locks them; they
are installed here with ``npm ci`` the first time a test asks (again when the
lockfile changes), never by hand. Node and npm are required: a machine
without them fails these tests rather than skipping them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from tests.bounds import HANG

JS = Path(__file__).resolve().parent / "js"


def node() -> str:
    found = shutil.which("node")
    assert found, "node is not on the PATH: the interoperability tests need Node.js"
    return found


def npm_tools(folder: Path = JS, *, node_bin: Path | None = None) -> Path:
    """tests/js (or another folder of tests/ with a lockfile) with its node_modules installed from the lockfile;
    with ``node_bin`` (a Node.js installation's ``bin``), that ``node`` runs the packages' install scripts and
    their native modules build against its headers."""
    lock = folder / "package-lock.json"
    stamp = folder / "node_modules" / ".rogerwilco-lock"
    wanted = lock.read_text(encoding="utf-8")
    if not stamp.is_file() or stamp.read_text(encoding="utf-8") != wanted:
        npm = shutil.which("npm")
        assert npm, "npm is not on the PATH: the interoperability tests install their tools with npm ci"
        env = dict(os.environ)
        if node_bin is not None:
            env["PATH"] = os.pathsep.join([str(node_bin), env.get("PATH", "")])
            env["npm_config_nodedir"] = str(node_bin.parent)  # its headers: native modules built for it, no download
        result = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=folder, capture_output=True, text=True,
                                timeout=HANG, env=env)
        assert result.returncode == 0, f"npm ci failed in {folder}:\n{result.stdout}\n{result.stderr}"
        stamp.write_text(wanted, encoding="utf-8")
    return folder


def run_node(script: str, *args: str, timeout: float = HANG, folder: Path = JS) -> Any:
    """Run one of tests/js's scripts (or ``folder``'s) and read its JSON output."""
    tools = npm_tools(folder)
    result = subprocess.run([node(), str(tools / script), *args], cwd=tools, capture_output=True, text=True,
                            timeout=timeout)
    assert result.returncode == 0, f"{script} failed:\n{result.stderr}"
    return json.loads(result.stdout)
