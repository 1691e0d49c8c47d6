"""Valid for sure, before the package is loaded: the C scanner's quiet verdict, from tables kept as data.

Theory of operation
-------------------
``rogerwilco validate`` of a short input pays mostly for loading the
package: attrs and the message classes, the vocabulary compiled, the
semantic pass. None of that is needed to say that a line is valid and that
the full pass has nothing to say of it, when the C scanner is sure of it.

The scanner's plans (``scanner.compile_plans``) are made from a compiled
Vocabulary, which needs all of the package. Most of a plan is data: per key,
its kind of check, the enum's codes, the integer bounds, whether the type
requires it; per type, its required keys in order, its rules' conditions and
sums, its tail's limit. ``_verdict_tables.py`` holds that data for the core
vocabulary and every bundled profile, generated from them by
``python -m rogerwilco.core.scanner --write``; a test derives it again, so it
cannot drift from the vocabulary.

A plan made from the data alone has no Python decoder (a value only a decoder
settles leaves the scanner not sure) and no rule closure (a rule only its
closure decides does not hold here, so the scanner is not sure either). The
scan is the quiet one (``accept(..., quiet=True)``): it is sure of a line
only where the full pass gives no finding at all, no note either. So
:func:`load`'s verdict is True only for a line ``validate`` counts valid with
nothing to report under the bundled profiles, and the command's quick path
(:mod:`rogerwilco.front.quick`) hands anything else, unread, to the package.
``tests/test_quick.py`` holds it to that.

This module imports neither attrs nor ``typing``: what it costs is what the
quick path costs.
"""

from __future__ import annotations

import importlib
import os
import zlib

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
# The scanner's sources, whose stamp the extension carries (hatch_build.py stamps it when it builds).
SOURCES = ("_scan.c", "_scan_classes.h")


def source_stamp(text: str) -> str:
    """A stamp of a source text: its CRC-32 and its length in UTF-8, as hex."""
    data = text.encode("utf-8")
    return f"{zlib.crc32(data):08x}{len(data):08x}"


def built_from_here(native: object) -> bool:
    """Whether the extension was built from the sources beside this module (True where they are not there)."""
    try:
        text = ""
        for name in SOURCES:
            with open(os.path.join(HERE, name), encoding="utf-8") as source:
                text += source.read()
    except OSError:
        return True
    return getattr(native, "BUILT_FROM", None) == source_stamp(text)


def forced_pure() -> bool:
    """``RW1_PURE`` set to anything but ``""`` or ``"0"``: no C at all (as ``rogerwilco.speedups`` reads it)."""
    return os.environ.get("RW1_PURE", "") not in ("", "0")


def _decline(values: object, slots: object, tail: object) -> bool:
    """A rule only its closure decides: not settled here (the package decides)."""
    return False


def make_plans(native: ModuleType, rows: dict[str, Any]) -> dict[str, Any]:
    """Type name -> the scanner's plan, from one vocabulary's rows in ``_verdict_tables``."""
    plans: dict[str, Any] = {}
    for name, (profile, specs, rules, tail_max, required) in rows.items():
        made = tuple((key, getattr(native, kind), getattr(native, inner), needed,
                      None if codes is None else frozenset(codes), None, lo, hi, own, words)
                     for key, kind, inner, needed, codes, lo, hi, own, words in specs)
        closures = tuple((_decline, *rule) for rule in rules)
        try:
            plans[name] = native.make_plan(name, profile, made, closures, tail_max, required)
        except ValueError:
            continue  # more keys than the scanner's tables hold: its lines go to the package
    return plans


class Verdicts:
    """``verdicts(line)``: True where the scanner is sure the line is valid with nothing to say.

    ``profiles``: profile name -> its rows in ``_verdict_tables``, the profiles held; a profile's plans are made
    the first time a line may name it (a line the scanner reads ``p=NAME`` in holds `` p=NAME``)."""

    def __init__(self, native: ModuleType, core: dict[str, Any], profiles: dict[str, Any]) -> None:
        self._native = native
        self._verdict = native.verdict
        self._core = make_plans(native, core)
        self._rows = dict(profiles)
        self._profiles: dict[str, Any] = {}

    def __call__(self, text: str) -> bool:
        if self._rows and " p=" in text:
            for name in [name for name in self._rows if f" p={name}" in text]:
                self._profiles[name] = make_plans(self._native, self._rows.pop(name))
        return self._verdict(text, self._core, self._profiles) is True


def load(held: tuple[str, ...] | None = None) -> Verdicts | None:
    """The verdicts of a receiver holding the bundled profiles named in ``held`` (None: every one, the receiver
    ``validate`` uses when no ``--profile`` is given; (): the core alone), or None: no C scanner, one built from
    other sources, ``RW1_PURE`` set, or a name that is not a bundled profile's."""
    if forced_pure():
        return None
    try:
        native = importlib.import_module("rogerwilco.core._scan")
    except ImportError:
        return None
    if not built_from_here(native) or not hasattr(native, "verdict"):
        return None
    from ._verdict_tables import CORE, PROFILES

    if held is not None and not set(held) <= set(PROFILES):
        return None
    return Verdicts(native, CORE, PROFILES if held is None else {name: PROFILES[name] for name in held})
