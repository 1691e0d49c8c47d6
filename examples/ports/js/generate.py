"""Generate the JavaScript port's parser from grammar/rw1.lark.

Theory of operation
-------------------
The parser is not written by hand: Lark loads ``grammar/rw1.lark`` (LALR,
contextual lexer, exactly as the Python package does), and the ``lark-js``
runtime is given Lark's own serialised parse tables and terminals through
``memo_serialize``. Two adjustments make that output load and behave the same
in JavaScript:

* Options that Lark 1.3 serialises and the ``lark-js`` 0.1.4 runtime does not
  know (``strict``, ``cache_grammar``, ``ordered_sets``, and any other name
  the runtime's option table lacks) are dropped; the runtime would refuse
  them as unknown options.
* Terminal patterns are Python regex source. They are rewritten for a
  JavaScript ``RegExp`` with the ``u`` flag (the adapter passes
  ``g_regex_flags: "u"``), so a class such as ``[\\ue000-\\U0010ffff]``,
  which Lark has already turned into literal code points, means code points
  and not UTF-16 halves. Under ``u`` an escaped character that is not regex
  syntax (``\\-`` outside a class, ``\\ ``) is an error, so such escapes lose
  their backslash; ``\\-`` inside a class stays. Any construct outside the
  portable subset (``\\d``, ``(?P<``, lookaround, inline flags) stops the
  generation instead of being translated silently.

The same run writes ``unicode_tables.js``: full case folding as Python's
``str.casefold`` applies it (JavaScript has none), for the comparison's
canonical text (D15).

The runtime is CommonJS; it is emitted as an ES module (``export {...}``
in place of ``module.exports``), as the package is ES modules throughout.

Usage: ``python examples/ports/js/generate.py [--check]``. Without
arguments it writes ``examples/ports/js/rw1_parser.js`` and
``unicode_tables.js``; ``--check`` exits 1 when a checked-in file differs
from what would be generated.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

from lark import Lark
from lark.grammar import Rule
from lark.lexer import TerminalDef

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
GRAMMAR = ROOT / "grammar" / "rw1.lark"
OUTPUT = HERE / "rw1_parser.js"
TABLES = HERE / "unicode_tables.js"

# Regex syntax characters that may be escaped in a JavaScript u-mode pattern.
_JS_SYNTAX = set("^$\\.*+?()[]{}|/")
_FORBIDDEN = re.compile(r"\\[dDwWsSbBAZ]|\(\?[P<=!>:#aiLmsux-]")


def js_pattern(source: str) -> str:
    """A Python terminal regex rewritten for a JavaScript u-mode RegExp."""
    bad = [m.group(0) for m in _FORBIDDEN.finditer(source) if m.group(0) != "(?:"]
    if bad:
        raise ValueError(f"non-portable regex construct {bad[0]!r} in {source!r}")
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(source):
        ch = source[i]
        if ch == "\\":
            nxt = source[i + 1]
            if nxt in "uU" or nxt == "x":
                raise ValueError(f"unexpected escape \\{nxt} left in {source!r}")
            if nxt.isalnum():
                raise ValueError(f"non-portable escape \\{nxt} in {source!r}")
            if nxt in _JS_SYNTAX or (in_class and nxt == "-"):
                out.append(ch + nxt)
            else:
                out.append(nxt)
            i += 2
            continue
        if ch == "[" and not in_class:
            in_class = True
        elif ch == "]" and in_class:
            in_class = False
        out.append(ch)
        i += 1
    return "".join(out)


def _runtime_options(runtime: str) -> set[str]:
    block = runtime[runtime.index("_defaults = {"):]
    block = block[: block.index("};")]
    return set(re.findall(r"^\s*(\w+):", block, re.M))


def runtime_path() -> Path:
    """The lark-js runtime (``pip install lark-js``; a namespace package)."""
    spec = importlib.util.find_spec("larkjs")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("lark-js is not installed: pip install 'rogerwilco[ports] @ git+https://github.com/croxio/rogerwilco'")
    return Path(list(spec.submodule_search_locations)[0]) / "lark.js"


def canonical_tables(table: dict) -> dict:
    """The LALR table with tokens and states numbered in a fixed order.

    Lark numbers parser states in the order its sets iterate, which varies
    with Python's string hashing, so the same grammar can serialise to
    different (equivalent) tables. Tokens are renumbered by name and states
    breadth-first from the start states, following shifts in token order, so
    that regenerating gives the checked-in file byte for byte.
    """
    names = table["tokens"]
    token_index = {name: i for i, name in enumerate(sorted(names.values()))}
    states = table["states"]
    order: list = []
    queue = [table["start_states"][s] for s in sorted(table["start_states"])]
    queue += [table["end_states"][s] for s in sorted(table["end_states"])]
    seen = set()
    while queue:
        state = queue.pop(0)
        if state in seen:
            continue
        seen.add(state)
        order.append(state)
        for tok, (action, arg) in sorted(states[state].items(), key=lambda kv: names[kv[0]]):
            if action == 0:
                queue.append(arg)
    order += sorted(set(states) - seen)
    number = {old: new for new, old in enumerate(order)}

    def action(entry):
        kind, arg = entry
        return [kind, number[arg]] if kind == 0 else [kind, arg]

    return {
        "tokens": {token_index[name]: name for name in sorted(names.values())},
        "states": {
            number[old]: {
                token_index[names[tok]]: action(entry)
                for tok, entry in sorted(states[old].items(), key=lambda kv: names[kv[0]])
            }
            for old in order
        },
        "start_states": {k: number[v] for k, v in sorted(table["start_states"].items())},
        "end_states": {k: number[v] for k, v in sorted(table["end_states"].items())},
    }


UNBOUNDED = 2**32 - 1  # a terminal's maximum width when it has none


def as_es_module(runtime: str) -> str:
    """The CommonJS runtime as an ES module: ``export {...}``, and no ``require``.

    The runtime's only ``require`` is ``util``, used to pretty-print values
    in debug messages; without it the runtime falls back to ``JSON``.
    """
    needle = 'const util = typeof require !== "undefined" && require("util");'
    if runtime.count(needle) != 1 or runtime.count("module.exports = {") != 1:
        raise SystemExit("the lark-js runtime has changed shape: update as_es_module()")
    runtime = runtime.replace(needle, "const util = null;")
    runtime = runtime.replace("module.exports = {", "export {")
    if "require(" in runtime:
        raise SystemExit("the lark-js runtime requires a module: update as_es_module()")
    return runtime


def generate() -> str:
    runtime = runtime_path().read_text(encoding="utf-8")
    parser = Lark(GRAMMAR.read_text(encoding="utf-8"), parser="lalr", lexer="contextual")
    data, memo = parser.memo_serialize([TerminalDef, Rule])
    data["parser"]["parser"] = canonical_tables(data["parser"]["parser"])
    known = _runtime_options(runtime)
    data["options"] = {k: v for k, v in data["options"].items() if k in known}
    for entry in memo.values():
        if entry.get("__type__") == "TerminalDef" and entry["pattern"]["__type__"] == "PatternRE":
            entry["pattern"]["value"] = js_pattern(entry["pattern"]["value"])
            # "unbounded" is sre's MAXREPEAT, which differs between Python versions:
            # written as one value, so every Python generates the same file
            low, high = entry["pattern"]["_width"]
            entry["pattern"]["_width"] = [low, min(high, UNBOUNDED)]
    header = (
        "// Generated by examples/ports/js/generate.py from grammar/rw1.lark with the\n"
        "// lark-js runtime. Do not edit: regenerate.\n"
    )
    return (
        header
        + as_es_module(runtime)
        + "\nvar DATA=" + json.dumps(data, indent=1, sort_keys=True) + ";\n"
        + "\nvar MEMO=" + json.dumps(memo, indent=1, sort_keys=True) + ";\n"
    )


def unicode_tables() -> str:
    """Full case folding as the Python package applies it (``str.casefold``).

    JavaScript has no case folding, only ``toLowerCase``, which differs for
    ``ß``, ``ς``, ligatures, Cherokee and more. The table holds every code
    point whose folding is not itself, so the port folds exactly as Python
    does (D15), from the same Unicode data.
    """
    import unicodedata

    table = {}
    for code in range(sys.maxunicode + 1):
        if 0xD800 <= code <= 0xDFFF:
            continue
        ch = chr(code)
        folded = ch.casefold()
        if folded != ch:
            table[ch] = folded
    return (
        "// Generated by examples/ports/js/generate.py from Python's Unicode data\n"
        f"// (unicodedata {unicodedata.unidata_version}). Do not edit: regenerate.\n"
        "// CASEFOLD: every code point whose full case folding (str.casefold) is not itself.\n"
        "export const UNICODE_VERSION = " + json.dumps(unicodedata.unidata_version) + ";\n"
        "export const CASEFOLD = Object.freeze(" + json.dumps(table, ensure_ascii=True, sort_keys=True) + ");\n"
    )


def _tables_version() -> str | None:
    """The Unicode version the checked-in tables were made from."""
    if not TABLES.exists():
        return None
    for line in TABLES.read_text(encoding="utf-8").splitlines():
        if line.startswith("export const UNICODE_VERSION = "):
            return json.loads(line.split(" = ", 1)[1].rstrip(";"))
    return None


def main(argv: list[str]) -> int:
    import unicodedata

    outputs = {OUTPUT: generate(), TABLES: unicode_tables()}
    if "--check" in argv and _tables_version() not in (None, unicodedata.unidata_version):
        # The tables come from one Unicode version (the Python that made them); another
        # Python's data cannot reproduce them, so only the parser is compared here.
        sys.stderr.write(f"{TABLES.relative_to(ROOT)} holds Unicode {_tables_version()}; this Python has "
                         f"{unicodedata.unidata_version}: compared the parser only\n")
        del outputs[TABLES]
    if "--check" in argv:
        stale = [path for path, text in outputs.items() if (path.read_text(encoding="utf-8") if path.exists() else "") != text]
        for path in stale:
            sys.stderr.write(f"{path.relative_to(ROOT)} is out of date: run {Path(__file__).relative_to(ROOT)}\n")
        return 1 if stale else 0
    for path, text in outputs.items():
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
