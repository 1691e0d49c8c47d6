"""Fuzz the C scanner (rogerwilco/core/_scan.c) against the Python accept path.

The scanner reads lines a peer wrote: hostile input. This run feeds it lines
mutated from real ones (every conformance line, the realistic corpus of
``benchmarks/realistic_corpus.py``, the benchmark corpus) and holds each
verdict against the Python path, which stays the reference:

* the scanner must not crash (a crash under AddressSanitizer is an
  out-of-bounds read or write, a use after free, a double free);
* a line it settles must be one the full pass accepts, to a Message equal to
  the one the Python accept path builds (every field, the slots' order and
  value types, the source), and its JSON form from the batch entry point
  (``form``) the one the Python batch path builds (``accept.json_form``);
* a line it declines and names a first fault in (``fault``: a syntax fault, a
  repeated key, or a refused value, an id that is not ``<from>-<n>`` or a
  missing slot with nothing before it in D10's order) must be one the pure
  path refuses, with the very error ``loads`` then raises (class, words,
  column, token, findings), unless Python does not find that refusal there
  (then the full pass decides);
* otherwise it says "not sure" (None) from both entry points, and ``loads`` gives the Python verdict;
* its verdict from plans made of data alone (``verdict``, what ``rogerwilco
  validate`` answers with before the package loads: rogerwilco.core.verdict)
  takes only a line the quiet scan settles and the full pass accepts with no
  finding at all, under the bundled profiles.

The mutator knows the line's structure: character flips, token splices from
other lines, repeated and dropped tokens, 64 KiB values and tails, thousands of
slots, and control, bidi, zero-width, non-ASCII digit and surrogate characters
at the places a check looks (after ``=``, in the id, after the tail mark).

    python benchmarks/fuzz_scanner.py [--seconds 60] [--executions N] [--seed 1] [--asan] [--atheris]

``--asan`` builds the scanner again with ``-fsanitize=address`` into a
temporary folder and runs the fuzz loop in a child with the sanitizer's
runtime preloaded (gcc or clang; leak detection is off, as CPython's own
allocations would drown it). ``--atheris`` hands the loop to atheris (the
``bench`` extra), with this mutator as its custom mutator. Prints
executions, seconds, lines the scanner decided (settled, or refused by a
first fault) and failures; exits 1 on a
failure, with the line that shows it.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
SCAN_DIR = "RW1_FUZZ_SCAN_DIR"  # the folder a sanitized build of the scanner sits in (set for the child)

# Characters a check must refuse or pass on exactly as the grammar says: controls, a tab, line breaks,
# non-ASCII digits, lone surrogates, bidi controls, zero-width characters and joiners, a BOM, wide spaces.
HOSTILE = ["\x00", "\x01", "\t", "\n", "\r", "\x7f", "\x85", "\u0663", "\uff12", "\u00b2", "\U0001d7ce",
           "\ud800", "\udfff", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u061c", "\u200e", "\u202e",
           "\u2066", "\u2069", "\u00a0", "\u3000", "\u2028", "\u00ad", "\U000e0001", "\U0001f600", "é",
           "+", "=", " ", "//", " // ", "-", ".", ":", "/", "0", "9", "Y", "x_"]
HUGE = 65536


def seeds() -> list[str]:
    """Real lines to mutate: every conformance line, the realistic corpus, the benchmark corpus."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from parse_bench import corpora
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    from rogerwilco.front.conformance import case_lines

    lines = case_lines()
    for name, found in corpora(["realistic", "package"], 400, False).items():
        lines.extend(found)
    return lines


def _at(rng: random.Random, line: str) -> int:
    """A place a check looks at: after an "=", after a space, after the tail mark, or anywhere."""
    marks = [i + 1 for i, ch in enumerate(line) if ch in "= "] + [len(line)]
    if " // " in line:
        marks.append(line.index(" // ") + 4)
    return rng.choice(marks) if rng.random() < 0.7 else rng.randrange(len(line) + 1)


def mutate(rng: random.Random, line: str, others: list[str]) -> str:
    """One to three structure-aware edits of ``line``."""
    for _ in range(rng.randint(1, 3)):
        tokens = line.split(" ")
        kind = rng.randrange(9)
        if kind == 0 and line:  # flip a character
            i = rng.randrange(len(line))
            line = line[:i] + chr(ord(line[i]) ^ (1 << rng.randrange(8))) + line[i + 1:]
        elif kind == 1:  # a hostile character where a check looks
            i = _at(rng, line)
            line = line[:i] + rng.choice(HOSTILE) + line[i:]
        elif kind == 2:  # a token from another line, spliced in or put in a token's place
            token = rng.choice(rng.choice(others).split(" "))
            i = rng.randrange(len(tokens) + 1)
            tokens[i:i + rng.randint(0, 1)] = [token]
            line = " ".join(tokens)
        elif kind == 3 and len(tokens) > 1:  # a token dropped or repeated
            i = rng.randrange(len(tokens))
            tokens[i:i + 1] = [] if rng.random() < 0.5 else [tokens[i], tokens[i]]
            line = " ".join(tokens)
        elif kind == 4:  # a huge value or tail
            i = _at(rng, line)
            line = line[:i] + rng.choice("v9é\U0001f600 +") * rng.choice([300, 301, 5000, HUGE]) + line[i:]
        elif kind == 5:  # thousands of slots, extensions or a repeated key
            count = rng.choice([64, 65, 1000, 6000])
            key = rng.choice(["x_", "k", "x_a"])
            line = line.partition(" // ")[0] + "".join(f" {key}{i % rng.choice([count, 7])}=v" for i in range(count))
        elif kind == 6 and line:  # a span cut out
            i = rng.randrange(len(line))
            line = line[:i] + line[i + rng.randint(1, 12):]
        elif kind == 7:  # a value swapped for another line's value of the same key
            donor = dict(t.partition("=")[::2] for t in rng.choice(others).partition(" // ")[0].split(" ") if "=" in t)
            picked = [i for i, t in enumerate(tokens) if t.partition("=")[0] in donor]
            if picked:
                i = rng.choice(picked)
                key = tokens[i].partition("=")[0]
                tokens[i] = f"{key}={donor[key]}"
                line = " ".join(tokens)
        else:  # a number at the edge of a range, or past it
            i = _at(rng, line)
            line = line[:i] + rng.choice(["0", "-1", "100", "101", "9" * 19, "99999999", "00", "1.005", "-0.00"]) + line[i:]
    return line


def load_scanner() -> ModuleType:
    """The scanner to fuzz: the sanitized build the parent made (loaded from its file, beside the copy the
    package may have imported already), else the one the package imports."""
    import importlib.util

    where = os.environ.get(SCAN_DIR)
    if where:
        built = next(Path(where).glob("_scan*"))
        spec = importlib.util.spec_from_file_location("rogerwilco.core._scan", built)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    try:
        return importlib.import_module("rogerwilco.core._scan")
    except ImportError:
        raise SystemExit("the C scanner is not built: python hatch_build.py --inplace (or pip install .)") from None


def configured(module: ModuleType) -> Any:
    """The scanner, its tables configured as the package configures them."""
    from rogerwilco.core.scanner import Scanner

    return Scanner(module)


def fault_differs(scanner: Any, line: str, receiver: Any) -> str | None:
    """None when the scanner names no first fault in a line it declined, "" when the error ``loads`` raises
    for that fault is the pure path's, else what differs."""
    from rogerwilco.core import accept as python_path
    from rogerwilco.core.errors import RW1Error
    from rogerwilco.core.scanner import fault_error

    found = scanner.scan.fault(line, receiver)
    if found is None:
        return None
    try:
        python_path.loads_line(line, receiver, 1)
    except RW1Error as want:
        got = fault_error(scanner, line, found, receiver, 1)
        if got is None:  # Python does not find the refusal the scanner saw: the full pass decides
            return None

        def seen(error: RW1Error) -> tuple[Any, ...]:
            return (type(error), str(error), repr(error), error.args, error.why, error.token, error.column,
                    error.line, error.text, error.caret(), error.findings)

        return "" if seen(got) == seen(want) else f"a first fault worded otherwise: {seen(got)!r} != {seen(want)!r}"
    return f"a first fault {found} in a line the pure path takes"


def checker(accept: Callable[..., Any], scanner: Any = None,
            form: Callable[..., Any] | None = None) -> Callable[[str, Any], str | None]:
    """check(line, receiver): None when the scanner is not sure, "" when it settles the line as the Python
    path does (and, given the ``scanner``, refuses a line it declined by its first fault with the pure path's
    error), else what differs. With ``form`` (the scanner's batch entry point), the JSON form it gives
    must be there exactly when ``accept`` settles the line, and be the Python batch path's."""
    import attrs

    from rogerwilco.core import accept as python_path
    from rogerwilco.core.semantics import check_line

    def check(line: str, receiver: Any) -> str | None:
        got = accept(line, receiver, 1)
        said = form_differs(line, receiver, got is not None)
        if said:
            return said
        if got is None:  # not sure: the Python path decides, or the scanner's first fault where it names one
            return None if scanner is None else fault_differs(scanner, line, receiver)
        full = check_line(line, receiver, line_number=1)
        if not full.valid or full.message is None:
            return f"settled a line the full pass refuses: {full.refusal}"
        want = python_path.accept(line, receiver, 1)
        if want is None or attrs.asdict(got, recurse=False) != attrs.asdict(want, recurse=False):
            return f"a Message other than the Python accept path's: {got!r} != {want!r}"
        if [(k, type(v)) for k, v in got.slots.items()] != [(k, type(v)) for k, v in want.slots.items()]:
            return "slots in another order, or of other types"
        if got != full.message:
            return "a Message other than the full pass's"
        return ""

    def form_differs(line: str, receiver: Any, settled: bool) -> str:
        if form is None:
            return ""
        got = form(line, receiver)
        if (got is not None) != settled:
            return f"the JSON form and the Message disagree on settling the line: {got!r}"
        if got is None:
            return ""
        want = python_path.json_form(line, receiver)
        if want is None or list(got.items()) != list(want.items()):
            return f"a JSON form other than the Python batch path's: {got!r} != {want!r}"
        if [(k, type(v)) for k, v in got["slots"].items()] != [(k, type(v)) for k, v in want["slots"].items()]:
            return "JSON form slots in another order, or of other types"
        return ""

    return check


def dumps_differs(dumps: Callable[[Any], str | None], value: Any) -> str:
    """"" when the scanner's JSON text of ``value`` is json.dumps's (or it is not sure), else what differs."""
    import json

    got = dumps(value)
    want = json.dumps(value, ensure_ascii=True)
    return "" if got is None or got == want else f"a JSON text other than json.dumps's: {got!r} != {want!r}"


def compact_differs(module: ModuleType, forms: list[Any]) -> str:
    """"" when the scanner's compact JSON text of each form, and the json struct columns of the batch, are
    json.dumps's (ensure_ascii=False, compact; or it is not sure), else what differs."""
    import json

    keys = ("v", "type", "id", "from", "to", "re", "item", "tail")
    for form in forms:
        got = module.compact(form)
        if got is not None and got != json.dumps(form, ensure_ascii=False, separators=(",", ":")):
            return f"a compact JSON text other than json.dumps's: {got!r}"
    columns, unsure = module.struct_columns(forms, keys)
    for i, form in enumerate(forms):
        row = [column[i] for column in columns]
        if form is None or i in unsure:
            if row != [None] * (len(keys) + 1):
                return f"a struct row where none is sure: {row!r}"
            continue
        want = [form.get(key) for key in keys]
        want.append(json.dumps(form.get("slots") or {}, ensure_ascii=False, separators=(",", ":")))
        if row != want:
            return f"struct columns other than the form's: {row!r} != {want!r}"
    return ""


def strings_differs(strings: Callable[[str, int], Any], text: str) -> str:
    """"" when the scanner's walk of a JSON text finds the string values scan's Python finds (or is not sure),
    else what differs; any text, JSON or not, is walked, from any place (nothing may break on it)."""
    import json

    from rogerwilco.io.scan import frames

    strings(text, 1)
    strings(text, len(text) // 2)
    got = strings(text, 0)
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return ""
    if got is None or not isinstance(value, (dict, list)):
        return ""
    want = frames._read_strings(text, 0, value)
    return "" if got == want else f"JSON strings other than Python's: {got!r} != {want!r}"


# times to mutate: the form the scanner reads, with a comma, a 9-digit fraction, a leap second, a day that is not
STAMPS = ["2026-10-01T00:00:17.017Z", "1999-12-31 23:59:59,5z", "2026-10-01T00:00:17.123456789Z",
          "2026-12-31T23:59:60Z", "2026-02-29T12:00:00Z", "0001-01-01T00:00:00Z"]


#: what stands before a message in a log line: a plain line the scanner writes whole, or one it must leave to Python
PREFIXES = ["", "INFO [ops] ", "ops: ", "> ", "`", "'", "(", "**", "[", "{", '{"m": ', "[1, ", "\u00a0", "\u0663 ",
            "RW ", "RW1x ", "id=7 ", "\udc85 ", "\ud800 ", "2026-10-01T09:14:03 ", "Oct  1 09:14:03 h: "]


def time_differs(utc_time: Callable[[str, int, bool], Any], text: str) -> str:
    """"" when the scanner reads the time ``text`` starts with (and ``text`` whole) as scan's Python does (or is not
    sure), else what differs."""
    from rogerwilco.io.scan import timestamps

    for whole in (False, True):
        got = utc_time(text, len(text), whole)
        if got is None:
            continue
        native, timestamps._NATIVE_TIME = timestamps._NATIVE_TIME, None  # Python's reading alone
        try:
            want, bad = timestamps.parse_time_text(text) if whole else timestamps.prefix_time(text)
        finally:
            timestamps._NATIVE_TIME = native
        if bad or want is None or (got.isoformat(), got.tzinfo) != (want.isoformat(), want.tzinfo):
            return f"a time other than Python's: {got!r} != {want!r} (whole: {whole})"
    return ""


def verdict_differs(verdicts: Callable[[str], bool], module: ModuleType, line: str, bundled: Any) -> str:
    """The quick path's verdict (plans made of data alone, rogerwilco.core.verdict): True only for a line the
    quiet scan settles and the full pass accepts with no finding at all, under the bundled profiles."""
    from rogerwilco.core.semantics import check_line

    if not verdicts(line):
        return ""
    if module.accept(line, bundled, 1, None, True) is None:
        return "the verdict took a line the quiet scan does not settle"
    full = check_line(line, bundled, line_number=1)
    if not full.valid or full.findings:
        return f"the verdict took a line the full pass has something to say of: {full.findings[:1]!r}"
    return ""


def rows_differ(module: ModuleType, text: str, receiver: Any, columns: Any, written: list[Any]) -> str:
    """"" when the scanner writes the log line ``text`` whole (``line_row``, ``Columns.line``) as scan's Python path
    writes its one record (or is not sure), else what differs; a record ``Columns`` wrote is added to ``written``
    (the Arrow batch of ``columns`` is compared with theirs at the end). The JSON Lines writer may be unsure where
    the columns are not (a time before the year 1000, which it leaves to Python's text)."""
    from rogerwilco.io.records import COLUMNS, RECORDS_VERSION
    from rogerwilco.io.scan.records import records_of_line
    from rogerwilco.io.scan.timestamps import Clock

    got = module.line_row(text, receiver, COLUMNS, "f.log", 7, RECORDS_VERSION)
    typ = columns.line(text, receiver, "f.log", 7)
    if got is None and typ is None:
        return ""
    clock = Clock()
    want = records_of_line(text, receiver, file="f.log", line=7, clock=clock)
    if len(want) != 1 or clock.unreadable or not want[0].is_message:
        return f"a row written whole where the Python path gives {[r.to_jsonl() for r in want]!r}"
    if got is not None and got != (want[0].type, want[0].to_jsonl()):
        return f"a row other than the Python path's: {got!r} != {want[0].to_jsonl()!r}"
    if typ is not None:
        if typ != want[0].type:
            return f"Columns.line gave the type {typ!r}, not {want[0].type!r}"
        written.append(want[0])
    return ""


def arrow_differs(columns: Any, written: list[Any]) -> str:
    """"" when the Arrow batch of the rows written whole is ``to_arrow_batch``'s of their records."""
    from rogerwilco.io.records import to_arrow_batch
    from rogerwilco.io.scan.rows import batch_of

    if not written:
        return ""
    batch, want = batch_of(columns.buffers()), to_arrow_batch(written)
    return "" if batch.equals(want) else "the Arrow batch of the rows written whole is not to_arrow_batch's"


def receivers() -> list[Any]:
    from rogerwilco.core.vocab import Receiver

    bundled = Receiver.all_bundled()
    return [bundled, Receiver(), *(Receiver.load([name]) for name in bundled.names)]


def run(seconds: float, executions: int, seed: int, module: ModuleType | None = None) -> dict[str, Any]:
    """The fuzz loop: mutated lines until ``seconds`` pass or ``executions`` are made; the counts and failures."""
    rng = random.Random(seed)
    lines = seeds()
    held = receivers()
    module = module or load_scanner()
    scanner = configured(module)
    check = checker(scanner.scan.accept, scanner, module.form)
    from rogerwilco.core._verdict_tables import CORE, PROFILES
    from rogerwilco.core.verdict import Verdicts

    verdicts = Verdicts(module, CORE, PROFILES)
    columns, written = module.Columns(), []  # the rows written whole from log lines, and their records
    failures: list[dict[str, str]] = []
    done = settled_count = 0
    start = time.monotonic()
    while done < executions and time.monotonic() - start < seconds:
        line = mutate(rng, rng.choice(lines), lines)
        receiver = rng.choice(held)
        said = check(line, receiver)
        # the line and its JSON form as JSON text: JSON Lines' escaping of every mutated character
        form = module.form(line, receiver)
        texts = (dumps_differs(module.dumps, line) or dumps_differs(module.dumps, form)
                 or dumps_differs(lambda row: module.dumps_object(tuple(row), tuple(row.values())),
                                  {"text": line, "json": form}))
        texts = texts or compact_differs(module, [form, None, {"v": line, "slots": {line: [line, form]}},
                                                  {"slots": line}])
        texts = texts or strings_differs(module.strings, json.dumps({"m": line, "k~/": [line, {"n": form}]}))
        texts = texts or strings_differs(module.strings, line)  # a mutated line is no JSON: walked without harm
        texts = texts or verdict_differs(verdicts, module, line, held[0])
        stamp = mutate(rng, rng.choice(STAMPS), STAMPS)  # a time, mutated as a line is, before the line
        texts = texts or time_differs(module.utc_time, stamp) or time_differs(module.utc_time, f"{stamp} {line}")
        texts = texts or rows_differ(module, f"{stamp} {line}", receiver, columns, written)
        texts = texts or rows_differ(module, f"{rng.choice(PREFIXES)}{line}", receiver, columns, written)
        # the batch iterator over the line twice: form()'s answer each time, else rest's with the line's number
        batch = list(module.forms([line, line], receiver, lambda text, held, number: ("rest", number)))
        if batch != [("rest", n) if form is None else form for n in (1, 2)]:
            texts = texts or f"the batch iterator gives other than form(): {batch!r}"
        if texts:
            said = texts
        done += 1
        settled_count += said is not None
        if said:
            failures.append({"line": line[:400], "failure": said[:400]})
        elif rng.random() < 0.05 and len(line) < 4000:
            lines.append(line)  # a mutant that kept the scanner honest becomes a seed too
    arrow = arrow_differs(columns, written)
    if arrow:
        failures.append({"line": f"{len(written)} rows", "failure": arrow})
    return {"executions": done, "seconds": round(time.monotonic() - start, 1), "failures": failures,
            "settled": settled_count, "rows written whole": len(written), "scanner": module.__file__}


def asan_child(argv: list[str]) -> int:
    """Build the scanner with AddressSanitizer and run this script again under it."""
    sys.path.insert(0, str(ROOT))
    import hatch_build

    compiler = os.environ.get("CC", "gcc")
    runtime = subprocess.run([compiler, "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    if not runtime or not Path(runtime).is_file():
        raise SystemExit(f"{compiler} has no AddressSanitizer runtime (libasan.so)")
    with tempfile.TemporaryDirectory() as out:
        env = {**os.environ, "CC": f"{compiler} -fsanitize=address -fno-omit-frame-pointer -g"}
        os.environ["CC"] = env["CC"]
        hatch_build.build_scanner(ROOT, Path(out))
        env.update({"LD_PRELOAD": runtime, "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1",
                    SCAN_DIR: str(Path(out) / "rogerwilco" / "core"), "PYTHONPATH": str(ROOT)})
        return subprocess.run([sys.executable, __file__, *argv], env=env).returncode


def with_atheris(seed: int) -> None:
    """atheris drives the loop: its inputs are lines (UTF-8, surrogates passed), mutated by ``mutate``."""
    import atheris  # type: ignore[import-not-found]

    rng = random.Random(seed)
    lines = seeds()
    held = receivers()
    module = load_scanner()
    scanner = configured(module)
    check = checker(scanner.scan.accept, scanner, module.form)

    def text(data: bytes) -> str:
        try:
            return data.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:  # cut inside a character by libFuzzer's own mutations
            return data.decode("utf-8", "replace")

    def mutator(data: bytes, max_size: int, mutator_seed: int) -> bytes:
        rng.seed(mutator_seed)
        line = mutate(rng, text(data) if data else rng.choice(lines), lines)
        while len(line.encode("utf-8", "surrogatepass")) > max_size:
            line = line[:max_size // 4]
        return line.encode("utf-8", "surrogatepass")

    def one_input(data: bytes) -> None:
        line = text(data)
        said = check(line, held[len(data) % len(held)])
        if said:
            raise AssertionError(f"{said}\n{line[:400]!r}")

    with tempfile.TemporaryDirectory() as folder:
        for i, line in enumerate(lines):
            (Path(folder) / f"seed{i}").write_bytes(line.encode("utf-8", "surrogatepass"))
        atheris.Setup([sys.argv[0], folder, "-max_len=200000", *sys.argv[1:]], one_input, custom_mutator=mutator)
        atheris.Fuzz()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--executions", type=int, default=10**12)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--asan", action="store_true", help="build the scanner with AddressSanitizer and run under it")
    parser.add_argument("--atheris", action="store_true", help="let atheris drive (libFuzzer flags after --)")
    args, rest = parser.parse_known_args(argv)
    if args.asan and SCAN_DIR not in os.environ:
        return asan_child([a for a in argv if a != "--asan"])
    if args.atheris:
        sys.argv = [sys.argv[0], *[a for a in rest if a != "--"]]
        with_atheris(args.seed)
        return 0
    report = run(args.seconds, args.executions, args.seed)
    report["sanitizer"] = "address" if os.environ.get(SCAN_DIR) else "none"
    print(json.dumps({**report, "failures": len(report["failures"])}))
    for failure in report["failures"][:10]:
        print(json.dumps(failure, ensure_ascii=True))
    return 1 if report["failures"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
