"""profiles/profile.schema.json says every loading rule a schema can; docs/profiles.md lists the rest.

* The schema's lists of core codes and core slots are the core's
  (``profiles/rw1.json`` and the comparison data), so they cannot go stale.
* Every profile the suite's loading cases refuse is refused by the schema,
  unless its rule is in the docs' table of rules only the loader can check;
  each row of that table names a case that exists, that the schema accepts
  and that the loader refuses at the path the rule is about.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema

from rogerwilco.front.conformance import load_cases
from rogerwilco.core.vocab import _core_document, profile_problems

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = json.loads((ROOT / "profiles" / "profile.schema.json").read_text(encoding="utf-8"))
DOCS = (ROOT / "docs" / "profiles.md").read_text(encoding="utf-8")
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.FormatChecker())


def _excluded(defn: dict) -> set[str]:
    return set(defn["oneOf"][0]["propertyNames"]["not"]["enum"])


def test_the_schemas_core_lists_are_the_cores():
    core = _core_document()
    for enum in ("ask", "why", "out", "need", "conf", "ckey"):
        assert _excluded(SCHEMA["$defs"][f"codes_beside_{enum}"]) == set(core["enums"][enum]), enum
    answers = {"Y", "N", "tail"}.union(*(core["enums"][e] for e in ("ask", "why", "out", "need", "conf")))
    assert _excluded(SCHEMA["$defs"]["answers"]) == answers
    # asks_used may name the profile's own asks too (the published profiles do): the loader checks it
    assert SCHEMA["properties"]["asks_used"]["items"] == {"type": "string"}
    key = SCHEMA["$defs"]["slot"]["properties"]["key"]
    taken = next(part["not"]["enum"] for part in key["allOf"] if "enum" in part.get("not", {}))
    assert set(taken) == set(core["slots"]) | set(core["envelope"]) | {"p"}


def _loader_only() -> set[str]:
    section = DOCS.split("### What the schema checks, and what only the loader can", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"`(profile-loading/[a-z-]+:[a-z0-9-]+)`", section))


def _refused_profiles() -> list[tuple[str, dict]]:
    found = []
    for case in load_cases():
        for entry in case.request.get("profiles") or []:
            if isinstance(entry, dict) and case.expect.get("ok") is False and profile_problems(entry):
                found.append((case.id, entry))
    return found


def test_every_refused_profile_is_refused_by_the_schema_or_listed_in_the_docs():
    listed = _loader_only()
    assert len(listed) >= 8
    refused = _refused_profiles()
    assert len(refused) >= 25
    by_id = dict(refused)
    assert listed <= set(by_id), "a case the docs name is not a refused profile of the suite"
    for case_id, profile in refused:
        if case_id in listed:
            assert VALIDATOR.is_valid(profile), f"{case_id}: the schema refuses it: move it out of the docs' table"
        else:
            assert not VALIDATOR.is_valid(profile), f"{case_id}: only the loader refuses it: the schema should"
