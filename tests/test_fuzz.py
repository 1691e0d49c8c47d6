"""The fuzz harness: the attacks kept as properties over the public API.

Every target draws hostile input (mutated valid lines, random bytes, random
JSON, profiles with random nodes replaced) and asserts the package's
invariants:

- one result per input line (stream readers, ``validate``/``parse``);
- only the package's own errors (:class:`~rogerwilco.errors.RW1Error`) leave
  the API, and the adapter never answers "internal error";
- no forged line: every line the package writes (``to_line``, refusals,
  composed readbacks, command output) is one line, and parses back;
- no hang: every call returns within ``ROGERWILCO_FUZZ_HANG`` seconds
  (default 20, far above any honest input here; a watchdog, not a timing).

The budget is small by default so CI stays fast (``ROGERWILCO_FUZZ_EXAMPLES``,
default 60 examples per target). Run longer by hand, e.g.::

    ROGERWILCO_FUZZ_EXAMPLES=20000 pytest tests/test_fuzz.py

(without ``CI`` set, each run explores new examples, and hypothesis's example
database keeps any failure it finds for the next run).
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import re
import signal
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rogerwilco
from rogerwilco.front import adapter
from rogerwilco.core.errors import RW1Error
from rogerwilco.core.message import Message
from rogerwilco.checks.readback import check_dn, check_ho, check_rb, make_rb
from rogerwilco.core import semantics, syntax
from rogerwilco.core.semantics import check_line, refusal
from rogerwilco.io.stream import read_lines, validate_stream
from rogerwilco.checks.thread import check_thread, check_thread_spooled
from rogerwilco.core.vocab import BUNDLED_PROFILES, Receiver, load_profile

from .strategies import PIECES, fragments, messages, mutated_lines

EXAMPLES = int(os.environ.get("ROGERWILCO_FUZZ_EXAMPLES", "60"))
HANG = float(os.environ.get("ROGERWILCO_FUZZ_HANG", "20"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
RECEIVER = Receiver.all_bundled()


_HIDDEN = {"Cc", "Cf", "Cs", "Zs", "Zl", "Zp"}  # what may never reach a person's screen raw (D14)


class Hang(AssertionError):
    pass


@contextlib.contextmanager
def no_hang(seconds: float = HANG):
    """Fail (rather than wait for ever) if the body runs past ``seconds``."""

    def alarm(signum, frame):
        raise Hang(f"no result within {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def only_our_errors():
    with no_hang():
        try:
            yield
        except RW1Error:
            pass


def one_line(text: str) -> None:
    """No forged line: the text is one line by every reading of line breaks, and reads back."""
    assert text.splitlines() == [text], repr(text)
    assert rogerwilco.loads(text, RECEIVER).to_line() == text


lines = st.one_of(mutated_lines(), fragments, st.text(max_size=80), messages().map(Message.to_line))
handoffs = st.one_of(messages(types=["HO"]).map(Message.to_line), mutated_lines())


@FUZZ
@given(lines)
def test_parse_never_raises_and_accepts_only_what_reads_back(text):
    with no_hang():
        result = check_line(text, RECEIVER)
    if result.valid and result.message is not None:
        one_line(result.message.to_line())
    with only_our_errors():
        message = rogerwilco.loads(text, RECEIVER)
        assert result.valid  # loads accepts exactly what check_line passes
        one_line(message.to_line())


def _tail_outcome(read):
    try:
        return "tail", read()
    except RW1Error as exc:
        return type(exc).__name__, str(exc), exc.token, exc.column


@FUZZ
@given(st.one_of(lines, lines.map(lambda text: text + " // " + text)))
def test_a_written_line_is_checked_as_parse_raw_reads_it(text):
    # to_line checks the line it writes with read_tail, which stops short of parse_raw's token split: the same
    # tail, or the same error, words, token and column
    assert _tail_outcome(lambda: syntax.read_tail(text)) == _tail_outcome(lambda: syntax.parse_raw(text).tail)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20) | st.sampled_from(PIECES),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)
KEYS = ["v", "type", "id", "re", "from", "to", "item", "slots", "tail"]


@st.composite
def json_forms(draw):
    """A valid JSON form with random members replaced, removed or added."""
    form = draw(messages()).to_json()
    for _ in range(draw(st.integers(0, 3))):
        key = draw(st.sampled_from(KEYS + ["x"]))
        action = draw(st.sampled_from(["replace", "drop", "slot"]))
        if action == "replace":
            form[key] = draw(json_values)
        elif action == "drop":
            form.pop(key, None)
        elif isinstance(form.get("slots"), dict):
            form["slots"][draw(st.sampled_from(["amt", "ask", "acc", "x_y", "due", "h", "p", "opts"]))] = draw(json_values)
    return form




def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def _with_slot(form: dict, value) -> dict:
    form = dict(form)
    form["slots"] = {**form["slots"], "amt": value}
    return form


deep = st.integers(1, 100_000).map(_nested)  # past the recursion limit
huge = st.integers(90, 6000).map(lambda n: 10**n)  # past the package's digit limit and int-to-text's
hostile_forms = st.builds(_with_slot, messages().map(Message.to_json), st.one_of(deep, huge))


@FUZZ
@given(st.one_of(json_forms(), json_values, deep, hostile_forms))
def test_json_forms_raise_only_our_errors_and_write_one_line(form):
    with only_our_errors():
        message = Message.from_json(form, RECEIVER)
        one_line(message.to_line())
        assert Message.from_json(message.to_json(), RECEIVER) == message
    with only_our_errors():
        try:
            text = json.dumps(form)
        except (ValueError, RecursionError):
            return  # not writable as JSON text at all
        Message.from_json(text, RECEIVER)


def _outcome(form, receiver):
    """What from_json makes of a form: the message, or the error's type, words and token."""
    try:
        return Message.from_json(form, receiver)
    except RW1Error as exc:
        return type(exc).__name__, str(exc), exc.token


@FUZZ
@given(st.one_of(json_forms(), messages().map(Message.to_json)),
       st.sampled_from([RECEIVER, Receiver(), Receiver.load(["pay"])]))
def test_a_json_form_is_read_back_by_the_accept_path_as_by_the_full_pass(form, receiver):
    # from_json reads the line it writes as loads does (the accept path first); the full pass alone decides alike
    fast = _outcome(copy.deepcopy(form), receiver)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(semantics, "_loads_line", lambda: lambda *args: None)
        full = _outcome(copy.deepcopy(form), receiver)
    assert fast == full
    if isinstance(fast, Message):
        assert fast.source is None and full.source is None


def _line_outcome(write):
    """A line written from a JSON form, or the error's type, words and token."""
    try:
        return write()
    except RW1Error as exc:
        return type(exc).__name__, str(exc), exc.token


@FUZZ
@given(st.one_of(json_forms(), messages().map(Message.to_json), json_values, hostile_forms),
       st.sampled_from([RECEIVER, Receiver(), Receiver.load(["pay"])]))
def test_the_line_of_a_json_form_is_the_line_its_message_writes(form, receiver):
    # encode writes the line from_json wrote and read back, without writing it again from the message: the same
    # line, or the same refusal, as from_json and then to_line
    direct = _line_outcome(lambda: semantics.line_from_json(form, receiver))
    through = _line_outcome(lambda: Message.from_json(form, receiver).to_line())
    assert direct == through
    if isinstance(direct, str):
        one_line(direct)


def _profile_docs():
    return [load_profile(name) for name in BUNDLED_PROFILES]


@st.composite
def mutated_profiles(draw):
    """A bundled profile with random nodes replaced by random JSON."""
    doc = copy.deepcopy(draw(st.sampled_from(_profile_docs())))
    for _ in range(draw(st.integers(1, 3))):
        node = doc
        path = []
        while isinstance(node, (dict, list)) and node and draw(st.booleans()):
            key = draw(st.sampled_from(sorted(node) if isinstance(node, dict) else list(range(len(node)))))
            path.append((node, key))
            node = node[key]
        if not path:
            doc[draw(st.sampled_from(sorted(doc) + ["rules", "x"]))] = draw(json_values)
        else:
            parent, key = path[-1]
            parent[key] = draw(json_values)
    return doc


PROBE = [
    "RW1 HO a-1 from=a to=b item=x ask=DRAFT acc=tone:plain",
    "RW1 HO a-1 from=a to=b item=inv:1 ask=PAY amt=10.00 ccy=EUR acct=DE1",
    "RW1 AN b-1 re=a-1 from=b to=a item=x val=Y",
    "RW1 ST b-1 from=b to=a item=x pct=50 stg=DIA",
]


@FUZZ
@given(mutated_profiles(), st.lists(st.one_of(st.sampled_from(PROBE), mutated_lines()), max_size=4))
def test_profiles_from_data_load_and_work_or_are_refused(doc, probes):
    with no_hang():
        try:
            receiver = Receiver.load([doc])
        except RW1Error:
            return
        for text in PROBE + probes:
            result = check_line(text, receiver)
            if result.message is not None:
                one_line(result.message.to_line())
        list(validate_stream(io.BytesIO("\n".join(PROBE).encode()), receiver))


@FUZZ
@given(lines, st.sampled_from(["b", "writer", "x.y_z-0", "a" * 40]), st.integers(0, 10**6))
def test_refusals_are_one_valid_line(text, me, n):
    with only_our_errors():
        reply = refusal(text, me, n, RECEIVER)
        if reply is not None:
            one_line(reply)
            assert rogerwilco.loads(reply, RECEIVER).type == "UN"


@FUZZ
@given(handoffs, lines, st.one_of(st.none(), fragments, st.just("tone:plain+len:120w")),
       st.one_of(st.none(), st.dictionaries(st.sampled_from(["amt", "acct", "due", "ccy", "x"]), json_values, max_size=3)))
def test_readback_checks_raise_only_our_errors(ho, other, acc, record):
    with only_our_errors():
        check_rb(ho, other, profiles=RECEIVER, expect_acc=acc, record=record)
    with only_our_errors():
        check_dn(ho, other, None, profiles=RECEIVER, record=record)
    with only_our_errors():
        check_ho(ho, record if record is not None else other, profiles=RECEIVER)
    with only_our_errors():
        rb = make_rb(ho, 1, profiles=RECEIVER, acc=acc, values=record)
        one_line(rb.to_line())


@FUZZ
@given(st.lists(st.one_of(messages().map(Message.to_line), mutated_lines(), fragments), max_size=12),
       st.sampled_from([None, "20260101T0000Z", "20991231T2359Z"]))
def test_thread_checks_raise_only_our_errors(conversation, now):
    with only_our_errors():
        report = check_thread(conversation, now=now or "20260101T0000Z", profiles=RECEIVER)
        report.to_json()
    # the check in flat memory, cut into parts a line or two to a batch, gives the same report
    with only_our_errors(), check_thread_spooled(conversation, now=now or "20260101T0000Z", profiles=RECEIVER,
                                                 batch_lines=2) as spooled:
        assert spooled.report() == report
        assert "".join(spooled.json_chunks()) == json.dumps(report.to_json(), ensure_ascii=True)


@FUZZ
@given(st.lists(st.one_of(st.binary(max_size=50), st.sampled_from([b"\r", b"\n", b"\r\n", b"\xef\xbb\xbf", b"RW1 HO a-1"])),
                max_size=30), st.integers(8, 60))
def test_stream_readers_give_one_result_per_line(pieces, max_bytes):
    import re

    data = b"".join(pieces)
    parts = re.split(rb"\r\n|\r|\n", data)
    expected = len(parts) - (1 if parts[-1] == b"" else 0)
    with no_hang():
        results = list(validate_stream(io.BytesIO(data), RECEIVER, max_bytes=max_bytes))
        assert [r.line_number for r in results] == list(range(1, expected + 1))
        assert len(list(read_lines(io.BytesIO(data), max_bytes=max_bytes))) == expected
        for result in results:
            assert result.message is not None or result.findings  # a message, or why not


OPS = sorted(adapter.load_ops())


@st.composite
def requests(draw):
    request = {"op": draw(st.sampled_from(OPS + ["nosuch"]))}
    for key in draw(st.lists(st.sampled_from(["line", "lines", "json", "ho", "rb", "dn", "n", "me", "profiles", "record",
                                              "expect_acc", "now", "acc", "values", "relay_adds"]), max_size=6)):
        request[key] = draw(st.one_of(lines, json_values, st.lists(lines, max_size=3), json_forms(), hostile_forms))
    return request


@FUZZ
@given(requests())
def test_the_adapter_answers_every_request_without_an_internal_error(request):
    with no_hang():
        response = adapter.handle(request)
    assert isinstance(response.get("ok"), bool)
    assert "internal error" not in str(response.get("error", ""))
    json.dumps(response)


@pytest.mark.parametrize("command", ["validate", "parse", "encode", "check-thread", "lint"])
@FUZZ
@given(data=st.lists(st.one_of(lines, st.sampled_from(["", "\r", "\x1b[2J"])), max_size=8))
def test_commands_on_hostile_streams_give_one_result_per_line_and_no_raw_control(command, data, tmp_path_factory):
    from rogerwilco.front.cli import main

    path = tmp_path_factory.mktemp("fuzz") / "in.rw1"
    path.write_text("\n".join(data), encoding="utf-8", errors="surrogatepass")
    out, err = io.StringIO(), io.StringIO()
    with no_hang(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        argv = [command, str(path)] + {"check-thread": ["--now", "20260101T0000Z"],
                                       "validate": ["--format", "json"]}.get(command, [])
        code = main(argv)
    assert code in (0, 1, 2)
    parts = re.split(rb"\r\n|\r|\n", path.read_bytes())
    count = len(parts) - (parts[-1] == b"")
    if command == "validate":  # one record per line, numbered in order
        assert [json.loads(x)["line"] for x in out.getvalue().splitlines()] == list(range(1, count + 1))
    elif command in ("parse", "encode"):  # a form (or line) on stdout or a diagnostic on stderr, per line
        said = [x for x in err.getvalue().splitlines() if "bare CR" not in x]
        assert len(out.getvalue().splitlines()) + len(said) == count
    for text in (out.getvalue(), err.getvalue()):
        assert "internal error" not in text
        assert all(ch in "\n " or unicodedata.category(ch) not in _HIDDEN for ch in text), repr(text)
