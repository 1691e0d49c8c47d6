"""Helpers shared by the subcommands: inputs, profiles, output format."""

from __future__ import annotations

import argparse
import sys
from contextlib import contextmanager
from typing import IO, Iterator

from ..errors import RW1Error
from ..vocab import BUNDLED_PROFILES, Receiver


def add_profiles(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--profile", "-p", action="append", dest="profiles", metavar="NAME|PATH",
        help=f"a profile the receiver holds (repeatable; default: the bundled {', '.join(BUNDLED_PROFILES)})",
    )
    parser.add_argument("--core-only", action="store_true", help="hold no profile: core vocabulary only")


def receiver_from(args: argparse.Namespace) -> Receiver:
    if getattr(args, "core_only", False):
        return Receiver(())
    profiles = getattr(args, "profiles", None)
    return Receiver(profiles) if profiles else Receiver.all_bundled()


def add_format(parser: argparse.ArgumentParser, choices=("text", "json")) -> None:
    parser.add_argument("--format", "-f", choices=choices, default=choices[0], help="output format")


@contextmanager
def open_input(name: str | None) -> Iterator[IO[bytes]]:
    """A file or stdin ('-' or none), as bytes."""
    if name in (None, "-"):
        yield sys.stdin.buffer
        return
    try:
        fh = open(name, "rb")
    except OSError as exc:
        raise RW1Error(f"cannot read {name}: {exc.strerror}") from None
    with fh:
        yield fh


def line_argument(value: str | None) -> str:
    """A LINE argument: the text itself, or '-' for one line on stdin."""
    if value in (None, "-"):
        data = sys.stdin.buffer.readline()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise RW1Error("standard input is not UTF-8") from None
        return text[:-1].removesuffix("\r") if text.endswith("\n") else text
    return value


def display_name(name: str | None) -> str:
    return "<stdin>" if name in (None, "-") else str(name)
