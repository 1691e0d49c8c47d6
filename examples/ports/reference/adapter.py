#!/usr/bin/env python3
"""The conformance adapter of the published reference codec (``rogerwilco`` 0.3.0).

It drives the reference's own functions through the adapter contract, so that
``rogerwilco conformance --diff --impl "python examples/ports/reference/adapter.py"``
compares this package with the codec RW1's author publishes. It holds no RW1
logic of its own: it loads the reference's module, calls it, and translates
its answers into the contract's shapes.

``RW1_REFERENCE_DIR`` names the unpacked wheel (the folder holding
``scripts/rogerwilco.py``). The module is loaded from that file under the name
``rw1_reference``: its own import name, ``rogerwilco``, is this package's.

Translation, op by op:

* Profiles. The reference reads a line's ``p=`` itself and knows only its
  own bundled profiles, by name. The contract's receiver model (``profiles``:
  what the receiver holds) is applied here: a line whose ``p=`` names a
  profile the request does not hold is refused with that token, as the
  contract asks. Inline profile objects are refused (``ok: false``).
* Refusals. The reference returns every fault of a line as a sentence; the
  contract names one fault, with its token. Each sentence is read back into
  (fault class, token) and the fault that decision D10's order puts first is
  answered, so that the order in which the reference happens to collect its
  faults is not counted as a disagreement; which faults it finds is. A token
  the sentence quotes with ``repr`` (``key 'w\\xadhy' must be lowercase``) is
  read back to the token as written (decision D4), and a ``p=`` the receiver
  does not hold is among an encode's faults as it is among a line's.
* Checks. The reference's ``(problems, notes)`` sentences become findings
  ``(severity, kind, tier, key)`` by their fixed prefixes (``tier1 receipt:``,
  ``tier3 echo:``, ``executed:``...). ``now`` is the request's, else the
  reference's own clock (its default).
* ``reply`` is ``unsupported``: the reference writes no ``UN`` line.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

CONTRACT = 2
OPS = ("parse", "encode", "digest", "make-rb", "check-rb", "check-ho", "check-dn", "check-thread")


def load_reference() -> ModuleType:
    """The reference module, or a one-line reason on stderr and exit status 2."""
    folder = os.environ.get("RW1_REFERENCE_DIR")
    if not folder:
        _die("RW1_REFERENCE_DIR is not set: point it at the unpacked rogerwilco 0.3.0 wheel "
             "(the folder holding scripts/rogerwilco.py)")
    script = Path(folder) / "scripts" / "rogerwilco.py"
    if not script.is_file():
        _die(f"RW1_REFERENCE_DIR={folder}: no scripts/rogerwilco.py there (unpack the rogerwilco 0.3.0 wheel "
             "and point at the folder holding scripts/)")
    spec = importlib.util.spec_from_file_location("rw1_reference", script)
    if spec is None or spec.loader is None:
        _die(f"RW1_REFERENCE_DIR={folder}: cannot load {script}")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - any failure to load is reported in one line
        _die(f"RW1_REFERENCE_DIR={folder}: {script} does not load: {type(exc).__name__}: {exc}")
    for name in ("parse", "encode", "digest", "make_rb", "check_rb_full", "check_ho", "check_dn", "check_thread"):
        if not hasattr(module, name):
            _die(f"RW1_REFERENCE_DIR={folder}: {script} has no {name}(); is it rogerwilco 0.3.0?")
    return module


def _die(message: str) -> None:
    sys.stderr.write(f"reference adapter: {message}\n")
    sys.stderr.flush()
    raise SystemExit(2)


REF: ModuleType


class Refused(Exception):
    """A request the reference cannot be asked (ok: false)."""


# ---------------------------------------------------------------- profiles

def _bundled() -> list[str]:
    folder = Path(REF.PROFILES)
    return sorted(p.stem for p in folder.glob("*.json") if p.stem != "core")


def _held(request: dict[str, Any]) -> list[str]:
    profiles = request.get("profiles") or []
    if not isinstance(profiles, list):
        raise Refused("profiles is a list of bundled profile names")
    for entry in profiles:
        if not isinstance(entry, str):
            raise Refused("the reference loads bundled profiles by name only")
        if entry not in _bundled():
            raise Refused(f"unknown profile {entry!r}: the reference bundles {', '.join(_bundled())}")
    return profiles


def _written_profile(line: str) -> str | None:
    head = line.split(" // ", 1)[0]
    for token in head.split(" ")[3:]:
        if token.startswith("p="):
            return token[2:]
    return None


# ---------------------------------------------------------------- refusals

# D10's order of fault classes; each reference sentence is read into one.
_GRAMMAR, _REPEAT, _PROFILE, _TYPE, _VALUE, _ID, _REQUIRED, _RULE, _TAIL = range(9)

_SENTENCES: list[tuple[re.Pattern[str], int, str | None]] = [
    # (sentence, fault class, where the token is: a group name, or None for the whole line)
    (re.compile(r"^version token '(?P<tok>.*)' is not RW1"), _GRAMMAR, "tok"),
    (re.compile(r"^version must be RW1"), _GRAMMAR, "version"),
    (re.compile(r"^a message needs at least"), _GRAMMAR, None),
    (re.compile(r"^type '(?P<tok>.*)' unknown"), _TYPE, "tok"),
    (re.compile(r"^id '(?P<tok>.*)' must match"), _GRAMMAR, "tok"),
    (re.compile(r"^'(?P<tok>.*)': expected key=value"), _GRAMMAR, "tok"),
    (re.compile(r"^key '(?P<key>.*)' must be lowercase"), _GRAMMAR, "key="),
    (re.compile(r"^duplicate key (?P<key>\S+)$"), _REPEAT, "dup="),
    (re.compile(r"^(?P<key>\S+)= has an empty value"), _GRAMMAR, "key="),
    (re.compile(r"^unknown profile '(?P<name>.*)'"), _PROFILE, "p="),
    (re.compile(r"^profile \S+ redefines"), _PROFILE, "p="),
    (re.compile(r"^id '(?P<tok>.*)' must be <from>-<n>"), _ID, "tok"),
    (re.compile(r"^\w+ requires (?P<key>\S+)$"), _REQUIRED, "key"),
    (re.compile(r"^AQ with need=ENUM requires (?P<key>opts)"), _RULE, "key"),
    (re.compile(r"^AN with val=tail needs a tail"), _RULE, "val="),
    (re.compile(r"^(?P<key>opts|val)=(?P<val>\S*): not in the profile's answer"), _RULE, "key="),
    (re.compile(r"^tail is \d+ characters"), _TAIL, "tail"),
    (re.compile(r"^(?P<key>[a-z][a-z0-9_]*)=(?P<val>.*?): "), _VALUE, "key="),
    (re.compile(r"^(?P<key>[a-z][a-z0-9_]*): unknown slot type"), _VALUE, "key="),
]


def _tokens(line: str) -> tuple[list[str], str | None]:
    head, mark, tail = line.partition(" // ")
    return head.split(" "), (tail if mark else None)


def _token_of(line: str, key: str, nth: int = 1) -> str:
    """The ``nth`` written token of ``key`` (``key=...``), as written."""
    seen = 0
    for token in _tokens(line)[0][3:]:
        if token.split("=", 1)[0] == key:
            seen += 1
            if seen == nth:
                return token
    return f"{key}="


def _unquoted(text: str) -> str:
    """What the reference quoted with repr() (``'w\\xadhy'``), as written in the line."""
    try:
        value = ast.literal_eval(f"'{text}'")
    except (SyntaxError, ValueError):
        return text
    return value if isinstance(value, str) else text


def _fault(line: str, sentence: str) -> tuple[int, str, str]:
    """(D10 class, why, token) of one reference sentence about ``line``."""
    for pattern, rank, where in _SENTENCES:
        m = pattern.search(sentence)
        if m is None:
            continue
        why = "VER" if sentence.startswith("version") else "UNK"
        if where is None:
            return rank, why, line
        if where == "tok":
            return rank, why, _unquoted(m.group("tok"))
        if where == "version":
            return rank, why, _tokens(line)[0][0]
        if where == "key":  # a slot that is not there is named by its key
            return rank, why, m.group("key")
        if where == "key=":
            return rank, why, _token_of(line, _unquoted(m.group("key")))
        if where == "val=":
            return rank, why, _token_of(line, "val")
        if where == "dup=":
            return rank, why, _token_of(line, m.group("key"), 2)
        if where == "p=":
            return rank, why, _token_of(line, "p")
        if where == "type":
            return rank, why, _tokens(line)[0][1]
        if where == "tail":
            return rank, why, "//"
    return _GRAMMAR, "UNK", ""


def _sentences(joined: str) -> list[str]:
    """A FormError's message back into its sentences: joined by "; ", which a sentence may hold too."""
    out: list[str] = []
    for part in joined.split("; "):
        if out and not any(pattern.search(part) for pattern, _, _ in _SENTENCES):
            out[-1] += "; " + part
        else:
            out.append(part)
    return out


def _refusal(line: str, errors: list[str]) -> dict[str, Any]:
    faults = [_fault(line, e) for e in errors]
    rank, why, token = min(faults, key=lambda f: f[0])  # min is stable: written order within a class
    return {"valid": False, "why": why, "token": token}


def _unheld(line: str, held: list[str]) -> str | None:
    """The ``p=`` token of a line whose profile the receiver does not hold."""
    name = _written_profile(line)
    if name is not None and name not in held:
        return _token_of(line, "p")
    return None


def _read(line: str, held: list[str]) -> tuple[dict[str, Any], list[str]]:
    """The reference's (message, errors) for ``line``, under the receiver's holdings."""
    msg, errors, _warnings = REF.parse(line)
    if _unheld(line, held) is not None:
        errors = errors + [f"unknown profile '{_written_profile(line)}' (not held)"]
    return msg, errors


# ---------------------------------------------------------------- the core ops

def op_parse(request: dict[str, Any]) -> dict[str, Any]:
    line = request["line"]
    msg, errors = _read(line, _held(request))
    if errors:
        return _refusal(line, errors)
    return {"valid": True, "json": msg}


def op_encode(request: dict[str, Any]) -> dict[str, Any]:
    form = request["json"]
    held = _held(request)
    try:
        line = REF.encode(form)
    except REF.FormError as exc:
        errors = _sentences(str(exc))
        guess = _written_guess(form)
        if _unheld(guess, held) is not None:  # as _read does for a line: the receiver's holdings are a fault too
            errors.append(f"unknown profile '{_written_profile(guess)}' (not held)")
        return _refusal(guess, errors)
    not_held = _unheld(line, held)
    if not_held is not None:
        return {"valid": False, "why": "UNK", "token": not_held}
    return {"valid": True, "line": line}


def _written_guess(form: Any) -> str:
    """The line the reference wrote before refusing it, rebuilt so a token can be pointed at."""
    if not isinstance(form, dict):
        return ""
    tokens = [str(form.get("v", "RW1")), str(form.get("type")), str(form.get("id"))]
    for key in ("re", "from", "to", "item"):
        if form.get(key) not in (None, ""):
            tokens.append(f"{key}={form[key]}")
    for key, value in (form.get("slots") or {}).items():
        if isinstance(value, bool):
            value = "Y" if value else "N"
        elif isinstance(value, list):
            value = "+".join(str(x) for x in value)
        tokens.append(f"{key}={value}")
    return " ".join(tokens)


def op_digest(request: dict[str, Any]) -> dict[str, Any]:
    return {"h": REF.digest(request["line"])}


# ---------------------------------------------------------------- findings

def _finding(severity: str, kind: str, tier: int | None, key: str | None, message: str) -> dict[str, Any]:
    return {"severity": severity, "kind": kind, "tier": tier, "key": key, "message": message}


_RECEIPT = re.compile(r"must come from (?P<want_from>\S*) to (?P<want_to>\S*); got from=(?P<from>\S*) to=(?P<to>\S*)$")


def _receipt(sentence: str, tier: int | None) -> list[dict[str, Any]]:
    m = _RECEIPT.search(sentence)
    if m is None:
        return [_finding("fail", "receipt", tier, None, sentence)]
    out = []
    if m.group("from") != m.group("want_from"):
        out.append(_finding("fail", "receipt", tier, "from", sentence))
    if m.group("to") != m.group("want_to"):
        out.append(_finding("fail", "receipt", tier, "to", sentence))
    return out


def _rb_problem(sentence: str) -> list[dict[str, Any]]:
    rules: list[tuple[str, Callable[[re.Match[str]], list[dict[str, Any]]]]] = [
        (r"^(HO|RB|DN): ", lambda m: [_finding("fail", "form", None, None, sentence)]),
        (r"^(first|second|third) line is", lambda m: [_finding("fail", "form", None, None, sentence)]),
        (r"^tier1 receipt: RB re=", lambda m: [_finding("fail", "receipt", 1, "re", sentence)]),
        (r"^tier1 receipt: RB must come", lambda m: _receipt(sentence, 1)),
        (r"^expired: the statement's exp=", lambda m: [_finding("fail", "expiry", 3, "exp", sentence)]),
        (r"^expired: ", lambda m: [_finding("fail", "expired", None, "exp", sentence)]),
        (r"^tier2 integrity", lambda m: [_finding("fail", "digest", 2, "h", sentence)]),
        (r"^tier3 echo: RB does not echo (?P<k>\S+)", lambda m: [_finding("fail", "missing", 3, m["k"], sentence)]),
        (r"^tier3 echo: (?P<k>\S+) mismatch", lambda m: [_finding("fail", "mismatch", 3, m["k"], sentence)]),
        (r"^tier4 comprehension: HO asked for rb=\w+ but RB carries no acc=",
         lambda m: [_finding("fail", "missing", 4, "acc", sentence)]),
        (r"^tier4 comprehension: gap, receiver did not derive (?P<k>[^:]*):",
         lambda m: [_finding("fail", "gap", 4, m["k"], sentence)]),
        (r"^tier4 comprehension: gap, sender asked for (?P<k>\S+) in keys=",
         lambda m: [_finding("fail", "gap", 4, m["k"], sentence)]),
        (r"^tier4 comprehension: contradiction on (?P<k>[^:]*):",
         lambda m: [_finding("fail", "contradiction", 4, m["k"], sentence)]),
        (r"^tier4 comprehension: rb=plan requires do=", lambda m: [_finding("fail", "plan", 4, "do", sentence)]),
        (r"^tier4 comprehension: receiver excludes", lambda m: [_finding("fail", "excluded", 4, "must", sentence)]),
        (r"^tier5 execution: RB does not carry (?P<k>\S+),", lambda m: [_finding("fail", "missing", 5, m["k"], sentence)]),
        (r"^tier5 execution: (?P<k>\S+) mismatch", lambda m: [_finding("fail", "mismatch", 5, m["k"], sentence)]),
    ]
    return _by_rules(rules, sentence, "fail")


def _rb_note(sentence: str) -> list[dict[str, Any]]:
    rules: list[tuple[str, Callable[[re.Match[str]], list[dict[str, Any]]]]] = [
        (r"^key (?P<k>\S+) is not in the closed", lambda m: [_finding("note", "unknown-key", 4, m["k"], sentence)]),
        (r"^loose match: sender (?P<k>[^:]*):", lambda m: [_finding("note", "loose", 4, m["k"], sentence)]),
        (r"^assumption: receiver added (?P<k>[^:]*):", lambda m: [_finding("note", "assumption", 4, m["k"], sentence)]),
        (r"^tier4: no expected criteria", lambda m: [_finding("note", "unchecked", 4, None, sentence)]),
        (r"^tier5 execution: the profile names no execution slots",
         lambda m: [_finding("note", "no-exec", 5, "ask", sentence)]),
    ]
    return _by_rules(rules, sentence, "note")


def _by_rules(rules: list[tuple[str, Callable[[re.Match[str]], list[dict[str, Any]]]]], sentence: str,
              severity: str) -> list[dict[str, Any]]:
    for pattern, make in rules:
        m = re.search(pattern, sentence)
        if m is not None:
            return make(m)
    return [_finding(severity, "unclassified", None, None, sentence)]


def _report(findings: list[dict[str, Any]]) -> dict[str, Any]:
    return {"passed": not any(f["severity"] == "fail" for f in findings), "findings": findings}


def _check_profile(request: dict[str, Any], *lines: str | None) -> str | None:
    """The profile the reference checks with: the HO's ``p=``; a line whose
    ``p=`` the receiver does not hold is refused as the parse op refuses it."""
    held = _held(request)
    for line in lines:
        if line is not None and _unheld(line, held) is not None:
            raise _NotHeld(line)
    return _written_profile(lines[0] or "") if lines else None


class _NotHeld(Exception):
    pass


def _form_failure(exc: _NotHeld) -> dict[str, Any]:
    return _report([_finding("fail", "form", None, None, f"p= of a profile not held: {exc.args[0]}")])


def _acc(value: Any) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise Refused("acc is a string of key:value items joined by +")
    return value.split("+")


def op_make_rb(request: dict[str, Any]) -> dict[str, Any]:
    for field in ("not", "asm", "values", "eta"):
        if request.get(field) is not None:
            raise Refused(f"the reference's make_rb takes no {field}")
    n = request["n"]
    if isinstance(n, bool) or not isinstance(n, int):
        raise Refused("n is an integer")
    ho = request["ho"]
    try:
        profile = _check_profile(request, ho)
    except _NotHeld:
        raise Refused("the HO names a profile the receiver does not hold") from None
    msg, _, _ = REF.parse(ho, profile)
    rb_id = f"{msg.get('to')}-{n}"
    line = REF.make_rb(ho, rb_id, profile, with_hash=bool(request.get("digest", True)), acc=_acc(request.get("acc")),
                       do=request.get("do"))
    return {"line": line}


def op_check_rb(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("record") is not None:
        raise Refused("the reference's check_rb_full takes no record")
    try:
        profile = _check_profile(request, request["ho"], request["rb"])
    except _NotHeld as exc:
        return _form_failure(exc)
    problems, notes = REF.check_rb_full(request["ho"], request["rb"], profile, _acc(request.get("expect_acc")),
                                        now=request.get("now"))
    return _report([f for s in problems for f in _rb_problem(s)] + [f for s in notes for f in _rb_note(s)])


def op_check_ho(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("relay_adds") is not None:
        raise Refused("the reference's check_ho has no relay mode")
    record = request["record"]
    if not isinstance(record, dict):
        raise Refused("record is an object of slot values")
    try:
        profile = _check_profile(request, request["line"])
    except _NotHeld as exc:
        return _form_failure(exc)
    problems, notes = REF.check_ho(request["line"], record, profile)
    rules: list[tuple[str, Callable[[re.Match[str]], list[dict[str, Any]]]]] = [
        (r"^HO: |^first line is", lambda m: [_finding("fail", "form", None, None, "")]),
        (r"^record: HO does not carry (?P<k>\S+) ", lambda m: [_finding("fail", "missing", None, m["k"], "")]),
        (r"^record: (?P<k>\S+) mismatch", lambda m: [_finding("fail", "mismatch", None, m["k"], "")]),
        (r"^ask \S+ is an irreversible act", lambda m: [_finding("fail", "level", None, "rb", "")]),
    ]
    note_rules: list[tuple[str, Callable[[re.Match[str]], list[dict[str, Any]]]]] = [
        (r"^(?P<k>[a-z][a-z0-9_]*)=.* has no value in the record",
         lambda m: [_finding("note", "unchecked", None, m["k"], "")]),
        (r"^(?P<k>[a-z][a-z0-9_]*) is in neither the HO nor the record",
         lambda m: [_finding("note", "unresolved", None, m["k"], "")]),
    ]
    return _report(_translated(problems, rules, "fail") + _translated(notes, note_rules, "note"))


def _translated(sentences: list[str], rules: list[tuple[str, Callable[[re.Match[str]], list[dict[str, Any]]]]],
                severity: str) -> list[dict[str, Any]]:
    out = []
    for sentence in sentences:
        for finding in _by_rules(rules, sentence, severity):
            finding["message"] = sentence
            out.append(finding)
    return out


def op_check_dn(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("record") is not None:
        raise Refused("the reference's check_dn takes no record")
    rb = request.get("rb")
    try:
        profile = _check_profile(request, request["ho"], request["dn"], rb)
    except _NotHeld as exc:
        return _form_failure(exc)
    problems, notes = REF.check_dn(request["ho"], request["dn"], profile, rb_line=rb)
    rules: list[tuple[str, Callable[[re.Match[str]], list[dict[str, Any]]]]] = [
        (r"^(HO|DN|RB): |^(first|second|third) line is", lambda m: [_finding("fail", "form", None, None, "")]),
        (r"^receipt: DN re=", lambda m: [_finding("fail", "receipt", None, "re", "")]),
        (r"^receipt: DN must come", lambda m: _receipt(m.string, None)),
        (r"^receipt: DN item", lambda m: [_finding("fail", "receipt", None, "item", "")]),
        (r"^the readback did not pass", lambda m: [_finding("fail", "readback", None, None, "")]),
        (r"^executed: DN does not carry (?P<k>\S+),", lambda m: [_finding("fail", "missing", None, m["k"], "")]),
        (r"^executed: (?P<k>\S+) mismatch", lambda m: [_finding("fail", "mismatch", None, m["k"], "")]),
    ]
    note_rules: list[tuple[str, Callable[[re.Match[str]], list[dict[str, Any]]]]] = [
        (r"^executed: DN does not carry (?P<k>\S+)$", lambda m: [_finding("note", "missing", None, m["k"], "")]),
        (r"^executed: (?P<k>[a-z][a-z0-9_]*)=.* was resolved by the receiver",
         lambda m: [_finding("note", "unchecked", None, m["k"], "")]),
        (r"^out=NOOP but the DN carries", lambda m: [_finding("note", "noop-values", None, None, "")]),
        (r"^the profile names no execution slots", lambda m: [_finding("note", "no-exec", None, None, "")]),
    ]
    return _report(_translated(problems, rules, "fail") + _translated(notes, note_rules, "note"))


def op_check_thread(request: dict[str, Any]) -> dict[str, Any]:
    lines = request["lines"]
    if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
        raise Refused("lines is a list of strings")
    held = _held(request)
    unheld = [i for i, line in enumerate(lines) if _unheld(line, held) is not None]
    # a line the receiver cannot read is a form finding; the reference reads the rest
    readable = [("# not held" if i in unheld else line) for i, line in enumerate(lines)]
    problems, notes = REF.check_thread(readable, None, request.get("now"))
    rules: list[tuple[str, Callable[[re.Match[str]], list[dict[str, Any]]]]] = [
        (r"^line \d+: CX (?P<id>\S+) must come from", lambda m: [_finding("fail", "cancel-wrong-party", None,
                                                                             _cx_target(lines, m["id"]), "")]),
        (r"^line \d+: CX \S+ re=\S* does not name an HO", lambda m: [_finding("fail", "reply-to-unknown", None, None, "")]),
        (r"^line \d+: ", lambda m: [_finding("fail", "form", None, None, "")]),
        (r"^(?P<id>\S+): closed \d+ times", lambda m: [_finding("fail", "closed-twice", None, m["id"], "")]),
        (r"^(?P<id>\S+): \S+ reports the act done after CX", lambda m: [_finding("fail", "act-after-cancel", None,
                                                                                  m["id"], "")]),
        (r"^(?P<id>\S+): orphaned, open past exp=", lambda m: [_finding("fail", "open-past-exp", None, m["id"], "")]),
        (r"^(?P<id>\S+): orphaned, open past due=", lambda m: [_finding("fail", "open-past-due", None, m["id"], "")]),
    ]
    note_rules: list[tuple[str, Callable[[re.Match[str]], list[dict[str, Any]]]]] = [
        (r"^(?P<id>\S+): CX \S+ sent, not yet acknowledged",
         lambda m: [_finding("note", "cancel-unacknowledged", None, m["id"], "")]),
        (r"^(?P<id>\S+): open$", lambda m: [_finding("note", "open", None, m["id"], "")]),
    ]
    findings = [_finding("fail", "form", None, None, "") for _ in unheld]
    return _report(findings + _translated(problems, rules, "fail") + _translated(notes, note_rules, "note"))


def _cx_target(lines: list[str], cx_id: str) -> str | None:
    for line in lines:
        tokens = _tokens(line)[0]
        if len(tokens) > 2 and tokens[2] == cx_id:
            return _value(tokens, "re")
    return None


def _value(tokens: list[str], key: str) -> str | None:
    for token in tokens[3:]:
        if token.startswith(key + "="):
            return token[len(key) + 1:]
    return None


# ---------------------------------------------------------------- the contract

HANDLERS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "parse": op_parse, "encode": op_encode, "digest": op_digest, "make-rb": op_make_rb,
    "check-rb": op_check_rb, "check-ho": op_check_ho, "check-dn": op_check_dn, "check-thread": op_check_thread,
}


def handshake() -> dict[str, Any]:
    return {
        "contract": CONTRACT,
        "implementation": {"name": "rogerwilco-reference", "version": "0.3.0", "language": "python",
                           "homepage": "https://pypi.org/project/rogerwilco/0.3.0/"},
        "ops": list(OPS),
        "profiles": _bundled(),
    }


def handle(request: Any) -> dict[str, Any]:
    if not isinstance(request, dict) or not isinstance(request.get("op"), str):
        return {"ok": False, "error": "bad request: an object with op"}
    if request["op"] == "start":
        return {"ok": True, **handshake()}
    handler = HANDLERS.get(request["op"])
    if handler is None:
        return {"ok": False, "error": "unsupported"}
    try:
        return {"ok": True, **handler(request)}
    except Refused as exc:
        return {"ok": False, "error": str(exc)}
    except REF.FormError as exc:
        return {"ok": False, "error": f"FormError: {exc}"}
    except Exception as exc:  # noqa: BLE001 - the reference raising is an answer too, never the end of the process
        return {"ok": False, "error": f"the reference raised {type(exc).__name__}: {exc}"}


def main() -> int:
    global REF
    REF = load_reference()
    for raw in sys.stdin:
        if not raw.strip():
            continue
        try:
            request = json.loads(raw)
        except (ValueError, RecursionError) as exc:
            response = {"ok": False, "error": f"bad request: not JSON ({exc})"}
        else:
            response = handle(request)
            if isinstance(request, dict) and "seq" in request:
                response["seq"] = request["seq"]
        sys.stdout.write(json.dumps(response, ensure_ascii=True) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
