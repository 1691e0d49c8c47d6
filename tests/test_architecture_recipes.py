"""docs/architecture.md's four recipes, each followed once.

A recipe changes data and tables that generic code walks: a profile rule is
a row of a profile's ``translation``; a lint rule is a row of
``lint.RULES`` (with the example that fires and its clean twin) and a kind
mapped to it; a finding kind is a value a check returns and the
conformance schema lists; an op is a function registered with
``adapter.op``. Each test makes the change the recipe describes (on copies,
or with monkeypatch) and shows the package picking it up with no other code.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from rogerwilco.core.findings import FAIL, Finding
from rogerwilco.core.schemacheck import Checker
from rogerwilco.core.semantics import check_line
from rogerwilco.core.vocab import Receiver
from rogerwilco.front import adapter
from rogerwilco.io import lint

ROOT = Path(__file__).resolve().parents[1]


def test_recipe_a_profile_rule_is_a_row_of_the_profiles_translation():
    profile = {
        "profile": "desk", "version": "1", "extends": "RW1", "desc": "a help desk",
        "slots": [{"key": "tkt", "type": "token", "on": ["HO"], "desc": "ticket number"}],
        "translation": [{"id": "desk-ticket", "on": ["HO"], "when": {"item": {"prefix": "desk:"}},
                         "require": ["tkt"], "desc": "a desk item carries its ticket number"}],
    }
    receiver = Receiver.load([profile])
    without = check_line("RW1 HO ops-1 p=desk from=ops to=desk item=desk:42 ask=FIX", receiver)
    assert without.message is None
    assert [(f.kind, f.key) for f in without.findings if f.failed] == [("rule", "tkt")]
    assert "a desk item carries its ticket number" in without.findings[0].message
    assert check_line("RW1 HO ops-1 p=desk from=ops to=desk item=desk:42 ask=FIX tkt=T42", receiver).valid
    assert check_line("RW1 HO ops-1 p=desk from=ops to=desk item=jira:42 ask=FIX", receiver).valid


def test_recipe_a_lint_rule_is_a_row_of_rules_and_a_kind_mapped_to_it(monkeypatch):
    ho = "RW1 HO ops-1 from=ops to=builder item=jira:OPS-7 ask=FIX"
    rb = "RW1 RB builder-1 re=ops-1 from=builder to=ops item=jira:OPS-7 ask=FIX"
    dn = "RW1 DN builder-2 re=ops-1 from=builder to=ops item=jira:OPS-7 out=OK"
    rule = lint.LintRule(code="RW199", name="still-open", level=lint.WARNING,
                         summary="a handoff not closed by the end of the stream",
                         bad=ho + "\n" + rb, good=ho + "\n" + rb + "\n" + dn)
    monkeypatch.setitem(lint.RULES, rule.code, rule)
    monkeypatch.setitem(lint.THREAD_KINDS, "open", rule.code)  # check_thread's note "open" reports as RW199
    fired = lint.lint_stream(rule.bad.split("\n"))
    assert [(f.code, f.line) for f in fired] == [("RW199", 1)]
    assert lint.lint_stream(rule.good.split("\n")) == []
    assert lint.lint_stream(rule.bad.split("\n"), ignore=["RW199"]) == []


def test_recipe_a_finding_kind_is_returned_by_a_check_and_listed_in_the_conformance_schema():
    schema = json.loads((ROOT / "conformance" / "schema.json").read_text(encoding="utf-8"))
    finding = Finding(severity=FAIL, kind="stale-item", message="the item moved on", tier=None, key="item")
    case = {"severity": finding.severity, "kind": finding.kind, "tier": finding.tier, "key": finding.key}

    def problems(doc):
        return list(Checker(doc).errors(case, doc["$defs"]["finding"], "$"))

    assert problems(schema), "a kind the schema does not list is refused"
    extended = copy.deepcopy(schema)
    extended["$defs"]["finding"]["properties"]["kind"]["enum"].append("stale-item")
    assert problems(extended) == []
    assert finding.to_json()["kind"] == "stale-item" and finding.signature() == ("fail", "stale-item", None, "item")


def test_recipe_an_op_is_a_function_registered_with_adapter_op(monkeypatch):
    monkeypatch.setattr(adapter, "OPS", dict(adapter.load_ops()))

    @adapter.op("count-tokens")
    def count_tokens(request):
        return {"count": len(request["line"].split(" "))}

    assert adapter.handle({"op": "count-tokens", "line": "RW1 HO a-1 from=a to=b", "seq": 7}) == \
        {"ok": True, "count": 5, "seq": 7}
    assert "count-tokens" in adapter.OPS and adapter.OPS["count-tokens"] is count_tokens
