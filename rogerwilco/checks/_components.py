"""A conversation cut into the parts that do not touch: each checked alone, in bounded memory.

Two messages touch when one names the other (``re=``, an ``ask=UNDO``'s
``ctx=``), when they share an id, or when one is an ST that answers nothing
and the other an HO about its item (:func:`touches_of`). A *component* is
what touching joins, transitively; the thread checks read
nothing across components, so a conversation's report is its components'
reports merged in stream order. :class:`Components` finds them in one pass
over the lines. The lines are kept in memory (a union-find in dicts) until
they hold about :data:`MEMORY_BYTES` (a line of 80 characters and its names
take about 560 bytes: :func:`held_by`); past that bound
everything learned so far is spilled, in a few batched inserts, to a private
temporary SQLite database on disk, and the rest of the pass reads and writes
there (:data:`CACHE_KIB` of page cache, and a bounded cache of recent names):
memory does not grow with the conversation past the bound. Then
:meth:`Components.batches` gives the lines back, whole components at a time,
about :data:`BATCH_LINES` lines to a batch, each batch in stream order.

Joining two components that did not need to be joined changes no report (the
checks read each component alone either way), so the cut is safe by
construction; only a missed name could split what must stay together, and
every name is read from the message as the never-guess pass read it.
"""

from __future__ import annotations

import gc
import os
import sqlite3
from collections import OrderedDict
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator, cast

from ..core.errors import RW1Error

#: lines to a batch, about (a component is never split, so a batch can be larger)
BATCH_LINES = 2048
#: the memory the lines may hold (as :func:`held_by` counts it) before everything moves to the database on
#: disk (a line of 80 characters counts as about 560 bytes); the environment's ``RW1_PARTS_MEMORY_BYTES`` sets
#: another bound (:func:`memory_bound`)
MEMORY_BYTES = 192 << 20
#: the database's page cache, in KiB
CACHE_KIB = 512
#: recent names and components kept in memory in front of the database
_RECENT = 4096


#: the Bloom filter of names: 2**23 bits, three probes a name (about 1 in 200 false positives at 400,000 names)
_SEEN_BYTES = 1 << 20
_MASK = (_SEEN_BYTES << 3) - 1


def _bits(name: str) -> tuple[int, int, int]:
    h = hash(name)
    return h & _MASK, (h >> 23) & _MASK, (h >> 46) & _MASK


def held_by(text: str) -> int:
    """About the memory a line of ``text`` holds in :class:`Components` before the spill, its names included
    (measured: about 400 bytes of tuples, dict entries and numbers, and twice the text, once as the line and
    about once as the ids and items it names)."""
    return 400 + 2 * len(text)


#: about the memory a parsed message holds beyond its line's text (measured: about 850 bytes for a line of 80
#: characters, its slots' dict and values, its envelope's strings and its source)
MESSAGE_BYTES = 770


def kept_by(text: str) -> int:
    """About the memory a line's parsed message holds in :class:`Components`, beside what :func:`held_by` counts."""
    return MESSAGE_BYTES + len(text)


def touches_of(message: Any) -> tuple[list[str], str | None, str | None]:
    """What a message touches, as :meth:`Components.add` takes it: the names it joins (its id, the message
    it answers, for an ``ask=UNDO`` the messages its ``ctx=`` names, for an HO its sender and its receiver
    each with its item: the ``two-owners`` and ``not-owner`` rules read one agent's HOs of an item); the
    item an HO is listed under; and for an ST that answers nothing, the item whose HOs it joins (it changes the latest open one)."""
    names = ["#" + message.id]
    if message.re is not None:
        names.append("#" + message.re)
    listed = joins = None
    if message.type == "HO":
        if message.item is not None:
            listed = message.item
            # one agent's HOs of one item, sent or received, are one part: whether a new one makes two owners
            # reads its sender's, whether its sender owns the item (not-owner) the ones it received too
            names.extend((f"@{message.from_} {message.item}", f"@{message.to} {message.item}"))
        if message.get("ask") == "UNDO":
            names.extend("#" + ref for ref in message.get("ctx") or () if isinstance(ref, str))
    elif message.type == "ST" and message.re is None and message.item is not None:
        joins = message.item
    return names, listed, joins


@contextmanager
def on_disk() -> Iterator[None]:
    """A database error of the temporary files (no room, no temporary directory) as the package's error."""
    try:
        yield
    except sqlite3.Error as exc:
        raise RW1Error(f"the check's temporary files failed ({exc}); give it a temporary directory with room "
                       "(TMPDIR or SQLITE_TMPDIR)") from None


def scratch_database(schema: str, *, cache_kib: int) -> sqlite3.Connection:
    """A private temporary database on disk (deleted on close), unjournaled, with ``cache_kib`` of page
    cache, made with ``schema``; its errors raise through :func:`on_disk`."""
    with on_disk():
        db = sqlite3.connect("")  # "": a private temporary database on disk, deleted on close
        db.executescript(f"PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -{cache_kib};"
                         f"PRAGMA temp_store = FILE; {schema}")
    return db


def encoded(text: str) -> bytes:
    """Text as a scratch database keeps it: UTF-8, a lone surrogate kept as it is (any str comes back)."""
    return text.encode("utf-8", "surrogatepass")


def decoded(data: bytes) -> str:
    return data.decode("utf-8", "surrogatepass")


def memory_bound() -> int:
    """:data:`MEMORY_BYTES`, or the bound ``RW1_PARTS_MEMORY_BYTES`` sets (a number of bytes; 0 spills at once),
    for a machine with less memory to give than the default takes."""
    text = os.environ.get("RW1_PARTS_MEMORY_BYTES", "").strip()
    if not text:
        return MEMORY_BYTES
    if not text.isascii() or not text.isdigit():
        raise RW1Error(f"RW1_PARTS_MEMORY_BYTES={text!r} is not a number of bytes (for example 67108864 for 64 MiB)")
    return int(text)


class Components:
    """The lines of a conversation and the components they make (:meth:`add`, then :meth:`batches`)."""

    def __init__(self, *, batch_lines: int = BATCH_LINES, memory_bytes: int | None = None) -> None:
        self.batch_lines = max(1, batch_lines)
        self.memory_bytes = memory_bound() if memory_bytes is None else memory_bytes
        self.held = 0  # what the lines hold in memory, as held_by counts it (counted until the spill)
        self._db: sqlite3.Connection | None = None  # made when the lines outgrow memory_bytes (:meth:`_spill`)
        self._parts = 0
        # in memory: every name and part; once spilled, the recent ones in front of the database, ordered so
        # that the least recently learned goes first in O(1) (a dict's first live entry is found by scanning
        # past the ones deleted before it, a cost that grows with the stream)
        # (plain dicts while in memory, where nothing is forgotten; OrderedDicts from the spill on)
        self._names: dict[str, int] = {}  # names -> a part they belong to (not always its root)
        self._up: dict[int, int] = {}  # parts -> the part they were joined to (a root: itself)
        # (place, part, number, text, kept): text is str in memory, bytes once spilled; kept is what the line was
        # read as while the lines and their messages fit in memory (parse once), else None
        self._lines: list[tuple[int, int, int | None, Any, Any]] = []
        self.keeping = True  # whether the messages are still kept (until they fill the bound; :meth:`_release`)
        self._kept = 0  # what the kept messages hold, as kept_by counts it
        self._lists: list[tuple[Any, int, int]] = []  # (key, part, 0: listed under it, 1: joins it)
        self._new_names: dict[str, int] = {}  # names learned since the last write to the database
        self._seen = bytearray(_SEEN_BYTES)  # a Bloom filter of every name: most new names need no query

    def add(self, place: int, number: int | None, text: str, names: Iterable[str], *, listed: str | None = None,
            joins: str | None = None, kept: Any = None) -> None:
        """The line at ``place`` (its line number ``number``, its ``text``), touching ``names``; listed under
        ``listed``, and joining every line listed under ``joins`` (whenever it comes). ``kept`` (the message the
        line was read as) is given back with the line by :meth:`batches` while the lines and their messages fit
        in the memory bound; past it every message is let go, and the lines are given back as text alone."""
        if self._db is None:
            self._add_in_memory(place, number, text, names, listed, joins, kept)
            return
        roots: set[int] = set()
        new: list[str] = []
        known = self._part_of
        for name in names:
            part = known(name)
            if part is None:
                new.append(name)
            else:
                roots.add(self._root(part))
        if roots:
            root = min(roots)  # the oldest: parts are numbered in stream order
            for other in roots:
                if other != root:
                    self._set_parent(other, root)
        else:
            root = self._parts
            self._parts += 1
            self._db.execute("INSERT INTO part VALUES (?, ?)", (root, root))
            self._remember(self._up, root, root)
        seen = self._seen
        for name in new:
            if name not in self._new_names:
                self._new_names[name] = root
                self._remember(self._names, name, root)
                for bit in _bits(name):
                    seen[bit >> 3] |= 1 << (bit & 7)
        self._lines.append((place, root, number, encoded(text), None))
        if listed is not None:
            self._lists.append((encoded(listed), root, 0))
        if joins is not None:
            self._lists.append((encoded(joins), root, 1))
        if len(self._lines) >= 1024 or len(self._new_names) >= 4096:
            self._flush()

    def _add_in_memory(self, place: int, number: int | None, text: str, names: Iterable[str], listed: str | None,
                       joins: str | None, kept: Any) -> None:
        """:meth:`add` while everything is in memory: the same union of parts, with the walks to each root inline
        (most lines touch one part, or none: no set, no call a name)."""
        names_of, parents = self._names, self._up
        root = -1
        others: list[int] | None = None
        new: list[str] | None = None
        for name in names:
            part = names_of.get(name)
            if part is None:
                if new is None:
                    new = [name]
                else:
                    new.append(name)
                continue
            top = part
            while parents[top] != top:
                top = parents[top]
            while part != top:  # each part on the way now points at the root
                parents[part], part = top, parents[part]
            if root < 0:
                root = top
            elif top != root:
                if others is None:
                    others = [top]
                else:
                    others.append(top)
        if others is not None:
            oldest = min(root, *others)  # the oldest: parts are numbered in stream order
            for other in (root, *others):
                if other != oldest:
                    parents[other] = oldest
            root = oldest
        elif root < 0:
            root = self._parts
            self._parts += 1
            parents[root] = root
        if new is not None:
            for name in new:
                names_of.setdefault(name, root)  # setdefault: a name given twice in one line
        if kept is not None and self.keeping:
            self._kept += MESSAGE_BYTES + len(text)  # kept_by(text)
        else:
            kept = None
        self._lines.append((place, root, number, text, kept))
        if listed is not None:
            self._lists.append((listed, root, 0))
        if joins is not None:
            self._lists.append((joins, root, 1))
        self.held += 400 + 2 * len(text)  # held_by(text)
        if self.held + self._kept >= self.memory_bytes:
            if self._kept:
                self._release()  # the messages go first: the lines alone may still fit
            if self.held >= self.memory_bytes:
                self._spill()

    def known(self, name: str) -> bool:
        """Whether a line added so far touches ``name``."""
        return self._part_of(name) is not None

    def _part_of(self, name: str) -> int | None:
        part = self._names.get(name)
        if part is None:
            part = self._new_names.get(name)
        if part is not None or self._db is None:  # in memory, every name is in _names
            return part
        seen = self._seen
        if not all(seen[bit >> 3] & (1 << (bit & 7)) for bit in _bits(name)):
            return None  # never seen: the filter has no false negatives
        row = self._db.execute("SELECT part FROM name WHERE name = ?", (encoded(name),)).fetchone()
        if row is None:
            return None
        self._remember(self._names, name, row[0])
        return int(row[0])

    def _parent(self, part: int) -> int:
        up = self._up.get(part)
        if up is None:
            assert self._db is not None  # in memory, every part is in _up
            up = int(self._db.execute("SELECT up FROM part WHERE part = ?", (part,)).fetchone()[0])
            self._remember(self._up, part, up)
        return up

    def _root(self, part: int) -> int:
        if self._db is None:  # in memory: the same walk, in the dict itself
            parents = self._up
            root = part
            while parents[root] != root:
                root = parents[root]
            while part != root:  # each part on the way now points at the root
                parents[part], part = root, parents[part]
            return root
        path = []
        up = self._parent(part)
        while up != part:
            path.append(part)
            part, up = up, self._parent(up)
        for below in path[:-1]:  # each part on the way now points at the root
            self._set_parent(below, part)
        return part

    def _set_parent(self, part: int, up: int) -> None:
        if self._db is None:
            self._up[part] = up
            return
        self._db.execute("UPDATE part SET up = ? WHERE part = ?", (up, part))
        self._remember(self._up, part, up)

    def _release(self) -> None:
        """The kept messages let go (each line is read again when its batch comes), and no more kept: the lines
        alone stay in memory up to the bound, then spill."""
        self.keeping = False
        self._kept = 0
        self._lines = [(place, part, number, text, None) for place, part, number, text, _ in self._lines]

    @staticmethod
    def _remember(cache: dict, key: object, value: int) -> None:
        cache = cast(OrderedDict, cache)  # from the spill on (:meth:`_spill`)
        cache[key] = value
        cache.move_to_end(key)
        if len(cache) > _RECENT:
            cache.popitem(last=False)  # the least recently learned

    def _spill(self) -> None:
        """Everything learned so far to the database, in a few batched inserts; from here on the pass
        keeps a bounded cache of recent names and parts in front of it."""
        self._db = db = scratch_database("""
            CREATE TABLE name (name BLOB PRIMARY KEY, part INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE part (part INTEGER PRIMARY KEY, up INTEGER NOT NULL);
            CREATE TABLE line (place INTEGER PRIMARY KEY, part INTEGER NOT NULL, number INTEGER, text BLOB NOT NULL);
            CREATE TABLE list (key BLOB NOT NULL, part INTEGER NOT NULL, joins INTEGER NOT NULL);
        """, cache_kib=CACHE_KIB)
        with on_disk():
            db.executemany("INSERT INTO part VALUES (?, ?)", self._up.items())
            seen = self._seen
            for name in self._names:
                for bit in _bits(name):
                    seen[bit >> 3] |= 1 << (bit & 7)
            db.executemany("INSERT INTO name VALUES (?, ?)", sorted((encoded(n), p) for n, p in self._names.items()))
            self.keeping, self._kept = False, 0
            self._lines = [(place, part, number, encoded(text), None) for place, part, number, text, _ in self._lines]
            self._lists = [(encoded(key), part, joins) for key, part, joins in self._lists]
            self._flush()
        # the most recently learned stay in front of the database, the least recently learned first out
        self._names = OrderedDict(list(self._names.items())[-_RECENT:])
        self._up = OrderedDict(list(self._up.items())[-_RECENT:])

    def _flush(self) -> None:
        if self._db is None:
            return
        self._db.executemany("INSERT INTO name VALUES (?, ?)", ((encoded(n), p) for n, p in self._new_names.items()))
        self._new_names.clear()
        self._db.executemany("INSERT INTO line VALUES (?, ?, ?, ?)", (line[:4] for line in self._lines))
        self._lines.clear()
        self._db.executemany("INSERT INTO list VALUES (?, ?, ?)", self._lists)
        self._lists.clear()

    def batches(self) -> Iterator[list[tuple[Any, ...]]]:
        """The lines again as ``(place, number, text)``, whole components at a time, each batch in stream order.
        A line added with what it was read as (``kept``) comes back as ``(place, number, text, kept)`` while
        that was kept (:meth:`add`)."""
        if self._db is None:
            yield from self._batches_in_memory()
            return
        self._flush()
        db = self._db
        # a key some line joins: every line listed under it, and every line joining it, is one part
        db.execute("CREATE INDEX list_key ON list (key, joins)")
        key, root = None, 0
        for at, part in db.execute("SELECT key, part FROM list WHERE key IN (SELECT key FROM list WHERE joins = 1) "
                                   "ORDER BY key"):
            if at != key:
                key, root = at, self._root(part)
                continue
            other = self._root(part)
            if other != root:
                root, other = min(root, other), max(root, other)
                self._set_parent(other, root)
        # every part points at its root (pointer jumping: a few rounds, each halving the longest path)
        while db.execute("UPDATE part SET up = (SELECT p.up FROM part AS p WHERE p.part = part.up) "
                         "WHERE up != (SELECT p.up FROM part AS p WHERE p.part = part.up)").rowcount:
            pass
        db.executescript("""
            UPDATE line SET part = (SELECT up FROM part WHERE part.part = line.part)
                WHERE part IN (SELECT part FROM part WHERE up != part);
            CREATE INDEX line_part ON line (part, place);
        """)
        ranges: list[tuple[int, int]] = []  # each batch: its first and last part (parts are in stream order)
        size = 0
        for part, count in db.execute("SELECT part, count(*) FROM line GROUP BY part ORDER BY part"):
            if ranges and size + count <= self.batch_lines:
                ranges[-1] = (ranges[-1][0], part)
                size += count
            else:
                ranges.append((part, part))
                size = count
        for low, high in ranges:
            rows = db.execute("SELECT place, number, text FROM line WHERE part BETWEEN ? AND ?", (low, high)).fetchall()
            rows.sort()
            yield [(place, number, decoded(text)) for place, number, text in rows]

    def _batches_in_memory(self) -> Iterator[list[tuple[Any, ...]]]:
        """:meth:`batches` of lines that never left memory: the same batches, found with dicts."""
        joined = {key for key, _, joins in self._lists if joins}
        first: dict[str, int] = {}  # a key some line joins -> a part listed under or joining it
        for key, part, _ in self._lists:
            if key in joined:
                root, other = self._root(first.setdefault(key, part)), self._root(part)
                if other != root:
                    self._set_parent(max(root, other), min(root, other))
        members: dict[int, list[tuple[Any, ...]]] = {}
        for place, part, number, text, kept in self._lines:
            members.setdefault(self._root(part), []).append((place, number, text) if kept is None
                                                            else (place, number, text, kept))
        self._lines = []
        batch: list[tuple[Any, ...]] = []
        for root in sorted(members):
            lines = members.pop(root)
            if batch and len(batch) + len(lines) > self.batch_lines:
                batch.sort()
                yield batch
                batch = []
            batch.extend(lines)
        if batch:
            batch.sort()
            yield batch

    def close(self) -> None:
        if self._db is not None:
            self._db.close()


@contextmanager
def no_cycle_collection() -> Iterator[Callable[[], None]]:
    """The cyclic collector paused: the check builds many long-lived objects and no cycles, and each full
    collection would walk them all again (time growing faster than the conversation).

    Gives what to call once the lines are read, before the first batch: what the read built is set aside from
    the collector (``gc.freeze``), so the collection after each batch walks that batch's objects alone, not
    every message read (the first one walked them all: measured a tenth of check-thread's time). Set back on
    leaving; left alone where the process froze objects of its own."""
    global _pausing
    enabled = gc.isenabled()
    # a process that froze objects of its own keeps them (and pays the walk); a check inside a check (lint's
    # parts) leaves it to the outer one (the count walks every frozen object: asked once)
    ours = _pausing == 0 and gc.get_freeze_count() == 0
    _pausing += 1
    gc.disable()

    def read() -> None:
        if ours:
            gc.freeze()

    try:
        yield read
    finally:
        _pausing -= 1
        if ours:
            gc.unfreeze()
        if enabled:
            gc.enable()


_pausing = 0  # how many checks have the collector paused (:func:`no_cycle_collection`)
