"""The accept path's scanner in C: its tables, built at run time from a Vocabulary.

Theory of operation
-------------------
``rogerwilco/core/_scan.c`` (the extension ``rogerwilco.core._scan``) is one
generic scanner: it knows the grammar's pieces, never a profile, a type or a
key. This module compiles each vocabulary the scanner meets into its tables:
for every message type the accept path decides (:func:`accept.plans_for`), a
plan holding, per key, how the key's value is checked and decoded, chosen from
the slot's type (an enum's codes, an agent, a msgid, a date, a time, money, a
number, a digest, Y/N, an integer range, days, a constraint, a list of one of
these, a value kept as written, or "call the Python decoder" for anything
else), the number of required keys, the type's rules (the accept path's own
closures) and the tail's limit.

The scanner answers the Message of a line it is sure of, built exactly as
:func:`accept.accept` builds it (or, for the batch path, :func:`form_with`,
its JSON form as :func:`accept.json_form` builds it, no Message on the way),
or None: "not sure", and the Python accept
path and then the full pass decide, as before. Each native check accepts a
subset of what the slot type's Python decoder accepts, to the same value; a
value the native check does not settle goes to that decoder. So the scanner
can make a line slower, never change its verdict or its value
(tests/test_scanner.py holds it to that over the realistic corpus, mutated
and hostile lines, every conformance line and every bundled profile).

A key no slot of the vocabulary has is kept as written, as the Python path
keeps it (an ``x_`` extension silently, any other with a note only
``check_line`` writes), after asking the receiver whether another profile it
holds requires that key (then the line is refused, and the scanner is not
sure). Everything else it does not settle, it leaves to Python.

Asked to be quiet (``accept(..., quiet=True)``, :func:`quiet_with`: the
accept attempt of ``validate_stream(..., quiet_first=True)``, which lint and
check-thread read streams with), the scanner settles only a line the full
pass takes with no finding at all: a key of the vocabulary that is not a
slot of the line's type, or any key no slot has but an ``x_`` extension,
earns a note, so such a line is not its to settle.

Of a line it declines, the scanner names the first fault where it is sure of
it (``fault``): a syntax fault's column and the terminals expected there, as
``syntax.diagnose`` finds them, or, on a well-formed line, the first repeated
key, which ``check_raw`` reports before any other refusal; or, given the
receiver, on a well-formed line whose keys do not repeat, the first refusal by
the checks it meets with everything before it in D10's order settled: a value
its check refuses (with what its Python decoder's ValueError said, where that
decoder refused it), an id that is not ``<from>-<n>``, a missing required slot,
or the first of the type's rules that does not hold (its index).
``loads`` then raises the error the Python path raises for that line
(:func:`fault_error`), worded by Python, which checks the refusal is there
(else the full pass decides), or for a rule (as for a syntax fault) words it
when the error is first read; for any other line it is not sure, and Python
decides.

It also writes JSON text (``dumps``, :func:`text_with`): a record's JSON
form in JSON Lines, character for character what ``json.dumps(value,
ensure_ascii=True)`` writes, for the str, int, bool, None, list and dict
values a form is made of; any other value (a float, a subclass) it leaves to
``json.dumps``.

The character classes it reads a slot's value with are generated from the
grammar's SLOT terminal (``_fastpath.TERMINALS``) into ``_scan_classes.h``
by ``python -m rogerwilco.core.scanner --write``; a test derives them again.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from types import ModuleType
from typing import Any, Final, Iterable, Iterator, Mapping

from . import accept as _accept
from . import verdict as _verdict
from ._fastpath import TERMINALS
from .message import FIELD_SETTERS, Message, Source
from .errors import RW1Error
from .semantics import (repeat_refusal, requiring_profile, rule_refusal, scanned_refusal, strict_message,
                        syntax_refusal)
from .syntax import END_OF_LINE
from .vocab import ProfileRule, Receiver, Vocabulary, as_receiver, core_vocabulary

# (paths through os.path: a process that reads lines through the scanner does not load pathlib)
HERE: Final = os.path.dirname(os.path.abspath(__file__))
HEADER: Final = os.path.join(HERE, "_scan_classes.h")
# A slot type's name -> the scanner's native check for it (the kinds of _scan.c).
NATIVE_KINDS: Final = {"agent": "AGENT", "msgid": "MSGID", "date": "DATE", "time": "TIME", "money": "MONEY",
                       "num": "NUM", "digest": "DIGEST", "bool": "BOOL", "days": "DAYS", "constraint": "CONSTRAINT"}
_INT_TYPE: Final = re.compile(r"int:(-?[0-9]+)-(-?[0-9]+)")
_NATIVE_INT: Final = 10**18 - 1  # bounds beyond +-this go to the Python decoder (the scanner's numbers are int64)
_ESCAPE: Final = r"\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8})"


# ---- character classes, from the grammar ----------------------------------

def _code_point(escape: str) -> int:
    return int(escape[2:], 16)


def _class_ranges(body: str) -> list[tuple[int, int]]:
    """The code point ranges of a class body of escaped characters and ranges (``\\x00-\\x20\\xad``)."""
    items = re.findall(rf"({_ESCAPE})(?:-({_ESCAPE}))?", body)
    if "".join(lo + (f"-{hi}" if hi else "") for lo, hi in items) != body:
        raise ValueError("a terminal's class holds more than escaped ranges")
    return sorted((_code_point(lo), _code_point(hi or lo)) for lo, hi in items)


def excluded_ranges(terminal: str) -> list[tuple[int, int]]:
    """The code point ranges the value class ``=(?:[^...])+`` at the end of a slot terminal leaves out."""
    found = re.search(r"=\(\?:\[\^(.*)\]\)\+$", terminal)
    if found is None:
        raise ValueError("the SLOT terminal does not end in a negated value class")
    return _class_ranges(found.group(1))


def tail_classes(terminal: str) -> tuple[list[tuple[int, int]], tuple[int, int], tuple[int, int]]:
    """(the ranges a tail's characters leave out, the variation selectors, the two joiners) of the TAIL terminal.

    The terminal is words one space apart, each characters with a variation
    selector or a joiner (or both, in that order) between them, and at most
    one variation selector at its end; anything else is a grammar this
    scanner does not read (a ValueError).
    """
    found = re.match(r"\(\?:\[\^(.*?)\]\)\+\(\?:\(\?:\[(.)-(.)\]\(\?:\[(.)(.)\]\)\?\|", terminal)
    if found is None:
        raise ValueError("the TAIL terminal is not words of characters, selectors and joiners")
    body, vs_lo, vs_hi, zw_a, zw_b = found.groups()
    char, vs, zw = f"(?:[^{body}])", f"[{vs_lo}-{vs_hi}]", f"[{zw_a}{zw_b}]"
    word = f"{char}+(?:(?:{vs}(?:{zw})?|{zw}){char}+)*(?:{vs})?"
    if terminal != f"{word}(?:\\ {word})*":
        raise ValueError("the TAIL terminal is not words of characters, selectors and joiners")
    return _class_ranges(body), (ord(vs_lo), ord(vs_hi)), (ord(zw_a), ord(zw_b))


def _rows(ranges: list[tuple[int, int]]) -> str:
    return "\n".join(f"    {{0x{lo:06x}, 0x{hi:06x}}}," for lo, hi in ranges)


def classes_header() -> str:
    """The text of ``_scan_classes.h``: the slot value and tail classes, as sorted excluded ranges."""
    slot = excluded_ranges(TERMINALS["SLOT"])
    tail, (vs_lo, vs_hi), (zw_a, zw_b) = tail_classes(TERMINALS["TAIL"])
    return (
        "/* The characters a slot's value and a tail's words may not hold, and the tail's variation\n"
        " * selectors and joiners: the SLOT and TAIL terminals' classes, derived from grammar/rw1.lark.\n"
        " * Generated by python -m rogerwilco.core.scanner --write; do not edit (tests/test_scanner.py\n"
        " * derives it again). */\n"
        f"static const Py_UCS4 SLOT_VALUE_EXCLUDED[][2] = {{\n{_rows(slot)}\n}};\n"
        f"#define SLOT_VALUE_EXCLUDED_COUNT {len(slot)}\n"
        f"static const Py_UCS4 TAIL_EXCLUDED[][2] = {{\n{_rows(tail)}\n}};\n"
        f"#define TAIL_EXCLUDED_COUNT {len(tail)}\n"
        f"#define TAIL_SELECTOR_FIRST 0x{vs_lo:04x}\n#define TAIL_SELECTOR_LAST 0x{vs_hi:04x}\n"
        f"#define TAIL_JOINER_A 0x{zw_a:04x}\n#define TAIL_JOINER_B 0x{zw_b:04x}\n"
    )


# ---- plans ----------------------------------------------------------------

def _spec(scan: ModuleType, key: str, decode: Any, vocab: Vocabulary, required: bool, own: bool) -> tuple[Any, ...]:
    """(key, kind, element kind, required, codes, decoder, lo, hi, own, words): one key's row of a plan.

    ``own``: a slot of the type itself; any other slot of the vocabulary is taken with a note. ``words``: what
    the decoder's ValueError says of a value is what the full pass says (not so for a slot the plan closes to a
    profile's agents, whose decoder is the plan's own), so a refusal is worded with it.
    """
    words = vocab.agents is None or key not in vocab.agent_keys
    kind, inner, codes, lo, hi = scan.CALL, scan.KEEP, None, 0, 0
    slot = vocab.slots.get(key)
    if decode is None:
        kind = scan.KEEP
    elif decode.__class__ is frozenset:
        # the codes decide; the slot's own decoder words a value none of them is (what the full pass says of it)
        return key, scan.SET, inner, required, decode, None if slot is None else slot.type.decode, lo, hi, own, words
    elif slot is not None and decode is slot.type.decode:
        name = slot.type.name
        element = name[5:] if slot.type.is_list else name
        if element.startswith("enum:") or element == "rb":  # rb: a readback level or a slot's key, a closed set
            inner, codes = scan.SET, frozenset(slot.type.codes)
        elif element in ("token", "ref", "text"):
            inner = scan.KEEP
        elif element in NATIVE_KINDS:
            inner = getattr(scan, NATIVE_KINDS[element])
        elif (bounds := _INT_TYPE.fullmatch(element)) is not None and \
                max(abs(int(bounds.group(1))), abs(int(bounds.group(2)))) <= _NATIVE_INT:
            inner, lo, hi = scan.INT, int(bounds.group(1)), int(bounds.group(2))
        else:
            return key, kind, inner, required, codes, decode, lo, hi, own, words
        kind = scan.LIST if slot.type.is_list else inner
        inner = inner if slot.type.is_list else scan.KEEP
    return key, kind, inner, required, codes, decode, lo, hi, own, words


def _condition_row(key: str, cond: Any) -> tuple[str, int, Any] | None:
    """(key, 0 equals | 1 starts with | 2 is one of | 3 never, argument), as accept._condition reads a condition."""
    if not isinstance(cond, Mapping):
        return key, 0, cond
    if "prefix" in cond:
        return (key, 1, cond["prefix"]) if isinstance(cond["prefix"], str) else None
    if "in" in cond:
        return key, 2, cond["in"]
    return key, 3, None


def _rule_row(rule: ProfileRule, closure: Any) -> tuple[Any, ...]:
    """(closure, conditions, require, require_tail, sum parts, sum total): a rule the scanner checks natively.

    Conditions None: the closure decides (a rule with ``match`` patterns, or a condition it does not read).
    """
    conditions = tuple(_condition_row(key, cond) for key, cond in rule.when.items())
    keys = [*rule.when, *rule.require, *(rule.sum["parts"] if rule.sum else ()), *([rule.sum["total"]] if rule.sum else ())]
    if rule.match or None in conditions or not all(isinstance(key, str) for key in keys):
        return closure, None, (), False, (), None
    if rule.sum is None:
        return closure, conditions, tuple(rule.require), bool(rule.require_tail), (), None
    return closure, conditions, tuple(rule.require), bool(rule.require_tail), tuple(rule.sum["parts"]), rule.sum["total"]


def plan_rows(scan: ModuleType, vocab: Vocabulary) -> dict[str, tuple[Any, ...]]:
    """Type name -> the arguments of ``make_plan`` for it: (name, profile, specs, rules, tail_max, required)."""
    rows: dict[str, tuple[Any, ...]] = {}
    for name, plan in _accept.plans_for(vocab).items():
        specs = tuple(_spec(scan, key, plan.decoders[key], vocab, key in plan.required, key in plan.own)
                      for key in plan.known)
        rules = tuple(map(_rule_row, vocab.types[name].rules, plan.rules))
        rows[name] = (name, plan.profile, specs, rules, plan.tail_max, tuple(vocab.types[name].required))
    return rows


def compile_plans(scan: ModuleType, vocab: Vocabulary) -> dict[str, Any]:
    """The scanner's plans for a vocabulary: type name -> its tables."""
    plans: dict[str, Any] = {}
    for name, row in plan_rows(scan, vocab).items():
        try:
            plans[name] = scan.make_plan(*row)
        except ValueError:
            continue  # more keys, or a longer key, than the scanner's tables hold: its lines go to Python
    return plans


# ---- the quick path's tables (verdict.py) ---------------------------------

VERDICT_TABLES: Final = os.path.join(HERE, "_verdict_tables.py")


def _literal(value: Any) -> str:
    """Python source for a table's value (a constant: None, bool, int, str or a tuple of them)."""
    if isinstance(value, (tuple, list)):
        inner = ", ".join(_literal(item) for item in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value)
    raise ValueError(f"a table value that is not data: {value!r}")


def _data_rows(scan: ModuleType, vocab: Vocabulary) -> dict[str, tuple[Any, ...]]:
    """plan_rows as data alone: kinds by name, no decoder, no closure (verdict.make_plans puts them back)."""
    kinds = {getattr(scan, name): name for name in ("KEEP", "SET", "CALL", "INT", "LIST", *NATIVE_KINDS.values())}
    rows = {}
    for name, (_, profile, specs, rules, tail_max, required) in plan_rows(scan, vocab).items():
        data_specs = tuple((key, kinds[kind], kinds[inner], needed, None if codes is None else tuple(sorted(codes)),
                            lo, hi, own, words)
                           for key, kind, inner, needed, codes, _decode, lo, hi, own, words in sorted(specs))
        data_rules = tuple((None if conditions is None else
                            tuple((key, how, tuple(arg) if isinstance(arg, list) else arg) for key, how, arg in conditions),
                            *rest) for _closure, conditions, *rest in rules)
        rows[name] = (profile, data_specs, data_rules, tail_max, required)
    return rows


def verdict_tables(scan: ModuleType) -> str:
    """``_verdict_tables.py``: the plans' data for the core vocabulary and every bundled profile, all of it
    constants (an enum's codes a sorted tuple, made a frozenset when its plan is made), so that importing the
    module only reads it."""
    receiver = Receiver.all_bundled()

    def table(rows: dict[str, tuple[Any, ...]], indent: str) -> str:
        return "{\n" + "".join(f"{indent}    {name!r}: {_literal(row)},\n" for name, row in rows.items()) + indent + "}"

    profiles = "".join(f"    {name!r}: {table(_data_rows(scan, receiver.vocabulary(name)), '    ')},\n"
                       for name in receiver.names)
    return (
        '"""The C scanner\'s plans as data, for the quick path (rogerwilco.core.verdict): the core vocabulary and\n'
        "every bundled profile. Generated by python -m rogerwilco.core.scanner --write; do not edit.\n"
        "Each type: (profile, specs, rules, tail_max, required); a spec (key, kind, inner kind, required, codes,\n"
        'lo, hi, own, words); a rule (conditions or None: its closure decides, require, require_tail, parts, total)."""\n'
        "\nfrom __future__ import annotations\n\n"
        "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from typing import Any\n\n# fmt: off\n"
        f"CORE: dict[str, Any] = {table(_data_rows(scan, core_vocabulary()), '')}\n\n"
        f"PROFILES: dict[str, dict[str, Any]] = {{\n{profiles}}}\n"
    )


class Scanner:
    """The extension, configured: its plans per vocabulary, found once each."""

    def __init__(self, scan: ModuleType) -> None:
        self.scan = scan
        # id(vocabulary) -> (vocabulary, plans): the vocabulary is held so its id stays its own.
        self.plans: dict[int, tuple[Vocabulary, dict[str, Any]]] = {}
        # The terminals expected at a syntax fault (_scan.fault), by its code: the names syntax.diagnose gives.
        self.expected = {scan.EXPECT_SPACE: ("_SP",), scan.EXPECT_SLOT_OR_MARK: ("SLOT", "_TAIL_MARK"),
                         scan.EXPECT_TAIL: ("TAIL",), scan.EXPECT_END: (END_OF_LINE,)}
        # The refusals by the checks it sees for sure (_scan.fault with a receiver), as scanned_refusal names them.
        self.refusals = {scan.FAULT_VALUE: "value", scan.FAULT_ID: "id", scan.FAULT_MISSING: "missing"}
        descriptors = tuple(setter.__self__ for setter in FIELD_SETTERS)
        scan.configure(Message, Source, descriptors, self.profile_plans, foreign_required,
                       self.plans_for(core_vocabulary()))

    def plans_for(self, vocab: Vocabulary) -> dict[str, Any]:
        entry = self.plans.get(id(vocab))
        if entry is not None and entry[0] is vocab:
            return entry[1]
        plans = compile_plans(self.scan, vocab)
        if len(self.plans) >= 256:
            self.plans.clear()
        self.plans[id(vocab)] = (vocab, plans)
        return plans

    def profile_plans(self, receiver: Receiver, name: str) -> dict[str, Any] | None:
        """The plans of the profile a line names, or None: the receiver does not hold it."""
        if not receiver.holds(name):
            return None
        return self.plans_for(receiver.vocabulary(name))


def foreign_required(receiver: Receiver, key: str, profile: str | None) -> bool:
    """Whether a key no slot of the line's vocabulary has is one another held profile requires (a refusal)."""
    owner = requiring_profile(receiver, key)
    return owner is not None and owner != profile


# The sources the extension is built from, in the order its stamp reads them (hatch_build.py stamps it), and
# the check of the stamp: defined in verdict.py, which the quick path loads without the package.
SOURCES, source_stamp, built_from_here = _verdict.SOURCES, _verdict.source_stamp, _verdict.built_from_here


def load() -> tuple[Scanner | None, str]:
    """(the configured scanner, "") or (None, why it is not in use)."""
    try:
        native = importlib.import_module("rogerwilco.core._scan")
    except ImportError:
        return None, "the C scanner is not built (pip install . builds it where a C compiler exists)"
    if not built_from_here(native):
        return None, "the C scanner was built from another _scan.c (python hatch_build.py --inplace)"
    return Scanner(native), ""


def fault_error(scanner: Scanner, text: str, fault: tuple[int, int, int, str | int | None], receiver: Receiver,
                line_number: int | None) -> RW1Error | None:
    """The error ``strict_message`` raises for a line whose first fault the scanner found (``_scan.fault``), or
    None where Python does not find it there (the full pass decides).

    A syntax fault is (column, the terminals expected there, None), as ``syntax.diagnose`` gives them; a
    repeated key is (its slot's column, where the slot ends, None); a refused value, an id that is not
    ``<from>-<n>`` and a missing slot are (a column, an end, and for a value what the ValueError its Python
    decoder raised says, if that decoder refused it, for an id the sender, for a missing slot the first required
    key absent) that :func:`semantics.scanned_refusal` reads; a rule that
    does not hold is (the slots' column and end, its index in the type's rules), which
    :func:`semantics.rule_refusal` reads. Python words each, as it words its own.
    """
    kind, column, detail, more = fault
    if kind == scanner.scan.FAULT_RULE:
        return rule_refusal(text, receiver, line_number, more if isinstance(more, int) else None)
    if kind == scanner.scan.FAULT_SYNTAX:
        return syntax_refusal(text, column, list(scanner.expected[detail]), receiver, line_number)
    if kind == scanner.scan.FAULT_REPEATED:
        return repeat_refusal(text, text[column - 1:detail], column, receiver, line_number)
    return scanned_refusal(text, scanner.refusals[kind], column, detail, receiver, line_number,
                           more if isinstance(more, str) else None)


def loads_with(scanner: Scanner, python_loads: Any) -> Any:
    """``loads_line`` through the scanner, handing a line it is not sure of to ``python_loads``.

    A line the scanner declines and whose first fault it is sure of (a syntax fault, a repeated key, a
    refusal it names) is refused straight away, with the error the Python path raises for it: the Python
    accept path and the grammar would only decline it again. A line where only a profile rule fails and whose
    rule Python does not find from the line alone goes straight to the full pass, past the Python accept path,
    which would decline it.
    """
    accept, fault, rule = scanner.scan.accept, scanner.scan.fault, scanner.scan.FAULT_RULE
    receiver_class = Receiver

    def loads_line(text: str, profiles: Any = None, line_number: int | None = None) -> Message:
        """``rogerwilco.loads``: the C scanner, then the Python accept path and the full pass for a line it is not sure of."""
        receiver = profiles if profiles.__class__ is receiver_class else as_receiver(profiles)
        message: Message | None = accept(text, receiver, line_number)
        if message is not None:
            return message
        found = fault(text, receiver)
        if found is not None:
            error = fault_error(scanner, text, found, receiver, line_number)
            if error is not None:
                try:
                    raise error
                finally:  # the traceback holds this frame: a local naming the error would make a cycle, which
                    del error  # only the collector frees (about a valid line's cost again, on every refused line)
            if found[0] == rule:  # a rule does not hold: the accept path would decline it too, the full pass words it
                return strict_message(text, receiver, line_number=line_number)
        return python_loads(text, receiver, line_number)  # type: ignore[no-any-return]

    return loads_line


def forms_with(scanner: Scanner, python_form: Any, full_pass: Any) -> Any:
    """``json_forms`` through the scanner: an iterator in C over the lines, a line it is not sure of handed to
    ``python_form``, then to ``full_pass`` (which gives the JSON form or the line's LineResult)."""
    forms = scanner.scan.forms

    def rest(text: str, receiver: Receiver, number: int) -> Any:
        found = python_form(text, receiver)
        return found if found is not None else full_pass(text, receiver, number)

    def json_forms(lines: Iterable[str], profiles: Any = None) -> Iterator[dict[str, Any] | Any]:
        """The batch path (as ``accept.json_forms``): each line's JSON form, else its LineResult, in order.

        The scanner reads every line in one C loop, no Python frame for a line
        it settles; a line it is not sure of goes to the Python accept path's
        ``json_form``, then to the full pass.
        """
        receiver = profiles if profiles.__class__ is Receiver else as_receiver(profiles)
        return forms(lines, receiver, rest)  # type: ignore[no-any-return]

    return json_forms


def form_with(scanner: Scanner, python_form: Any) -> Any:
    """``json_form`` through the scanner (the batch path's first try), handing a line it is not sure of to
    ``python_form``."""
    form = scanner.scan.form

    def json_form(text: str, receiver: Receiver) -> dict[str, Any] | None:
        """The JSON form of a cleanly valid line (as ``Message.to_json`` gives it), or None: not sure.

        The scanner builds the form itself, no Message on the way; a line it is
        not sure of goes to the Python accept path's ``json_form``.
        """
        found: dict[str, Any] | None = form(text, receiver)
        if found is not None:
            return found
        return python_form(text, receiver)  # type: ignore[no-any-return]

    return json_form


def text_with(scanner: Scanner, python_text: Any) -> Any:
    """``json_text`` through the scanner, handing a value it is not sure of (a float, a subclass) to ``python_text``."""
    dumps = scanner.scan.dumps

    def json_text(value: Any) -> str:
        """The JSON text of ``value``, exactly as ``json.dumps(value, ensure_ascii=True)`` writes it."""
        text: str | None = dumps(value)
        return python_text(value) if text is None else text

    return json_text


def quiet_with(scanner: Scanner, python_quiet: Any) -> Any:
    """``accept_quiet`` through the scanner, handing a line it is not sure of to ``python_quiet``."""
    accept = scanner.scan.accept

    def accept_quiet(text: str, receiver: Receiver, line: int | None = None, file: str | None = None) -> Message | None:
        """The Message of a line the full pass takes with no finding at all (no note either), or None: not sure.

        The scanner, asked to be quiet, refuses every line that earns a note (a
        slot of another type, a key no slot has but an extension), so what it
        settles is what ``check_line`` takes with nothing to say; the rest goes
        to the Python accept path, which decides as before.
        """
        message: Message | None = accept(text, receiver, line, file, True)
        if message is not None:
            return message
        return python_quiet(text, receiver, line, file)  # type: ignore[no-any-return]

    return accept_quiet


def main(argv: list[str]) -> int:
    """``python -m rogerwilco.core.scanner --write``: regenerate ``_scan_classes.h`` from the grammar and
    ``_verdict_tables.py`` from the vocabulary (the latter needs the scanner built: hatch_build.py --inplace)."""
    if argv != ["--write"]:
        print("usage: python -m rogerwilco.core.scanner --write", file=sys.stderr)
        return 2
    with open(HEADER, "w", encoding="utf-8", newline="\n") as header:
        header.write(classes_header())
    print(f"wrote {os.path.basename(HEADER)}")
    try:
        scan = importlib.import_module("rogerwilco.core._scan")
    except ImportError:
        print(f"{os.path.basename(VERDICT_TABLES)} not written: the C scanner is not built", file=sys.stderr)
        return 1
    with open(VERDICT_TABLES, "w", encoding="utf-8", newline="\n") as tables:
        tables.write(verdict_tables(scan))
    print(f"wrote {os.path.basename(VERDICT_TABLES)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
