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
  message its ``re=`` chain reaches first in the document;
* an id's definition is the message line carrying it, found from the values
  of the slots that name messages (``re=``, each id of ``ctx=``), and its
  references are those values; a refused line still carries its id;
* quick fixes are the findings' "did you mean" replacements, one for each
  word suggested when two are equally near (none preferred then).

Configuration is the one ``lint`` would use for the file
(:class:`DocumentConfigs`: the nearest ``pyproject.toml`` or
``rogerwilco.toml`` at or above the document's folder, its rules, per-file
ignores and profiles). Incremental edits are applied here
(:func:`apply_edit`), with the protocol's line breaks and columns in the
client's units, so that a document with a form feed or a line separator in
it keeps the lines the client sees.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from typing import Any, Iterator, Sequence

import attrs

from ..io.lint import LintFinding, is_stream_file, lint_stream
from ..io.lint_config import FileConfigs, LintConfig
from ..core import suggest
from ..core.errors import RW1Error
from ..core.semantics import check_line
from ..core.vocab import BUNDLED_PROFILES, Receiver, Vocabulary

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """The document's lines, split as the protocol splits them (``\\n``, ``\\r\\n``, ``\\r``)."""
    lines = _LINE_BREAK.split(text)
    return lines[:-1] if lines and lines[-1] == "" and len(lines) > 1 else lines


# ------------------------------------------------------------------ positions and edits


def units(text: str, encoding: str = "utf-16") -> int:
    """How many code units of ``encoding`` (``utf-8``, ``utf-16``, ``utf-32``) ``text`` takes."""
    if encoding == "utf-32":
        return len(text)
    if encoding == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def to_units(line: str, column: int, encoding: str = "utf-16") -> int:
    """A code-point column of a line in the client's units."""
    return units(line[:column], encoding)


def from_units(line: str, count: int, encoding: str = "utf-16") -> int:
    """The code-point column of a line at ``count`` client units: past the end is the end (as the protocol
    says), inside a character that takes several units is before it."""
    if encoding == "utf-32":
        return max(0, min(count, len(line)))
    at = 0
    for column, char in enumerate(line):
        at += units(char, encoding)
        if at > count:
            return column
    return len(line)


def offset_at(text: str, line: int, count: int, encoding: str = "utf-16") -> int:
    """The index into ``text`` of a protocol position (0-based line, column in client units); a line past the
    last is the end of the text."""
    start = 0
    for _ in range(line):
        found = _LINE_BREAK.search(text, start)
        if found is None:
            return len(text)
        start = found.end()
    found = _LINE_BREAK.search(text, start)
    end = found.start() if found is not None else len(text)
    return start + from_units(text[start:end], count, encoding)


def apply_edit(text: str, start: tuple[int, int], end: tuple[int, int], new_text: str,
               encoding: str = "utf-16") -> str:
    """The document after an incremental edit: ``start`` to ``end`` ((line, column in client units)) replaced."""
    first = offset_at(text, *start, encoding)
    last = max(first, offset_at(text, *end, encoding))
    return text[:first] + new_text + text[last:]


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
    code: str | None  # None for a configuration that cannot be read
    message: str
    fix: str | None = None
    #: every replacement suggested for the span (the fix, or each of two equally near words)
    fixes: tuple[str, ...] = ()


def diagnostics(text: str, name: str, receiver: Receiver | None = None, *,
                options: dict[str, Any] | None = None) -> list[Diagnostic]:
    """The lint findings of a document as ranges, under ``options`` (:meth:`DocumentConfigs.options`, else
    every rule with ``receiver``'s profiles); never raises."""
    lines = split_lines(text)
    chosen = options if options is not None else {"profiles": receiver}
    try:
        found = lint_stream(lines, file=name, **chosen)
    except Exception as exc:  # an editor must never lose its server: report where reading stopped
        return [Diagnostic(0, 0, 1, "error", "RW001", f"the document could not be read: {type(exc).__name__}: {exc}")]
    vocab_of = _Vocabularies(chosen.get("profiles") or Receiver.all_bundled())
    return [_diagnostic(f, lines, vocab_of) for f in found]


class _Vocabularies:
    """The vocabulary a line speaks (its ``p=``), for the words a tie suggests."""

    def __init__(self, receiver: Receiver) -> None:
        self.receiver = receiver

    def __call__(self, text: str) -> Vocabulary:
        return _vocabulary(text, self.receiver)


def _diagnostic(f: LintFinding, lines: Sequence[str], vocab_of: _Vocabularies) -> Diagnostic:
    line = max(0, f.line - 1)
    width = len(lines[line]) if line < len(lines) else 0
    start = (f.column - 1) if f.column else 0
    end = (f.end_column - 1) if f.end_column else max(start + 1, width)
    message = f"{f.token}: {f.message}" if f.token else f.message
    if f.hint:
        message += f" ({f.hint})"
    end = min(end, max(width, start + 1))
    spelt = line < len(lines) and f.token is not None and lines[line][start:end] == f.token
    return Diagnostic(line, start, end, f.level, f.code, message, f.fix,
                      _replacements(f, vocab_of) if spelt else ())


def _replacements(f: LintFinding, vocab_of: _Vocabularies) -> tuple[str, ...]:
    """The words a finding suggests for its token: its fix, or each of the types equally near an unknown type
    (the hint names them all and the fix is left out, so the choice is the person's)."""
    if f.fix:
        return (f.fix,)
    if f.hint and f.token and "=" not in f.token:  # an unknown type: the only suggestion left without a fix
        return tuple(suggest.nearest(f.token, vocab_of(f.text).types))
    return ()


# ------------------------------------------------------------------ configuration


@attrs.frozen
class DocumentConfig:
    """What a document is linted with: the configuration ``lint`` finds for its file, and its options."""

    config: LintConfig
    options: dict[str, Any]
    error: str | None = None  # the configuration file could not be read: the defaults are used

    def describe(self, path: str) -> str:
        """One line naming the configuration file in force for ``path``."""
        if self.error is not None:
            return f"{path}: the lint configuration cannot be read ({self.error}); linting with the defaults"
        if self.config.path is None:
            return f"{path}: no lint configuration file found above it; linting with the defaults"
        return f"{path}: linted with the configuration in {self.config.path}"


class DocumentConfigs:
    """The lint configuration of each document, as ``lint`` finds it for the same file (the nearest
    configuration at or above its folder); :meth:`reload` forgets what was read, after a configuration
    file changed."""

    def __init__(self, cwd: Path | None = None) -> None:
        self._cwd = cwd
        self.reload()

    def reload(self) -> None:
        self._files = FileConfigs(cwd=self._cwd)
        self._made: dict[object, DocumentConfig] = {}

    def for_path(self, path: str) -> DocumentConfig:
        """The configuration of the file at ``path`` (an absolute path), per-file ignores applied."""
        try:
            config = self._files.for_path(path)
            made = self._made.get(config.path)
            if made is None:
                made = self._made[config.path] = DocumentConfig(config, config.options())
        except RW1Error as exc:  # a broken configuration is said, and the document still linted
            return DocumentConfig(LintConfig(), LintConfig().options(), error=str(exc))
        ignored = made.config.ignored_for(path)
        if not ignored:
            return made
        return attrs.evolve(made, options={**made.options, "ignore": tuple(made.options["ignore"]) + ignored})


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


# ------------------------------------------------------------------ definitions and references


@attrs.frozen
class IdUse:
    """A message id in the document: the id of a message line (its declaration) or a value naming it."""

    ident: str
    line: int
    start: int
    end: int
    declares: bool


def id_uses(text: str, name: str, receiver: Receiver | None = None) -> list[IdUse]:
    """Every message id of the document, in order: each line's id, and each id the slots naming messages
    (those of type ``msgid``, ``re=`` and ``ctx=`` in the core vocabulary) give. A refused line's id counts:
    a reply to it still names a message that was sent."""
    receiver = receiver or Receiver.all_bundled()
    naming = {key for key, slot in receiver.vocabulary(None).slots.items()
              if slot.type.name.rpartition(":")[2] == "msgid"}
    out = []
    for cand in candidates(split_lines(text), name):
        tokens = _tokens(cand.text)
        if len(tokens) < 3 or not tokens[0][1].startswith("RW"):
            continue
        at, ident = tokens[2]
        if ident and not ident.startswith("//"):
            out.append(IdUse(ident, cand.line, cand.start + at, cand.start + at + len(ident), True))
        for at, token in tokens[3:]:
            key, eq, value = token.partition("=")
            if not eq or key not in naming:
                continue
            offset = cand.start + at + len(key) + 1
            for part in value.split("+"):
                if part:
                    out.append(IdUse(part, cand.line, offset, offset + len(part), False))
                offset += len(part) + 1
    return out


def _id_at(uses: Sequence[IdUse], line: int, column: int) -> IdUse | None:
    return next((u for u in uses if u.line == line and u.start <= column <= u.end), None)


def definition(text: str, name: str, line: int, column: int, receiver: Receiver | None = None) -> list[IdUse]:
    """The message lines carrying the id at a position (a ``re=`` or ``ctx=`` value, or an id itself)."""
    uses = id_uses(text, name, receiver)
    here = _id_at(uses, line, column)
    if here is None:
        return []
    return [u for u in uses if u.declares and u.ident == here.ident]


def references(text: str, name: str, line: int, column: int, receiver: Receiver | None = None, *,
               include_declaration: bool = True) -> list[IdUse]:
    """Every place naming the id at a position: the values naming it, and (``include_declaration``) the
    message lines carrying it."""
    uses = id_uses(text, name, receiver)
    here = _id_at(uses, line, column)
    if here is None:
        return []
    return [u for u in uses if u.ident == here.ident and (include_declaration or not u.declares)]


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
