"""rogerwilco.front.tools: the public tool table, the core-only argument checker, the strict schema mode."""

from __future__ import annotations

import inspect
import subprocess
import sys

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rogerwilco.core.schemacheck import Checker, SchemaError, first_error
from rogerwilco.front import mcp_server, tools
from rogerwilco.front.tools import TOOLS, call, check_arguments, from_strict, schemas

HO = ("RW1 HO scheduler-1 p=pay from=scheduler to=payer item=inv:MD-2026-057 ask=PAY rb=exec sup=marlow "
      "amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 apref=FD-0929")


def test_the_server_serves_the_same_table_and_call():
    assert mcp_server.TOOLS is TOOLS and mcp_server.call is call
    assert set(TOOLS) == {"validate", "digest", "make_rb", "check_rb", "check_ho", "check_dn", "check_thread",
                          "legend"}


def test_call_needs_nothing_outside_the_core():
    code = ("import sys; sys.modules['jsonschema'] = None; from rogerwilco.front.tools import call; "
            "r, e = call('digest', {'line': 1}); assert e and r['error']['rule'] == 'arguments', r; "
            "r, e = call('make_rb', {'ho': %r, 'n': 1}); assert not e, r; print(r['line'])" % HO)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("RW1 RB payer-1 re=scheduler-1")


def _arguments():
    scalar = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(-2, 2, allow_nan=False),
                       st.sampled_from(["", "pay", "core", "text", "md", HO]))
    value = st.recursive(scalar, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                        st.dictionaries(st.sampled_from(["slot", "value", "x"]),
                                                                        inner, max_size=3)), max_leaves=6)
    return st.tuples(st.sampled_from(sorted(TOOLS)),
                     st.one_of(value, st.dictionaries(st.sampled_from(
                         ["line", "lines", "ho", "rb", "n", "profiles", "acc", "values", "record", "now", "profile",
                          "lean", "format", "digest", "reply_as", "extra"]), value, max_size=4)))


@settings(max_examples=300, deadline=None)
@given(_arguments())
def test_the_checker_agrees_with_jsonschema(case):
    name, arguments = case
    schema = TOOLS[name].input_schema
    ours = check_arguments(schema, arguments)
    theirs = jsonschema.Draft202012Validator(schema).is_valid(arguments)
    assert (ours is None) == theirs, (name, arguments, ours)


def test_argument_errors_name_the_argument():
    result, is_error = call("make_rb", {"ho": HO, "n": -1})
    assert is_error and (result["error"]["rule"], result["error"]["argument"]) == ("arguments", "n")
    result, is_error = call("check_rb", {"ho": HO, "rb": HO, "profiles": ["pay", 3]})
    assert is_error and result["error"]["argument"] == "profiles.1"


def test_a_schema_beyond_the_subset_is_refused_loudly():
    with pytest.raises(SchemaError, match="format"):
        check_arguments({"type": "string", "format": "date"}, "y")


def test_the_tools_and_the_conformance_schemas_share_one_checker():
    # the tools check their arguments with the core's checker, not a second one
    assert "Checker(" in inspect.getsource(tools.check_arguments)
    assert not hasattr(tools, "_JSON_TYPES")


def test_an_integral_double_is_an_integer_argument_and_reaches_the_tool_as_one():
    # JSON Schema 2020-12 (Validation 6.1.1): "integer" matches any number with a zero fractional part;
    # a JSON-RPC client whose numbers are doubles sends n=1 as 1.0
    assert check_arguments(TOOLS["make_rb"].input_schema, {"ho": HO, "n": 2.0}) is None
    result, is_error = call("make_rb", {"ho": HO, "n": 2.0})
    assert not is_error and result["line"].startswith("RW1 RB payer-2 re=scheduler-1"), result
    result, is_error = call("make_rb", {"ho": HO, "n": 2.5})
    assert is_error and (result["error"]["rule"], result["error"]["argument"]) == ("arguments", "n")
    result, is_error = call("make_rb", {"ho": HO, "n": True})
    assert is_error and result["error"]["argument"] == "n"


def test_the_json_form_reading_of_integer_stays_strict():
    # decisions D9: `pri: 2.0` in a JSON form is refused; the conformance schemas keep that reading
    schema = {"type": "object", "properties": {"pri": {"type": "integer"}}}
    assert first_error(schema, {"pri": 2.0}) == ("$.pri", "expected integer, got number")
    assert first_error(schema, {"pri": 2}) is None
    assert list(Checker(schema, integral_floats=True).errors({"pri": 2.0})) == []
    assert list(Checker(schema, integral_floats=True).errors({"pri": 2.5})) == [("$.pri", "expected integer, got number")]


def _walk(schema, path=""):
    yield path, schema
    for key, sub in schema.get("properties", {}).items():
        yield from _walk(sub, f"{path}.{key}")
    if "items" in schema:
        yield from _walk(schema["items"], f"{path}[]")
    for i, sub in enumerate(schema.get("anyOf", [])):
        yield from _walk(sub, f"{path}|{i}")


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_strict_schemas_are_closed_with_no_union_types(name):
    strict = schemas(strict=True)[name]
    jsonschema.Draft202012Validator.check_schema(strict)
    for path, sub in _walk(strict):
        assert not isinstance(sub.get("type"), list), path
        if sub.get("type") == "object":
            assert sub["additionalProperties"] is False, path
            assert sorted(sub["required"]) == sorted(sub["properties"]), path
            assert sub["properties"], path


def test_strict_profiles_values_and_records():
    strict = schemas(strict=True)
    profiles = strict["make_rb"]["properties"]["profiles"]["anyOf"][0]
    assert profiles["items"] == {"type": "string", "enum": list(tools.BUNDLED_PROFILES)}
    values = strict["make_rb"]["properties"]["values"]["anyOf"][0]
    assert values["items"]["required"] == ["slot", "value"]
    assert strict["check_rb"]["properties"]["expect_acc"]["anyOf"][0]["type"] == "array"


def test_strict_arguments_run_after_from_strict():
    rb = call("make_rb", {"ho": HO, "n": 1})[0]["line"]
    misread = rb.replace("amt=5400.00", "amt=4500.00")
    strict_args = {name: None for name in schemas(strict=True)["check_rb"]["properties"]}
    strict_args.update(ho=HO, rb=misread, profiles=["pay"],
                       record=[{"slot": "amt", "value": "5400.00"}, {"slot": "cur", "value": "GBP"}])
    jsonschema.validate(strict_args, schemas(strict=True)["check_rb"])
    plain = from_strict("check_rb", strict_args)
    assert plain == {"ho": HO, "rb": misread, "profiles": ["pay"], "record": {"amt": "5400.00", "cur": "GBP"}}
    result, is_error = call("check_rb", plain)
    assert not is_error and result["passed"] is False
    assert any(f["key"] == "amt" for f in result["findings"])
    strict_args["rb"] = rb
    assert call("check_rb", from_strict("check_rb", strict_args))[0]["passed"] is True


def test_the_documented_example_runs():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "agents.md").read_text()
    block = doc.split("## Without a transport")[1].split("```python\n")[1].split("```")[0]
    namespace: dict = {}
    exec(compile(block, "docs/agents.md", "exec"), namespace)  # noqa: S102 - our own documentation
    assert namespace["rb"].endswith("h=a7a82de76607") and namespace["report"]["passed"] is False
