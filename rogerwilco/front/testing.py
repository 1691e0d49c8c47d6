"""Generators of RW1 requests, for differential testing of implementations.

Theory of operation
-------------------
A port that passes the conformance suite can still disagree with the
reference on lines no case holds. These generators draw requests of the
adapter contract (``parse encode digest reply make-rb check-rb check-ho
check-dn check-thread``) from the grammar's shape and the vocabulary data:

* valid lines of every message type, under the core and under every bundled
  profile, with values drawn per slot type (``int:1-5``, ``date``,
  ``list:agent``, an enum's codes...) and the Unicode a value may hold
  (``" \\ / < > &``, combining marks, characters outside the BMP, and
  no-break spaces in a tail);
* mutations of them: unknown versions, types and codes, values of the wrong
  type or out of range, missing and repeated slots, an id that is not
  ``<from>-<n>``, a profile not held, a tail over 300 characters, broken
  spacing, control, bidirectional, invisible and line-separator characters, lone
  surrogates; and lines with two or three of those faults at once, so the
  refusal order (decision D10) is exercised;
* JSON forms of valid lines for ``encode``, and mutations of them, with
  numbers written oddly (``2.0``, ``1e0``, ``-0``, ``1E2``; see
  :class:`RawNumber`) and lone surrogates (decision D9).

Everything is drawn from one :class:`random.Random`, so a seed reproduces a
run exactly. The reference package is used only to keep "valid" lines valid
(a drawn line that breaks a profile's conditional rule is drawn again) and to
compose readbacks for the readback ops; what the answers should be is never
decided here.

Use it from a port's own tests::

    from rogerwilco.front.testing import RequestGenerator
    for request in RequestGenerator(seed=7).requests(1000, ops=["parse"]):
        ...
"""

from __future__ import annotations

import json
import random
import re
from typing import Any, Iterable, Iterator, Sequence

import attrs

from .conformance import RawNumber, dumps_request, plain_request
from ..core.vocab import BUNDLED_PROFILES, Vocabulary, bundled_vocabulary, core_vocabulary

__all__ = ["RawNumber", "RequestGenerator", "dumps_request", "OPS", "MUTATIONS"]

OPS = ("parse", "encode", "digest", "reply", "make-rb", "check-rb", "check-ho", "check-dn", "check-thread")


# ---------------------------------------------------------------- value pools

_AGENTS = ("research", "writer", "ops", "builder", "payer", "scheduler", "a", "b.c", "x_1", "a-b", "TRI", "n0",
           "two-part-name", "h1-2", "human")
_WORDS = ("copy", "spec", "plain", "x", "v2", "em-dash", "monday-problem", "q3.report", "a=b", "k:v", "a/b",
          "AbC", "100%")
# Values may hold any visible character: JSON escaping and canonical text (D9) are where ports differ.
_ODD_TEXT = ('say"hi"', "back\\slash", "a/b", "<b>&amp;</b>", "crème", "cre\u0300me", "naïve", "\u4e2d\u6587",
             "\U0001f600", "e\u0301\u0302", "\u05e9\u05dc\u05d5\u05dd", "a\u02bcb", "\u00bd", "\u2028x"[1:],
             "x\u007e", "\u0130stanbul", "stra\u00dfe", "\U0001d400bold", "\u2764")
_TAIL_WORDS = ("hero copy", "120 words", "no em dashes", 'quote "this"', "a\\b", "<tag> & co", "crème brûlée",
               "cre\u0300me", "\U0001f44d\u200d\U0001f3fd", "\u00a0no-break", "narrow\u202fspace", "\u4e2d\u6587",
               "\U0001f600 done", "\u2764\ufe0f", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", "tab-free",
               "//", "a // b", "x=y", "RW1 HO fake-1", "\u3000ideographic")
_REFS = ("gh:crox/site#42", "jira:ABC-12", "url:https://example.com/x?a=b&c=d", "file:path/to/thing.md",
         "sha256:9f3e1c", "msg:writer-07", "inv:MD-2026-057", "doc:12#l4", "pensive:4102", "x", "notion:\u00e9t\u00e9")

# Characters a line may never hold, each a fault of its own (D3, D14, D16).
_FORBIDDEN = ("\t", "\r", "\n", "\u0000", "\u007f", "\u0085", "\u2028", "\u2029", "\u202e", "\u2066", "\u200f",
              "\u061c", "\ud800", "\udfff", "\u00a0", "\u200b", "\u2060", "\ufeff", "\u00ad",
              "\U000e0041")


# Requests the contract refuses (ok:false): an `n` that is not a non-negative
# integer, an `as` that is not an agent name, a profile that does not load.
_BAD_N = (-1, 1.5, True, "3", None)
_BAD_AS = ("", "a b", "a:b", "\u00e9", 7, None, "a\u200bb")
_BROKEN_PROFILES = (
    {"profile": "t", "version": "1", "extends": "RW1", "asks": {"REVIEW": "redefines a core ask"}},
    {"version": "1", "extends": "RW1"},
    {"profile": "t", "version": "1", "extends": "RW2"},
)
# Criteria items: several values for one key (single-valued `len`, `tone`;
# set-valued `must`, `no`) and `len` values that are not a number and a unit.
_CRITERIA = ("len:120w", "len:150w", "len:120", "len:short", "len:Short-copy", "len:12.5.3", "len:paragraphs",
             "len:2p", "tone:plain", "tone:warm", "fmt:md", "must:monday-problem", "must:pricing-problem",
             "no:em-dash", "no:em-dashes", "scope:correctness", "lang:en-gb")
_BAD_CRITERIA = ("plain", "len:", ":x", "len:120w+", "", "len:120w++tone:plain", "len:120w+plain", "+", "len")
# Slots a readback adds of its own (the receiver's plan and assumptions).
_RECEIVER_SLOTS = ("eta", "asm", "not")


def _r_date(rng: random.Random, valid: bool = True) -> str:
    if not valid:
        return rng.choice(("20261301", "20260230", "20250229", "2026100", "202610021", "00000000", "2026-10-02"))
    if rng.random() < 0.1:
        return rng.choice(("20240229", "20261231", "20260101", "19991231", "99991231"))
    return f"{rng.randint(2000, 2039):04d}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}"


def _r_time(rng: random.Random, valid: bool = True) -> str:
    if not valid:
        return rng.choice(("20261002T2460Z", "20261002T1405", "20261002 1405Z", "20261002T1405z", "20261302T0000Z"))
    return f"{_r_date(rng)}T{rng.randint(0, 23):02d}{rng.randint(0, 59):02d}Z"


def _r_agent(rng: random.Random) -> str:
    return rng.choice(_AGENTS)


def _r_token(rng: random.Random) -> str:
    return rng.choice(_ODD_TEXT) if rng.random() < 0.3 else rng.choice(_WORDS)


@attrs.define
class _Profile:
    name: str | None
    vocab: Vocabulary


class RequestGenerator:
    """Draws contract requests from the vocabulary data; reproducible by ``seed``."""

    def __init__(self, seed: int = 0, *, profiles: Sequence[str] = BUNDLED_PROFILES) -> None:
        self.rng = random.Random(seed)
        self.profiles = [_Profile(None, core_vocabulary())] + [_Profile(p, bundled_vocabulary(p)) for p in profiles]
        self.bundled = tuple(profiles)

    # ------------------------------------------------------------ values

    def value(self, vocab: Vocabulary, key: str) -> str:
        """A valid written value for slot ``key`` of ``vocab``."""
        return self.value_of_type(vocab, vocab.slots[key].type.name, key)

    def value_of_type(self, vocab: Vocabulary, name: str, key: str = "") -> str:
        rng = self.rng
        if name.startswith("list:"):
            items: list[str] = []
            for _ in range(rng.choice((1, 1, 1, 2, 3))):
                item = self.value_of_type(vocab, name[5:], key)
                if "+" not in item and item not in items:
                    items.append(item)
            return "+".join(items or [self.value_of_type(vocab, name[5:], key).replace("+", "")or "x"])
        if name.startswith("enum:"):
            return rng.choice(sorted(vocab.enums[name[5:]]))
        if name.startswith("int:"):
            lo, hi = (int(x) for x in re.fullmatch(r"int:(-?[0-9]+)-(-?[0-9]+)", name).groups())  # type: ignore[union-attr]
            value = rng.randint(lo, hi)
            return f"0{value}" if value >= 0 and rng.random() < 0.1 else str(value)
        if name == "agent":
            return self.agent(vocab)
        if name == "msgid":
            return f"{_r_agent(rng)}-{rng.choice(('1', '07', '12', '0', '999'))}"
        if name == "ref":
            return rng.choice(_REFS)
        if name == "date":
            return _r_date(rng)
        if name == "time":
            return _r_time(rng)
        if name == "days":
            return rng.choice(("0", "1", "7", "30", "365"))
        if name == "bool":
            return rng.choice(("Y", "N"))
        if name == "money":
            return rng.choice(("5400.00", "0.01", "120.50", "-3.00", "1000000.00"))
        if name == "num":
            return rng.choice(("12", "3.5", "120/80", "-2", "0.0"))
        if name == "digest":
            return "".join(rng.choice("0123456789abcdef") for _ in range(12))
        if name == "constraint":
            ckey = rng.choice(sorted(vocab.constraint_keys))
            return f"{ckey}:{rng.choice(('120w', 'plain', 'md', 'en-gb', 'monday-problem', 'em-dash', 'x'))}"
        if name == "rb":
            return rng.choice(sorted(vocab.rb_levels) + ["pri", "due"])
        if name in ("token", "text"):
            return _r_token(rng)
        return _r_token(rng)

    def agent(self, vocab: Vocabulary) -> str:
        """An agent name: mostly one the profile names (a profile that names its
        agents refuses the others), sometimes any, so that rule is exercised too."""
        if vocab.agents and self.rng.random() < 0.85:
            return self.rng.choice(sorted(vocab.agents))
        return _r_agent(self.rng)

    def bad_value(self, vocab: Vocabulary, key: str) -> str:
        """A value slot ``key`` refuses: an unknown code, a wrong type or a value out of range."""
        rng = self.rng
        name = vocab.slots[key].type.name
        inner = name[5:] if name.startswith("list:") else name
        if inner.startswith("enum:"):
            bad = rng.choice(("PAYY", "draft", "XX", "UNKNOWN", "OK1", "\u00c9"))
            if name.startswith("list:") and rng.random() < 0.5:
                return f"{self.value_of_type(vocab, inner)}+{bad}"
            return bad
        if inner.startswith("int:"):
            lo, hi = (int(x) for x in re.fullmatch(r"int:(-?[0-9]+)-(-?[0-9]+)", inner).groups())  # type: ignore[union-attr]
            return rng.choice((str(hi + 1), str(lo - 1), "x", "2.0", "1e0", "", "+1", "\uff12"))
        bad_by_type = {
            "date": lambda: _r_date(rng, valid=False),
            "time": lambda: _r_time(rng, valid=False),
            "bool": lambda: rng.choice(("y", "YES", "1", "true", "n")),
            "money": lambda: rng.choice(("5400", "5,400.00", "5400.0", "54.000", "\u0665.00")),
            "num": lambda: rng.choice(("twelve", "1/2/3", "1.", ".5", "1e3")),
            "digest": lambda: rng.choice(("C40BBA4360DC", "c40bba4360d", "c40bba4360dcx", "g40bba4360dc")),
            "agent": lambda: rng.choice(("a:b", "a/b", "\u00e9", "a+b")),
            "msgid": lambda: rng.choice(("writer", "writer-", "-1", "writer-x", "writer-1a")),
            "days": lambda: rng.choice(("x", "1.5", "+3", "-1", "-2d")),
            "constraint": lambda: rng.choice(("len", ":x", "len:")),
            "rb": lambda: rng.choice(("ALL", "nope", "echo2")),
        }
        if inner in bad_by_type:
            return bad_by_type[inner]()
        return ""  # a token slot refuses only an empty value

    # ------------------------------------------------------------ lines

    def pick_profile(self) -> _Profile:
        return self.rng.choice(self.profiles)

    def line_parts(self, profile: _Profile | None = None, mtype: str | None = None) -> dict[str, Any]:
        """A drawn line as parts: version, type, id, slots (ordered pairs), tail."""
        rng = self.rng
        profile = profile or self.pick_profile()
        vocab = profile.vocab
        mtype = mtype or rng.choice(sorted(vocab.types))
        table = vocab.types[mtype]
        sender = self.agent(vocab)
        keys = list(table.required)
        optional = [k for k in table.slots if k not in keys and k != "p"]
        rng.shuffle(optional)
        keys += optional[: rng.choice((0, 0, 1, 2, 3, 5))]
        slots: list[tuple[str, str]] = []
        if profile.name:
            slots.append(("p", profile.name))
        for key in keys:
            slots.append((key, sender if key == "from" else self.value(vocab, key)))
        # the recommended order is the envelope first; any order is valid
        envelope = [s for s in slots if s[0] in ("re", "from", "to", "item")]
        rest = [s for s in slots if s[0] not in ("re", "from", "to", "item")]
        if rng.random() < 0.2:
            rng.shuffle(rest)
        tail = None
        if rng.random() < 0.4 or table.name in ("ST",) and profile.name == "clin":
            words = [rng.choice(_TAIL_WORDS) for _ in range(rng.choice((1, 2, 3)))]
            tail = " ".join(words)
        return {"v": "RW1", "type": mtype, "id": f"{sender}-{rng.choice(('1', '2', '07', '10', '0'))}",
                "slots": envelope + rest, "tail": tail, "profile": profile.name}

    @staticmethod
    def join(parts: dict[str, Any]) -> str:
        line = " ".join([parts["v"], parts["type"], parts["id"], *(f"{k}={v}" for k, v in parts["slots"])])
        if parts["tail"] is not None:
            line += " // " + parts["tail"]
        return line

    def valid_line(self, profile: _Profile | None = None, mtype: str | None = None, tries: int = 20) -> tuple[str, str | None]:
        """A line the reference accepts, and the profile it uses (None: the core)."""
        from ..core.semantics import check_line
        from ..core.vocab import Receiver

        last = None
        for _ in range(tries):
            parts = self.line_parts(profile, mtype)
            line = self.join(parts)
            holds = [parts["profile"]] if parts["profile"] else []
            if check_line(line, Receiver.load(holds)).valid:
                return line, parts["profile"]
            last = (self._repair(parts), parts["profile"])
            if check_line(last[0], Receiver.load(holds)).valid:
                return last
        assert last is not None
        return last

    def _repair(self, parts: dict[str, Any]) -> str:
        """Fill what a profile's conditional rules ask for, from the reference's own refusal."""
        from ..core.semantics import check_line
        from ..core.vocab import Receiver

        holds = [parts["profile"]] if parts["profile"] else []
        for _ in range(8):
            line = self.join(parts)
            result = check_line(line, Receiver.load(holds))
            first = result.refusal
            if first is None:
                return line
            vocab = bundled_vocabulary(parts["profile"]) if parts["profile"] else core_vocabulary()
            key = first.key or (first.token or "").partition("=")[0]
            if first.kind == "rule" and first.token == "//":
                parts["tail"] = "verbatim quote"
            elif first.kind == "rule" and key in vocab.slots:
                slots = [s for s in parts["slots"] if s[0] != key]
                value = self._rule_value(vocab, key, parts)
                parts["slots"] = slots + [(key, value)]
            elif first.kind == "answer":
                ans = sorted(vocab.enums.get("ans", {"Y": ""}))
                parts["slots"] = [(k, (self.rng.choice(ans) if k in ("val", "opts") else v)) for k, v in parts["slots"]]
            else:
                return line
        return self.join(parts)

    def _rule_value(self, vocab: Vocabulary, key: str, parts: dict[str, Any]) -> str:
        for rule in vocab.rules:
            pattern = rule.match.get(key)
            if pattern is not None:
                for candidate in ("doc:12#l4", "obs:bp", "dx:asthma", "med:aspirin", "inv:MD-1"):
                    if pattern.fullmatch(candidate):
                        return candidate
            if rule.sum is not None and key in (*rule.sum["parts"], rule.sum["total"]):
                written = dict(parts["slots"])
                if key == rule.sum["total"] and all(k in written for k in rule.sum["parts"]):
                    from decimal import Decimal, InvalidOperation

                    try:
                        return f"{sum(Decimal(written[k]) for k in rule.sum['parts']):.2f}"
                    except InvalidOperation:
                        pass
        return self.value(vocab, key)

    # ------------------------------------------------------------ mutations

    def mutate(self, line: str, profile: str | None, faults: int = 1) -> str:
        """``line`` with ``faults`` drawn faults applied one after another."""
        for _ in range(faults):
            line = self.rng.choice(MUTATIONS)(self, line, profile)
        return line

    def _vocab(self, profile: str | None) -> Vocabulary:
        return bundled_vocabulary(profile) if profile else core_vocabulary()

    # ------------------------------------------------------------ JSON forms

    def json_form(self, line: str, profile: str | None) -> dict[str, Any] | None:
        from ..core.semantics import check_line
        from ..core.vocab import Receiver

        result = check_line(line, Receiver.load([profile] if profile else []))
        return result.message.to_json() if result.message is not None else None

    def mutate_json(self, form: dict[str, Any]) -> dict[str, Any]:
        rng = self.rng
        form = json.loads(json.dumps(form))
        slots = form["slots"]
        choice = rng.randrange(9)
        ints = [k for k, v in slots.items() if isinstance(v, int) and not isinstance(v, bool)]
        if choice <= 2 and ints:
            key = rng.choice(ints)
            value = slots[key]
            slots[key] = rng.choice((RawNumber(f"{value}.0"), RawNumber(f"{value}e0"), RawNumber(f"{value}E0"),
                                     RawNumber(f"{value}.5"), float(value) + 0.5, RawNumber("-0"),
                                     RawNumber(f"{value * 10}e-1"), str(value), True, [value], 10 ** 20))
        elif choice == 3:
            target = rng.choice(["tail", "item"] + list(slots))
            bad = rng.choice(("\ud800", "\udc00x", "a\ud83d", "\ud83d\ude00", "x\u0000", "a\u202eb", "a b", "", "a\nb"))
            if target in ("tail", "item"):
                form[target] = bad if form[target] is not None or rng.random() < 0.5 else form[target]
            else:
                slots[target] = bad
        elif choice == 4 and slots:
            key = rng.choice(list(slots))
            slots[key] = rng.choice((None, {}, [], [""], ["a+b"], 1.5, RawNumber("1e400"), True, "Y"))
        elif choice == 5:
            key = rng.choice(("v", "type", "id", "re", "from", "to", "item", "slots", "tail"))
            if rng.random() < 0.5:
                form.pop(key)
            else:
                form[key] = rng.choice((None, 1, "RW2", "", ["x"], "a b"))
        elif choice == 6:
            form[rng.choice(("extra", "Slots", "p"))] = "x"
        elif choice == 7:
            slots[rng.choice(("Key", "x-1", "1x", "from", "re", "x_odd", "unknown"))] = "v"
        else:
            form["tail"] = rng.choice(("x" * 301, "\U0001f600" * 300, "\U0001f600" * 301, "a  b", " a", "a ",
                                       'q"\\/<>&\u00a0', "e\u0301"))
        return form

    # ------------------------------------------------------------ requests

    def _profiles_field(self, profile: str | None) -> list[Any] | None:
        rng = self.rng
        roll = rng.random()
        if roll < 0.15:
            return None if profile is None else rng.choice((None, [], [p for p in self.bundled if p != profile]))
        if profile is None:
            return self._inlined(rng.choice((None, [], list(self.bundled))))
        return self._inlined(rng.choice(([profile], list(self.bundled))))

    def _inlined(self, names: list[Any] | None) -> list[Any] | None:
        """``names``, some of them given inline as profile objects (the request may hold either)."""
        rng = self.rng
        if not names or rng.random() >= 0.15:
            return names
        held: list[Any] = [self.inline_profile(n) if rng.random() < 0.7 else n for n in names]
        if rng.random() < 0.1:
            held.append(rng.choice(_BROKEN_PROFILES))
        return held

    def inline_profile(self, name: str) -> dict[str, Any]:
        """Bundled profile ``name`` as an object: as shipped, or with an ask of its own added."""
        from ..core.vocab import load_profile

        doc = json.loads(json.dumps(load_profile(name)))
        if self.rng.random() < 0.3:
            doc["asks"] = {**doc.get("asks", {}), "ZZCHECK": "an ask only this copy knows"}
        return doc

    def _held(self, holds: list[str]) -> list[Any] | None:
        """The ``profiles`` of a readback request whose HO uses ``holds``."""
        return self._inlined(holds) or None

    def some_line(self) -> tuple[str, str | None]:
        """A valid line or a mutation of one, with one to three faults."""
        line, profile = self.valid_line()
        roll = self.rng.random()
        if roll < 0.35:
            return line, profile
        faults = 1 if roll < 0.75 else self.rng.choice((2, 3))
        return self.mutate(line, profile, faults), profile

    def request(self, op: str) -> dict[str, Any]:
        rng = self.rng
        if op == "parse":
            line, profile = self.some_line()
            return _with_profiles({"op": "parse", "line": line}, self._profiles_field(profile))
        if op == "reply":
            line, profile = self.some_line()
            reply: dict[str, Any] = {"op": "reply", "line": line, "as": _r_agent(rng), "n": self._n(99)}
            if rng.random() < 0.08:
                reply["as"] = rng.choice(_BAD_AS)
            return _with_profiles(reply, self._profiles_field(profile))
        if op == "digest":
            line, profile = self.valid_line(mtype="HO", profile=self.pick_profile())
            request: dict[str, Any] = {"op": "digest", "line": line}
            if rng.random() < 0.3 and profile:
                request["profiles"] = self._inlined([profile])
            return request
        if op == "encode":
            line, profile = self.valid_line()
            form = self.json_form(line, profile)
            if form is None:
                return {"op": "encode", "json": {"v": "RW1"}}
            if rng.random() < 0.6:
                form = self.mutate_json(form)
            return _with_profiles({"op": "encode", "json": form}, self._profiles_field(profile))
        return self._readback_request(op)

    def _ho(self) -> tuple[str, str | None]:
        vocab_choice = self.pick_profile()
        return self.valid_line(vocab_choice, "HO")

    def _readback_request(self, op: str) -> dict[str, Any]:
        from ..checks.readback import make_rb
        from ..core.vocab import Receiver

        rng = self.rng
        ho, profile = self._ho()
        holds = [profile] if profile else []
        if op == "make-rb":
            request: dict[str, Any] = {"op": "make-rb", "ho": ho, "n": self._n(20), "digest": rng.random() < 0.7}
            if rng.random() < 0.3:
                request["acc"] = self.criteria()
            return _with_profiles(request, self._held(holds))
        try:
            rb = make_rb(ho, rng.randint(1, 9), profiles=Receiver.load(holds), digest=rng.random() < 0.7,
                         acc=self.criteria() if rng.random() < 0.5 else None, do="copy").to_line()
        except Exception:  # noqa: BLE001 - a drawn HO the readback cannot be composed for: ask about it as is
            rb = ho.replace(" HO ", " RB ", 1)
        if op == "check-rb" and rng.random() < 0.3:
            rb = self.slot_the_ho_lacks(rb, ho, profile)
        if rng.random() < 0.5:
            rb = self.mutate(rb, profile)
        if op == "check-rb":
            request = {"op": "check-rb", "ho": ho, "rb": rb}
            if rng.random() < 0.3:
                request["expect_acc"] = self.criteria(malformed=rng.random() < 0.2)
            return _with_profiles(request, self._held(holds))
        if op == "check-ho":
            from ..core.semantics import check_line

            msg = check_line(ho, Receiver.load(holds)).message
            record = {} if msg is None else {k: v for k, v in msg.to_json()["slots"].items() if k != "p"}
            if record and rng.random() < 0.5:
                key = rng.choice(sorted(record))
                record[key] = self.value(self._vocab(profile), key) if key in self._vocab(profile).slots else "x"
            return _with_profiles({"op": "check-ho", "line": ho, "record": record}, self._held(holds))
        if op == "check-dn":
            sender = ho.split(" ")[2].rpartition("-")[0]
            receiver = re.search(r" to=(\S+)", ho)
            item = re.search(r" item=(\S+)", ho)
            dn = (f"RW1 DN {receiver.group(1) if receiver else 'x'}-5 re={ho.split(' ')[2]} "
                  f"from={receiver.group(1) if receiver else 'x'} to={sender} item={item.group(1) if item else 'x'} "
                  f"out={rng.choice(('OK', 'PARTIAL', 'NOOP'))}")
            if profile:
                dn += f" p={profile}"
            if rng.random() < 0.4:
                dn = self.mutate(dn, profile)
            return _with_profiles({"op": "check-dn", "ho": ho, "dn": dn}, self._held(holds))
        lines = [ho, rb]
        if rng.random() < 0.5:
            lines.append(ho.replace(" HO ", " CX ", 1))
        rng.shuffle(lines)
        return _with_profiles({"op": "check-thread", "lines": lines, "now": _r_time(rng)}, self._held(holds))

    def _n(self, hi: int) -> Any:
        """A message number for ``reply`` or ``make-rb``; now and then one the contract refuses."""
        return self.rng.choice(_BAD_N) if self.rng.random() < 0.08 else self.rng.randint(0, hi)

    def criteria(self, malformed: bool = False) -> Any:
        """Criteria for ``acc``: one to three ``key:value`` items, with repeated keys
        and ``len`` values that are not a number and a unit among them; or, when
        ``malformed``, criteria that are not ``key:value`` at all."""
        rng = self.rng
        if malformed:
            return rng.choice(_BAD_CRITERIA)
        items = rng.sample(_CRITERIA, rng.choice((1, 1, 2, 3)))
        if rng.random() < 0.25:  # a second value for a key already there
            key = rng.choice(items).partition(":")[0]
            items.append(rng.choice([c for c in _CRITERIA if c.startswith(key + ":") and c not in items] or items))
        return "+".join(items)

    def slot_the_ho_lacks(self, rb: str, ho: str, profile: str | None) -> str:
        """``rb`` with one slot the HO does not carry: one of the handoff's slots (a
        misread), an execution slot of its ask, one of the receiver's own, an
        ``x_`` extension, or a slot of another message type."""
        rng = self.rng
        vocab = self._vocab(profile)
        tokens, tail = _tokens(rb)
        carried = {t.partition("=")[0] for t in _tokens(ho)[0][3:]} | {t.partition("=")[0] for t in tokens[3:]}
        ask = next((t[4:] for t in _tokens(ho)[0] if t.startswith("ask=")), "")
        handoff = [k for k in vocab.types["HO"].slots if k not in carried and k != "p"]
        execution = [k for k in vocab.exec_slots.get(ask, ()) if k not in carried]
        other = [k for k in vocab.slots if k not in vocab.types["HO"].slots and k not in carried]
        pools = [pool for pool in (handoff, [k for k in _RECEIVER_SLOTS if k not in carried], other) if pool]
        if execution and rng.random() < 0.5:  # few handoffs have execution slots: favour them where they do
            pools = [execution]
        key = rng.choice(rng.choice(pools)) if pools and rng.random() < 0.9 else "x_seen"
        value = self.value(vocab, key) if key in vocab.slots else "yes"
        return _rejoin(tokens + [f"{key}={value}"], tail)

    def requests(self, count: int, ops: Iterable[str] | None = None) -> Iterator[dict[str, Any]]:
        """``count`` requests, the ops drawn in turn from ``ops`` (all by default)."""
        chosen = list(ops or OPS)
        for i in range(count):
            yield self.request(chosen[i % len(chosen)])


def _with_profiles(request: dict[str, Any], profiles: list[str] | None) -> dict[str, Any]:
    if profiles is not None:
        request["profiles"] = profiles
    return request


# ---------------------------------------------------------------- the mutations, as data

def _tokens(line: str) -> tuple[list[str], str | None]:
    head, mark, tail = line.partition(" // ")
    return head.split(" "), (tail if mark else None)


def _rejoin(tokens: list[str], tail: str | None) -> str:
    return " ".join(tokens) + (f" // {tail}" if tail is not None else "")


def _keyed(tokens: list[str]) -> list[int]:
    return [i for i, t in enumerate(tokens) if i >= 3 and "=" in t]


def _m_version(g: RequestGenerator, line: str, profile: str | None) -> str:
    return g.rng.choice(("RW2", "RW0", "RW10", "rw1", "RW", "RW1.0", "RWX")) + line[3:]


def _m_type(g: RequestGenerator, line: str, profile: str | None) -> str:
    tokens, tail = _tokens(line)
    if len(tokens) > 1:
        tokens[1] = g.rng.choice(("HX", "ho", "H0", "XX", "RBX", "HO_", "ÉT"))
    return _rejoin(tokens, tail)


def _m_id(g: RequestGenerator, line: str, profile: str | None) -> str:
    tokens, tail = _tokens(line)
    if len(tokens) > 2:
        tokens[2] = g.rng.choice(("someone-1", "x-1", "writer", "writer-", "-1", "a--1", "a-1-2", "writer-07x",
                                  "a.b-3", "é-1"))
    return _rejoin(tokens, tail)


def _m_enum(g: RequestGenerator, line: str, profile: str | None) -> str:
    tokens, tail = _tokens(line)
    vocab = g._vocab(profile)
    places = [i for i in _keyed(tokens) if tokens[i].partition("=")[0] in vocab.slots
              and vocab.slots[tokens[i].partition("=")[0]].type.name not in ("token", "text", "ref")]
    if not places:
        return _m_unknown_key(g, line, profile)
    i = g.rng.choice(places)
    key = tokens[i].partition("=")[0]
    tokens[i] = f"{key}={g.bad_value(vocab, key)}"
    return _rejoin(tokens, tail)


def _m_missing(g: RequestGenerator, line: str, profile: str | None) -> str:
    tokens, tail = _tokens(line)
    places = _keyed(tokens)
    if places:
        del tokens[g.rng.choice(places)]
    return _rejoin(tokens, tail)


def _m_repeat(g: RequestGenerator, line: str, profile: str | None) -> str:
    tokens, tail = _tokens(line)
    places = _keyed(tokens)
    if places:
        i = g.rng.choice(places)
        key = tokens[i].partition("=")[0]
        vocab = g._vocab(profile)
        copy = tokens[i] if g.rng.random() < 0.5 or key not in vocab.slots else f"{key}={g.value(vocab, key)}"
        tokens.insert(g.rng.randint(3, len(tokens)), copy)
    return _rejoin(tokens, tail)


def _m_unknown_key(g: RequestGenerator, line: str, profile: str | None) -> str:
    tokens, tail = _tokens(line)
    tokens.insert(g.rng.randint(3, len(tokens)), g.rng.choice(("zz=1", "x_note=hi", "colour=blue", "amt=5.00",
                                                              "stg=DIA", "act=ASSERT", "p2=x")))
    return _rejoin(tokens, tail)


def _m_profile(g: RequestGenerator, line: str, profile: str | None) -> str:
    tokens, tail = _tokens(line)
    choice = g.rng.choice(("p=nothere", "p=PAY", "p=pay", "p=clin", "p=pform", "p=kanban"))
    places = [i for i, t in enumerate(tokens) if t.startswith("p=")]
    if places:
        tokens[places[0]] = choice
    else:
        tokens.insert(g.rng.randint(3, len(tokens)), choice)
    return _rejoin(tokens, tail)


def _m_tail(g: RequestGenerator, line: str, profile: str | None) -> str:
    tokens, _ = _tokens(line)
    tail = g.rng.choice(("x" * 300, "x" * 301, "\U0001f600" * 301, "\U0001f600" * 300, "e\u0301" * 151, "", " ",
                         "a  b", "a ", " a", "//", "x // y"))
    return " ".join(tokens) + " //" + (f" {tail}" if tail else g.rng.choice(("", " ")))


def _m_spacing(g: RequestGenerator, line: str, profile: str | None) -> str:
    rng = g.rng
    spaces = [i for i, c in enumerate(line) if c == " "]
    choice = rng.randrange(4)
    if choice == 0 and spaces:
        i = rng.choice(spaces)
        return line[:i] + "  " + line[i + 1:]
    if choice == 1:
        return " " + line if rng.random() < 0.5 else line + " "
    if choice == 2 and spaces:
        i = rng.choice(spaces)
        return line[:i] + line[i + 1:]
    return line.replace(" ", "\u00a0", 1)


def _m_char(g: RequestGenerator, line: str, profile: str | None) -> str:
    rng = g.rng
    i = rng.randint(0, len(line))
    return line[:i] + rng.choice(_FORBIDDEN) + line[i:]


def _m_value_text(g: RequestGenerator, line: str, profile: str | None) -> str:
    tokens, tail = _tokens(line)
    places = _keyed(tokens)
    if not places:
        return line
    i = g.rng.choice(places)
    key = tokens[i].partition("=")[0]
    tokens[i] = f"{key}={g.rng.choice(_ODD_TEXT + ('', '=', 'a=b=c', '+', 'a+', '+a', 'a++b'))}"
    return _rejoin(tokens, tail)


MUTATIONS = (_m_version, _m_type, _m_id, _m_enum, _m_enum, _m_missing, _m_repeat, _m_unknown_key, _m_profile, _m_tail,
             _m_spacing, _m_char, _m_value_text)
