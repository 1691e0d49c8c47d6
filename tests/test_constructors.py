"""Constructors are trivial; named constructors do the I/O (attrs and svcs style).

``Receiver.load`` reads and compiles profiles and ``ToolStore.open`` opens the
SQLite file and creates its tables; ``Receiver(...)`` and ``ToolStore(...)``
take what is already made. The earlier call forms, and the names renamed
because they said two things, still work for one release with a
DeprecationWarning.
"""

from __future__ import annotations

import importlib
import pickle
import sqlite3
import warnings

import attrs
import pytest
from hypothesis import given, strategies as st

from rogerwilco import Receiver
from rogerwilco.front.tool import ToolStore
from rogerwilco.core.vocab import bundled_vocabulary


def test_receiver_takes_compiled_vocabularies_without_reading_anything():
    pay = bundled_vocabulary("pay")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        receiver = Receiver([pay])
        empty = Receiver()
    assert receiver.names == ("pay",) and receiver.vocabulary("pay") is pay
    assert empty.names == () and empty.vocabulary(None).profile is None


def test_receiver_load_reads_names_paths_and_objects(tmp_path):
    path = tmp_path / "mine.json"
    path.write_text('{"profile": "mine", "version": "1", "extends": "RW1"}', encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        receiver = Receiver.load(["pay", str(path), {"profile": "obj", "version": "1", "extends": "RW1"}])
    assert receiver.names == ("pay", "mine", "obj")


def test_receiver_of_profile_names_still_loads_them_with_a_deprecation_warning():
    with pytest.warns(DeprecationWarning, match=r"Receiver\.load"):
        receiver = Receiver(["pay"])
    assert receiver.names == ("pay",)
    assert receiver.vocabulary("pay") is bundled_vocabulary("pay")


def test_receiver_refuses_the_core_vocabulary_as_a_profile():
    from rogerwilco.core.errors import ProfileError
    from rogerwilco.core.vocab import core_vocabulary

    with pytest.raises(ProfileError, match="core vocabulary is always held"):
        Receiver([core_vocabulary()])


def test_toolstore_constructor_does_no_io(tmp_path):
    path = tmp_path / "never.db"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ToolStore(path, receiver=Receiver())
    assert not path.exists()


def test_toolstore_open_creates_the_tables(tmp_path):
    path = tmp_path / "store.db"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        store = ToolStore.open(path, profiles=["pay"])
    assert store.receiver.names == ("pay",)
    tables = {row[0] for row in sqlite3.connect(path).execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "statements" in tables


def test_toolstore_earlier_form_still_opens_with_a_deprecation_warning(tmp_path):
    path = tmp_path / "store.db"
    with pytest.warns(DeprecationWarning, match=r"ToolStore\.open"):
        store = ToolStore(path, profiles=["pay"])
    assert path.exists() and store.receiver.names == ("pay",)


@pytest.mark.parametrize("path, old, new", [
    ("rogerwilco.io.lint", "Rule", "LintRule"),
    ("rogerwilco.core.vocab", "Rule", "ProfileRule"),
    ("rogerwilco.checks.crosswalk", "check_rb", "check_rb_across"),
    ("rogerwilco.checks.thread", "Ledger", "ThreadLedger"),
    ("rogerwilco.checks.thread", "HandoffState", "HandoffStatus"),
])
def test_a_renamed_name_still_answers_for_one_release_with_a_warning(path, old, new):
    mod = importlib.import_module(path)
    with pytest.warns(DeprecationWarning, match=rf"\.{old} is now rogerwilco\.[a-z_.]*\.{new};"):
        value = getattr(mod, old)
    assert value is getattr(mod, new)
    assert old not in getattr(mod, "__all__", ())
    with pytest.raises(AttributeError):
        getattr(mod, "no_such_name")


def test_finding_values_have_names_of_their_own_and_the_old_ones_warn():
    """``Finding.receiver`` read like the ``Receiver`` class: the values are ``sender_value``/``receiver_value``."""
    from rogerwilco import Finding
    from rogerwilco.core.findings import fail

    f = fail(kind="mismatch", message="m", key="amt", sender_value="100", receiver_value="1000")
    assert (f.sender_value, f.receiver_value) == ("100", "1000")
    assert {a.name for a in attrs.fields(Finding)} >= {"sender_value", "receiver_value"}
    assert not {"sender", "receiver"} & {a.name for a in attrs.fields(Finding)}
    with pytest.warns(DeprecationWarning, match=r"Finding\.sender is now Finding\.sender_value"):
        assert f.sender == "100"
    with pytest.warns(DeprecationWarning, match=r"Finding\.receiver is now Finding\.receiver_value"):
        assert f.receiver == "1000"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = Finding(severity="fail", kind="mismatch", message="m", key="amt", sender="100", receiver="1000")  # type: ignore[call-arg]
    assert sorted(str(w.message).split(";")[0] for w in caught if w.category is DeprecationWarning) == [
        "Finding(receiver=...) is now Finding(receiver_value=...)", "Finding(sender=...) is now Finding(sender_value=...)"]
    assert {w.filename for w in caught} == {__file__}
    assert old == f and hash(old) == hash(f)
    with pytest.warns(DeprecationWarning, match=r"Finding\(sender=\.\.\.\)"):
        assert fail(kind="k", message="m", sender="x").sender_value == "x"
    with pytest.raises(TypeError, match="unexpected keyword argument 'recevier'"):
        Finding(severity="fail", kind="k", message="m", recevier="x")  # type: ignore[call-arg]
    assert attrs.evolve(f, receiver_value="100").receiver_value == "100"


_FIELD_VALUES = {
    "tier": st.none() | st.integers(1, 5), "key": st.none() | st.text(max_size=5),
    "token": st.none() | st.text(max_size=5), "column": st.none() | st.integers(1, 500),
    "why": st.none() | st.sampled_from(["UNK", "VER"]), "sender_value": st.none() | st.text(max_size=3),
    "receiver_value": st.none() | st.integers(), "hint": st.none() | st.text(max_size=5),
    "fix": st.none() | st.text(max_size=5),
}


@given(st.sampled_from(["fail", "note"]), st.text(max_size=8), st.text(max_size=8),
       st.fixed_dictionaries({}, optional=_FIELD_VALUES))
def test_fail_and_note_make_the_finding_attrs_makes(which, kind, message, fields):
    """fail() and note() fill a Finding's slots straight; what they make is what attrs' own __init__ makes: equal,
    the same hash, repr and fields, frozen, pickled alike."""
    from rogerwilco import Finding
    from rogerwilco.core import findings

    made = getattr(findings, which)(kind=kind, message=message, **fields)
    by_attrs = Finding.__new__(Finding)
    by_attrs.__attrs_init__(severity=which, kind=kind, message=message, **fields)  # type: ignore[attr-defined]
    assert type(made) is Finding
    assert made == by_attrs and hash(made) == hash(by_attrs) and repr(made) == repr(by_attrs)
    assert attrs.asdict(made) == attrs.asdict(by_attrs) == attrs.asdict(Finding(severity=which, kind=kind,
                                                                                 message=message, **fields))
    assert pickle.loads(pickle.dumps(made)) == by_attrs
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        made.kind = "other"  # type: ignore[misc]


_TEXT = st.none() | st.text(max_size=6)


@given(st.sampled_from(["message", "diagnostic"]), st.text(max_size=6), st.integers(1, 10**6), st.integers(1, 500),
       st.text(max_size=12), _TEXT, st.lists(_TEXT, min_size=6, max_size=6),
       st.none() | st.dictionaries(st.text(max_size=3), st.text(max_size=3), max_size=3), st.lists(_TEXT, min_size=4,
                                                                                                  max_size=4),
       st.none() | st.datetimes(timezones=st.just(__import__("datetime").timezone.utc)), st.booleans())
def test_a_record_made_from_its_fields_in_order_is_the_record_attrs_makes(record, file, line, column, text, field,
                                                                          envelope, form, said, ts, unvalidated):
    """Record.of (a scan makes one a candidate) fills the slots in field order: what it makes is what the keyword
    constructor makes, equal, with the same repr, hash and JSON Lines text, frozen and pickled alike."""
    from rogerwilco.records import Record

    type_, id_, from_, to, re_, item = envelope
    why, reason, token, message = said
    made = Record.of(record, file, line, column, text, field, type_, id_, from_, to, re_, item, form, why, reason,
                     token, message, ts, unvalidated)
    keywords = Record(record=record, file=file, line=line, column=column, text=text, field=field, type=type_, id=id_,
                      from_=from_, to=to, re=re_, item=item, json=form, why=why, reason=reason, token=token,
                      message=message, ts=ts, unvalidated=unvalidated)
    assert type(made) is Record
    assert made == keywords and repr(made) == repr(keywords)
    if form is None:  # a record holding its JSON form (a dict) has no hash, made either way
        assert hash(made) == hash(keywords)
    assert made.to_dict() == keywords.to_dict() and made.to_jsonl() == keywords.to_jsonl()
    assert pickle.loads(pickle.dumps(made)) == keywords
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        made.line = 2  # type: ignore[misc]
    assert [f.name for f in attrs.fields(Record)] == list(Record.of.__code__.co_varnames[1:20])  # one order
