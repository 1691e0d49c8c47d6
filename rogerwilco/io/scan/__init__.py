"""Scan: find RW1 lines wherever they sit in real logs, one record each.

Theory of operation
-------------------
Input is read as bytes in blocks, never whole. A file is opened by its magic
bytes (gzip ``1f 8b``, bzip2 ``BZh``, xz ``fd 37 7a 58 5a 00``; anything else
is read as it is) and cut into *chunks* of whole lines (about 1 MiB each),
each carrying the number of its first line. A physical line longer than
``max_line_bytes`` is never held: the reader skips to its end and leaves an
empty placeholder, remembering its size and whether it may hold a candidate. Memory is
therefore bounded by the chunk size times the chunks in flight, whatever the
size of the file.

A leading UTF-8 byte order mark is dropped from each input (columns count
from after it). Each line of a chunk goes through one cheap test on its
bytes: a line without a version token followed by whitespace and a letter
(the byte form of the candidate test below, or a JSON ``\\u`` escape, which
could spell one) holds no candidate and costs nothing more. The rest are decoded
(UTF-8, undecodable bytes kept as surrogates) and split into *frames*, the
texts in which a message could sit:

* a line that is a whole JSON value (a JSON Lines record) yields every string
  at any depth, with its JSON Pointer (``/payload/text``);
* a line that is one member or element of a pretty-printed JSON document
  (``"text": "RW1 ..."``, the shape of a Slack-style export) yields its
  string, with the member's key;
* a line whose rest, from its first ``{`` or ``[``, is a JSON object or
  array (a log prefix, then JSON) yields that value's strings as a JSON line
  does, unless the prefix itself holds a candidate;
* any other line (plain messages, log prefixes, chat, Markdown code blocks
  and ``>`` quotes) is itself the frame.

Strings are decoded by hand so that every decoded character keeps the column
of the raw character it came from: a record's column is always the column in
the physical line, even behind escapes. A decoded string is split at its own
line breaks. In a Slack-style export (a JSON array whose first block names
``"type": "message"``) the ``text`` fields also lose Slack's three entities
(``&lt; &gt; &amp;``); nothing else is rewritten. A Slack export is read with
its JSON location carried from line to line (:class:`JsonPath`; its chunks
are cut between messages and carry the location at their start), so each
message is reported once: its ``text`` member is preferred, and a candidate in
its ``blocks`` is kept only when it is not part of that ``text``.

A *candidate* in a frame starts at a version token (``RW`` and digits, not
preceded by a letter or digit) followed by a space and an uppercase letter,
or by any run of whitespace (tab, NBSP ...) and two letters of either case
standing alone (when they are not both uppercase, an id-shaped token must
follow, so prose such as "RW1 is fine" stays out). It runs to the end of its
line, except: after a run of backticks it ends at the next run of the same
length (inline code); after a quote (``"`` or ``'``) at the first such quote
followed by the end, whitespace or ``, ; ) ] }``; after an opening wrapper
(``**`` ``__`` ``*`` ``_`` ``(`` ``[`` ``<``) a matching closer that ends
the candidate is left off. Every candidate goes through
:func:`rogerwilco.core.semantics.check_line` exactly once, the same call the core
makes for a bare line, and becomes a ``message`` record or a ``diagnostic``
record naming ``why``, the offending ``token`` and the reason. A line too
long to read, or undecodable inside a candidate, also becomes a diagnostic.
Nothing that looks like RW1 is dropped.

``-j N`` hands chunks to N worker processes with at most ``2N`` chunks in
flight and collects the results in submission order, so output is in input
order and memory stays bounded. Workers return their output already
formatted (JSON Lines or CSV text, or an Arrow record batch), so the parent
only reads, cuts and writes.

Modules
-------
:mod:`.sources` (inputs, decompression, chunks), :mod:`.frames` (candidate
finding per format), :mod:`.slack` (Slack exports), :mod:`.records` (records
of lines and chunks, the ``scan`` API; the record type itself is
:mod:`rogerwilco.io.records`), :mod:`.outputs` (JSON Lines, CSV, Arrow) and
:mod:`.engine` (the ordered, bounded multi-process run).
"""

from __future__ import annotations

from ..records import COLUMNS, Record
# The helpers' private names stay importable from rogerwilco.scan, as before the split.
from .engine import ScanOptions, _work, _worker_init, run_scan
from .frames import (
    _CANDIDATE_BYTES, _EMBEDDED_JSON, _JSON_MEMBER, _JSON_TOKEN, _SLACK_ENTITIES, _SURROGATE, CANDIDATE_RE, Frame,
    JsonPath, _closing_quote, _embedded_json, _json_strings, _may_hold, _unescape_slack, candidates,
    decode_json_string, frames_of,
)
from .outputs import _csv_cell, arrow_schema, format_csv, format_jsonl, to_arrow, to_arrow_batch
from .records import Tally, _diagnostic, _too_long, records_of_chunk, records_of_line, recover_envelope, scan
from .timestamps import Clock
from .slack import _pointer, _slack_records, _slack_text
from .sources import (
    _BLOCK, _BOM, _MAGIC, _SLACK_SNIFF, DEFAULT_CHUNK_BYTES, DEFAULT_MAX_LINE_BYTES, Chunk, Inputs, _element_chunks,
    _lines_chunk, _open_stream, _path_sources, _sources, is_glob, is_url, iter_chunks, iter_file_chunks, local_glob,
)

__all__ = [
    "CANDIDATE_RE", "COLUMNS", "Chunk", "DEFAULT_CHUNK_BYTES", "DEFAULT_MAX_LINE_BYTES", "Frame", "JsonPath",
    "Clock", "Inputs", "Record", "ScanOptions", "Tally", "recover_envelope", "arrow_schema", "candidates", "decode_json_string", "format_csv", "format_jsonl",
    "frames_of", "is_url", "iter_chunks", "iter_file_chunks", "records_of_chunk", "records_of_line", "run_scan", "scan",
    "to_arrow", "to_arrow_batch",
]
