"""legend, profile check, check-src: the profile commands."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ...core.errors import ProfileError, RW1Error


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("legend", help="the legend a model reads RW1 from, generated from the vocabulary")
    p.add_argument("--profile", "-p", metavar="NAME|PATH", help="the profile (default: the core alone)")
    p.add_argument("--lean", action="store_true",
                   help="drop the comprehension readback and the core asks the profile does not use")
    p.add_argument("--format", "-f", choices=("text", "md"), default="text", help="output format")
    p.set_defaults(func=cmd_legend)

    p = sub.add_parser("profile", help="profile tools")
    psub = p.add_subparsers(dest="profile_command", metavar="ACTION")
    c = psub.add_parser("check", help="every problem of a profile file, with its JSON path")
    c.add_argument("file", help="the profile file (JSON)")
    c.add_argument("--format", "-f", choices=("text", "json"), default="text", help="output format")
    c.set_defaults(func=cmd_profile_check)
    p.set_defaults(func=lambda args, parser=p: _usage(parser))

    p = sub.add_parser("check-src", help="each evidence line's tail against the document it cites")
    p.add_argument("file", nargs="?", help="a file of lines, or - for stdin (default)")
    p.add_argument("--docs", required=True, metavar="DIR", help="the directory of cited documents")
    from ._common import add_format, add_profiles

    add_profiles(p)
    add_format(p)
    p.add_argument("--quiet", "-q", action="store_true", help="text: failures only")
    p.set_defaults(func=cmd_check_src)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def cmd_legend(args: argparse.Namespace) -> int:
    from ...core.legend import legend
    from ...core.vocab import compile_vocabulary, core_vocabulary, load_profile

    vocab = compile_vocabulary(load_profile(args.profile)) if args.profile else core_vocabulary()
    sys.stdout.write(legend(vocab, lean=args.lean, fmt=args.format))
    return 0


def profile_report(path: str) -> tuple[dict | None, list[tuple[str, str, str]]]:
    """(the document or None, [(JSON path, check, message)]) for a profile file.

    The one check of a profile: exactly what the loader refuses
    (:func:`rogerwilco.core.vocab.profile_problems`; ``load_profile`` raises the
    first of these problems), so a profile that passes here loads and works
    on every line, and one the loader refuses shows every reason here.
    ``check`` is ``json`` for a file that is not a JSON document, else
    ``core``.
    """
    from ...core.vocab import read_json, profile_problems

    try:
        doc = read_json(Path(path))
    except ProfileError as exc:
        return None, [("$", "json", exc.message)]
    return doc, [(p, "core", m) for p, m in profile_problems(doc)]


def cmd_profile_check(args: argparse.Namespace) -> int:
    from ..render import make_console
    from ..render.profiles import ok_text, problems_table

    if not Path(args.file).is_file():  # unreadable input is a usage error (exit 2), not a finding
        raise RW1Error(f"cannot read {args.file}: no such file")
    doc, problems = profile_report(args.file)
    if args.format == "json":
        sys.stdout.write(json.dumps({"file": args.file, "ok": not problems, "problems": [
            {"path": p, "check": c, "message": m} for p, c, m in problems]}, ensure_ascii=True) + "\n")
        return 1 if problems else 0
    console = make_console()
    if problems:
        console.print(problems_table(args.file, problems))
        console.print(f"{len(problems)} problem{'s' if len(problems) != 1 else ''}")
        return 1
    name = doc.get("profile") if doc else args.file
    console.print(ok_text(args.file, f"profile {name} {doc.get('version', '') if doc else ''}: no problems"))
    return 0


def cmd_check_src(args: argparse.Namespace) -> int:
    from ...checks.evidence import check_quotes
    from ..render import make_console
    from ..render.profiles import quote_text, summary
    from ...io.stream import validate_stream
    from ._common import display_name, open_input, receiver_from

    docs = Path(args.docs)
    if not docs.is_dir():
        raise RW1Error(f"--docs {args.docs}: not a directory")
    receiver = receiver_from(args)
    name = display_name(args.file)
    with open_input(args.file) as fh:
        results = list(validate_stream(fh, receiver, file=name))
    checks = check_quotes(results, receiver, docs)
    counts = {"lines": len(checks), "checked": 0, "verbatim": 0, "failed": 0, "refused": 0}
    console = make_console()
    for check in checks:
        if check.result.message is None and not check.result.valid:
            counts["refused"] += 1
        if check.checked:
            counts["checked"] += 1
            counts["verbatim" if check.passed else "failed"] += 1
        if args.format == "json":
            if check.checked or not check.result.valid:
                sys.stdout.write(json.dumps({
                    "file": name, "line": check.result.line_number, "checked": check.checked,
                    "passed": check.passed and check.result.valid,
                    "findings": [f.to_json() for f in (check.findings or check.result.findings)]},
                    ensure_ascii=True) + "\n")
            continue
        if not check.result.valid:
            first = check.result.refusal
            console.print(quote_text(name, check.result.line_number, first))
        for finding in check.findings:
            if args.quiet and not finding.failed:
                continue
            console.print(quote_text(name, check.result.line_number, finding))
    if args.format == "text":
        console.print(summary(counts))
    return 1 if counts["failed"] or counts["refused"] else 0
