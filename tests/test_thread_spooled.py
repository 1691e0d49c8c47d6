"""check_thread_spooled: the same report as check_thread, in memory that does not grow with the conversation.

The spooled check cuts the conversation into the parts that touch nothing else
(a reply and what it answers, one id used twice, one item, an undo and the
act it reverses), checks a batch of parts at a time and merges the findings
and ledger rows back into report order. The reference is check_thread, which
reads the conversation whole: on random conversations over many items and
every batch size down to one line, the two reports are equal, findings, order,
ledger and JSON byte for byte. Each kind of link is shown to matter: drop it
from what joins parts and a conversation below reports differently.
``RW_PROPERTY_EXAMPLES`` raises the number of conversations (default 150).
"""

from __future__ import annotations

import io
import json
import random
from contextlib import contextmanager

import attrs
import pytest
from hypothesis import example, given, settings, strategies as st

from rogerwilco.checks import _components
from rogerwilco.checks._components import Components
from rogerwilco.checks.thread import check_thread, check_thread_spooled
from rogerwilco.core.semantics import check_line
from rogerwilco.front.render import make_console
from rogerwilco.front.render.thread import print_spooled, thread_report

from .test_thread_kept import EXAMPLES, NOW, conversations

ITEMS = tuple(f"gh:o/r#{n}" for n in range(1, 6))
_OPTIONAL_ITEM = ("AQ", "AN", "UN")


@st.composite
def many_items(draw) -> list[str]:
    """A conversation of :func:`conversations` whose lines are about five items, some about none."""
    out = []
    for line in draw(conversations()):
        words = line.split(" ")
        kind = words[1] if len(words) > 1 else ""
        item = draw(st.sampled_from(ITEMS + ((None,) if kind in _OPTIONAL_ITEM else ())))
        out.append(" ".join(w for w in (
            (f"item={item}" if item else "") if w.startswith("item=gh:o/r#") else w for w in words) if w))
    return out


@contextmanager
def _memory_lines(bound: int):
    """Components keep about ``bound`` lines in memory, then spill to their database."""
    saved = _components.MEMORY_BYTES
    _components.MEMORY_BYTES = bound * _components.held_by("RW1 HO lead-1 from=lead to=dev item=x ask=FIX")
    try:
        yield
    finally:
        _components.MEMORY_BYTES = saved


def _json(report) -> str:
    return json.dumps(report.to_json(), ensure_ascii=True)


def _spooled(lines, batch_lines, **kw):
    with check_thread_spooled(lines, now=NOW, batch_lines=batch_lines, **kw) as spooled:
        return spooled.report(), "".join(spooled.json_chunks()), (spooled.fails, spooled.notes)


_E = " from=lead to=dev item=x"
_B = " from=dev to=lead item=x"
#: conversations whose parts are joined by one kind of link alone, each line in a batch of its own
LINKED = {
    "re": [f"RW1 HO lead-1{_E} ask=FIX", "RW1 HO qa-1 from=qa to=ops item=y ask=FIX",
           "RW1 DN dev-1 re=lead-1 from=dev to=lead item=q1 out=OK",
           "RW1 DN dev-2 re=lead-1 from=dev to=lead item=q2 out=OK"],
    "later": ["RW1 DN dev-1 re=lead-1 from=dev to=lead item=q1 out=OK", "RW1 HO qa-1 from=qa to=ops item=y ask=FIX",
              f"RW1 HO lead-1{_E} ask=FIX"],
    "id": [f"RW1 HO lead-1{_E} ask=FIX", "RW1 HO qa-1 from=qa to=ops item=y ask=FIX",
           "RW1 HO lead-1 from=lead to=dev item=z ask=FIX"],
    "item": [f"RW1 HO lead-1{_E} ask=FIX rb=all", "RW1 HO qa-1 from=qa to=ops item=y ask=FIX",
             f"RW1 RB dev-1 re=lead-1{_B} ask=FIX", f"RW1 ST lead-2{_E} eta=20261008",
             f"RW1 DN dev-2 re=lead-1{_B} out=OK"],
    "ctx": [f"RW1 HO lead-1{_E} ask=FIX", f"RW1 DN dev-1 re=lead-1{_B} out=OK",
            "RW1 HO qa-1 from=qa to=ops item=y ask=FIX",
            "RW1 HO lead-2 from=lead to=dev item=w ask=UNDO ctx=dev-1"],
    # an item handed on by the agent it was offered to, before its readback (not-owner)
    "holder": ["RW1 HO a-1 from=a to=b item=x:1 ask=FIX", "RW1 HO qa-1 from=qa to=ops item=y ask=FIX",
               "RW1 HO b-1 from=b to=c item=x:1 ask=FIX"],
}

#: two cancels from the wrong party, the later one seen by an end replayed first: reported in the order sent
CANCELS_SEEN_OUT_OF_ORDER = [
    "RW1 DN lead-1 from=lead to=dev item=v out=OK", "RW1 HO dev-1 re=qa-1 from=dev to=qa item=v ask=FIX",
    "RW1 CX lead-2 re=lead-1 from=lead to=dev item=v why=REVOKED", "RW1 CX dev-3 re=qa-1 from=dev to=qa item=v why=REVOKED",
    "RW1 HO lead-1 re=qa-1 from=lead to=qa item=v ask=FIX", "RW1 HO qa-1 re=dev-5 from=qa to=dev item=v ask=FIX"]


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.one_of(conversations(), many_items()), st.sampled_from((1, 2, 3, 5, 1000)))
@example(LINKED["re"], 1)
@example(LINKED["later"], 1)
@example(LINKED["id"], 1)
@example(LINKED["item"], 1)
@example(LINKED["ctx"], 1)
@example(LINKED["holder"], 1)
@example(CANCELS_SEEN_OUT_OF_ORDER, 1)
def test_the_spooled_report_is_check_threads_report(conversation, batch_lines):
    whole = check_thread(conversation, now=NOW)
    report, text, (fails, notes) = _spooled(conversation, batch_lines)
    assert report == whole
    assert text == _json(whole)
    assert fails == sum(f.failed for f in whole.findings) and fails + notes == len(whole.findings)
    results = [check_line(line, line_number=n) for n, line in enumerate(conversation, start=1)]
    assert _spooled(results, batch_lines)[0] == whole  # as the command gives them: read results
    with _memory_lines(2):  # past two lines the parts are found on disk: the same report
        assert _spooled(conversation, batch_lines)[1] == text


@pytest.mark.parametrize("kind", sorted(LINKED))
def test_each_kind_of_link_keeps_its_parts_together(kind, monkeypatch):
    conversation = LINKED[kind]
    whole = check_thread(conversation, now=NOW)
    assert _spooled(conversation, 1)[0] == whole
    touches = _components.touches_of

    def without(message):  # the links of one kind left out
        names, listed, joins = touches(message)
        if kind in ("re", "later"):
            names = [n for n in names if n != "#" + (message.re or "")]
        elif kind == "id":
            names = [n if n != "#" + message.id else f"#{message.id}/{message.re}/{message.item}" for n in names]
        elif kind == "ctx":
            names = [n for n in names if n in ("#" + message.id, "#" + (message.re or ""))]
        elif kind == "item":
            joins = None
        elif kind == "holder":
            names = [n for n in names if not n.startswith(f"@{message.to} ")]
        return names, listed, joins

    monkeypatch.setattr(_components, "touches_of", without)
    assert _spooled(conversation, 1)[0] != whole, f"{kind}: the check does not depend on this link"


def test_an_item_handed_on_in_parts_apart_has_one_owner():
    # two handoffs of one item, in two parts: the latest whose readback passed gives the owner; before any
    # passed, the first HO's sender
    conversation = ["RW1 HO qa-1 from=qa to=ops item=y ask=FIX", f"RW1 HO lead-1{_E} ask=FIX",
                    "RW1 HO qa-2 from=qa to=ops item=x ask=FIX", f"RW1 RB dev-1 re=lead-1{_B} ask=FIX",
                    "RW1 RB ops-1 re=qa-2 from=ops to=qa item=x ask=FIX", "RW1 HO qa-3 from=qa to=ops item=y ask=FIX"]
    whole = check_thread(conversation, now=NOW)
    assert [(i.item, i.owner, i.via) for i in whole.ledger.items] == [("y", "qa", None), ("x", "ops", "qa-2")]
    for batch_lines in (1, 2, 3):
        assert _spooled(conversation, batch_lines)[0] == whole
    assert _spooled(conversation[:4], 1)[0].ledger.items == check_thread(conversation[:4], now=NOW).ledger.items


def test_a_message_object_is_refused_with_a_type_error():
    message = check_line(f"RW1 HO lead-1{_E} ask=FIX").message
    with pytest.raises(TypeError, match="not Message objects"):
        check_thread_spooled([message], now=NOW)


def test_a_read_result_without_its_line_is_read_from_its_message():
    from rogerwilco.core.semantics import LineResult

    lines = [f"RW1 HO lead-1{_E} ask=FIX", f"RW1 DN dev-1 re=lead-1{_B} out=OK"]
    bare = [LineResult(text="", message=check_line(line).message, findings=(), line_number=n)
            for n, line in enumerate(lines, start=1)]
    assert _spooled(bare, 1)[0] == check_thread(lines, now=NOW)


def test_blank_and_unreadable_lines_keep_their_place():
    lines = ["", "not a message", f"RW1 HO lead-1{_E} ask=FIX", "\n", "RW1 ZZ x", f"RW1 DN dev-1 re=lead-1{_B} out=OK"]
    report, text, _ = _spooled(lines, 1)
    assert report == check_thread(lines, now=NOW)
    assert [f.message.split(":")[0] for f in report.findings if f.kind == "form"] == ["line 2", "line 5"]


# ---- the components -----------------------------------------------------------------------------

def _reference(links: list[list[str]]) -> list[set[int]]:
    """The lines' components, by a plain in-memory union-find over the same names."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, names in enumerate(links):
        for name in names:
            parent[find(name)] = find(f"line{i}")
    groups: dict[str, set[int]] = {}
    for i in range(len(links)):
        groups.setdefault(find(f"line{i}"), set()).add(i)
    return sorted(groups.values(), key=min)


@pytest.mark.parametrize("squeezed", [False, True])
@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from([f"n{i}" for i in range(40)]), min_size=1, max_size=4), max_size=60),
       st.integers(1, 8), st.one_of(st.none(), st.integers(0, 61)))
def test_components_are_what_a_plain_union_find_finds(squeezed, links, batch_lines, memory_lines):
    # memory_lines: None keeps every line in memory; a number spills to the database once that many lines are
    # held (0 or 1: at once; past the lines given: never). squeezed: two names of recent memory and a filter
    # that knows nothing, so every name read after the spill goes to the database
    saved = (_components._RECENT, _components._bits)
    if squeezed:
        _components._RECENT, _components._bits = 2, (lambda name: (0, 0, 0))
    try:
        bound = 10**9 if memory_lines is None else memory_lines * _components.held_by("line 00")
        parts = Components(batch_lines=batch_lines, memory_bytes=bound)
        for i, names in enumerate(links):
            parts.add(i, i + 1, f"line {i:02}", names)
        assert (parts._db is not None) == (memory_lines is not None and len(links) >= max(memory_lines, 1))
        batches = list(parts.batches())
        parts.close()
    finally:
        _components._RECENT, _components._bits = saved
    places = [place for batch in batches for place, _, _ in batch]
    assert sorted(places) == list(range(len(links)))  # every line once
    assert all([p for p, _, _ in b] == sorted(p for p, _, _ in b) for b in batches)  # each batch in stream order
    assert all(text == f"line {place:02}" and number == place + 1 for b in batches for place, number, text in b)
    batch_of = {place: n for n, b in enumerate(batches) for place, _, _ in b}
    for component in _reference(links):  # a component is never split across batches
        assert len({batch_of[i] for i in component}) == 1
    for n, b in enumerate(batches):  # a batch over its size holds one component alone, or starts with one
        if len(b) > batch_lines:
            firsts = [c for c in _reference(links) if batch_of[min(c)] == n]
            assert len(firsts) == 1 or len(firsts[0]) > batch_lines


@pytest.mark.parametrize("memory_lines", [None, 1000])
def test_a_long_chain_of_joins_resolves_to_one_component(memory_lines):
    # 1000: two thirds of the lines on disk
    parts = Components(batch_lines=10, memory_bytes=memory_lines and memory_lines * _components.held_by("x"))
    random.seed(7)
    for i in range(3000):  # each line joins two earlier ones far apart: long paths, then path compression
        parts.add(i, None, "x", [f"n{i}", f"n{random.randrange(i + 1)}"] if i % 500 else [f"n{i}"])
    sizes = [len(b) for b in parts.batches()]
    parts.close()
    assert sum(sizes) == 3000 and len(sizes) < 3000


# ---- the command's text --------------------------------------------------------------------------

def _printed(render) -> str:
    out = io.StringIO()
    render(make_console(out, width=120, color=False))
    return out.getvalue()


@pytest.mark.parametrize("conversation", [LINKED["item"] + LINKED["ctx"][2:] + ["RW1 ZZ x"], [], ["not a message"]])
def test_a_one_page_report_prints_as_the_whole_report_does(conversation):
    whole = check_thread(conversation, now=NOW)
    with check_thread_spooled(conversation, now=NOW, batch_lines=2) as spooled:
        assert _printed(lambda c: print_spooled(c, spooled)) == _printed(lambda c: c.print(thread_report(whole)))


def test_a_long_report_prints_a_page_at_a_time_every_row_once():
    conversation = [f"RW1 HO lead-{n} from=lead to=dev item=gh:o/r#{n} ask=FIX" for n in range(1, 8)]
    with check_thread_spooled(conversation, now=NOW, batch_lines=3) as spooled:
        text = _printed(lambda c: print_spooled(c, spooled, page=3))
    assert text.count("Handoffs") == 3 and text.count("Owners") == 3  # 7 rows: pages of 3, 3 and 1
    assert all(text.count(f"lead-{n} ") >= 2 for n in range(1, 8))  # its finding and its row
    assert text.count("[open]") == 7 and "passed: 0 fails, 7 notes" in text


# ---- lint reads the stream a part at a time too --------------------------------------------------

@settings(max_examples=EXAMPLES, deadline=None)
@given(st.one_of(conversations(), many_items()), st.sampled_from((1, 2, 3)))
@example(LINKED["id"], 1)
@example(["RW1 HO lead-2 from=lead to=dev item=x ask=FIX", "RW1 HO qa-1 from=qa to=ops item=y ask=FIX",
          "RW1 HO lead-1 from=lead to=dev item=z ask=FIX", "RW1 HO lead-2 from=lead to=dev item=x ask=FIX",
          "RW1 HO lead-2 from=lead to=dev item=w ask=FIX"], 1)
def test_lint_finds_the_same_whatever_the_batches(conversation, batch_lines):
    # one batch for the whole stream reads it as one piece; batches of a line or two cut it into its parts
    text = "\n".join(conversation) + "\n"
    assert _lint(text, batch_lines) == _lint(text, 10**9)
    with _memory_lines(2):  # the parts found on disk past two lines: the same findings
        assert _lint(text, batch_lines) == _lint(text, 10**9)


def _lint(text, batch_lines):
    from rogerwilco.io.lint import lint_stream

    saved = _components.BATCH_LINES
    _components.BATCH_LINES = batch_lines
    try:
        return [attrs.asdict(f) for f in lint_stream(io.StringIO(text), file="t.rw1", now=NOW)]
    finally:
        _components.BATCH_LINES = saved


def test_lint_rule_ids_go_forward_counts_each_id_once():
    # RW101 reads the stream in order (each sender's last id); an id used again is RW100's alone
    from rogerwilco.io.lint import lint_stream

    lines = ["RW1 HO lead-2 from=lead to=dev item=x ask=FIX", "RW1 HO qa-1 from=qa to=ops item=y ask=FIX",
             "RW1 HO lead-1 from=lead to=dev item=z ask=FIX", "RW1 HO lead-2 from=lead to=dev item=w ask=FIX"]
    found = [(f.code, f.line) for f in lint_stream(io.StringIO("\n".join(lines)), file="t.rw1")
             if f.code in ("RW100", "RW101")]
    assert found == [("RW101", 3), ("RW100", 4)]


def test_no_room_for_the_temporary_files_is_a_clear_error(monkeypatch, tmp_path, capsys):
    import sqlite3

    from rogerwilco.front.cli import main

    def no_room(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    conversation = tmp_path / "c.rw1"
    conversation.write_text("\n".join(LINKED["re"]) + "\n", encoding="utf-8")
    monkeypatch.setattr(_components.sqlite3, "connect", no_room)
    monkeypatch.setattr(_components, "MEMORY_BYTES", 0)  # the lines outgrow memory at once: the database is needed
    for command in (["check-thread", "--now", NOW], ["lint"]):
        assert main([*command, str(conversation)]) == 2
        err = capsys.readouterr().err
        assert "temporary files failed (database or disk is full)" in err and "internal error" not in err


def test_the_spooled_check_never_walks_the_whole_heap():
    # after each batch the check frees the batch's objects by collecting the youngest generation alone: a
    # process holding a large heap (a server, a notebook) pays for the batch, never for its heap
    import gc

    from rogerwilco.io.lint import lint_stream

    generations = []

    def seen(phase, info):
        if phase == "start":
            generations.append(info["generation"])

    conversation = [line for n in range(12) for line in (
        f"RW1 HO lead-{n + 1} from=lead to=dev item=gh:o/r#{n} ask=FIX",
        f"RW1 DN dev-{n + 1} re=lead-{n + 1} from=dev to=lead item=gh:o/r#{n} out=NOOP")]
    gc.collect()
    gc.callbacks.append(seen)
    try:
        with check_thread_spooled(conversation, now=NOW, batch_lines=2) as spooled:
            assert spooled.passed
        lint_stream(io.StringIO("\n".join(conversation)), file="t.rw1")
    finally:
        gc.callbacks.remove(seen)
    assert generations and max(generations) < 2, generations


def test_the_bound_on_parts_in_memory_is_read_from_the_environment(monkeypatch, tmp_path, capsys):
    from rogerwilco.checks._components import MEMORY_BYTES, Components
    from rogerwilco.core.errors import RW1Error
    from rogerwilco.front.cli import main

    assert Components().memory_bytes == MEMORY_BYTES
    monkeypatch.setenv("RW1_PARTS_MEMORY_BYTES", "0")
    assert Components().memory_bytes == 0
    monkeypatch.setenv("RW1_PARTS_MEMORY_BYTES", "lots")
    with pytest.raises(RW1Error, match="RW1_PARTS_MEMORY_BYTES='lots' is not a number of bytes"):
        Components()
    stream = tmp_path / "t.rw1"
    stream.write_text("RW1 HO a-1 from=a to=b item=x ask=FIX\n", encoding="utf-8")
    assert main(["check-thread", str(stream)]) == 2
    assert "RW1_PARTS_MEMORY_BYTES='lots' is not a number of bytes" in capsys.readouterr().err
