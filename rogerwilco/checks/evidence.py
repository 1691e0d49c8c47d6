"""Quote check: does an evidence-carrying line quote its document, at the line it cites?

Theory of operation
-------------------
A profile may make the lines the record (spec section 7): one line per
statement, every fact in a slot, a pointer back to the evidence and the
verbatim quote as the tail. Which lines carry evidence is data: a
translation rule with ``"evidence": "<slot>"`` (the clin profile's
``clin-statement`` rule names ``src``). The pointer's shape is the spec's,
``doc:<id>#l<n>``: document ``<id>``, line ``<n>`` (1-based).

:func:`check_quotes` takes checked lines (:class:`~rogerwilco.semantics.LineResult`)
and a directory of documents. For every valid line an evidence rule applies
to, it resolves the document (a file named ``<id>``, or ``<id>.<ext>`` when
exactly one such file exists), normalises whitespace on both sides (every run
of whitespace is one space; the quote's ends are trimmed) and looks for the
quote:

* starting on the cited line (it may run on over the following lines): ``ok``;
* elsewhere in the document: ``wrong-line`` (fail), naming the line(s) where
  it does start;
* nowhere: ``paraphrase`` (fail), the quote is not the document's words;
* no such document, or a pointer of another shape: ``missing-doc`` (fail) or
  ``pointer`` (fail).

Lines that carry no evidence are not checked. Matching is exact after
whitespace normalisation: case, punctuation and spelling count, because a
quote that differs in any of them is not verbatim.
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path
from typing import Iterable

import attrs

from ..core.findings import Finding, fail, note
from ..core.semantics import LineResult
from ..core.vocab import Receiver, Vocabulary

POINTER_RE = re.compile(r"doc:([^#\s/\\.][^#\s/\\]*)#l([1-9][0-9]*)")
_WS = re.compile(r"\s+")


@attrs.frozen
class Document:
    """A document normalised for quote search: one text, line starts kept."""

    path: Path
    text: str  # whitespace-normalised, lines joined by one space
    starts: tuple[int, ...]  # offset in ``text`` where each source line begins

    @classmethod
    def read(cls, path: Path) -> "Document":
        raw = path.read_text(encoding="utf-8", errors="replace")
        pieces: list[str] = []
        starts: list[int] = []
        offset = 0
        # Lines are numbered by "\n" (as editors and grep -n count them), not by
        # str.splitlines, which also breaks at form feeds and Unicode separators.
        for line in raw.replace("\r\n", "\n").split("\n"):
            norm = _WS.sub(" ", line).strip()
            starts.append(offset)
            if norm:
                pieces.append(norm)
                offset += len(norm) + 1
        return cls(path=path, text=" ".join(pieces), starts=tuple(starts))

    def line_at(self, offset: int) -> int:
        """The 1-based source line on which ``offset`` of the normalised text falls."""
        return bisect.bisect_right(self.starts, offset)

    def find_lines(self, quote: str) -> list[int]:
        """Every source line on which the quote starts."""
        lines = []
        start = self.text.find(quote)
        while start != -1:
            line = self.line_at(start)
            if line not in lines:
                lines.append(line)
            start = self.text.find(quote, start + 1)
        return lines


def normalise(text: str) -> str:
    return _WS.sub(" ", text).strip()


def evidence_slot(vocab: Vocabulary, message_type: str, values: dict) -> str | None:
    """The slot an evidence rule of ``vocab`` names for this message, if any applies."""
    from ..core.semantics import condition_holds

    for rule in vocab.rules:
        if rule.evidence and message_type in rule.on and all(
            condition_holds(cond, values.get(key)) for key, cond in rule.when.items()
        ):
            return rule.evidence
    return None


def resolve(docs: Path, doc_id: str) -> Path | None:
    exact = docs / doc_id
    if exact.is_file():
        return exact
    matches = sorted(p for p in docs.glob(f"{glob_escape(doc_id)}.*") if p.is_file())
    return matches[0] if len(matches) == 1 else None


def glob_escape(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


@attrs.frozen
class QuoteResult:
    """The quote check of one line: its findings (none when it was not an evidence line)."""

    result: LineResult
    checked: bool
    findings: tuple[Finding, ...]

    @property
    def passed(self) -> bool:
        return not any(f.failed for f in self.findings)


def check_quote(result: LineResult, receiver: Receiver, docs: Path,
                cache: dict[Path, Document] | None = None) -> QuoteResult:
    """Check one line's quote against the document it cites."""
    message = result.message
    if message is None:
        return QuoteResult(result, False, ())
    vocab = receiver.vocabulary(message.profile) if message.profile else receiver.vocabulary(None)
    values = {"item": message.item, "re": message.re, "from": message.from_, "to": message.to, **message.slots}
    slot = evidence_slot(vocab, message.type, values)
    if slot is None:
        return QuoteResult(result, False, ())
    pointer = message.get(slot)
    m = POINTER_RE.fullmatch(pointer) if isinstance(pointer, str) else None
    if m is None:
        return QuoteResult(result, True, (fail(kind="pointer", key=slot, token=f"{slot}={pointer}",
            message=f"{slot}={pointer} is not doc:<id>#l<n>"),))
    doc_id, cited = m.group(1), int(m.group(2))
    path = resolve(docs, doc_id)
    if path is None:
        return QuoteResult(result, True, (fail(kind="missing-doc", key=slot, token=f"{slot}={pointer}",
            message=f"no document {doc_id} in {docs}"),))
    cache = cache if cache is not None else {}
    doc = cache.get(path) or cache.setdefault(path, Document.read(path))
    quote = normalise(message.tail or "")
    if not quote:
        return QuoteResult(result, True, (fail(kind="paraphrase", key="tail", token="//", message="no quote in the tail"),))
    if cited > len(doc.starts):
        found = doc.find_lines(quote)
        where = f"; the quote is on line {', '.join(map(str, found))}" if found else ""
        kind = "wrong-line" if found else "paraphrase"
        return QuoteResult(result, True, (fail(kind=kind, key=slot, token=f"{slot}={pointer}",
            message=f"{doc_id} has {len(doc.starts)} lines, not {cited}{where}"),))
    found = doc.find_lines(quote)
    if cited in found:
        return QuoteResult(result, True, (note(kind="ok", key=slot, message=f"quoted verbatim from {doc_id} line {cited}"),))
    if found:
        return QuoteResult(result, True, (fail(kind="wrong-line", key=slot, token=f"{slot}={pointer}",
            message=f"the quote is on line {', '.join(map(str, found))} of {doc_id}, not line {cited}"),))
    return QuoteResult(result, True, (fail(kind="paraphrase", key="tail", token="//",
        message=f"the tail is not in {doc_id}: not a verbatim quote"),))


def check_quotes(results: Iterable[LineResult], receiver: Receiver, docs: str | Path) -> list[QuoteResult]:
    """Check every evidence line of a stream; lines without evidence are passed through unchecked."""
    root = Path(docs)
    cache: dict[Path, Document] = {}
    return [check_quote(r, receiver, root, cache) for r in results]
