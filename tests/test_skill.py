"""``rogerwilco skill`` writes an Agent Skill folder that the Agent Skills format accepts.

The format (agentskills.io specification): a folder named after the skill
holding ``SKILL.md``, YAML front matter with ``name`` (1-64 characters,
lowercase letters, digits and hyphens, no leading, trailing or doubled
hyphen, the folder's name) and ``description`` (non-empty, at most 1024
characters), then the body an agent loads (kept under 500 lines and 5,000
tokens; here it is held to 8,000 characters).
"""

from __future__ import annotations

import re

import pytest
import yaml

from rogerwilco.core.legend import legend
from rogerwilco.front.cli import main
from rogerwilco.front.skill import skill_name

NAME = re.compile(r"^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9]))*$")  # no leading, trailing or doubled hyphen
BODY_CHARS = 8000


def front_matter(text: str) -> tuple[dict, str]:
    assert text.startswith("---\n"), "SKILL.md starts with its front matter"
    head, _, body = text[4:].partition("\n---\n")
    return yaml.safe_load(head), body


@pytest.mark.parametrize("profile", [None, "pay", "clin", "pform"])
def test_the_skill_folder_meets_the_agent_skills_format(profile, tmp_path, capsys):
    argv = ["skill", "--out", str(tmp_path)] + (["--profile", profile] if profile else [])
    assert main(argv) == 0
    path = tmp_path / skill_name(profile) / "SKILL.md"
    assert capsys.readouterr().out.strip() == str(path)
    meta, body = front_matter(path.read_text(encoding="utf-8"))
    assert set(meta) == {"name", "description"}
    assert NAME.match(meta["name"]) and len(meta["name"]) <= 64
    assert meta["name"] == path.parent.name
    assert isinstance(meta["description"], str) and 0 < len(meta["description"]) <= 1024
    assert len(body) <= BODY_CHARS and len(body.splitlines()) < 500
    assert legend(profile, lean=True) in body  # generated from the vocabulary, not written by hand
    assert "rogerwilco check-rb" in body and "rw.check_rb_full" in body


def test_the_name_check_refuses_what_the_format_refuses():
    for bad in ("-x", "x-", "a--b", "Rogerwilco", "a_b", ""):
        assert not NAME.match(bad), bad
    assert skill_name("my_profile--x") == "rogerwilco-my-profile-x"


def test_an_unknown_profile_is_named(tmp_path, capsys):
    assert main(["skill", "--profile", "nosuch", "--out", str(tmp_path)]) == 2
    assert "nosuch" in capsys.readouterr().err
