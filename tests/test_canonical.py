"""Canonical JSON is RFC 8785 (JCS) for RW1's values (decision D9), byte for byte.

An independent JCS writer, written from the RFC's text (section 3.2.2.2:
escape only the quotation mark, the reverse solidus and U+0000 to U+001F,
the five with short forms as \\b \\t \\n \\f \\r, the rest as \\u00xx in
lowercase; keys sorted by UTF-16 code units; integers in plain decimal),
must produce exactly the text the package hashes, on every digest case of
the suite and on generated messages.
"""

from __future__ import annotations

import hashlib

from hypothesis import given, settings

from rogerwilco import Message
from rogerwilco.front.conformance import load_cases
from rogerwilco.core.semantics import check_line
from rogerwilco.core.vocab import Receiver
from tests.strategies import messages

_SHORT = {0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r", 0x22: '\\"', 0x5C: "\\\\"}


def jcs_string(text: str) -> str:
    out = ['"']
    for ch in text:
        code = ord(ch)
        if code in _SHORT:
            out.append(_SHORT[code])
        elif code < 0x20:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def jcs(value) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return jcs_string(value)
    if isinstance(value, list):
        return "[" + ",".join(jcs(v) for v in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: k.encode("utf-16-be"))
        return "{" + ",".join(f"{jcs_string(k)}:{jcs(value[k])}" for k in keys) + "}"
    raise TypeError(f"no canonical form for {type(value).__name__}")


def test_the_independent_writer_escapes_as_rfc_8785_says():
    assert jcs({"b": 1, "a": ['"\\/<>&\u007f\u2028\U0001f600', "\u0001\u001f\b\t\n\f\r"]}) == (
        '{"a":["\\"\\\\/<>&\u007f\u2028\U0001f600","\\u0001\\u001f\\b\\t\\n\\f\\r"],"b":1}')


def test_every_digest_case_hashes_the_jcs_text():
    cases = [c for c in load_cases() if c.request["op"] == "digest" and "h" in c.expect]
    assert len(cases) >= 20
    canonical_cases = [c for c in cases if c.id.startswith("digest/canonical:")]
    assert len(canonical_cases) >= 10
    for case in cases:
        profiles = case.request.get("profiles")
        receiver = Receiver.load(profiles) if profiles else Receiver.all_bundled()
        message = check_line(case.request["line"], receiver).message
        assert message is not None, case.id
        text = jcs(message.to_json())
        assert message.canonical() == text, case.id
        assert hashlib.sha256(text.encode("utf-8")).hexdigest()[:12] == case.expect["h"], case.id


def test_the_canonical_cases_hold_the_characters_ports_get_wrong():
    lines = " ".join(c.request["line"] for c in load_cases() if c.id.startswith("digest/canonical:"))
    for ch in ('"', "\\", "/", "<", ">", "&", "\u00a0", "\u0300", "\U0001f600"):
        assert ch in lines, repr(ch)


@settings(max_examples=300, deadline=None)
@given(messages())
def test_generated_messages_hash_the_jcs_text(msg: Message):
    assert msg.canonical() == jcs(msg.to_json())
