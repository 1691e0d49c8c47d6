"""What an editor asks of a document: diagnostics, hover, completion, quick fixes, symbols.

Theory of operation
-------------------
This module holds the language server's knowledge with no protocol in it
(:mod:`rogerwilco.front.lsp` only translates to and from the Language Server
Protocol), so every answer is a plain value that tests can check directly.
Positions are 0-based lines and code-point columns; the server converts them
to the client's units.

A document is an RW1 stream when its name ends in ``.rw1`` (every line is a
message), otherwise its messages are the RW1 lines found inside its lines as
:mod:`rogerwilco.io.scan` finds them (logs, Markdown, JSON Lines). Lines are
split at ``\\n``, ``\\r\\n`` and ``\\r``, as the protocol splits them.

* diagnostics are :func:`rogerwilco.io.lint.lint_stream`'s findings, the stream
  rules included, each with its code, span and "did you mean" fix;
* hover names what the word under the cursor is, from the vocabulary data
  (a type's meaning and required slots, a slot's type and meaning, an enum
  code's meaning and the profile it comes from), under the line's ``p=``;
* completion offers the types after the version token, the keys the line's
  type allows (not yet used) where a key starts, and the codes of an enum
  slot (or the bundled profiles after ``p=``) after ``=``;
* symbols are one per message, grouped by thread: a message is a child of the
  message its ``re=`` chain reaches first in the document.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Iterator, Sequence

import attrs

from ..io.lint import LintFinding, is_stream_file, lint_stream
from ..core.semantics import check_line
from ..core.vocab import BUNDLED_PROFILES, Receiver, Vocabulary

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """The document's lines, split as the protocol splits them (``\\n``, ``\\r\\n``, ``\\r``)."""
    lines = _LINE_BREAK.split(text)
    return lines[:-1] if lines and lines[-1] == "" and len(lines) > 1 else lines


@attrs.frozen
class Candidate:
    """An RW1 line inside a document line: where it starts and its text."""

    line: int  # 0-based
    start: int  # 0-based code-point column of its first character
    text: str


def candidates(lines: Sequence[str], name: str) -> Iterator[Candidate]:
    """Every RW1 line of the document, in order."""
    if is_stream_file(name):
        for number, text in enumerate(lines):
            if text:
                yield Candidate(number, 0, text)
        return
    from ..io.scan.frames import candidates as found_in, frames_of

    for number, text in enumerate(lines):
        if "RW" not in text:
            continue
        for frame in frames_of(text):
            for start, cand in found_in(frame.text):
                yield Candidate(number, frame.column(start) - 1, cand)


# ------------------------------------------------------------------ diagnostics


@attrs.frozen
class Diagnostic:
    line: int
    start: int
    end: int
    severity: str  # "error" | "warning"
    code: str
    message: str
    fix: str | None = None


def diagnostics(text: str, name: str, receiver: Receiver | None = None) -> list[Diagnostic]:
    """The lint findings of a document as ranges; never raises."""
    lines = split_lines(text)
    try:
        found = lint_stream(lines, file=name, profiles=receiver)
    except Exception as exc:  # an editor must never lose its server: report where reading stopped
        return [Diagnostic(0, 0, 1, "error", "RW001", f"the document could not be read: {type(exc).__name__}: {exc}")]
    return [_diagnostic(f, lines) for f in found]


def _diagnostic(f: LintFinding, lines: Sequence[str]) -> Diagnostic:
    line = max(0, f.line - 1)
    width = len(lines[line]) if line < len(lines) else 0
    start = (f.column - 1) if f.column else 0
    end = (f.end_column - 1) if f.end_column else max(start + 1, width)
    message = f"{f.token}: {f.message}" if f.token else f.message
    if f.hint:
        message += f" ({f.hint})"
    return Diagnostic(line, start, min(end, max(width, start + 1)), f.level, f.code, message, f.fix)


# ------------------------------------------------------------------ words under the cursor


@attrs.frozen
class Word:
    """The token under the cursor in an RW1 line: its index, text and where it starts."""

    candidate: Candidate
    index: int  # 0 version, 1 type, 2 id, 3+ keyed slots; -1 the tail
    text: str
    start: int  # 0-based column in the document line
    offset: int  # cursor offset inside the token


def _tokens(text: str) -> list[tuple[int, str]]:
    out = []
    at = 0
    tail = text.find(" // ")
    head = text if tail == -1 else text[:tail]
    for part in head.split(" "):
        out.append((at, part))
        at += len(part) + 1
    if tail != -1:
        out.append((tail + 1, text[tail + 1:]))
    return out


def word_at(lines: Sequence[str], name: str, line: int, column: int) -> Word | None:
    """The token of an RW1 line at a position (the cursor may stand just after it)."""
    for cand in candidates(lines, name):
        if cand.line != line or not (cand.start <= column <= cand.start + len(cand.text)):
            continue
        tokens = _tokens(cand.text)
        offset = column - cand.start
        for index, (at, token) in enumerate(tokens):
            if at <= offset <= at + len(token):
                is_tail = token.startswith("// ") and index == len(tokens) - 1 and cand.text.find(" // ") != -1
                return Word(cand, -1 if is_tail else index, token, cand.start + at, offset - at)
    return None


def _vocabulary(text: str, receiver: Receiver) -> Vocabulary:
    match = re.search(r"(?:^| )p=(\S+)", text)
    if match and receiver.holds(match.group(1)):
        return receiver.vocabulary(match.group(1))
    return receiver.vocabulary(None)


def hover(text: str, name: str, line: int, column: int, receiver: Receiver | None = None) -> str | None:
    """Markdown describing the word at a position, from the vocabulary data; None where there is nothing to say."""
    receiver = receiver or Receiver.all_bundled()
    word = word_at(split_lines(text), name, line, column)
    if word is None:
        return None
    vocab = _vocabulary(word.candidate.text, receiver)
    if word.index == -1:
        return f"**tail**: free text (reasoning, not facts), at most {vocab.tail_max} characters"
    if word.index == 0:
        return "**RW1**: the protocol version token; any other version is refused with `UN why=VER`"
    if word.index == 1:
        table = vocab.types.get(word.text)
        if table is None:
            return f"`{word.text}` is not a message type"
        return f"**{word.text}**: {table.desc}\n\nrequired: `{' '.join(table.required)}`"
    if word.index == 2:
        return "**id**: `<from>-<n>`, the sender's name, a hyphen and a number"
    key, eq, value = word.text.partition("=")
    slot = vocab.slots.get(key)
    if slot is None:
        if key.startswith("x_"):
            return f"**{key}**: an extension key, carried as text and ignored by receivers"
        return f"`{key}` is not a known slot; receivers keep it as text and ignore it"
    source = f" (profile {slot.profile})" if slot.profile else ""
    about = f"**{key}** `{slot.type.name}`{source}: {slot.desc}".rstrip(": ")
    if eq and word.offset > len(key) and slot.type.enum:
        codes = vocab.enum_codes(slot.type.enum)
        code = value.split("+")[-1] if slot.type.is_list else value
        if code in codes:
            owner = _code_owner(vocab, slot.type.enum, code)
            return f"**{code}**: {codes[code]}{owner}\n\n{about}"
    return about


def _code_owner(vocab: Vocabulary, enum: str, code: str) -> str:
    if vocab.profile is None:
        return ""
    core = vocab.core.get("enums", {}).get(enum, {})
    return "" if code in core else f" (profile {vocab.profile})"


# ------------------------------------------------------------------ completion


@attrs.frozen
class Completion:
    label: str
    detail: str
    insert: str
    kind: str  # "type" | "key" | "code" | "profile"


def completions(text: str, name: str, line: int, column: int, receiver: Receiver | None = None) -> list[Completion]:
    """What may be typed at a position of an RW1 line."""
    receiver = receiver or Receiver.all_bundled()
    lines = split_lines(text)
    word = word_at(lines, name, line, column)
    if word is None:
        here = lines[line][:column] if line < len(lines) else ""
        if is_stream_file(name) and here.strip() == "":
            return [Completion("RW1", "a new message", "RW1 ", "type")]
        return []
    vocab = _vocabulary(word.candidate.text, receiver)
    typed = word.text[:word.offset]
    if word.index == 1:
        return [Completion(t, table.desc, t, "type") for t, table in vocab.types.items() if t.startswith(typed.upper())]
    if word.index < 3:
        return []
    tokens = _tokens(word.candidate.text)
    type_ = tokens[1][1] if len(tokens) > 1 else ""
    if "=" not in typed:
        used = {t.partition("=")[0] for i, (_, t) in enumerate(tokens) if i >= 3 and i != word.index}
        table = vocab.types.get(type_)
        keys = list(table.slots) if table is not None else list(vocab.slots)
        out = [Completion(k, _slot_detail(vocab, k), k + "=", "key") for k in keys
               if k not in used and k.startswith(typed)]
        if "p" not in used and "p".startswith(typed) and "p" not in keys:
            out.append(Completion("p", "the profile whose vocabulary the line uses", "p=", "key"))
        return out
    key, _, value = typed.partition("=")
    if key == "p":
        return [Completion(n, f"profile {n}", n, "profile") for n in BUNDLED_PROFILES if n.startswith(value)]
    slot = vocab.slots.get(key)
    if slot is None:
        return []
    if slot.type.enum:
        prefix = value.split("+")[-1] if slot.type.is_list else value
        codes = vocab.enum_codes(slot.type.enum)
        return [Completion(c, d, c, "code") for c, d in codes.items() if c.startswith(prefix.upper())]
    if slot.type.name == "bool":
        return [Completion(v, d, v, "code") for v, d in (("Y", "yes"), ("N", "no")) if v.startswith(value.upper())]
    return []


def _slot_detail(vocab: Vocabulary, key: str) -> str:
    slot = vocab.slots[key]
    return f"{slot.type.name}: {slot.desc}" if slot.desc else slot.type.name


# ------------------------------------------------------------------ symbols


@attrs.frozen
class Symbol:
    name: str
    detail: str
    line: int
    start: int
    end: int
    id_start: int
    id_end: int
    children: tuple["Symbol", ...] = ()


def symbols(text: str, name: str, receiver: Receiver | None = None) -> list[Symbol]:
    """One symbol per message (valid or not, where its type and id can be read), grouped by thread."""
    receiver = receiver or Receiver.all_bundled()
    lines = split_lines(text)
    entries: list[tuple[Symbol, str, str | None]] = []  # (symbol, id, re)
    for cand in candidates(lines, name):
        tokens = _tokens(cand.text)
        if len(tokens) < 3 or not tokens[0][1].startswith("RW"):
            continue
        result = check_line(cand.text, receiver)
        msg = result.message
        re_ = msg.re if msg is not None else next((t[3:] for _, t in tokens if t.startswith("re=")), None)
        detail = (f"{msg.from_} → {msg.to}" + (f" {msg.item}" if msg.item else "")) if msg is not None else "refused"
        id_at, id_text = tokens[2]
        symbol = Symbol(name=f"{tokens[1][1]} {id_text}", detail=detail, line=cand.line, start=cand.start,
                        end=cand.start + len(cand.text), id_start=cand.start + id_at,
                        id_end=cand.start + id_at + len(id_text))
        entries.append((symbol, id_text, re_))
    by_id = {ident: i for i, (_, ident, _) in reversed(list(enumerate(entries)))}

    def root(i: int) -> int:
        seen = {i}
        while True:
            parent = entries[i][2]
            j = by_id.get(parent) if parent is not None else None
            if j is None or j in seen or j > i:
                return i
            seen.add(j)
            i = j

    children: dict[int, list[Symbol]] = {}
    order: list[int] = []
    for i in range(len(entries)):
        r = root(i)
        if r == i:
            order.append(i)
        else:
            children.setdefault(r, []).append(entries[i][0])
    return [attrs.evolve(entries[i][0], children=tuple(children.get(i, ()))) for i in order]


def document_kind(name: str) -> str:
    """How a document is read: ``stream`` or ``embedded``."""
    return "stream" if is_stream_file(PurePosixPath(name).name) else "embedded"
