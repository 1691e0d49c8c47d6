"""check-rb, check-ho, check-dn, make-rb: the readback commands (spec 5.1-5.3).

Exit codes: 0 the check passes, 1 it fails, 2 the sender's own input is
unusable (a handoff or record that cannot be read, a bad option). A readback,
done report or line under check that does not parse is a failed check (1).

Each command also takes the reference codec's form (``rogerwilco`` 0.3.0):
the inputs in order as arguments, ``check-rb HO RB``, ``check-ho HO
'<record json>'``, ``check-dn HO DN [--rb RB]``, ``make-rb HO <rb-id>``.
There, as in the reference, any input that cannot be used (a line that does
not read, malformed JSON) is an error found, exit 1; an argument in the wrong
place (a file where a line goes, too few arguments) is a usage error, exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ...core.errors import RW1Error
from ...core.files import DATA_MAX_BYTES, read_limited, read_text
from ._common import UsageError, add_format, add_profiles, json_argument, line_argument, receiver_from

#: command -> the reference form's arguments, in order: (where it goes, its name in messages, the option of the
#: command's own form that gives the same input)
_IN_ORDER = {
    "check-rb": (("ho", "HO", "ho"), ("rb", "RB", "rb")),
    "check-ho": (("line", "HO", "line"), ("record", "RECORD_JSON", "record")),
    "check-dn": (("ho", "HO", "ho"), ("dn", "DN", "dn")),
    "make-rb": (("ho", "HO", "ho"), ("rb_id", "RB_ID", "n")),
}


def _in_order(parser: argparse.ArgumentParser, command: str) -> None:
    names = " ".join(name for _, name, _ in _IN_ORDER[command])
    parser.add_argument("inputs", nargs="*", metavar="INPUT",
                        help=f"the reference codec's form: {names}, in this order (instead of the options)")


def _inputs(args: argparse.Namespace) -> bool:
    """Fill the options from the arguments given in order; True when the reference's form was used."""
    order = _IN_ORDER[args.command]
    usage = f"rogerwilco {args.command} " + " ".join(name for _, name, _ in order)
    if args.inputs:
        if len(args.inputs) != len(order):
            raise UsageError(f"{args.command} takes {len(order)} arguments, got {len(args.inputs)}: {usage}")
        given = [f"--{option}" for _, _, option in order if getattr(args, option, None) is not None]
        if given:
            raise UsageError(f"{args.command}: give the inputs as arguments or as options, not both ({', '.join(given)})")
        for (dest, _, _), value in zip(order, args.inputs):
            setattr(args, dest, value)
        return True
    missing = [f"--{option}" for _, _, option in order if getattr(args, option, None) is None]
    if missing:
        raise UsageError(f"{args.command} needs {' and '.join(missing)} (or the inputs in order: {usage})")
    return False


def _reference_exit(run: Any) -> Any:
    """A command that, in the reference's form, exits 1 on an input it cannot use (as the reference does)."""
    def command(args: argparse.Namespace) -> int:
        if not _inputs(args):
            return run(args, False)
        try:
            return run(args, True)
        except UsageError:
            raise
        except RW1Error as exc:
            sys.stderr.write(f"rogerwilco: {exc}\n")
            return 1
    return command


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check-rb", help="check a readback against its handoff, tier by tier")
    p.add_argument("--ho", metavar="LINE", help="the handoff as sent (- for stdin)")
    p.add_argument("--rb", metavar="LINE", help="the readback received")
    _in_order(p, "check-rb")
    p.add_argument("--expect-acc", metavar="K:V+...", help="the sender's own acceptance criteria (tier 4)")
    p.add_argument("--record", metavar="FILE", help="JSON object of the sender's record, for resolved execution values (tier 5)")
    p.add_argument("--crosswalk", metavar="NAME|FILE",
                   help="the readback is in another profile: map the handoff through this crosswalk first")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 when a tier the handoff asked for could not be checked (tier 4 without criteria, "
                        "tier 5 without a record), even though the readback passes")
    p.add_argument("--now", metavar="YYYYMMDDTHHMMZ",
                   help="when the check runs (default: the clock, UTC): a handoff or readback past its exp= fails")
    add_profiles(p)
    add_format(p)
    p.set_defaults(func=cmd_check_rb)

    p = sub.add_parser("check-ho", help="check a handoff against the approval record before it is sent")
    p.add_argument("--line", metavar="LINE", help="the handoff to send (- for stdin)")
    _in_order(p, "check-ho")
    p.add_argument("--record", metavar="FILE",
                   help="JSON object of slot values the record holds, or a file holding the received HO line (relay)")
    p.add_argument("--relay-adds", metavar="A+B", help="relay mode: the slots the relay's role adds to the received handoff")
    add_profiles(p)
    add_format(p)
    p.set_defaults(func=cmd_check_ho)

    p = sub.add_parser("check-dn", help="check a done report against the plan")
    p.add_argument("--ho", metavar="LINE", help="the handoff")
    p.add_argument("--dn", metavar="LINE", help="the done report")
    _in_order(p, "check-dn")
    p.add_argument("--rb", metavar="LINE", help="the readback, for values the handoff left to the receiver")
    p.add_argument("--record", metavar="FILE", help="JSON object of the values your record holds: the readback "
                   "is judged against it as check-rb judged it")
    p.add_argument("--now", metavar="YYYYMMDDTHHMMZ",
                   help="when the act is reported (default: the clock, UTC): an act past the handoff's exp= fails")
    add_profiles(p)
    add_format(p)
    p.set_defaults(func=cmd_check_dn)

    p = sub.add_parser("make-rb", help="compose the readback of a handoff, by code, from the line as delivered")
    p.add_argument("--ho", metavar="LINE", help="the handoff as delivered (- for stdin)")
    p.add_argument("--n", type=int, help="the readback's message number")
    _in_order(p, "make-rb")
    p.add_argument("--acc", metavar="K:V+...", help="the receiver's acceptance criteria")
    p.add_argument("--do", metavar="TOKEN", help="what the receiver will produce (rb=plan)")
    p.add_argument("--not", dest="not_", metavar="A+B", help="what the receiver takes to be out of scope")
    p.add_argument("--asm", metavar="A+B", help="assumptions the brief did not settle")
    p.add_argument("--eta", metavar="YYYYMMDD", help="expected completion")
    p.add_argument("--values", metavar="FILE", help="JSON object of the receiver's resolved execution values")
    p.add_argument("--no-digest", "--no-hash", action="store_true", help="leave out h=")
    add_profiles(p)
    p.set_defaults(func=cmd_make_rb)


def read_json_object(path: str, what: str) -> dict[str, Any]:
    try:
        doc = json.loads(read_limited(path, what=what, limit=DATA_MAX_BYTES).decode("utf-8"))
    except OSError as exc:
        raise RW1Error(f"cannot read {what} {path}: {exc.strerror}") from None
    except RW1Error:  # not a regular file, or past the cap: already says which and why
        raise
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RW1Error(f"{what} {path} is not JSON: {exc}") from None
    except (ValueError, RecursionError) as exc:  # numbers past the digit limit, nesting past the stack
        raise RW1Error(f"{what} {path} is not a usable JSON object ({type(exc).__name__})") from None
    if not isinstance(doc, dict):
        raise RW1Error(f"{what} {path} is not a JSON object of slot values")
    return doc


def _record_or_line(path: str) -> Any:
    """check-ho's record: a JSON object, or a file whose first line is the received HO."""
    text = read_text(path, what="record", limit=DATA_MAX_BYTES)
    if text.startswith("RW1 "):
        # the first line exactly as a stream reader sees it: split at "\n" only,
        # so a separator inside it is the line's own fault, not a line end
        first = text.split("\n", 1)[0]
        return first[:-1] if first.endswith("\r") else first
    return read_json_object(path, "record")


def _typed_record(record: Any, ho_text: str, receiver, path: str) -> Any:
    """A record file's values must be the JSON D1 gives each slot: said in words, never as a Python repr."""
    if not isinstance(record, dict):
        return record
    from ...checks.readback import coerce, record_type_problems, vocabulary_of

    ho = coerce(ho_text, receiver, "HO", "handoff")[0]
    if ho is None:
        return record  # the handoff's own problem is reported by the check
    problems = record_type_problems(record, vocabulary_of(ho, receiver))
    if problems:
        raise RW1Error(f"record {path}: " + "; ".join(p.message for p in problems))
    return record


def _emit(report, args: argparse.Namespace) -> int:
    if args.format == "json":
        doc = report.to_json()
        if report.check == "check-rb":
            doc["unchecked"] = list(report.unchecked)
        sys.stdout.write(json.dumps(doc, ensure_ascii=True) + "\n")
    else:
        from ..render import make_console
        from ..render.readback import report_renderable

        make_console().print(report_renderable(report))
    if not report.passed:
        return 1
    return 1 if getattr(args, "strict", False) and report.unchecked else 0


def _sender_input(report, name: str) -> None:
    if report.ho is None:
        first = report.findings[0].message if report.findings else f"the {name} cannot be read"
        raise RW1Error(first)


@_reference_exit
def cmd_check_rb(args: argparse.Namespace, in_order: bool) -> int:
    from ...checks.readback import check_rb

    record = read_json_object(args.record, "record") if args.record else None
    ho = line_argument(args.ho)
    if record is not None:
        record = _typed_record(record, ho, receiver_from(args), args.record)
    if args.crosswalk:
        from ...checks import crosswalk

        report = crosswalk.check_rb_across(ho, line_argument(args.rb), args.crosswalk,
                                    profiles=receiver_from(args), expect_acc=args.expect_acc, record=record, now=args.now)
    else:
        report = check_rb(ho, line_argument(args.rb),
                          profiles=receiver_from(args), expect_acc=args.expect_acc, record=record, now=args.now)
    if not in_order:
        _sender_input(report, "handoff")
    return _emit(report, args)


def _record_json(text: str) -> dict[str, Any]:
    """check-ho's record given as JSON text (the reference's form); malformed JSON is named with its place."""
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RW1Error(f"the record is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(record, dict):
        raise RW1Error("the record is a JSON object of slot values as written on the line")
    return record


@_reference_exit
def cmd_check_ho(args: argparse.Namespace, in_order: bool) -> int:
    from ...checks.readback import check_ho

    record = _record_json(json_argument(args.record, "a record")) if in_order else _record_or_line(args.record)
    adds = [a for a in args.relay_adds.split("+") if a] if args.relay_adds is not None else None
    receiver = receiver_from(args)
    line = line_argument(args.line)
    record = _typed_record(record, line, receiver, args.record)
    if isinstance(record, str):
        from ...checks.readback import coerce

        if coerce(record, receiver, "HO", "record")[0] is None:
            raise RW1Error(f"the record {args.record} is not a readable handoff")
    report = check_ho(line, record, profiles=receiver, relay_adds=adds)
    return _emit(report, args)


@_reference_exit
def cmd_check_dn(args: argparse.Namespace, in_order: bool) -> int:
    from ...checks.readback import check_dn

    record = read_json_object(args.record, "record") if args.record else None
    ho = line_argument(args.ho)
    if record is not None:
        record = _typed_record(record, ho, receiver_from(args), args.record)
    report = check_dn(ho, line_argument(args.dn), args.rb and line_argument(args.rb), profiles=receiver_from(args),
                      record=record, now=args.now)
    if not in_order:
        _sender_input(report, "handoff")
    return _emit(report, args)


@_reference_exit
def cmd_make_rb(args: argparse.Namespace, in_order: bool) -> int:
    from ...checks.readback import coerce, make_rb
    from ..reference_api import readback_number, with_readback_id

    values = read_json_object(args.values, "values") if args.values else None
    receiver = receiver_from(args)
    ho = line_argument(args.ho)
    if in_order:
        delivered, problem = coerce(ho, receiver, "HO", "handoff")
        if delivered is None:
            raise RW1Error(problem.message if problem else "the handoff cannot be read")
        args.n = readback_number(args.rb_id, delivered)
    message = make_rb(ho, args.n, profiles=receiver, acc=args.acc, do=args.do,
                      not_=args.not_, asm=args.asm, eta=args.eta, values=values, digest=not args.no_digest)
    if in_order:
        message = with_readback_id(message, args.rb_id, receiver)
    sys.stdout.write(message.to_line() + "\n")
    return 0
