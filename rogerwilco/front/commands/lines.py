"""parse, encode, validate, digest, reply, to-json, from-json: the core line commands."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any, Callable

from ...core.errors import RW1Error, RW1SyntaxError, printable
from ...core.findings import FAIL, note
from ...core.message import Message
from ...core.semantics import check_line, line_from_json, refusal_for
from ...io.stream import QUIET_FROM, full_result, read_lines, validate_stream
from ._common import (add_format, add_profiles, display_name, is_line_argument, json_argument, line_argument, open_input,
                      open_line_or_file, reading_progress, receiver_from)

if TYPE_CHECKING:
    from ...core.vocab import Receiver
    from ..render.lines import Parts


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("parse", help="lines to JSON forms (JSON Lines on stdout; refusals on stderr)")
    p.add_argument("file", nargs="?", help="a file of lines, or - for stdin (default)")
    add_profiles(p)
    p.set_defaults(func=cmd_parse)

    p = sub.add_parser("encode", help="JSON forms (JSON Lines) to lines")
    p.add_argument("file", nargs="?", help="a file of JSON forms, one per line, or - for stdin")
    add_profiles(p)
    p.set_defaults(func=cmd_encode)

    p = sub.add_parser("validate", help="every finding of every line, with a caret under the token")
    p.add_argument("files", nargs="*", metavar="FILE|LINE",
                   help="files of lines, - for stdin (default), or a line (it starts with 'RW1 '); several are "
                        "checked in turn, with one summary")
    add_profiles(p)
    add_format(p)
    p.add_argument("--quiet", "-q", action="store_true", help="text: refusals only, no notes")
    p.add_argument("--strict", action="store_true", help="exit 1 on notes (warnings) too")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("to-json", help="a line's JSON form (the reference codec's form)")
    p.add_argument("line", nargs="?", help="the line, or - for stdin")
    add_profiles(p)
    p.set_defaults(func=cmd_to_json)

    p = sub.add_parser("from-json", help="a JSON form as its line (the reference codec's form)")
    p.add_argument("json", nargs="?", metavar="JSON", help="the JSON form as text, or - for one line of stdin")
    add_profiles(p)
    p.set_defaults(func=cmd_from_json)

    p = sub.add_parser("digest", help="h= for a line: SHA-256 of its canonical JSON, 12 hex")
    p.add_argument("line", nargs="?", help="the line, or - for stdin")
    add_profiles(p)
    p.set_defaults(func=cmd_digest)

    p = sub.add_parser("reply", help="the UN refusal a receiver sends for a line (nothing if valid)")
    p.add_argument("line", nargs="?", help="the line, or - for stdin")
    p.add_argument("--as", dest="me", required=True, help="the replying agent's name")
    p.add_argument("--n", type=int, required=True, help="the reply's message number")
    add_profiles(p)
    p.set_defaults(func=cmd_reply)


_BLANK = note(kind="blank", message="blank line")


def _report(file: str, number: int | None, finding, column: int | None = None) -> None:
    column = column or finding.column
    col = f":{column}" if column else ""
    token = f" {printable(finding.token)}" if finding.token else ""
    hint = f" ({printable(finding.hint)})" if finding.hint else ""  # "did you mean", as validate and lint say it
    sys.stderr.write(f"{printable(file)}:{number or 1}{col}: {finding.why or finding.severity}{token}: "
                     f"{printable(finding.message)}{hint}\n")


def cmd_parse(args: argparse.Namespace) -> int:
    receiver = receiver_from(args)
    name = display_name(args.file)
    bad = 0
    write = sys.stdout.write
    form_text = None  # the batch path, from the QUIET_FROM-th line on (a short input never loads it)
    with open_input(args.file) as fh, reading_progress("parse", fh, args.file):
        for line in read_lines(fh):
            # every line yields one result: its JSON form on stdout, or on stderr why not
            if line.text and not line.notes and line.number >= QUIET_FROM:
                if form_text is None:
                    form_text = _batch_text()
                text = form_text(line.text, receiver)
                if text is not None:  # a valid line, straight to its JSON text (what the full pass gives)
                    write(text + "\n")
                    continue
            result = full_result(line, receiver, name)
            if result.message is not None:
                write(json.dumps(result.message.to_json(), ensure_ascii=True) + "\n")
                shown = [f for f in result.findings if f.kind == "bare-cr"]
            else:
                first = result.refusal or result.findings[0]
                bad += first.failed
                shown = [first, *(f for f in result.findings if f.kind == "bare-cr" and f is not first)]
            for finding in shown:
                _report(name, result.line_number, finding, result.column_of(finding))
    return 1 if bad else 0


def _batch_text() -> Callable[[str, Receiver], str | None]:
    """The JSON text of a line the batch path is sure is valid (``json.dumps(form, ensure_ascii=True)`` of its
    JSON form, the C scanner's where it is built), or None: not sure (the full pass decides)."""
    from ...core.speedups import json_form, json_text

    def form_text(text: str, receiver: Receiver) -> str | None:
        form = json_form(text, receiver)
        return None if form is None else json_text(form)

    return form_text


def cmd_encode(args: argparse.Namespace) -> int:
    receiver = receiver_from(args)
    name = display_name(args.file)
    bad = 0
    with open_input(args.file) as fh:
        for line in read_lines(fh):
            # every line yields one result: its line on stdout, or on stderr why not
            for note in line.notes:
                _report(name, line.number, note)
            if line.problem is not None:
                bad += 1
                _report(name, line.number, line.problem)
                continue
            if not line.text:  # the text is there whenever no problem was reported
                _report(name, line.number, _BLANK)
                continue
            try:
                sys.stdout.write(line_from_json(line.text, receiver) + "\n")
            except RW1Error as exc:
                bad += 1
                sys.stderr.write(f"{printable(name)}:{line.number}: {exc.why} {printable(exc.token)}: "
                                 f"{printable(exc.message)}\n")
    return 1 if bad else 0


def cmd_validate(args: argparse.Namespace) -> int:
    from ..render import excerpt_width, make_console, plain_output
    from ..render.lines import Parts, plain, styled, summary_parts

    receiver = receiver_from(args)
    args.width = excerpt_width()
    if plain_output():  # what a console would write, without loading rich
        def show(parts: Parts) -> None:
            sys.stdout.write(plain(parts) + "\n")
    else:
        console = make_console()

        def show(parts: Parts) -> None:
            console.print(styled(parts))
    counts = {"lines": 0, "valid": 0, "refused": 0, "notes": 0}
    for given in args.files or [None]:
        _validate_one(given, receiver, args, counts, show)
    if args.format == "text":
        show(summary_parts(counts))
    return 1 if counts["refused"] or (args.strict and counts["notes"]) else 0


def _validate_one(given: str | None, receiver: Receiver, args: argparse.Namespace, counts: dict[str, int],
                  show: Callable[[Parts], None]) -> None:
    """Every line of one file (or the one line given), its findings shown and counted in ``counts``."""
    from ..render.lines import finding_parts

    name = "<line>" if is_line_argument(given) else display_name(given)
    refused_before = counts["refused"]
    with open_line_or_file(given) as fh, reading_progress("validate", fh, given):
        # a line with nothing to say (no finding, no note) goes through the accept path alone, from the
        # QUIET_FROM-th line on: the same results, and a long stream costs what lint's reading costs
        for result in validate_stream(fh, receiver, file=name, quiet_from=QUIET_FROM):
            counts["lines"] += 1
            if result.message is not None:
                counts["valid"] += 1
            elif not result.valid or result.text:
                counts["refused"] += 1
            if result.findings:
                counts["notes"] += sum(1 for f in result.findings if f.severity != FAIL)
            if args.format == "json":
                record: dict[str, Any] = {
                    "file": name,
                    "line": result.line_number,
                    "valid": result.message is not None,
                    "findings": [_with_column(f.to_json(), result.column_of(f)) for f in result.findings],
                }
                if result.message is not None:
                    record["json"] = result.message.to_json()
                sys.stdout.write(json.dumps(record, ensure_ascii=True) + "\n")
                continue
            for finding in result.findings:
                if args.quiet and finding.severity != FAIL:
                    continue
                show(finding_parts(result, finding, name, args.width))
    if counts["refused"] > refused_before and given not in (None, "-") and not is_line_argument(given):
        from ...core.files import is_stream_file
        from ._common import note as tell

        if not is_stream_file(name):  # a log or a document: its lines are not messages, the messages are in them
            tell(f"{name} is not an RW1 stream (.rw1), where every line is a message: `rogerwilco lint {name}` "
                 f"or `rogerwilco scan {name}` finds the RW1 lines inside a log, Markdown or JSON Lines")


def _with_column(found: dict[str, Any], column: int | None) -> dict[str, Any]:
    """A finding's JSON with the column it is shown at (a missing slot's: where the slot would go)."""
    return {**found, "column": column} if column and "column" not in found else found


def _refused(text: str, exc: RW1Error) -> int:
    """A line or JSON form given as an argument that is refused: said on stderr, exit 1 (an error found)."""
    where = f" (column {exc.column})" if exc.column else ""
    token = f" {printable(exc.token)}:" if exc.token else ""
    sys.stderr.write(f"rogerwilco: refused{where}:{token} {printable(exc.message)}\n")
    return 1


def _write_message(args: argparse.Namespace, form: Callable[[Message], str]) -> int:
    """The line argument read as a message and written in ``form``; a refusal exits 1."""
    text = line_argument(args.line)
    try:
        message = Message.from_line(text, receiver_from(args))
    except RW1Error as exc:
        return _refused(text, exc)
    sys.stdout.write(form(message) + "\n")
    return 0


def cmd_digest(args: argparse.Namespace) -> int:
    return _write_message(args, Message.digest)


def cmd_to_json(args: argparse.Namespace) -> int:
    return _write_message(args, lambda message: json.dumps(message.to_json(), ensure_ascii=False))


def cmd_from_json(args: argparse.Namespace) -> int:
    from ..reference_api import from_json

    text = json_argument(args.json, "a JSON form")
    try:
        line = from_json(text, receiver_from(args))
    except RW1Error as exc:
        return _refused(text, exc)
    sys.stdout.write(line + "\n")
    return 0


def cmd_reply(args: argparse.Namespace) -> int:
    text = line_argument(args.line)
    result = check_line(text, receiver_from(args))
    if result.valid and result.message is not None:
        return 0
    try:
        reply = refusal_for(result, args.me, args.n)
    except ValueError as exc:
        raise RW1Error(str(exc)) from None
    if reply is None:
        first = result.refusal
        detail = f"{first.token}: {first.message}" if first else "unreadable line"
        raise RW1SyntaxError(f"the line cannot be addressed (no id and from to reply to): {detail}")
    sys.stdout.write(reply + "\n")
    return 1
