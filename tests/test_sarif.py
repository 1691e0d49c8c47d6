"""SARIF output validates against the vendored OASIS SARIF 2.1.0 schema and keeps its fingerprints."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from urllib.parse import unquote

import jsonschema
import pytest

from rogerwilco.front.cli import main
from rogerwilco.io.lint import RULES, lint_stream
from rogerwilco.io.sarif import FINGERPRINT_KEY, artifact_uri, to_sarif

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.FormatChecker())


def every_rule_findings():
    findings = []
    for rule in RULES.values():
        findings.extend(lint_stream(rule.bad.split("\n"), file=f"cases/{rule.code}.rw1", now="20261010T0000Z"))
    return findings


def test_the_vendored_schema_is_the_official_one():
    assert SCHEMA["id"].startswith("https://docs.oasis-open.org/sarif/sarif/v2.1.0/")
    assert "Version 2.1.0" in SCHEMA["title"]


def test_a_report_with_every_rule_validates():
    findings = every_rule_findings()
    doc = to_sarif(findings)
    VALIDATOR.validate(doc)
    results = doc["runs"][0]["results"]
    rules = doc["runs"][0]["tool"]["driver"]["rules"]
    assert {r["ruleId"] for r in results} == set(RULES)
    for result in results:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert len(result["partialFingerprints"][FINGERPRINT_KEY]) == 32


def test_an_empty_report_validates():
    VALIDATOR.validate(to_sarif([]))


def test_a_schema_breach_is_caught():
    doc = to_sarif(every_rule_findings())
    doc["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate(doc)


def test_regions_span_the_token():
    (f,) = lint_stream(["RW1 HO ops-1 from=ops to=b item=x:1 ask=FIXX"], file="m.rw1", select=["RW003"])
    region = to_sarif([f])["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 1, "endLine": 1, "startColumn": 37, "endColumn": 37 + len("ask=FIXX")}


def test_fingerprints_survive_lines_moving():
    line = "RW1 HO ops-1 from=ops to=b item=x:1 ask=FIXX"
    a = to_sarif(lint_stream([line], file="m.rw1", select=["RW003"]))["runs"][0]["results"][0]
    b = to_sarif(lint_stream(["RW1 ST q-1 from=q to=b item=x:1", line], file="m.rw1", select=["RW003"]))["runs"][0]["results"][0]
    assert a["partialFingerprints"] == b["partialFingerprints"]
    assert a["locations"] != b["locations"]


def _resolve(run: dict, location: dict) -> Path:
    """What a code-scanning service does with an artifact location: the file it names."""
    art = location["physicalLocation"]["artifactLocation"]
    uri = art["uri"]
    if "uriBaseId" in art:
        uri = run["originalUriBaseIds"][art["uriBaseId"]]["uri"] + uri
    assert uri.startswith("file://")
    return Path(unquote(uri[len("file://"):]))


def test_uris_are_relative_to_the_repository_root_and_encoded(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / "a b").mkdir()
    monkeypatch.chdir(tmp_path / "a b")
    assert artifact_uri(str(tmp_path / "a b" / "m#1.rw1")) == "a%20b/m%231.rw1"
    assert artifact_uri("<stdin>") == "stdin"


def test_outside_a_repository_uris_are_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert artifact_uri("m.rw1") == (tmp_path / "m.rw1").resolve().as_uri()


@pytest.mark.parametrize("where", ["root", "subfolder", "outside"])
def test_every_uri_resolves_to_the_linted_file_from_anywhere(capsys, tmp_path, monkeypatch, where):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "convo").mkdir()
    (repo / "eco" / "scratch").mkdir(parents=True)
    bad = {repo / "convo" / "bad.rw1": RULES["RW003"].bad, repo / "eco" / "scratch" / "odd name.rw1": RULES["RW105"].bad}
    for path, text in bad.items():
        path.write_text(text + "\n", encoding="utf-8")
    cwd = {"root": repo, "subfolder": repo / "eco", "outside": tmp_path}[where]
    monkeypatch.chdir(cwd)
    args = [os.path.relpath(p, cwd) for p in bad]
    assert main(["lint", "--isolated", "-f", "sarif", *args]) == 1
    doc = json.loads(capsys.readouterr().out)
    run = doc["runs"][0]
    resolved = {_resolve(run, loc) for r in run["results"] for loc in r["locations"]}
    assert resolved == {p.resolve() for p in bad}
    if where != "outside":
        assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == repo.resolve().as_uri() + "/"
        assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]} == {
            "convo/bad.rw1", "eco/scratch/odd%20name.rw1"}
    VALIDATOR.validate(doc)


def test_rules_carry_help_uris_that_name_their_section_of_the_docs():
    docs = (Path(__file__).parent.parent / "docs" / "lint.md").read_text(encoding="utf-8")
    headings = {re.sub(r"[^a-z0-9 _-]", "", h.lower()).replace(" ", "-")
                for h in re.findall(r"^### (.+)$", docs, flags=re.M)}
    doc = to_sarif([])
    driver = doc["runs"][0]["tool"]["driver"]
    assert driver["informationUri"].startswith("https://")
    for rule in driver["rules"]:
        base, _, anchor = rule["helpUri"].partition("#")
        assert base.endswith("docs/lint.md") and anchor in headings, rule["id"]


def test_a_suggestion_becomes_a_sarif_fix(tmp_path):
    (f,) = lint_stream(["RW1 HO ops-1 from=ops to=b item=x:1 ask=FIXX"], file="m.rw1", select=["RW003"])
    (result,) = to_sarif([f], start=tmp_path)["runs"][0]["results"]
    (fix,) = result["fixes"]
    (change,) = fix["artifactChanges"]
    assert change["replacements"][0]["insertedContent"]["text"] == "ask=FIX"
    assert change["replacements"][0]["deletedRegion"]["startColumn"] == 37
    VALIDATOR.validate(to_sarif([f], start=tmp_path))


def test_cli_sarif_output_validates(capsys, tmp_path):
    path = tmp_path / "conversation.rw1"
    path.write_text("\n".join(RULES[c].bad for c in ("RW003", "RW105", "RW110")) + "\n", encoding="utf-8")
    code = main(["lint", "--no-config", "-f", "sarif", str(path)])
    doc = json.loads(capsys.readouterr().out)
    VALIDATOR.validate(doc)
    assert code == 1 and doc["version"] == "2.1.0" and doc["runs"][0]["results"]


def test_two_wrong_party_cancels_are_two_results_with_their_own_place_and_fingerprint():
    lines = RULES["RW109"].bad.split("\n") + ["RW1 CX auditor-2 re=ops-1 from=auditor to=builder item=jira:OPS-7 why=REVOKED"]
    results = to_sarif(lint_stream(lines, file="m.rw1", select=["RW109"]))["runs"][0]["results"]
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in results]
    assert regions == [{"startLine": 3, "endLine": 3, "startColumn": 8, "endColumn": 8 + len("auditor-1")},
                       {"startLine": 4, "endLine": 4, "startColumn": 8, "endColumn": 8 + len("auditor-2")}]
    assert len({r["partialFingerprints"][FINGERPRINT_KEY] for r in results}) == 2
