"""Figures the docs quote, each compared with what the code or a run gives today.

A count, a limit, a list of names or a table of results in README.md or
docs/*.md is one of:

* a *live figure*: an entry of ``FIGURES`` below names the doc, the phrase
  (a regular expression whose groups are the figures) and how to get the
  value today (a constant of the package, a count of cases, a run of a
  benchmark that prints counts, not times). ``tests/test_docs_figures.py``
  compares each; ``python docs/snippets.py --write`` rewrites them;
* a *measured figure* (a time, a rate, a memory peak, a speed-up): it cannot
  be compared in a test, so it is quoted only under a statement of when, where
  and how it was measured, in this form::

      Measured 2026-11-30 on a 2-core x86_64 Linux machine, Python 3.11, with `python benchmarks/scan_bench.py`

  in the same section, above the figure (at most ``MEASURED_REACH`` lines).
  The test checks the script exists, takes every ``--flag`` given, and the
  date is a real day not in the future; a reader sees how old the figure is
  and how to measure it again. A script that times more than one corpus
  (``CORPUS_FLAGS``) is quoted with the flag that names the corpus, so no
  figure stands for a corpus it was not measured on;
* a count the census below does not recognise as one of the package's (a
  figure the spec reports from its studies, an exit code): listed in
  ``NOT_OURS`` with the reason.

The census (``COUNT``) finds every number followed by a noun that counts
something of the package (cases, rules, types, tiers, tools, profiles ...);
each must be a live figure or be listed in ``NOT_OURS``, so a new figure
cannot be added that nobody compares.
"""

from __future__ import annotations

import datetime as _dt
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Callable, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
         "ten": 10, "eleven": 11, "twelve": 12}


def in_words(n: int) -> str:
    return {v: k for k, v in WORDS.items()}[n]


def _capital(word: str, like: str) -> str:
    return word.capitalize() if like[:1].isupper() else word


# --------------------------------------------------------------------------
# where live values come from


def _load_script(name: str):
    path = ROOT / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_docs_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _test_default(test: str, variable: str) -> int:
    """The default of a budget a test reads from the environment (``int(os.environ.get("VAR", "60"))``)."""
    text = (ROOT / "tests" / test).read_text(encoding="utf-8")
    m = re.search(rf'os\.environ\.get\("{variable}", "(\d+)"\)', text)
    if m is None:
        raise LookupError(f"tests/{test} no longer reads {variable}")
    return int(m.group(1))


def _cases() -> int:
    return len(module("conformance").load_cases())


def _diff_classes() -> int:
    return len(module("difftest").CLASSES)


def _types() -> int:
    return len(json.loads((ROOT / "profiles" / "rw1.json").read_text(encoding="utf-8"))["types"])


def _json_keys() -> int:
    import rogerwilco
    return len(rogerwilco.loads("RW1 HO a-1 from=a to=b item=x ask=FIX").to_json())


def _tiers() -> int:
    return len(module("readback").TIERS)


def _bundled() -> tuple[str, ...]:
    return tuple(module("vocab").BUNDLED_PROFILES)


def _tools() -> list[str]:
    return list(module("tools").TOOLS)


def _digest_length() -> int:
    import rogerwilco
    return len(rogerwilco.loads("RW1 HO a-1 from=a to=b item=x ask=FIX").digest())


def _scanner_limits() -> tuple[str, str]:
    """The keys a plan of the C scanner holds (half its table) and the longest key it looks up, from _scan.c."""
    source = (ROOT / "rogerwilco" / "core" / "_scan.c").read_text(encoding="utf-8")
    bits = int(re.search(r"#define TABLE_BITS (\d+)", source).group(1))  # type: ignore[union-attr]
    key_max = re.search(r"#define KEY_MAX (\d+)", source).group(1)  # type: ignore[union-attr]
    return str((1 << bits) // 2), key_max


def _kib(n: int) -> str:
    return f"{n // 1024} KiB" if n < 1024 * 1024 else f"{n // (1024 * 1024)} MiB"


def module(name: str):
    """The package's module ``name`` (``"slottypes"``, ``"scan.sources"``), in whichever layer folder it lives."""
    import importlib
    import pkgutil

    import rogerwilco

    layers = [f"{info.name}." for info in pkgutil.iter_modules(rogerwilco.__path__) if info.ispkg] + [""]
    for layer in layers:
        try:
            return importlib.import_module(f"rogerwilco.{layer}{name}")
        except ModuleNotFoundError:
            continue
    raise ModuleNotFoundError(f"no module {name} in rogerwilco or its layer folders")


_CACHE: dict[str, object] = {}


def _faults():
    """The fault table's run at the README's settings (seed 21, 60 per class, 80 clean), once."""
    if "faults" not in _CACHE:
        bench = _load_script("fault_table")
        _CACHE["faults"] = (bench, bench.run(seed=21, per_class=60, clean=80))
    return _CACHE["faults"]


def _fault_column() -> list[str]:
    bench, results = _faults()
    return [f"{t.caught} of {t.planted}" for t in results.faults.values()]


FAULT_ROW = r"(?m)^\|(?:[^|\n]*\|){3} (\d+ of \d+) \|$"


def fault_rows(text: str) -> int:
    return len(re.findall(FAULT_ROW, text))


def _fault_row(m: re.Match) -> str:
    """The fault table's row at this position: the rows are in the script's order of classes."""
    column = _fault_column()
    index = len(re.findall(FAULT_ROW, m.string[:m.start()]))
    return column[index] if index < len(column) else "(no such class)"


def _false_alarms() -> tuple[str, str, str, str]:
    bench, results = _faults()
    clean = list(results.clean.values())
    alarms = sum(t.planted - t.caught for t in clean)
    per = {t.planted for t in clean}
    return (in_words(len(clean)), str(alarms), str(sum(t.planted for t in clean)),
            str(per.pop()) if len(per) == 1 else "/".join(str(t.planted) for t in clean))


def _made() -> tuple[str, str]:
    bench, results = _faults()
    return str(results.made[0]), str(results.made[1])


def _legend_table() -> str:
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "legend_tokens.py"), "--markdown"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    return proc.stdout.strip()


def _legend_goal() -> str:
    met = {}
    for row in _legend_table().splitlines():
        cells = [c.strip() for c in row.strip("|").split("|")]
        if len(cells) == 6 and cells[0] == "pay" and cells[5]:
            met[cells[1]] = "NOT" not in cells[5]
    if met.get("full") and met.get("lean"):
        return "both are met"
    if not met.get("full") and not met.get("lean"):
        return "neither is met"
    return "the full one is met, the lean one is not" if met.get("full") else "the lean one is met, the full one is not"


def _rule_table() -> str:
    RULES = module("lint").RULES
    head = "| code | name | level | fires on |\n|---|---|---|---|"
    rows = [f"| `{r.code}` | {r.name} | {r.level} | {r.summary}. Example: `{r.bad.replace(chr(10), ' ⏎ ')}` |"
            for r in RULES.values()]
    return "\n".join([head, *rows])


# --------------------------------------------------------------------------
# the registry


class Figure(NamedTuple):
    doc: str  # path from the repository root
    pattern: str  # a regular expression; each group is one figure
    live: Callable[[re.Match], tuple[str, ...]]  # the groups' values today, given the match (for capitals)
    what: str


def _one(fn: Callable[[], object]) -> Callable[[re.Match], tuple[str, ...]]:
    return lambda m: (str(fn()),)


def _word(fn: Callable[[], int]) -> Callable[[re.Match], tuple[str, ...]]:
    return lambda m: (_capital(in_words(fn()), m.group(1)),)


def _names(fn: Callable[[], tuple[str, ...] | list[str]], fmt: str, sep: str, last: str = "") -> Callable:
    def live(m: re.Match) -> tuple[str, ...]:
        names = [fmt.format(n) for n in fn()]
        if last and len(names) > 1:
            return (sep.join(names[:-1]) + last + names[-1],)
        return (sep.join(names),)
    return live


def _same_names(fn: Callable[[], list[str]]) -> Callable[[re.Match], tuple[str, ...]]:
    """The names quoted in order, however the text wraps; else the list written out again."""
    def live(m: re.Match) -> tuple[str, ...]:
        names = list(fn())
        if re.findall(r"`(\w+)`", m.group(1)) == names:
            return (m.group(1),)
        return (", ".join(f"`{n}`" for n in names[:-1]) + f" and `{names[-1]}`",)
    return live


_RUN = r"(\d+) passed, 0 failed, 0 skipped"
_ALL_PASS = lambda m: (str(_cases()),)  # noqa: E731 - every case passes: tests/test_conformance.py, test_port_js.py

FIGURES: list[Figure] = [
    # the suite and the ports
    Figure("docs/ports.md", _RUN, _ALL_PASS, "the cases the JavaScript port passes (all: tests/test_port_js.py)"),
    # the language
    Figure("README.md", r"a\s+type\s+of\s+more\s+than\s+(\d+)\s+keys,\s+or\s+a\s+key\s+of\s+more\s+than\s+(\d+)\s+characters",
           lambda m: _scanner_limits(), "the C scanner's table limits (TABLE_BITS, KEY_MAX in _scan.c)"),
    Figure("README.md", r"\b([Nn]ine) types\b", _word(_types), "message types in profiles/rw1.json"),
    Figure("README.md", r"corpus (?:package|realistic): \d+ lines, (\d+) types", _one(_types),
           "types in parse_bench's corpora (all of them)"),
    Figure("README.md", r"\(([a-z]+) keys, slots in written order\)", lambda m: (in_words(_json_keys()),),
           "keys of the JSON form"),
    Figure("conformance/README.md", r"D1: ([a-z]+) keys", lambda m: (in_words(_json_keys()),), "keys of the JSON form"),
    Figure("README.md", r"\(all ([a-z]+) tiers\)", lambda m: (in_words(_tiers()),), "readback tiers"),
    Figure("docs/readback.md", r"\b([Ff]ive) tiers\b", _word(_tiers), "readback tiers"),
    Figure("docs/ports.md", r"\b([Ff]ive) tiers\b", _word(_tiers), "readback tiers"),
    Figure("README.md", r"the bundled profiles \(([a-z, ]+)\) are held",
           _names(_bundled, "{}", ", "), "bundled profiles"),
    Figure("README.md", r"the default is every bundled profile \(([`a-z, ]+)\)",
           _names(_bundled, "`{}`", ", "), "bundled profiles"),
    # limits
    Figure("README.md", r"the tail is at most (\d+) characters", _one(lambda: _limit("tail")), "tail limit"),
    Figure("README.md", r"has at most\s+(\d+) digits \(`slottypes\.MAX_INT_DIGITS`\)", _one(lambda: _limit("digits")),
           "integer digits"),
    Figure("README.md", r"\| (\d+ KiB) \| `too-long` diagnostic", lambda m: (_kib(_limit("line")),), "line bound"),
    Figure("README.md", r"\| (\d+ KiB) \| exit 2, \"the line on standard input is N bytes; the limit is (\d+)\"",
           lambda m: (_kib(_limit("line")), str(_limit("line"))), "line argument bound"),
    Figure("README.md", r"\| (\d+ MiB) \(a 64 KiB line JSON-escaped", lambda m: (_kib(_limit("request")),),
           "adapter request bound"),
    Figure("README.md", r"\| the (\d+) most recently used profile sets", _one(lambda: _limit("receivers")),
           "compiled receivers kept"),
    Figure("README.md", r"A profile pattern is at most (\S+) characters and (\S+)\s+automaton states",
           lambda m: (f"{_limit('pattern'):,}", f"{_limit('states'):,}"), "pattern limits"),
    Figure("docs/profiles.md", r"a pattern is at most (\S+) characters, a counted repeat at most\s+`\{(\d+)\}`, "
           r"and the compiled automaton at most (\S+) states",
           lambda m: (f"{_limit('pattern'):,}", str(_limit("repeat")), f"{_limit('states'):,}"), "pattern limits"),
    Figure("docs/scan.md", r"`--max-line-bytes` \(default (\d+ MiB)\)", lambda m: (_kib(_limit("scan-line")),),
           "scan's line limit"),
    Figure("docs/scan.md", r"is over (\d+) MB, a progress bar", _one(lambda: _limit("progress") // (1024 * 1024)),
           "progress bar threshold"),
    Figure("conformance/README.md", _RUN, _ALL_PASS, "the cases a run passes (tests/test_conformance_readme.py runs it)"),
    Figure("conformance/README.md", r"first (\d+) hex digits", _one(_digest_length), "digest length"),
    Figure("conformance/README.md", r"`classes: (\d+) of (\d+) reached`", lambda m: (str(_diff_classes()),) * 2,
           "the classes of request --diff reports (rogerwilco/front/difftest.py CLASSES)"),
    Figure("conformance/README.md", r"reaches all (\d+) classes", _one(_diff_classes),
           "the classes of request --diff reports"),
    Figure("conformance/README.md", r"tails over (\d+) characters", _one(lambda: _limit("tail")), "tail limit"),
    Figure("docs/lint.md", r"a tail over (\d+) characters", _one(lambda: _limit("tail")), "tail limit"),
    # test budgets
    Figure("README.md", r"CI runs a small budget \((\d+) examples per target\)",
           _one(lambda: _test_default("test_fuzz.py", "ROGERWILCO_FUZZ_EXAMPLES")), "fuzz budget"),
    Figure("README.md", r"\((\d+) MiB by default; `ROGERWILCO_MEMORY_MB",
           _one(lambda: _test_default("test_memory_bounds.py", "ROGERWILCO_MEMORY_MB")), "runaway line size"),
    Figure("docs/endpoint.md", r"`RW1_STATEFUL_EXAMPLES` runs \(default (\d+)\)",
           _one(lambda: _test_default("test_no_wrong_act.py", "RW1_STATEFUL_EXAMPLES")), "stateful test runs"),
    Figure("docs/endpoint.md", r"`RW1_STATEFUL_STEPS` steps \(default (\d+)\)",
           _one(lambda: _test_default("test_no_wrong_act.py", "RW1_STATEFUL_STEPS")), "stateful test steps"),
    Figure("docs/threads.md", r"runs (\d+) processes per round",
           _one(lambda: _test_default("test_tool_race.py", "RW1_RACE_PROCS")), "race processes"),
    # agents
    Figure("README.md", r"The tools are ((?:`\w+`,\s)+`\w+`\sand\s`\w+`), each with", _same_names(_tools),
           "the MCP tools"),
    Figure("docs/agents.md", r"holds the ([a-z]+) tools above", lambda m: (in_words(len(_tools())),), "the tools"),
    # measured by scripts that print counts (deterministic for a seed), run here
    Figure("README.md", FAULT_ROW, lambda m: (_fault_row(m),), "a row of the fault table"),
    Figure("README.md", r"\| \*\*false alarms on correct exchanges\*\* \| all ([a-z]+) \|.*\| \*\*(\d+) in (\d+)\*\* "
           r"\((\d+) per check\)", lambda m: _false_alarms(), "false alarms"),
    Figure("README.md", r"passes `check_rb` \((\d+) of\s+(\d+)\)", lambda m: _made(), "make_rb readbacks"),
    Figure("README.md", r"Legend size, from `python benchmarks/legend_tokens.py --markdown` \(text format\):\n\n"
           r"(\|.*\|(?:\n\|.*\|)*)", lambda m: (_legend_table(),), "legend tokens"),
    Figure("docs/profiles.md", r"Legend size, from `python benchmarks/legend_tokens.py --markdown` \(text format\):\n\n"
           r"(\|.*\|(?:\n\|.*\|)*)", lambda m: (_legend_table(),), "legend tokens"),
    Figure("README.md", r"1,000 lean \(o200k_base\); ([a-z ,]+)\.", lambda m: (_legend_goal(),), "legend goal"),
    Figure("docs/profiles.md", r"1,000 lean \(o200k_base\); ([a-z ,]+)\.", lambda m: (_legend_goal(),), "legend goal"),
    # the lint rules
    Figure("README.md", r"(\| code \| name \| level \| fires on \|\n(?:\|.*\|\n?)+)", lambda m: (_rule_table() + "\n",),
           "the lint rules"),
    Figure("docs/lint.md", r"(\| code \| name \| level \| fires on \|\n(?:\|.*\|\n?)+)",
           lambda m: (_rule_table() + "\n",), "the lint rules"),    # the Agent Skill's format limits, as rogerwilco skill checks them
    Figure("docs/agents.md", r"at most (\d+) characters, the\nfolder's name",
           _one(lambda: module("skill").MAX_NAME), "a skill name's limit"),
    Figure("docs/agents.md", r"the description \(1 to (\d+) characters\)",
           _one(lambda: module("skill").MAX_DESCRIPTION), "a skill description's limit"),
]


def _limit(name: str) -> int:
    if name == "tail":
        m = re.search(r"if len\(tail\) > (\d+):", Path(module("semantics").__file__).read_text(encoding="utf-8"))
        return int(m.group(1)) if m else -1
    if name == "digits":
        return module("slottypes").MAX_INT_DIGITS
    if name == "line":
        return module("stream").DEFAULT_MAX_BYTES
    if name == "request":
        return module("adapter").MAX_REQUEST_BYTES
    if name == "receivers":
        return module("_lru").RECEIVER_CACHE_SIZE
    if name in ("pattern", "repeat", "states"):
        iregexp = module("iregexp")
        return {"pattern": iregexp.MAX_PATTERN_LENGTH, "repeat": iregexp.MAX_REPEAT, "states": iregexp.MAX_STATES}[name]
    if name == "scan-line":
        return module("scan.sources").DEFAULT_MAX_LINE_BYTES
    if name == "progress":
        return module("commands.scan").PROGRESS_THRESHOLD
    raise KeyError(name)


# --------------------------------------------------------------------------
# checking and rewriting


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "conformance" / "README.md"]


def stale(figure: Figure) -> list[str]:
    """What the doc quotes that differs from today's value (or that the phrase is gone)."""
    text = (ROOT / figure.doc).read_text(encoding="utf-8")
    matches = list(re.finditer(figure.pattern, text))
    if not matches:
        return [f"{figure.doc}: the phrase for {figure.what} is gone ({figure.pattern[:60]!r}); "
                "update docs/figures.py with the new wording"]
    out = []
    for m in matches:
        want = figure.live(m)
        for i, value in enumerate(want, start=1):
            if m.group(i) != value:
                line = text.count("\n", 0, m.start(i)) + 1
                out.append(f"{figure.doc}:{line}: {figure.what}: the doc says {m.group(i)!r}, today it is {value!r}")
    return out


def rewrite() -> int:
    """Put today's value of every live figure into its doc; returns the number of docs changed."""
    changed = 0
    for doc in sorted({f.doc for f in FIGURES}):
        path = ROOT / doc
        text = path.read_text(encoding="utf-8")
        new = text
        for figure in [f for f in FIGURES if f.doc == doc]:
            def fill(m: re.Match, figure=figure) -> str:
                want = figure.live(m)
                out, last = [], m.start()
                for i, value in enumerate(want, start=1):
                    out.append(m.string[last:m.start(i)])
                    out.append(value)
                    last = m.end(i)
                out.append(m.string[last:m.end()])
                return "".join(out)
            new = re.sub(figure.pattern, fill, new)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed += 1
            print(f"rewrote figures in {doc}")
    return changed


# Measured figures: a time, a rate, a memory peak, a ratio of times.
TIMING = re.compile(
    r"\d[\d,]*(?:\.\d+)?\s?(?:lines/s|us/line|MB/s)"
    r"|\b\d[\d,]*(?:\.\d+)?\s(?:us|µs|ms)\b"
    r"|\b\d[\d,]*(?:\.\d+)?\ss\b"
    r"|\b\d+\.\d+\sMiB\b|\b\d+\sMiB\speak"
    r"|\b\d+\.\d+x\b|(?<![%\w.])x\d+\.\d+\b"
    r"|\b\d+ times (?:longer|faster|slower)"
)
MEASURED = re.compile(
    r"Measured (\d{4}-\d{2}-\d{2}) on ([^`]+?), with `python (benchmarks/[\w/]+\.py)([^`]*)`")
MEASURED_REACH = 40
# Scripts that time more than one corpus, and the flag that says which one a figure is of.
CORPUS_FLAGS = {"benchmarks/parse_bench.py": "--corpus"}


def measured_problems() -> list[str]:
    """Every measured figure sits under a statement naming a real script, its flags and a real date."""
    problems = []
    today = _dt.date.today()
    for path in doc_files():
        rel = path.relative_to(ROOT)
        lines = path.read_text(encoding="utf-8").splitlines()
        statements: list[int] = []  # line indexes of statements in the current section
        for i, line in enumerate(lines):
            if line.startswith("#"):
                statements = []
            joined = " ".join(lines[max(0, i - 2):i + 1])  # a statement may wrap over lines
            for m in MEASURED.finditer(joined):
                if i not in statements and m.end() > len(" ".join(lines[max(0, i - 2):i])):
                    statements.append(i)
                    problems += _statement_problems(f"{rel}:{i + 1}", m, today)
            for m in TIMING.finditer(line):
                if not any(0 <= i - s <= MEASURED_REACH for s in statements):
                    problems.append(f"{rel}:{i + 1}: {m.group(0)!r} is a measured figure with no "
                                    "'Measured YYYY-MM-DD on MACHINE, with `python benchmarks/...`' above it")
    return problems


def _statement_problems(where: str, m: re.Match, today: _dt.date) -> list[str]:
    out = []
    try:
        day = _dt.date.fromisoformat(m.group(1))
        if day > today:
            out.append(f"{where}: measured on {day}, a day still to come")
    except ValueError:
        out.append(f"{where}: {m.group(1)} is not a date")
    script = ROOT / m.group(3)
    if not script.is_file():
        out.append(f"{where}: {m.group(3)} does not exist")
    else:
        source = script.read_text(encoding="utf-8")
        flags = re.findall(r"(?<!\S)(--[\w-]+)", m.group(4))
        for flag in flags:
            if f'"{flag}"' not in source:
                out.append(f"{where}: {m.group(3)} takes no {flag}")
        corpus_flag = CORPUS_FLAGS.get(m.group(3))
        if corpus_flag is not None and corpus_flag not in flags:
            out.append(f"{where}: {m.group(3)} times more than one corpus: name the one measured ({corpus_flag} ...)")
    return out


# The census: a number and a noun that counts something of the package.
COUNT = re.compile(
    r"\b(?:\d[\d,]*|" + "|".join(WORDS) + r"|" + "|".join(w.capitalize() for w in WORDS) + r")"
    r"(?: [\w-]+){0,2}? (?:cases|rules|types|tiers|tools|profiles|keys|ops|checks|codes|classes|passed|of \d[\d,]*|"
    r"in \d[\d,]*|examples per|processes|commands|subcommands|extras|queries|digits|characters|states)\b")

# Counts that are not the package's own, with the reason.
NOT_OURS: dict[tuple[str, str], str] = {
    ("docs/profiles.md", "20002 characters"): "an example message quoted, not a count of the package's",
    ("docs/profiles.md", "4,000 characters"): "what the step bound allows a simple pattern, derived in the text above it",
    ("docs/reference.md", "nine keys"): "the JSON form's nine keys, fixed by the spec (D1)",
    ("README.md", "nine keys"): "the JSON form's nine keys, fixed by the spec (D1)",
    ("README.md", "four keys"): "re, from, to and item, named in the same sentence: the spec's envelope slots",
    ("docs/reference.md", "12 hex digits"): "the digest's shape, fixed by the spec",
    ("conformance/README.md", "3 of 6"): "an example of the scorer's summary line, not a measured figure",
    ("conformance/README.md", "two cases"): "a description of a case file's content",
    ("README.md", "two commands"): "the two blocks right below the heading",
    ("README.md", "18 digits"): "the C scanner's bound on integers it reads itself (an int64 holds 18 digits), "
                                "a design limit stated, not a count of the package's",
    ("README.md", "52 of 60"): "a dated measurement of commit 326a610, which does not change",
    ("README.md", "60 of 60"): "a dated measurement of commit 326a610, which does not change",
    ("README.md", "21 of 60"): "a dated measurement of commit 326a610, which does not change",
    ("README.md", "4 of 60"): "a dated measurement of commit 326a610, which does not change",
    ("README.md", "64 KB line of 16,000"): "a benchmark's input, under its Measured statement",
    ("README.md", "6 more characters"): "a benchmark's input, under its Measured statement",
    ("README.md", "10,000 characters"): "a benchmark's input, under its Measured statement",
    ("docs/agents.md", "210 of 347"): "the spec's section 10 (the studies), quoted",
    ("docs/agents.md", "0 of 378"): "the spec's section 10 (the studies), quoted",
    ("docs/endpoint.md", "Two processes"): "a scenario (two processes serving one agent), not a figure",
    ("conformance/README.md", "two or three rules"): "a kind of case (lines that break several rules), not a figure",
    ("docs/lint.md", "one is passed"): "'one' is a pronoun here",
    ("docs/profiles.md", "4217 codes"): "ISO 4217, a standard's number",
    ("docs/readback.md", "1, profiles"): "code: make_rb's argument",
}
RUN_BLOCK = re.compile(r"^```(?:console|sh|python)\n.*?^```", re.S | re.M)


def census() -> list[tuple[str, int, str]]:
    """(doc, line, phrase) of each count phrase no live figure covers and NOT_OURS does not list."""
    out = []
    for path in doc_files():
        rel = str(path.relative_to(ROOT))
        text = path.read_text(encoding="utf-8")
        covered: list[tuple[int, int]] = []
        for figure in FIGURES:
            if figure.doc == rel:
                covered += [m.span() for m in re.finditer(figure.pattern, text)]
        covered += [m.span() for m in RUN_BLOCK.finditer(text)]  # run by tests/test_docs.py, outputs compared
        for m in COUNT.finditer(text):
            if any(a <= m.start() and m.end() <= b for a, b in covered):
                continue
            phrase = m.group(0)
            if (rel, phrase) in NOT_OURS:
                continue
            out.append((rel, text.count("\n", 0, m.start()) + 1, phrase))
    return out


if __name__ == "__main__":
    if "--write" in sys.argv[1:]:
        rewrite()
    for figure in FIGURES:
        for problem in stale(figure):
            print(problem)
    for problem in measured_problems():
        print(problem)
    for rel, line, phrase in census():
        print(f"{rel}:{line}: {phrase!r}: a count no test compares")
