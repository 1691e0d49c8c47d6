"""A profile either loads and works on every line, or is refused with its JSON path (issue 11 item 8).

``load_profile`` and ``rogerwilco profile check`` are one check
(:func:`rogerwilco.core.vocab.profile_problems`). The property test mutates a
profile that uses every feature at a random place with a random JSON value:
either the loader refuses it with a ProfileError naming a JSON path, or the
compiled vocabulary checks every line, writes its legend and its JSON Schema,
and the profile JSON Schema accepts the document too, without any exception
that is not the package's own.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rogerwilco.front.adapter import handle
from rogerwilco.front.cli import main
from rogerwilco.front.commands.profiles import profile_report
from rogerwilco.core.errors import ProfileError
from rogerwilco.core.jsonform_schema import schema_for
from rogerwilco.core.legend import legend
from rogerwilco.core.semantics import check_line
from rogerwilco.core.vocab import Receiver, compile_vocabulary, load_profile, profile_problems

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "profiles" / "profile.schema.json").read_text("utf-8"))

RICH = {
    "profile": "shop",
    "version": "1.0",
    "extends": "RW1",
    "desc": "a shop",
    "asks": {"SHIP": "ship it"},
    "why": {"OOS": "out of stock"},
    "constraint_keys": {"colour": "the colour"},
    "enums": {"lane": {"A": "lane a", "B": "lane b"}, "size": ["S", "M", "L"], "ans": ["OKAY", "NOPE"]},
    "slots": [
        {"key": "zz", "type": "token", "on": ["ST", "HO"], "required": False, "desc": "a token"},
        {"key": "lane", "type": "enum:lane", "on": ["ST"]},
        {"key": "qty", "type": "int:1-99"},
        {"key": "net", "type": "money", "on": ["ST"]},
        {"key": "vat", "type": "money", "on": ["ST"]},
        {"key": "amt", "type": "money", "on": ["ST"]},
        {"key": "sizes", "type": "list:enum:size"},
        {"key": "src", "type": "token", "on": ["ST"]},
    ],
    "agents": ["shop", "store"],
    "asks_used": ["DRAFT", "FIX"],
    "exec": {"SHIP": ["qty", "lane"]},
    "aliases": {"red": ["crimson", "scarlet"]},
    "translation": [
        {"id": "r1", "on": ["ST"], "when": {"zz": {"prefix": "inv:"}}, "require": ["amt"],
         "sum": {"parts": ["net", "vat"], "total": "amt"}, "desc": "invoice lines add up"},
        {"id": "r2", "on": ["ST"], "when": {"lane": {"in": ["A", "B"]}, "qty": 3}, "require_tail": True,
         "match": {"src": "doc:[^#]+#l[1-9][0-9]*"}, "evidence": "src"},
    ],
}

LINES = [
    "RW1 ST shop-1 from=shop to=store item=inv:1 p=shop zz=inv:9 net=1.00 vat=0.20 amt=1.20",
    "RW1 ST shop-2 from=shop to=store item=inv:1 p=shop zz=inv:9 net=1.00 vat=0.20 amt=1.30",
    "RW1 ST shop-3 from=shop to=store item=x:1 p=shop lane=A qty=3 src=doc:a#l2 // quote",
    "RW1 ST shop-4 from=shop to=store item=x:1 p=shop lane=B qty=3 src=bad",
    "RW1 HO shop-5 from=shop to=store item=x:1 ask=SHIP p=shop qty=5 lane=A sizes=S+M rb=exec zz=1",
    "RW1 AQ shop-6 from=shop to=store item=x:1 need=ENUM opts=OKAY+MAYBE p=shop",
    "RW1 AN store-7 re=shop-6 from=store to=shop item=x:1 val=OKAY p=shop",
    "RW1 HO shop-8 from=shop to=store item=x:1 ask=DRAFT p=shop rb=acc acc=colour:red+1x:plain keys=colour",
    "RW1 UN store-9 re=shop-8 from=store to=shop why=OOS p=shop",
    "RW1 ST shop-10 from=shop to=store item=x:1 p=shop qty=100 lane=C sizes=XL",
]


def test_the_rich_profile_loads_and_works():
    vocab = compile_vocabulary(load_profile(RICH))
    assert jsonschema.Draft202012Validator(SCHEMA).is_valid(RICH)
    receiver = Receiver.load([RICH])
    results = [check_line(line, receiver) for line in LINES]
    assert [r.valid for r in results] == [True, False, True, False, True, False, True, True, True, False]
    assert legend(vocab) and schema_for(vocab)


def with_rule(**rule) -> dict:
    doc = copy.deepcopy(RICH)
    doc["translation"] = [{"id": "r", "on": ["ST"], **rule}]
    return doc


@pytest.mark.parametrize("doc, path", [
    (with_rule(when={"zz": {"prefix": 5}}), "$.translation[0].when.zz"),
    (with_rule(when={"zz": {"in": 5}}), "$.translation[0].when.zz"),
    (with_rule(when={"zz": {"in": [["a"]]}}), "$.translation[0].when.zz"),
    (with_rule(when={"zz": {"prefix": "a", "in": ["b"]}}), "$.translation[0].when.zz"),
    (with_rule(when={"zz": None}), "$.translation[0].when.zz"),
    (with_rule(when={"zz": ["a"]}), "$.translation[0].when.zz"),
    (with_rule(on=[["HO"]]), "$.translation[0].on[0]"),
    (with_rule(on=[]), "$.translation[0].on"),
    (with_rule(require="amt"), "$.translation[0].require"),
    (with_rule(require=[["amt"]]), "$.translation[0].require[0]"),
    (with_rule(require=5), "$.translation[0].require"),
    (with_rule(require_tail="yes"), "$.translation[0].require_tail"),
    (with_rule(sum={"parts": [["net"]], "total": "amt"}), "$.translation[0].sum"),
    (with_rule(sum={"parts": [], "total": "amt"}), "$.translation[0].sum"),
    (with_rule(sum={"parts": ["net"], "total": "amt", "x": 1}), "$.translation[0].sum"),
    (with_rule(evidence=["src"]), "$.translation[0].evidence"),
    (with_rule(match={"src": "^doc"}), "$.translation[0].match.src"),
    (with_rule(desc=5), "$.translation[0].desc"),
    ({**RICH, "translation": {"rules": []}}, "$.translation"),
    ({**RICH, "slots": [{"key": "zz", "type": "token", "on": [["HO"]]}]}, "$.slots[0].on[0]"),
    ({**RICH, "slots": [{"key": "zz", "type": ["token"]}]}, "$.slots[0].type"),
    ({**RICH, "slots": [{"key": "zz", "type": "int:0-" + "9" * 5000}]}, "$.slots[0].type"),
    ({**RICH, "slots": [{"key": "p", "type": "token"}]}, "$.slots[0].key"),
    ({**RICH, "asks_used": [["DRAFT"]]}, "$.asks_used[0]"),
    ({**RICH, "asks_used": ["DRAFT", "DRAFT"]}, "$.asks_used[1]"),
    ({**RICH, "exec": {"SHIP": [["qty"]]}}, "$.exec.SHIP[0]"),
    ({**RICH, "exec": {"SHIP": []}}, "$.exec.SHIP"),
    ({**RICH, "enums": {"lane": [["A"]]}}, "$.enums.lane[0]"),
    ({**RICH, "enums": {"lane": ["A", "A"]}}, "$.enums.lane[1]"),
    ({**RICH, "asks": [["SHIP"]]}, "$.asks[0]"),
    ({**RICH, "constraint_keys": ["Colour"]}, "$.constraint_keys.Colour"),
    ({**RICH, "constraint_keys": {"a:b": "x"}}, "$.constraint_keys.a:b"),
    ({**RICH, "aliases": {"red": "crimson"}}, "$.aliases.red"),
    ({**RICH, "aliases": {"red": [""]}}, "$.aliases.red"),
    ({**RICH, "agents": [["shop"]]}, "$.agents[0]"),
    ({**RICH, "version": ""}, "$.version"),
    ({**RICH, "desc": ["x"]}, "$.desc"),
])
def test_a_profile_that_would_crash_later_is_refused_at_load_with_its_json_path(doc, path):
    with pytest.raises(ProfileError) as caught:
        load_profile(doc)
    assert caught.value.path == path, caught.value.message
    assert path in [p for p, _ in profile_problems(doc)]


def test_the_adapter_answers_a_refused_inline_profile_with_an_error_not_an_internal_one():
    got = handle({"op": "parse", "line": LINES[0], "profiles": [with_rule(when={"zz": {"prefix": 5}})]})
    assert got["ok"] is False and "internal" not in got["error"]


def test_profile_check_lists_what_the_loader_refuses(tmp_path, capsys):
    doc = with_rule(when={"zz": {"in": 5}}, on=[["HO"]])
    path = tmp_path / "shop.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    _, problems = profile_report(str(path))
    assert [(p, m) for p, _, m in problems] == profile_problems(doc)
    with pytest.raises(ProfileError) as caught:
        load_profile(str(path))
    assert (caught.value.path, caught.value.message) == profile_problems(doc)[0]
    assert main(["profile", "check", str(path), "--format", "json"]) == 1
    assert [p["path"] for p in json.loads(capsys.readouterr().out)["problems"]] == [p for p, _, _ in problems]


def test_a_profile_file_that_is_not_usable_json_is_a_profile_error(tmp_path):
    for name, text in (("deep.json", "[" * 100_000 + "]" * 100_000), ("big.json", '{"version": ' + "9" * 5000 + "}"),
                       ("bytes.json", b"\xff\xfe{".decode("latin-1"))):
        path = tmp_path / name
        path.write_bytes(text.encode("latin-1") if name == "bytes.json" else text.encode())
        with pytest.raises(ProfileError):
            load_profile(str(path))


# ---------------------------------------------------------------- property: loads and works, or refused

def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, prefix + (i,))


ALL_PATHS = [p for p in _paths(RICH) if p]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 200) | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["", "A", "HO", "ST", "zz", "qty", "token", "enum:lane", "list:token", "int:1-5", "money",
                       "inv:", "DRAFT", "SHIP", "(a|b)*", "^x", "[0-9]+", "x_y", "p", "colour"])
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["prefix", "in", "parts", "total", "key",
                                                                                  "type", "on", "a", "A"]), inner, max_size=3),
    max_leaves=6,
)


def _mutate(doc: dict, path: tuple, value, delete: bool) -> dict:
    doc = copy.deepcopy(doc)
    node = doc
    for part in path[:-1]:
        node = node[part]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return doc


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(ALL_PATHS), json_values, st.booleans()), min_size=1, max_size=3))
def test_a_mutated_profile_loads_and_works_on_every_line_or_is_refused_with_a_path(mutations):
    doc = RICH
    for path, value, delete in mutations:
        try:
            doc = _mutate(doc, path, value, delete)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed or replaced the place
    problems = profile_problems(doc)
    try:
        loaded = load_profile(doc)
    except ProfileError as exc:
        assert problems and (exc.path, exc.message) == problems[0]
        assert exc.path.startswith("$")
        return
    assert problems == []
    assert jsonschema.Draft202012Validator(SCHEMA).is_valid(loaded), "the loader accepted what the schema refuses"
    vocab = compile_vocabulary(loaded)
    receiver = Receiver.load([loaded])
    for line in LINES:
        result = check_line(line, receiver)
        assert result.valid or result.refusal is not None
        handle({"op": "reply", "line": line, "as": "me", "n": 1, "profiles": [loaded]})
    assert legend(vocab) and legend(vocab, lean=True) and legend(vocab, fmt="md")
    assert schema_for(vocab)


def test_compiling_a_document_directly_runs_the_same_check():
    with pytest.raises(ProfileError) as caught:
        compile_vocabulary(with_rule(when={"zz": {"prefix": 5}}))
    assert caught.value.path == "$.translation[0].when.zz"
