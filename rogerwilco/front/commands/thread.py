"""check-thread: every handoff of a conversation closes exactly once (spec 5.4)."""

from __future__ import annotations

import argparse
import sys

from ...core.errors import RW1Error
from ...io.stream import validate_stream
from ._common import add_format, add_profiles, display_name, open_input, reading_progress, receiver_from


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check-thread", help="threads of a conversation: closes, cancels, expiry, and who owns what")
    p.add_argument("file", nargs="?", help="the conversation, one line per message in the order sent (- for stdin)")
    p.add_argument("--now", metavar="YYYYMMDDTHHMMZ", help="when the conversation is read (default: the clock, UTC)")
    add_profiles(p)
    add_format(p)
    p.set_defaults(func=cmd_check_thread)


def cmd_check_thread(args: argparse.Namespace) -> int:
    from ...checks.thread import check_thread_spooled, parse_now

    try:
        now = parse_now(args.now)
    except ValueError as exc:
        raise RW1Error(str(exc)) from None
    receiver = receiver_from(args)
    with open_input(args.file) as fh, reading_progress("check-thread", fh, args.file):
        # read as a stream, the report kept on disk: memory does not grow with it
        report = check_thread_spooled(validate_stream(fh, receiver, file=display_name(args.file), quiet_first=True), now=now,
                                      profiles=receiver)
    with report:
        if args.format == "json":
            for piece in report.json_chunks():
                sys.stdout.write(piece)
            sys.stdout.write("\n")
        else:
            from ..render import make_console
            from ..render.thread import print_spooled

            print_spooled(make_console(), report)
        return 0 if report.passed else 1
