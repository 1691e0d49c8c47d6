"""Neovim, set up as docs/lint.md says, driven headless through the language server: diagnostics under the
project's configuration, a quick fix, go to definition and a configuration change read on save.

Neovim comes from Debian (``.ci/system-packages`` installs it, 0.7.2 on bookworm); the session itself is
``tests/editors/neovim_session.lua``. ``RW1_NVIM_WAIT`` sets the seconds each step waits for the server
(default 600)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SESSION = Path(__file__).resolve().parent / "editors" / "neovim_session.lua"
STREAM = ("RW1 HO ops-1 from=ops to=builder item=jira:OPS-7 ask=FIXX\n"
          "RW1 RB builder-1 re=ops-1 from=builder to=ops item=jira:OPS-7 ask=FIX\n"
          "RW1 DN builder-2 re=ops-1 from=builder to=ops item=jira:OPS-7 out=OK foo=1\n")


def documented_setup() -> str:
    """The Lua block of docs/lint.md that sets Neovim up."""
    text = (ROOT / "docs" / "lint.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```lua\n(.*?)```", text, re.S) if "Neovim 0.7 to 0.11" in b]
    return block


def _nvim() -> str:
    found = shutil.which("nvim")
    assert found, "Neovim is missing: .ci/system-packages installs it"
    return found


def test_the_documented_setup_covers_rw1_files_and_logs():
    setup = documented_setup()
    assert '"*.rw1", "*.log"' in setup and '"rw1", "log", "markdown"' in setup
    assert 'cmd = { "rogerwilco", "lsp" }' in setup


def test_neovim_gets_diagnostics_a_quick_fix_a_definition_and_a_configuration_change(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text('[tool.rogerwilco.lint]\nignore = ["RW010"]\n')
    (project / "convo.rw1").write_text(STREAM)
    (project / "init.lua").write_text(documented_setup())
    tools = tmp_path / "bin"  # `rogerwilco` as the documented set-up calls it, running this tree
    tools.mkdir()
    shim = tools / "rogerwilco"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m rogerwilco "$@"\n')
    shim.chmod(0o755)
    result = tmp_path / "result.json"
    env = {**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "RW1_NVIM_RESULT": str(result), "XDG_STATE_HOME": str(tmp_path / "state"),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_DATA_HOME": str(tmp_path / "data")}
    run = subprocess.run([_nvim(), "--headless", "-n", "-i", "NONE", "-u", "init.lua", "-c", f"luafile {SESSION}"],
                         cwd=project, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert result.exists(), run.stderr + run.stdout
    seen = json.loads(result.read_text())
    assert seen.get("failed") is None, seen  # the step that waited in vain
    assert seen["diagnostics"] == "RW003"  # RW010 ignored by the project's configuration
    assert any(m.endswith(f"convo.rw1: linted with the configuration in {project / 'pyproject.toml'}")
               for m in seen["logged"]), seen["logged"]
    assert seen["actions"] == ["Replace with ask=FIX"]
    assert seen["fixed_line"] == STREAM.splitlines()[0].replace("FIXX", "FIX")
    assert seen["definition"] == [1, 7]  # the id of the HO that re=ops-1 names
    assert seen["after_configuration"] == "RW010"
    assert (project / "convo.rw1").read_text().splitlines()[0].endswith("ask=FIX")
