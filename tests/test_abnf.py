"""The ABNF rendering accepts exactly the lines the Lark grammar accepts.

The ABNF printed by ``rogerwilco grammar --abnf`` is read back here by a
small RFC 5234 reader of this test's own (rules, continuation lines,
comments, ``%x`` values and ranges, case-insensitive quoted strings,
``/``, ``( )``, ``[ ]``, ``n*m`` repetition) and compiled to one regular
expression for the ``line`` rule. That regex and the Lark parser must agree
on every conformance input line and on generated lines, valid and broken.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rogerwilco import RW1SyntaxError
from rogerwilco.core.abnf import AbnfError, definitions, excerpt, regex_to_abnf, render, rules_of
from rogerwilco.front.cli import main
from rogerwilco.front.conformance import load_cases
from rogerwilco.core.syntax import grammar_text, parse_raw_lark
from tests.strategies import fragments, messages, mutated_lines

ROOT = Path(__file__).resolve().parents[1]

# ---------------------------------------------------------------- an ABNF reader

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<num>%[xX][0-9A-Fa-f]+(?:(?:\.[0-9A-Fa-f]+)+|-[0-9A-Fa-f]+)?)
      | (?P<str>"[^"]*")
      | (?P<rep>[0-9]*\*[0-9]*|[0-9]+)
      | (?P<name>[A-Za-z][A-Za-z0-9-]*)
      | (?P<punct>[()\[\]/])
    )""",
    re.X,
)


def read_rules(text: str) -> dict[str, str]:
    """rulename -> element text; continuation lines joined, comments dropped."""
    rules: dict[str, str] = {}
    current = None
    for raw in text.splitlines():
        line = re.sub(r';.*$', "", raw) if '"' not in raw.split(";", 1)[0] or raw.count('"') % 2 == 0 else raw
        if not line.strip():
            continue
        if line[0].isspace():
            assert current is not None, f"continuation before any rule: {raw!r}"
            rules[current] += " " + line.strip()
            continue
        name, eq, body = line.partition("=")
        assert eq and not body.startswith("/"), f"not a rule (or an incremental =/): {raw!r}"
        current = name.strip().lower()
        assert current not in rules, f"rule {current} defined twice"
        rules[current] = body.strip()
    return rules


def _char(code: int) -> str:
    return f"\\U{code:08x}"


class Compiler:
    def __init__(self, rules: dict[str, str]) -> None:
        self.rules = rules
        self.active: set[str] = set()

    @lru_cache(maxsize=None)
    def rule(self, name: str) -> str:
        name = name.lower()
        assert name in self.rules, f"undefined rule {name} (core rules must not be relied on)"
        assert name not in self.active, f"recursive rule {name}: not a regular language"
        self.active.add(name)
        try:
            return "(?:" + self.element(self.rules[name]) + ")"
        finally:
            self.active.discard(name)

    def element(self, text: str) -> str:
        self.tokens = []
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            assert m and m.end() > pos, f"cannot read ABNF at {text[pos:]!r}"
            kind = m.lastgroup
            self.tokens.append((kind, m.group(kind)))
            pos = m.end()
            while pos < len(text) and text[pos].isspace():
                pos += 1
        self.i = 0
        out = self.alternation()
        assert self.i == len(self.tokens), f"trailing ABNF: {self.tokens[self.i:]}"
        return out

    def peek(self):
        return self.tokens[self.i] if self.i < len(self.tokens) else (None, None)

    def alternation(self) -> str:
        parts = [self.concatenation()]
        while self.peek() == ("punct", "/"):
            self.i += 1
            parts.append(self.concatenation())
        return "|".join(parts)

    def concatenation(self) -> str:
        parts = []
        while self.peek()[0] is not None and self.peek() not in (("punct", "/"), ("punct", ")"), ("punct", "]")):
            parts.append(self.repetition())
        assert parts, "empty concatenation"
        return "".join(f"(?:{p})" for p in parts)

    def repetition(self) -> str:
        kind, value = self.peek()
        if kind == "rep":
            self.i += 1
            atom = self.atom()
            if "*" in value:
                lo, hi = value.split("*")
                return f"(?:{atom}){{{lo or 0},{hi}}}"
            return f"(?:{atom}){{{value}}}"
        return self.atom()

    def atom(self) -> str:
        kind, value = self.peek()
        self.i += 1
        if kind == "name":
            # rules compile in a fresh state, so save and restore ours
            saved = (self.tokens, self.i)
            out = self.rule(value)
            self.tokens, self.i = saved
            return out
        if kind == "num":
            body = value[2:]
            if "-" in body:
                lo, hi = (int(x, 16) for x in body.split("-"))
                return f"[{_char(lo)}-{_char(hi)}]"
            return "".join(_char(int(x, 16)) for x in body.split("."))
        if kind == "str":
            text = value[1:-1]
            return "".join(f"[{re.escape(c.lower())}{re.escape(c.upper())}]" if c.isalpha() else re.escape(c) for c in text)
        if (kind, value) == ("punct", "("):
            inner = self.alternation()
            assert self.peek() == ("punct", ")"), "unclosed ("
            self.i += 1
            return inner
        if (kind, value) == ("punct", "["):
            inner = self.alternation()
            assert self.peek() == ("punct", "]"), "unclosed ["
            self.i += 1
            return f"(?:{inner})?"
        raise AssertionError(f"unexpected ABNF token {value!r}")


@lru_cache(maxsize=1)
def abnf_line_regex() -> re.Pattern[str]:
    return re.compile(Compiler(read_rules(render())).rule("line"))


def lark_accepts(text: str) -> bool:
    try:
        parse_raw_lark(text)
        return True
    except RW1SyntaxError:
        return False


def abnf_accepts(text: str) -> bool:
    return abnf_line_regex().fullmatch(text) is not None


# ---------------------------------------------------------------- inputs

def conformance_lines() -> list[str]:
    found = []

    def walk(value):
        if isinstance(value, str) and len(value) < 2000:
            found.append(value)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for case in load_cases():
        for key in ("line", "ho", "rb", "dn", "lines"):
            if key in case.request:
                walk(case.request[key])
    return sorted(set(found))




# ---------------------------------------------------------------- tests

def test_every_conformance_line_is_judged_alike():
    lines = conformance_lines()
    assert len(lines) > 50
    disagreements = [line for line in lines if abnf_accepts(line) != lark_accepts(line)]
    assert disagreements == []
    # the suite holds both kinds, so agreement is not trivially one-sided
    assert any(lark_accepts(line) for line in lines)
    assert any(not lark_accepts(line) for line in lines)


@settings(max_examples=1500, deadline=None)
@given(mutated_lines() | fragments | st.text(max_size=60))
def test_generated_lines_are_judged_alike(text):
    assert abnf_accepts(text) == lark_accepts(text)


@settings(max_examples=300, deadline=None)
@given(messages())
def test_every_valid_generated_line_matches_the_abnf(msg):
    assert abnf_accepts(msg.to_line())


def test_letters_are_case_sensitive_in_the_abnf():
    # ABNF quoted strings ignore case; the rendering must not use them for letters.
    assert lark_accepts("RW1 HO a-1")
    assert not abnf_accepts("rw1 HO a-1")
    assert not abnf_accepts("RW1 ho a-1")


def test_the_abnf_is_derived_from_the_grammar_text():
    changed = grammar_text().replace("TYPE: UPPER+", "TYPE: UPPER~2")
    assert dict(definitions(changed))["type"] == "2upper"
    assert dict(definitions())["type"] == "1*upper"
    assert dict(definitions(grammar_text().replace('"RW" DIGIT+', '"RW" DIGIT?')))["version"] == "%x52.57 [ rw-digit ]"


def test_core_rule_names_are_not_redefined():
    names = [name for name, _ in definitions()]
    core = {"alpha", "bit", "char", "cr", "crlf", "ctl", "digit", "dquote", "hexdig", "htab", "lf", "lwsp", "octet",
            "sp", "vchar", "wsp"}
    assert not core & set(names)
    assert names[0] == "line"


@pytest.mark.parametrize("regex", [r"\d", r"(?P<a>x)", r"(?=x)", r"(?i:x)", r".", r"[^a]", r"\w+", r"x*?"])
def test_non_portable_regex_constructs_are_refused(regex):
    with pytest.raises(AbnfError):
        regex_to_abnf(regex)


def test_regex_classes_become_merged_code_point_ranges():
    assert regex_to_abnf(r"[a-cb-d_]") == "( %x5F / %x61-64 )"
    assert regex_to_abnf(r"[\ue000-\U0010ffff]+") == "1*%xE000-10FFFF"
    assert regex_to_abnf(r"(?:a|bc){2,3}") == "2*3( %x61 / %x62 %x63 )"


def test_cli_prints_the_lark_file_and_the_abnf(capsys):
    assert main(["grammar"]) == 0
    assert capsys.readouterr().out == grammar_text()
    assert main(["grammar", "--abnf"]) == 0
    out = capsys.readouterr().out
    assert out == render()
    assert "line = version rw-sp type rw-sp msgid" in out


def test_conformance_lines_helper_sees_request_lines():
    sample = [c for c in load_cases() if isinstance(c.request.get("line"), str)]
    assert sample and sample[0].request["line"] in conformance_lines()
    assert json.dumps(conformance_lines())  # plain strings only


def test_the_excerpt_in_the_porting_guide_is_the_shipped_abnf():
    """docs/ports.md shows rules of grammar/rw1.abnf as the file writes them, never a hand-written paraphrase."""
    guide = (ROOT / "docs" / "ports.md").read_text(encoding="utf-8")
    block = re.search(r"```console\n\$ rogerwilco grammar --abnf((?: --rule \S+)+)\n(.*?)```", guide, re.S)
    assert block is not None, "docs/ports.md: no `rogerwilco grammar --abnf --rule ...` block"
    names = block.group(1).split(" --rule ")[1:]
    assert {"line", "msgid", "slot", "tail"} <= set(names)
    shipped = rules_of((ROOT / "grammar" / "rw1.abnf").read_bytes().decode("utf-8"))
    assert block.group(2) == "".join(shipped[name] for name in names).replace("\r\n", "\n")
    assert excerpt(names) == "".join(shipped[name] for name in names)


def test_the_cli_prints_chosen_rules_and_names_an_unknown_one(capsys):
    assert main(["grammar", "--abnf", "--rule", "slot", "--rule", "version"]) == 0
    assert capsys.readouterr().out == 'slot = key "=" value\r\nversion = %x52.57 1*rw-digit\r\n'
    assert main(["grammar", "--abnf", "--rule", "sloth"]) == 2
    assert "no rule 'sloth' in the ABNF" in capsys.readouterr().err
    assert main(["grammar", "--rule", "slot"]) == 2
    assert "give --abnf too" in capsys.readouterr().err
    with pytest.raises(AbnfError):
        excerpt(["sloth"])
