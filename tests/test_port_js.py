"""The Node.js port in examples/ports/js: generated from the grammar, conformant.

* The checked-in parser is exactly what ``generate.py`` produces from
  ``grammar/rw1.lark`` today (needs ``lark-js``, the ``ports`` extra).
* With ``node`` on the PATH: the port passes every conformance case of the
  ops it implements (parse, encode, digest, reply) and answers
  ``unsupported`` for the rest; and on generated lines, valid and broken,
  it answers exactly as the Python package does.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rogerwilco.adapter import handle
from rogerwilco.conformance import _Impl, load_cases, reply_signature
from tests.strategies import messages

ROOT = Path(__file__).resolve().parents[1]
PORT = ROOT / "examples" / "ports" / "js"
ADAPTER = PORT / "adapter.js"
PORT_OPS = {"parse", "encode", "digest", "reply"}
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not on the PATH: the JavaScript port cannot run here")


def load_generator():
    spec = importlib.util.spec_from_file_location("rw1_js_generate", PORT / "generate.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------- generation

def test_the_checked_in_parser_is_what_the_generator_makes_from_the_grammar():
    if importlib.util.find_spec("larkjs") is None:
        pytest.skip("lark-js is not installed: pip install 'rogerwilco[ports]'")
    generator = load_generator()
    fresh = generator.generate()
    assert (PORT / "rw1_parser.js").read_text(encoding="utf-8") == fresh, "run examples/ports/js/generate.py"
    result = subprocess.run([sys.executable, str(PORT / "generate.py"), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_generation_does_not_depend_on_string_hashing():
    if importlib.util.find_spec("larkjs") is None:
        pytest.skip("lark-js is not installed: pip install 'rogerwilco[ports]'")
    for seed in ("1", "2", "3"):
        result = subprocess.run([sys.executable, str(PORT / "generate.py"), "--check"], capture_output=True,
                                text=True, env={"PYTHONHASHSEED": seed, "PATH": ""})
        assert result.returncode == 0, (seed, result.stderr)


def test_generated_patterns_are_rewritten_for_javascript_u_mode():
    generator = load_generator()
    assert generator.js_pattern(r"[A-Za-z0-9._-]+\-(?:[0-9])+") == "[A-Za-z0-9._-]+-(?:[0-9])+"
    assert generator.js_pattern(r"a(?:\ b)*") == "a(?: b)*"
    assert generator.js_pattern(r"[a\-z]") == r"[a\-z]"
    for bad in (r"\d+", r"(?P<x>a)", r"(?=a)", r"(?i:a)", r"\w"):
        with pytest.raises(ValueError):
            generator.js_pattern(bad)


def test_the_generated_parser_drops_options_the_runtime_rejects():
    text = (PORT / "rw1_parser.js").read_text(encoding="utf-8")
    options = text[text.index("var DATA="):]
    options = options[options.index('"options"'):]
    options = options[: options.index("}")]
    for name in ('"strict"', '"cache_grammar"', '"ordered_sets"'):
        assert name not in options


# ---------------------------------------------------------------- conformance

def port_cases():
    return [c for c in load_cases() if c.request.get("op") in PORT_OPS]


@needs_node
def test_the_port_passes_every_case_of_its_ops_and_skips_the_rest(tmp_path):
    report = tmp_path / "report.json"
    command = [sys.executable, "-m", "rogerwilco", "conformance", "--impl", f"node {ADAPTER}", "--json", str(report)]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=600)
    doc = json.loads(report.read_text(encoding="utf-8"))
    ops = {c.id: c.request["op"] for c in load_cases()}
    failed = [c["id"] for c in doc["cases"] if c["status"] == "failed"]
    assert failed == [], result.stdout[-4000:]
    assert result.returncode == 0
    assert result.stdout.rstrip().splitlines()[-1].startswith(f"{doc['summary']['passed']} passed, 0 failed")
    for entry in doc["cases"]:
        expected = "passed" if ops[entry["id"]] in PORT_OPS else "skipped"
        assert entry["status"] == expected, entry["id"]
    assert doc["summary"]["passed"] == len(port_cases()) > 100


@needs_node
def test_the_syntax_cases_pass_when_selected_by_glob():
    command = [sys.executable, "-m", "rogerwilco", "conformance", "--impl", f"node {ADAPTER}", "--run", "syntax/*"]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:]
    assert " 0 failed, 0 skipped" in result.stdout.splitlines()[-1]


# ---------------------------------------------------------------- differential

@pytest.fixture(scope="module")
def port():
    if NODE is None:
        pytest.skip("node is not on the PATH: the JavaScript port cannot run here")
    impl = _Impl([NODE, str(ADAPTER)])
    yield lambda request: impl.ask(request, 30)
    impl.stop()


def comparable(response: dict) -> dict:
    out = dict(response)
    if out.get("ok") is False:
        out["error"] = out.get("error", "").split(":", 1)[0]  # the kind, not the wording
    if "reply" in out:
        out["reply"] = reply_signature(out["reply"])
    return out


PIECES = ["RW1", "RW2", "HO", "ho", "a-1", " ", "  ", "=", "k=v", "//", " // ", " //", "\t", "\n", "\r\n",
          "\x00", "\x85", "\xa0", "\u2028", "\ufeff", "\U0001f600", "\U0010ffff", "é", "+", "pri=9", "p=pay",
          "p=nope", "ask=PAYY", "due=20260230", "x_k=1", "from=a", "item=inv:1", "amt=1.00"]
fragments = st.lists(st.sampled_from(PIECES) | st.text(max_size=3), max_size=10).map("".join)


@st.composite
def lines(draw):
    line = draw(messages()).to_line()
    for _ in range(draw(st.integers(0, 2))):
        pos = draw(st.integers(0, len(line)))
        line = line[:pos] + draw(fragments) + line[pos + draw(st.integers(0, 3)):]
    return line


def no_lone_surrogates(text: str) -> bool:
    return not any(0xD800 <= ord(c) <= 0xDFFF for c in text)


@needs_node
@settings(max_examples=400, deadline=None)
@given(lines().filter(no_lone_surrogates), st.sampled_from([[], ["pay"], ["clin", "pform"], ["pay", "clin", "pform"]]))
def test_parse_and_reply_agree_with_python_on_generated_lines(port, line, profiles):
    for request in ({"op": "parse", "line": line, "profiles": profiles},
                    {"op": "reply", "line": line, "as": "me", "n": 4, "profiles": profiles}):
        assert comparable(port(request)) == comparable(handle(request)), request


@needs_node
@settings(max_examples=200, deadline=None)
@given(messages())
def test_encode_and_digest_agree_with_python_on_generated_messages(port, msg):
    form = json.loads(json.dumps(msg.to_json()))
    request = {"op": "encode", "json": form, "profiles": ["pay", "clin", "pform"]}
    assert comparable(port(request)) == comparable(handle(request))
    line = msg.to_line()
    request = {"op": "digest", "line": line}
    assert comparable(port(request)) == comparable(handle(request))


@needs_node
@pytest.mark.parametrize("line,token", [
    ("RW1 HO a-1 from=a to=b item=x ask=DRAFT // hi\n", "hi\n"),  # the runtime's raw SyntaxError
    ("RW1 HO a-1 from=a to=b item=x ask=DRAFT // hi ", "hi"),
    ("RW1 HO a-1 x=\U0001f600\U0001f600 y=\u2028", "y=\u2028"),  # columns after astral characters
    ("RW1 HO a-1 from=a to=b item=x ask=DRAFT // \U0001f600 \u2028", "\u2028"),
    ("RW1 HO a-1 from=a to=b item=x ask=DRAFT // \U0001f600 \u00a0", None),  # a no-break space is tail text
    ("RW1 HO a-1 from=a to=b item=x ask=DRAFT x=\ufeff", None),  # visible: not a space to Python
])
def test_known_javascript_pitfalls_answer_as_python_does(port, line, token):
    request = {"op": "parse", "line": line}
    got, want = port(request), handle(request)
    assert got == want
    if token is not None:
        assert got["valid"] is False and got["token"] == token


@needs_node
def test_other_ops_are_unsupported_and_bad_requests_do_not_stop_the_port(port):
    assert port({"op": "check-rb", "ho": "x", "rb": "y"}) == {"ok": False, "error": "unsupported"}
    assert port({"nope": 1})["ok"] is False
    assert port({"op": "parse"})["ok"] is False
    assert port({"op": "parse", "line": "RW1 HO a-1 from=a to=b item=x ask=DRAFT"})["valid"] is True
