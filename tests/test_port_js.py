"""The JavaScript port in examples/ports/js: generated from the grammar, conformant, packaged.

* The checked-in parser and Unicode tables are exactly what ``generate.py``
  produces from ``grammar/rw1.lark`` and Python's Unicode data today.
* The port passes every conformance case, every op, none skipped, through
  its adapter (contract versions 1 and 2); its own unit tests pass under
  ``node --test``; ``npm pack`` gives a package that installs into an empty
  folder and validates the spec's section 8 lines.
* Differential: on generated lines and generated readback, done-report,
  handoff and thread requests, it answers exactly as the Python package
  does. ``RW1_JS_DIFF_EXAMPLES`` raises the number of examples per test
  (default 150).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rogerwilco.front.adapter import handle
from rogerwilco.front.conformance import ImplProcess, load_cases, reply_signature
from tests.bounds import HANG
from tests.strategies import messages

ROOT = Path(__file__).resolve().parents[1]
PORT = ROOT / "examples" / "ports" / "js"
ADAPTER = PORT / "adapter.js"
NODE = shutil.which("node")
NPM = shutil.which("npm")
DIFF_EXAMPLES = int(os.environ.get("RW1_JS_DIFF_EXAMPLES", "150"))


def test_node_and_npm_are_on_the_path():
    # Every machine of the project has them; the port's tests need both.
    assert NODE is not None and NPM is not None


def load_generator():
    spec = importlib.util.spec_from_file_location("rw1_js_generate", PORT / "generate.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------- generation

def test_the_checked_in_parser_is_what_the_generator_makes_from_the_grammar():
    generator = load_generator()
    fresh = generator.generate()
    assert (PORT / "rw1_parser.js").read_text(encoding="utf-8") == fresh, "run examples/ports/js/generate.py"
    result = subprocess.run([sys.executable, str(PORT / "generate.py"), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_generation_does_not_depend_on_string_hashing():
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

def test_the_port_passes_every_case_of_the_suite_and_skips_none(tmp_path):
    report = tmp_path / "report.json"
    command = [sys.executable, "-m", "rogerwilco", "conformance", "--impl", f"node {ADAPTER}", "--json", str(report)]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=HANG)
    doc = json.loads(report.read_text(encoding="utf-8"))
    not_passed = [(c["id"], c["status"]) for c in doc["cases"] if c["status"] != "passed"]
    assert not_passed == [], result.stdout[-4000:]
    assert result.returncode == 0
    cases = load_cases()
    assert doc["summary"]["passed"] == len(cases) > 800
    assert {c.request["op"] for c in cases} == {"parse", "encode", "digest", "reply", "make-rb", "check-rb", "check-ho",
                                                 "check-dn", "check-thread"}
    assert result.stdout.rstrip().splitlines()[-1].startswith(f"{len(cases)} passed, 0 failed, 0 skipped")


def test_the_syntax_cases_pass_when_selected_by_glob():
    command = [sys.executable, "-m", "rogerwilco", "conformance", "--impl", f"node {ADAPTER}", "--run", "syntax/*"]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=HANG)
    assert result.returncode == 0, result.stdout[-3000:]
    assert " 0 failed, 0 skipped" in result.stdout.splitlines()[-1]


def test_the_ports_own_unit_tests_pass_under_node_test():
    result = subprocess.run([NODE, "--test", "test/"], capture_output=True, text=True, cwd=PORT, timeout=HANG)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout and "# pass " in result.stdout


def test_npm_pack_installs_into_an_empty_folder_and_validates_the_spec_lines(tmp_path):
    env = {**os.environ, "npm_config_cache": str(tmp_path / "npm-cache"), "npm_config_update_notifier": "false"}
    packed = subprocess.run([NPM, "pack", "--json", "--pack-destination", str(tmp_path)], capture_output=True, text=True,
                            cwd=PORT, env=env, timeout=HANG)
    assert packed.returncode == 0, packed.stderr[-3000:]
    assert not (PORT / "data").exists(), "postpack removes the bundled copy of the data files"
    info = json.loads(packed.stdout)[0]
    files = {f["path"] for f in info["files"]}
    assert {"package.json", "index.js", "index.d.ts", "cli.js", "adapter.js", "rw1_parser.js", "README.md",
            "data/profiles/rw1.json", "data/profiles/compare.json", "data/profiles/pay.json"} <= files
    assert not any(f.startswith("test/") for f in files)
    site = tmp_path / "empty"
    site.mkdir()
    installed = subprocess.run([NPM, "install", "--offline", "--no-audit", "--no-fund", "--prefix", str(site),
                                str(tmp_path / info["filename"])], capture_output=True, text=True, env=env, timeout=HANG)
    assert installed.returncode == 0, installed.stderr[-3000:]
    assert not (site / "node_modules" / "rogerwilco-js" / "node_modules").exists(), "no runtime dependencies"
    cli = site / "node_modules" / ".bin" / "rogerwilco-js"
    spec = ROOT / "examples" / "spec-section8.rw1"
    result = subprocess.run([str(cli), "validate", str(spec)], capture_output=True, text=True, cwd=site, timeout=HANG)
    assert result.returncode == 0, result.stdout + result.stderr
    count = len([line for line in spec.read_text(encoding="utf-8").splitlines() if line])
    assert result.stdout.strip().splitlines()[-1] == f"{count} lines, {count} valid, 0 refused, 0 notes"
    refused = subprocess.run([str(cli), "validate"], input="RW1 HO a-1 from=a to=b item=x ask=PAYY\n", capture_output=True,
                             text=True, cwd=site, timeout=HANG)
    assert refused.returncode == 1 and "fail UNK [enum] ask=PAYY" in refused.stdout
    script = ("import {parse, digest} from 'rogerwilco-js'; "
              "console.log(digest(parse('RW1 HO a-1 from=a to=b item=x ask=DRAFT')))")
    imported = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True, text=True, cwd=site, timeout=HANG)
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.strip() == handle({"op": "digest", "line": "RW1 HO a-1 from=a to=b item=x ask=DRAFT"})["h"]


def test_the_package_has_no_runtime_dependencies_and_declares_its_api():
    package = json.loads((PORT / "package.json").read_text(encoding="utf-8"))
    assert package["type"] == "module"
    assert not package.get("dependencies")
    assert package["bin"] == {"rogerwilco-js": "./cli.js"}
    declared = (PORT / "index.d.ts").read_text(encoding="utf-8")
    for name in ("parse", "toLine", "toJSON", "digest", "checkRb", "makeRb", "checkDn", "checkHo", "checkThread"):
        assert f"export function {name}(" in declared, name
    for name in ("interface Message", "interface Finding", "class RW1Error"):
        assert name in declared, name


TYPESCRIPT = ROOT / "tests" / "tools" / "typescript"


def test_the_declarations_type_check_a_program_that_uses_the_api():
    # the compiler from the lockfile (npm ci; nothing global); the program also holds misuse that must not compile
    tsc = TYPESCRIPT / "node_modules" / ".bin" / "tsc"
    if not tsc.exists():
        subprocess.run([NPM, "ci", "--no-audit", "--no-fund"], cwd=TYPESCRIPT, check=True, capture_output=True, timeout=HANG)
    result = subprocess.run([str(tsc), "-p", "tsconfig.json"], capture_output=True, text=True, cwd=TYPESCRIPT, timeout=HANG)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "@ts-expect-error" in (TYPESCRIPT / "uses-the-api.mts").read_text(encoding="utf-8")


# ---------------------------------------------------------------- differential

@pytest.fixture(scope="module")
def port():
    impl = ImplProcess([NODE, str(ADAPTER)], handshake=False)  # raw requests: the test speaks the contract itself
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


@settings(max_examples=400, deadline=None)
@given(lines().filter(no_lone_surrogates), st.sampled_from([[], ["pay"], ["clin", "pform"], ["pay", "clin", "pform"]]))
def test_parse_and_reply_agree_with_python_on_generated_lines(port, line, profiles):
    for request in ({"op": "parse", "line": line, "profiles": profiles},
                    {"op": "reply", "line": line, "as": "me", "n": 4, "profiles": profiles}):
        assert comparable(port(request)) == comparable(handle(request)), request


@settings(max_examples=200, deadline=None)
@given(messages())
def test_encode_and_digest_agree_with_python_on_generated_messages(port, msg):
    form = json.loads(json.dumps(msg.to_json()))
    request = {"op": "encode", "json": form, "profiles": ["pay", "clin", "pform"]}
    assert comparable(port(request)) == comparable(handle(request))
    line = msg.to_line()
    request = {"op": "digest", "line": line}
    assert comparable(port(request)) == comparable(handle(request))


@pytest.mark.parametrize("line,token", [
    ("RW1 HO a-1 from=a to=b item=x ask=DRAFT // hi\n", "hi\n"),  # the runtime's raw SyntaxError
    ("RW1 HO a-1 from=a to=b item=x ask=DRAFT // hi ", "hi"),
    ("RW1 HO a-1 x=\U0001f600\U0001f600 y=\u2028", "y=\u2028"),  # columns after astral characters
    ("RW1 HO a-1 from=a to=b item=x ask=DRAFT // \U0001f600 \u2028", "\u2028"),
    ("RW1 HO a-1 from=a to=b item=x ask=DRAFT // \U0001f600 \u00a0", None),  # a no-break space is tail text
    # JavaScript's \s holds U+FEFF, Python's str.isspace() does not: refused as invisible (D16), not as a space.
    ("RW1 HO a-1 from=a to=b item=x ask=DRAFT x=\ufeff", "x=\ufeff"),
])
def test_known_javascript_pitfalls_answer_as_python_does(port, line, token):
    request = {"op": "parse", "line": line}
    got, want = port(request), handle(request)
    assert got == want
    if token is not None:
        assert got["valid"] is False and got["token"] == token




def test_bad_requests_do_not_stop_the_port_and_answer_as_python_does(port):
    requests = [
        {"nope": 1}, {"op": "parse"}, {"op": "parse", "line": 5}, {"op": "check-rb", "ho": "x"},
        {"op": "check-rb", "ho": "RW1 HO", "rb": 5}, {"op": "make-rb", "ho": "x", "n": True},
        {"op": "make-rb", "ho": "RW1 HO a-1 from=a to=b item=x ask=DRAFT", "n": 1, "values": [1]},
        {"op": "check-ho", "line": "x"}, {"op": "check-ho", "line": "x", "record": {}, "relay_adds": "ask"},
        {"op": "check-thread", "lines": "x"}, {"op": "check-thread", "lines": [], "now": "soon"},
        {"op": "check-dn", "ho": "x", "dn": "y", "record": []}, {"op": "parse", "line": "x", "profiles": ["../x"]},
        {"op": "nope"},
    ]
    for request in requests:
        assert comparable(port(request)) == comparable(handle(request)), request
    assert port({"op": "parse", "line": "RW1 HO a-1 from=a to=b item=x ask=DRAFT"})["valid"] is True


def test_contract_v2_handshake_and_sequence_numbers(port):
    start = port({"op": "start", "contract": 2, "seq": 1})
    assert start["ok"] is True and start["contract"] == 2 and start["seq"] == 1
    assert start["implementation"]["language"] == "javascript"
    assert set(start["ops"]) == {"parse", "encode", "digest", "reply", "make-rb", "check-rb", "check-ho", "check-dn",
                                 "check-thread"}
    assert start["profiles"] == ["pay", "clin", "pform", "deploy"]
    assert port({"op": "digest", "line": "RW1 HO a-1 from=a to=b item=x ask=DRAFT", "seq": 2})["seq"] == 2
    assert port({"op": "parse", "seq": 3}) == {"ok": False, "error": "bad request: KeyError: 'line'", "seq": 3}


# ---------------------------------------------------------------- differential: readback and threads

CRITERIA = ["len:120w", "len:120", "len:150w", "len:120-words", "len:120w-or-150w", "tone:plain", "tone:not-plain",
            "tone:Plain", "tone:unplain", "must:monday-problem", "must:pricing-problem", "must:monday", "must:problems",
            "no:jargon", "no:jargons", "scope:eu-only", "scope:eu", "src:doc-1", "lang:uk", "lang:en-gb", "lang:us",
            "fmt:md", "fmt:markdown", "aud:adults", "aud:non-adults", "voice:we", "x:1", "must:cafe", "must:cafe\u0301",
            "must:caf\u00e9", "must:STRASSE", "must:stra\u00dfe", "no:the-end", "must:never-late"]
NOT_TOKENS = ["jargon", "monday-problem", "pricing", "late", "the-end", "eu"]
ASKS = ["DRAFT", "REVIEW", "RESEARCH", "FIX"]
LEVELS = ["echo", "all", "acc", "plan", "exec", "pri", "keep", "due"]
crit_lists = st.lists(st.sampled_from(CRITERIA), min_size=1, max_size=4).map("+".join)


@st.composite
def handoffs(draw):
    """An HO line: core, or pay with execution slots, with levels and criteria drawn, between two of pay's agents."""
    if draw(st.booleans()):
        slots = [f"ask={draw(st.sampled_from(ASKS))}"]
        profile = None
    else:
        ask = draw(st.sampled_from(["PAY", "CHGBANK"]))
        slots = ["p=pay", f"ask={ask}", f"sup={draw(st.sampled_from(['acme', 'globex']))}"]
        if ask == "PAY" and draw(st.booleans()):
            slots.append("amt=100.00")
        if ask == "CHGBANK":
            slots.append("acct=GB00X1")
        profile = "pay"
    if draw(st.booleans()):
        slots.append(f"due={draw(st.sampled_from(['20261010', '20261011']))}")
    if draw(st.booleans()):
        slots.append(f"pri={draw(st.integers(1, 5))}")
    if draw(st.integers(0, 9)) < 7:
        levels = draw(st.lists(st.sampled_from(LEVELS), min_size=1, max_size=3, unique=True))
        if profile and draw(st.booleans()) and "exec" not in levels:
            levels.append("exec")
        slots.append("rb=" + "+".join(levels))
    if draw(st.integers(0, 9)) < 7:
        slots.append("acc=" + draw(crit_lists))
    if draw(st.booleans()):
        slots.append("keys=" + "+".join(draw(st.lists(st.sampled_from(["len", "tone", "must", "no", "fmt"]), min_size=1,
                                                        max_size=3, unique=True))))
    if draw(st.booleans()):
        slots.append(f"exp={draw(st.sampled_from(['20261001T1200Z', '20261002T0000Z']))}")
    tail = draw(st.sampled_from([None, "hero copy, 120 words", "plain tone \u00e9"]))
    line = "RW1 HO scheduler-1 from=scheduler to=payer item=doc:x " + " ".join(slots) + (f" // {tail}" if tail else "")
    return line, profile


def mutate(line: str, draw) -> str:
    """One token of a line dropped, replaced or added."""
    head, sep, tail = line.partition(" // ")
    tokens = head.split(" ")
    choice = draw(st.integers(0, 4))
    if choice == 4:  # the envelope: another id answered, another party
        envelope = {"re": ["re=scheduler-9", "re=scheduler-1"], "from": ["from=c", "from=payer"], "to": ["to=c", "to=scheduler"]}
        at = [i for i, t in enumerate(tokens) if t.split("=", 1)[0] in envelope]
        if at:
            i = draw(st.sampled_from(at))
            tokens[i] = draw(st.sampled_from(envelope[tokens[i].split("=", 1)[0]]))
    spot = draw(st.integers(3, max(3, len(tokens) - 1)))
    pool = ["pri=3", "due=20261012", "h=000000000000", "ask=REVIEW", "keep=x", "exp=20261003T0000Z", "amt=99.00",
            "acct=GB00X2", "not=" + draw(st.sampled_from(NOT_TOKENS)), "acc=" + draw(crit_lists), "do=draft",
            "re=scheduler-9", "sup=initech", "paid=20261001", "ref=r1", "apref=ap1", "kind=invoice", "cur=EUR"]
    if choice == 0 and spot < len(tokens):
        del tokens[spot]
    elif choice == 1 and spot < len(tokens):
        tokens[spot] = draw(st.sampled_from(pool))
    elif choice == 2:
        tokens.insert(spot, draw(st.sampled_from(pool)))
    keys = set()
    kept = []
    for token in tokens:  # keep the line free of repeated keys, so it reads
        key = token.split("=", 1)[0]
        if "=" in token and key in keys:
            continue
        keys.add(key)
        kept.append(token)
    return " ".join(kept) + (sep + tail if sep else "")


def findings_of(response: dict) -> dict:
    if not response.get("ok"):
        return {"ok": False, "error": response.get("error", "").split(":", 1)[0]}
    out = {k: v for k, v in response.items() if k not in ("findings",)}
    out["findings"] = [(f["severity"], f["kind"], f["tier"], f["key"], f.get("token")) for f in response.get("findings", [])]
    return out


@settings(max_examples=DIFF_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_make_rb_and_check_rb_agree_with_python(port, data):
    ho, profile = data.draw(handoffs())
    profiles = [profile] if profile else data.draw(st.sampled_from([[], ["pay"]]))
    make = {"op": "make-rb", "ho": ho, "n": 2, "profiles": profiles}
    for name, strategy in (("acc", crit_lists), ("do", st.sampled_from(["draft", "x"])),
                           ("not", st.sampled_from(NOT_TOKENS)), ("asm", st.sampled_from(["a", "b+c"]))):
        if data.draw(st.booleans()):
            make[name] = data.draw(strategy)
    if data.draw(st.booleans()):
        make["values"] = data.draw(st.dictionaries(st.sampled_from(["amt", "cur", "kind", "acct", "paid", "ref", "apref", "sup"]),
                                                   st.sampled_from(["100.00", "EUR", "invoice", "GB00X1", "20261001", "r1", "x"]),
                                                   max_size=8))
    if data.draw(st.booleans()):
        make["digest"] = False
    want = handle(make)
    assert findings_of(port(make)) == findings_of(want), make
    rb = want["line"] if want.get("ok") else ho.replace("RW1 HO scheduler-1 from=scheduler to=payer", "RW1 RB payer-2 re=scheduler-1 from=payer to=scheduler")
    if data.draw(st.booleans()):  # criteria of the receiver's own, not those make-rb was given
        head, sep, tail = rb.partition(" // ")
        head = " ".join(t for t in head.split(" ") if not t.startswith(("acc=", "not="))) + " acc=" + data.draw(crit_lists)
        if data.draw(st.booleans()):
            head += " not=" + "+".join(data.draw(st.lists(st.sampled_from(NOT_TOKENS), min_size=1, max_size=2)))
        rb = head + sep + tail
    for _ in range(data.draw(st.integers(0, 2))):
        rb = mutate(rb, data.draw)
    check = {"op": "check-rb", "ho": ho, "rb": rb, "profiles": profiles}
    if data.draw(st.booleans()):
        check["expect_acc"] = data.draw(crit_lists)
    if data.draw(st.booleans()):
        check["record"] = {"acct": data.draw(st.sampled_from(["GB00X1", "GB00X2"])), "amt": "100.00"}
    assert findings_of(port(check)) == findings_of(handle(check)), check


@settings(max_examples=DIFF_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_check_ho_and_check_dn_agree_with_python(port, data):
    ho, profile = data.draw(handoffs())
    profiles = [profile] if profile else []
    parsed = handle({"op": "parse", "line": ho, "profiles": profiles})["json"]
    record = {"item": parsed["item"], **parsed["slots"]}
    if parsed["tail"] is not None:
        record["tail"] = parsed["tail"]
    for key in data.draw(st.lists(st.sampled_from(sorted(record)), max_size=2)):
        record.pop(key, None)
    if data.draw(st.booleans()):
        record[data.draw(st.sampled_from(["pri", "due", "acct", "tail", "ask"]))] = data.draw(
            st.sampled_from([3, "3", "20261010", "GB00X9", "hero copy, 120 words", "DRAFT", ["x"]]))
    line = mutate(ho, data.draw) if data.draw(st.booleans()) else ho
    request = {"op": "check-ho", "line": line, "record": record, "profiles": profiles}
    if data.draw(st.booleans()):
        request["relay_adds"] = data.draw(st.lists(st.sampled_from(["pri", "tail", "due", "keep", "acct"]), max_size=3))
    assert findings_of(port(request)) == findings_of(handle(request)), request
    out = data.draw(st.sampled_from(["OK", "PARTIAL", "NOOP"]))
    extra = " ".join(data.draw(st.lists(st.sampled_from(["acct=GB00X1", "acct=GB00X2", "amt=100.00", "sup=acme",
                                                         "paid=20261001"]), max_size=3, unique_by=lambda t: t.split("=")[0])))
    p = " p=pay" if profile else ""
    dn = f"RW1 DN payer-3 re=scheduler-1 from=payer to=scheduler item=doc:x{p} out={out}" + (f" {extra}" if extra and profile else "")
    made = handle({"op": "make-rb", "ho": ho, "n": 2, "profiles": profiles, "acc": "len:120w", "do": "x",
                   "values": {"acct": "GB00X1", "amt": "100.00", "sup": "acme", "cur": "EUR", "kind": "invoice",
                              "paid": "20261001", "ref": "r", "apref": "a"}})
    request = {"op": "check-dn", "ho": ho, "dn": mutate(dn, data.draw) if data.draw(st.booleans()) else dn,
               "profiles": profiles}
    if made.get("ok") and data.draw(st.booleans()):
        request["rb"] = made["line"]
    assert findings_of(port(request)) == findings_of(handle(request)), request


THREAD_EVENTS = [
    "RW1 RB b-2 re=a-1 from=b to=a item=x ask=DRAFT due=20261010",
    "RW1 RB b-3 re=a-1 from=b to=a item=x ask=DRAFT due=20261012",
    "RW1 HO a-4 re=a-1 from=a to=b item=x ask=DRAFT due=20261010",
    "RW1 HO a-5 re=b-3 from=a to=b item=x ask=DRAFT due=20261010 exp=20261001T1200Z",
    "RW1 RB b-20 re=a-5 from=b to=a item=x ask=DRAFT due=20261010",
    "RW1 HO a-24 re=a-5 from=a to=b item=x ask=DRAFT due=20261010 exp=20261001T1200Z",  # a re-send of the re-issue
    "RW1 RB b-25 re=a-24 from=b to=a item=x ask=DRAFT due=20261010",
    "RW1 DN b-26 re=a-24 from=b to=a item=x out=OK",
    "RW1 UN b-6 re=a-4 from=b to=a why=DUP",
    "RW1 DN b-7 re=a-1 from=b to=a item=x out=OK",
    "RW1 DN b-8 re=a-1 from=b to=a item=x out=NOOP",
    "RW1 DN b-21 re=a-5 from=b to=a item=x out=PARTIAL",
    "RW1 CX a-9 re=a-1 from=a to=b item=x",
    "RW1 CX a-22 re=a-5 from=a to=b item=x",
    "RW1 CX c-10 re=a-1 from=c to=b item=x",
    "RW1 AN b-11 re=a-9 from=b to=a val=Y",
    "RW1 FL b-12 re=a-5 from=b to=a item=x why=UNK",
    "RW1 UN b-13 re=a-1 from=b to=a why=UNK",
    "RW1 HO b-14 re=a-1 from=b to=c item=x ask=REVIEW",
    "RW1 DN c-15 re=b-14 from=c to=b item=x out=PARTIAL",
    "RW1 AQ b-16 re=a-77 from=b to=a need=TEXT",
    "RW1 HO a-17 from=a to=b item=y ask=FIX exp=20261001T0000Z",
    "RW1 DN b-23 re=a-17 from=b to=a item=y out=OK",
    "RW1 HO a-30 re=a-30 from=a to=b item=x ask=DRAFT",  # re= itself
    "RW1 HO a-31 re=a-32 from=a to=b item=x ask=DRAFT",  # a loop of re= among HOs
    "RW1 HO a-32 re=a-31 from=a to=b item=x ask=DRAFT",
    "RW1 HO a-33 re=a-34 from=a to=b item=x ask=DRAFT",  # carries forward an HO listed later
    "RW1 HO a-34 from=a to=b item=x ask=DRAFT",
    # a re-send of a re-send of the re-issue (listed before what it re-sends), its readback, act and cancel, the
    # cancel's answer; a re-send of the re-issue's re-send
    "RW1 HO a-27 re=a-5 from=a to=b item=x ask=DRAFT due=20261010 exp=20261001T1200Z",
    "RW1 HO a-28 re=a-27 from=a to=b item=x ask=DRAFT due=20261010 exp=20261001T1200Z",
    "RW1 RB b-28 re=a-28 from=b to=a item=x ask=DRAFT due=20261010",
    "RW1 DN b-29 re=a-28 from=b to=a item=x out=OK",
    "RW1 CX a-29 re=a-28 from=a to=b item=x",
    "RW1 AN b-30 re=a-29 from=b to=a val=Y",
    "RW1 HO a-35 re=a-24 from=a to=b item=x ask=DRAFT due=20261010 exp=20261001T1200Z",
    # the re-send of the re-issue answered as a duplicate (its re-sends sent before that UN stay with it); an
    # untraced re-send of another HO the log lacks, and its cancel; acts on a re-send of a re-send
    "RW1 UN b-32 re=a-24 from=b to=a why=DUP",
    "RW1 HO a-36 re=a-4 from=a to=b item=x ask=DRAFT due=20261010",
    "RW1 CX a-39 re=a-36 from=a to=b item=x",
    "RW1 RB b-40 re=a-35 from=b to=a item=x ask=DRAFT due=20261010",
    "RW1 DN b-41 re=a-35 from=b to=a item=x out=OK",
]
THREAD_ODD = ["RW1 HO a-1 from=a to=b item=x ask=DRAFT due=20261011", "RW1 broken line", ""]
thread_lines = st.tuples(
    st.lists(st.sampled_from(THREAD_EVENTS), max_size=8),
    st.lists(st.sampled_from(THREAD_ODD), max_size=1),
    st.booleans(),
).map(lambda t: (["RW1 HO a-1 from=a to=b item=x ask=DRAFT due=20261010"] if t[2] else []) + t[0] + t[1])


@settings(max_examples=DIFF_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(thread_lines, st.sampled_from(["20260930T0000Z", "20261001T1201Z", "20261011T0000Z", "20261013T2359Z"]))
def test_check_thread_agrees_with_python(port, lines, now):
    request = {"op": "check-thread", "lines": lines, "now": now}
    got, want = port(request), handle(request)
    assert findings_of(got) == findings_of(want), request


# under rb=all: changes, echoes (passing or not), acts before and after them; and reversals (ask=UNDO)
ECHO_EVENTS = [
    "RW1 RB b-41 re=a-40 from=b to=a item=z ask=FIX pri=2",
    "RW1 RB b-51 re=a-40 from=b to=a item=z ask=FIX pri=3",
    "RW1 HO a-52 re=b-51 from=a to=b item=z ask=FIX rb=all pri=2",
    "RW1 HO a-53 re=a-40 from=a to=b item=z ask=FIX pri=2",
    "RW1 ST a-42 re=a-40 from=a to=b item=z pri=1",
    "RW1 ST a-43 from=a to=b item=z eta=20261008",
    "RW1 ST b-54 re=a-40 from=b to=a item=z pct=50",
    "RW1 RB b-44 re=a-42 from=b to=a item=z ask=FIX pri=1",
    "RW1 RB b-45 re=a-42 from=b to=a item=z ask=FIX pri=3",
    "RW1 RB b-46 re=a-43 from=b to=a item=z ask=FIX eta=20261008",
    "RW1 AQ b-47 re=a-40 from=b to=a item=z need=TEXT",
    "RW1 AN a-48 re=b-47 from=a to=b val=soon",
    "RW1 RB b-49 re=a-48 from=b to=a item=z ask=FIX val=soon",
    "RW1 DN b-50 re=a-40 from=b to=a item=z out=OK",
    "RW1 DN b-55 re=a-40 from=b to=a item=z out=NOOP",
    "RW1 DN b-56 re=a-52 from=b to=a item=z out=PARTIAL",
    "RW1 CX a-57 re=a-40 from=a to=b item=z",
    "RW1 HO a-60 from=a to=b item=z ask=UNDO ctx=b-50",
    "RW1 HO a-61 from=a to=b item=z ask=UNDO ctx=a-40+b-56",
    "RW1 RB b-62 re=a-60 from=b to=a item=z ask=UNDO",
    "RW1 HO a-63 from=a to=c item=z ask=FIX rb=all",
    "RW1 ST a-64 from=a to=c item=z eta=20261009",
    "RW1 DN c-65 re=a-63 from=c to=a item=z out=OK",
]
def conversations(first: str, events: list[str], most: int) -> st.SearchStrategy[list[str]]:
    """Up to ``most`` of ``events`` in any order, after ``first`` or not."""
    return st.tuples(st.lists(st.sampled_from(events), max_size=most), st.booleans()).map(
        lambda t: ([first] if t[1] else []) + t[0])


echo_lines = conversations("RW1 HO a-40 from=a to=b item=z ask=FIX rb=all pri=2", ECHO_EVENTS, 9)


@settings(max_examples=DIFF_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(echo_lines)
def test_check_thread_under_rb_all_and_undo_agrees_with_python(port, lines):
    request = {"op": "check-thread", "lines": lines, "now": "20261002T0000Z"}
    got, want = port(request), handle(request)
    assert findings_of(got) == findings_of(want), request


# re-sends of a re-issue and of each other, some listed before what they name, answered UN why=DUP, read
# back, acted on and cancelled, under rb=all (a change and its echo among them): the families whose order
# decides which handoff a line is about
RESEND_EVENTS = [
    "RW1 RB b-2 re=a-1 from=b to=a item=x ask=FIX pri=2",
    "RW1 RB b-3 re=a-1 from=b to=a item=x ask=FIX pri=3",
    "RW1 HO a-5 re=b-3 from=a to=b item=x ask=FIX rb=all pri=2",
    "RW1 HO a-24 re=a-5 from=a to=b item=x ask=FIX rb=all pri=2",
    "RW1 HO a-27 re=a-5 from=a to=b item=x ask=FIX rb=all pri=2",
    "RW1 HO a-28 re=a-27 from=a to=b item=x ask=FIX rb=all pri=2",
    "RW1 HO a-35 re=a-24 from=a to=b item=x ask=FIX rb=all pri=2",
    "RW1 HO a-36 re=a-4 from=a to=b item=x ask=FIX rb=all pri=2",
    "RW1 HO a-4 re=a-1 from=a to=b item=x ask=FIX rb=all pri=2",
    "RW1 RB b-20 re=a-5 from=b to=a item=x ask=FIX pri=2",
    "RW1 RB b-25 re=a-24 from=b to=a item=x ask=FIX pri=2",
    "RW1 RB b-28 re=a-28 from=b to=a item=x ask=FIX pri=2",
    "RW1 RB b-37 re=a-36 from=b to=a item=x ask=FIX pri=2",
    "RW1 DN b-7 re=a-1 from=b to=a item=x out=OK",
    "RW1 DN b-21 re=a-5 from=b to=a item=x out=OK",
    "RW1 DN b-26 re=a-24 from=b to=a item=x out=OK",
    "RW1 DN b-29 re=a-28 from=b to=a item=x out=OK",
    "RW1 DN b-38 re=a-36 from=b to=a item=x out=NOOP",
    "RW1 CX a-9 re=a-1 from=a to=b item=x",
    "RW1 CX a-22 re=a-5 from=a to=b item=x",
    "RW1 CX a-29 re=a-28 from=a to=b item=x",
    "RW1 CX a-39 re=a-36 from=a to=b item=x",
    "RW1 AN b-30 re=a-29 from=b to=a val=Y",
    "RW1 AN b-31 re=a-9 from=b to=a val=Y",
    "RW1 UN b-6 re=a-4 from=b to=a why=DUP",
    "RW1 UN b-32 re=a-24 from=b to=a why=DUP",
    "RW1 ST a-40 re=a-24 from=a to=b item=x pri=1",
    "RW1 ST a-41 re=a-1 from=a to=b item=x pri=1",
    "RW1 RB b-42 re=a-40 from=b to=a item=x ask=FIX pri=1",
    "RW1 AN a-43 re=b-25 from=a to=b val=Y",
]
resend_lines = conversations("RW1 HO a-1 from=a to=b item=x ask=FIX rb=all pri=2", RESEND_EVENTS, 11)


@settings(max_examples=DIFF_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(resend_lines)
def test_check_thread_on_families_of_resends_agrees_with_python(port, lines):
    """The findings alone: the ledger's ``next`` of an HO that two re-sends carry forward (siblings) may name
    either in the port (the thread check names the one taken last)."""
    request = {"op": "check-thread", "lines": lines, "now": "20261001T0000Z"}
    got, want = findings_of(port(request)), findings_of(handle(request))
    assert (got.get("ok"), got.get("findings")) == (want.get("ok"), want.get("findings")), request


# ---------------------------------------------------------------- pattern cost

def _shape_profile(pattern: str) -> dict:
    return {"profile": "pt", "version": "1", "extends": "RW1",
            "translation": [{"id": "shape", "on": ["ST"], "match": {"item": pattern}, "desc": "item has the shape"}]}


@pytest.mark.parametrize("pattern, value", [("[a-z][a-z0-9_-]*:[^ ]+", lambda n: "ab:" + "c" * n),
                                            ("[ab]*a[ab]{999}", lambda n: "a" * n)])
def test_the_port_counts_pattern_steps_as_python_and_refuses_the_same_values(port, pattern, value):
    """The port matches profile patterns on the automaton rogerwilco.core.iregexp builds and counts the states it
    visits the same way: the last value decided within MAX_MATCH_STEPS and the first refused are the same in both
    (the host's regular expressions, which count nothing, matched both)."""
    from rogerwilco.core import iregexp

    compiled = iregexp.compile(pattern)
    first = next(n for n in range(4000, 0, -1) if compiled.matches(value(n - 1)) is not None)
    assert compiled.matches(value(first)) is None
    for n, valid in ((first - 1, pattern.startswith("[a-z]")), (first, False)):
        request = {"op": "parse", "line": f"RW1 ST a-1 p=pt from=a to=b item={value(n)}",
                   "profiles": [_shape_profile(pattern)]}
        assert port(request) == handle(request)
        assert port(request)["valid"] is valid
    long_match = {"op": "parse", "line": f"RW1 ST a-1 p=pt from=a to=b item={'a' * 1000}",
                  "profiles": [_shape_profile("[ab]*a[ab]{999}")]}  # matches, but not within the steps
    assert port(long_match) == handle(long_match) == {"ok": True, "valid": False, "why": "UNK",
                                                       "token": "item=" + "a" * 1000}
