"""One vocabulary: the bundled profiles against the published reference profiles.

The published reference codec (rogerwilco 0.3.0, downloaded by the
``reference_dir`` fixture of ``tests/conftest.py``) ships the profiles an
agent prompted with its legend writes against. Each profile is read as a set
of facts (every enum code, ask, slot type, required flag and message type,
execution map, ``asks_used`` entry and named agent); the bundled profile and
the published one must hold the same facts, but for those listed in
``profiles/additions.json``: ``additions`` (held here only, each conflicting
with nothing) and ``not_yet`` (held there only). A difference not listed
fails, and so does a listed one that is no longer a difference. Every
published profile file also loads here as it is, its notes kept.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rogerwilco import check_line
from rogerwilco.core.errors import ProfileError
from rogerwilco.core.vocab import BUNDLED_PROFILES, Receiver, compile_vocabulary, load_profile

ROOT = Path(__file__).resolve().parent.parent
PROFILES = ROOT / "profiles"
LISTED = json.loads((PROFILES / "additions.json").read_text(encoding="utf-8"))
PUBLISHED = ("pay", "clin", "pform", "deploy")


def facts(doc: dict[str, Any]) -> set[str]:
    """A profile as the facts a sender's line depends on (descriptions and notes are not among them)."""
    name = doc["profile"]
    out = {f"{name} enum {enum} {code}" for enum, codes in doc.get("enums", {}).items() for code in codes}
    out |= {f"{name} ask {code}" for code in doc.get("asks", {})}
    for slot in doc.get("slots", []):
        key = slot["key"]
        out |= {f"{name} slot {key} type {slot['type']}",
                f"{name} slot {key} required {'true' if slot.get('required') else 'false'}"}
        out |= {f"{name} slot {key} on {t}" for t in slot.get("on", [])}
    out |= {f"{name} exec {ask} {' '.join(keys)}" for ask, keys in doc.get("exec", {}).items()}
    out |= {f"{name} asks_used {ask}" for ask in doc.get("asks_used", [])}
    out |= {f"{name} agent {agent}" for agent in doc.get("agents", [])}
    return out


def _published(reference_dir: Path, name: str) -> dict[str, Any]:
    return json.loads((reference_dir / "profiles" / f"{name}.json").read_text(encoding="utf-8"))


def _bundled(name: str) -> dict[str, Any]:
    return json.loads((PROFILES / f"{name}.json").read_text(encoding="utf-8"))


def test_every_published_profile_is_bundled() -> None:
    assert set(PUBLISHED) <= set(BUNDLED_PROFILES)


@pytest.mark.parametrize("name", PUBLISHED)
def test_the_bundled_profile_differs_from_the_published_one_only_as_listed(reference_dir: Path, name: str) -> None:
    ours, theirs = facts(_bundled(name)), facts(_published(reference_dir, name))
    mine = {f for f in LISTED["additions"] if f.startswith(f"{name} ")}
    missing = {f for f in LISTED["not_yet"] if f.startswith(f"{name} ")}
    assert sorted(ours - theirs) == sorted(mine), "a fact held here only and not listed as an addition, or listed and gone"
    assert sorted(theirs - ours) == sorted(missing), "a published fact this package lacks or changes, not listed"


def test_every_listed_difference_says_why() -> None:
    for section in ("additions", "not_yet"):
        for fact, why in LISTED[section].items():
            assert isinstance(why, str) and len(why) > 10, fact


def test_an_addition_conflicts_with_nothing(reference_dir: Path) -> None:
    # an addition never changes a published slot's type or required flag, nor a published execution map
    for fact in LISTED["additions"]:
        name, what, *rest = fact.split(" ")
        doc = _published(reference_dir, name)
        if what == "slot" and rest[1] in ("type", "required"):
            assert rest[0] not in {s["key"] for s in doc.get("slots", [])}, fact
        if what == "exec":
            assert rest[0] not in doc.get("exec", {}), fact


@pytest.mark.parametrize("name", PUBLISHED)
def test_the_published_profile_file_loads_as_it_is(reference_dir: Path, name: str) -> None:
    path = reference_dir / "profiles" / f"{name}.json"
    doc = load_profile(str(path))
    vocab = compile_vocabulary(doc)
    assert vocab.profile == name
    assert facts(dict(vocab.source)) == facts(_published(reference_dir, name))


def test_a_line_of_the_published_profile_reads_with_the_file(reference_dir: Path) -> None:
    receiver = Receiver.load([str(reference_dir / "profiles" / "pay.json")])
    line = ("RW1 AQ reconciler-2 from=reconciler to=human p=pay item=inv:MD-2026-057 amt=5400.00 cur=GBP kind=GROSS "
            "flag=OVERLIM need=ENUM opts=APPROVE+DECLINE by=20261001")
    result = check_line(line, receiver)
    assert result.valid and result.message is not None
    assert result.message.slots["flag"] == ("OVERLIM",)
    refused = check_line(line.replace("from=reconciler", "from=clerk").replace("reconciler-2", "clerk-2"), receiver)
    assert [(f.kind, f.token) for f in refused.findings if f.failed] == [("agent", "from=clerk")]


def test_a_profile_this_package_cannot_load_names_the_key_and_the_reason(reference_dir: Path, tmp_path: Path) -> None:
    doc = _published(reference_dir, "pform")
    doc["colour"] = "blue"
    path = tmp_path / "pform.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ProfileError, match=r"unknown profile key 'colour'") as caught:
        load_profile(str(path))
    assert "$.colour" in str(caught.value)
    doc = _published(reference_dir, "pay")
    doc["translation"] = {"note": "x", "rules": []}
    with pytest.raises(ProfileError, match=r"translation is a list of rules, or \{\"note\": text\}"):
        load_profile(doc)
