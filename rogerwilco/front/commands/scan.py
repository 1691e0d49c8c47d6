"""scan: find RW1 lines in logs and write one record per candidate."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys

from ...core.errors import RW1Error
from ._common import add_profiles, default_inputs
from ._output import output_path

PROGRESS_THRESHOLD = 32 * 1024 * 1024  # bytes of input before a bar is worth drawing
FORMATS = ("jsonl", "csv", "parquet")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "scan", help="find RW1 messages in logs (plain, prefixed, Markdown, JSON Lines, Slack exports, gz/bz2/xz)",
        description="Find RW1 lines wherever they sit in logs and write one record per candidate: "
                    "a message with its JSON form, or a diagnostic saying why it was refused.",
    )
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="files or directories to scan, - for stdin (none: stdin when piped, else the current folder), or fsspec URLs (s3://b/logs/*.gz, "
                        "memory://x.log; needs the remote extra): a URL that cannot be read is one diagnostic")
    p.add_argument("--format", "-f", dest="out_format", choices=FORMATS, default=None,
                   help="record format: jsonl (default), csv, parquet; default from the output file's suffix")
    p.add_argument("--output", "-o", dest="output", metavar="PATH",
                   help="write the records to this file (required for parquet; default stdout), as lint's -o")
    p.add_argument("--out", dest="out", metavar="PATH", help=argparse.SUPPRESS)  # the old name of -o
    p.add_argument("--jobs", "-j", type=int, default=1, metavar="N", help="worker processes (default 1)")
    p.add_argument("--strict", action="store_true", help="exit 1 when any candidate is refused")
    p.add_argument("--messages-only", action="store_true",
                   help="write message records only (diagnostics still count in the summary and for --strict)")
    p.add_argument("--no-summary", action="store_true", help="no summary table on stderr")
    p.add_argument("--max-line-bytes", type=_positive, default=None, metavar="N",
                   help="longest physical line read (default 1 MiB); longer lines holding RW are diagnostics")
    p.add_argument("--tz", metavar="ZONE",
                   help="zone of zone-less log times: an IANA name (Europe/Paris) or an offset (+02:00); default UTC")
    p.add_argument("--year", type=_positive, default=None, metavar="YYYY",
                   help="year of syslog times (Oct  1 12:00:00), which name none; without it they are not read")
    p.add_argument("--json-column", choices=("struct", "text"), default="struct",
                   help="Parquet type of the json column: a struct of the envelope plus slots as JSON text "
                        "(default), or the whole JSON form as text (records version 1)")
    add_profiles(p)
    p.set_defaults(func=cmd_scan)


def _output_and_format(args: argparse.Namespace) -> tuple[str | None, str]:
    """The output file and the record format, from ``-o PATH -f FORMAT`` and the old spellings.

    ``-o``/``--output`` is the file, as lint's is; it named the format in earlier releases, so ``-o parquet`` (a
    format's name, without a suffix) still means the format, with a note, and ``--out PATH`` the file.
    """
    output, out, fmt = args.output, args.out, args.out_format
    if output in FORMATS and fmt is None:
        from ._common import note

        note(f"`-o {output}` names the format, the old spelling: give `-f {output}` (-o is the output file, as "
             "in lint); the old spelling goes in the next release")
        output, fmt = out, output
    elif output and out:
        raise RW1Error(f"-o {output} and --out {out} both name the output file: give -o PATH once")
    else:
        output = output or out
    if fmt is None:
        suffix = os.path.splitext(output or "")[1].lstrip(".").lower()
        fmt = suffix if suffix in FORMATS else "jsonl"
    return output, fmt


def _profile_spec(args: argparse.Namespace):
    if args.core_only:
        return ()
    return tuple(args.profiles) if args.profiles else None


def cmd_scan(args: argparse.Namespace) -> int:
    S = importlib.import_module("rogerwilco.io.scan")  # the subpackage (rogerwilco.scan is the function)
    from ..render import make_console
    from ..render.progress import progress_bar, wants_progress
    from ..render.scan import summary_table
    from ...core.vocab import Receiver

    if args.jobs < 1:
        raise RW1Error("--jobs must be at least 1")
    args.out, args.out_format = _output_and_format(args)
    if args.out_format == "parquet" and not args.out:
        raise RW1Error("-f parquet needs -o PATH (Parquet is written to a file)")
    from ...io.scan.timestamps import zone

    try:
        zone(args.tz)
    except ValueError as exc:
        raise RW1Error(f"--tz: {exc}") from None
    options = S.ScanOptions(tz=args.tz, year=args.year, json_column=args.json_column)
    spec = _profile_spec(args)
    Receiver.load(spec or ())  # a bad profile is a usage error before any work starts
    files = []
    for name in args.files or default_inputs():
        if name == "-" or S.is_url(name) or os.path.exists(name):
            files.append(name)
        elif S.is_glob(name):  # a glob the shell left alone (quoted, or no shell): as a file:// URL's
            files.extend(S.local_glob(name))
        else:
            raise RW1Error(f"cannot read {name}: no such file or directory")
    max_line = args.max_line_bytes or S.DEFAULT_MAX_LINE_BYTES

    err_console = make_console(file=sys.stderr)
    total = sum(os.path.getsize(n) for n in files if n != "-" and not S.is_url(n) and os.path.isfile(n))
    progress = None
    task = None
    done_before: dict[str, int] = {}
    if wants_progress(sys.stderr, total, PROGRESS_THRESHOLD):
        progress = progress_bar(err_console, total)
        task = progress.add_task("scan", total=total)

    def on_progress(name: str, position: int) -> None:
        if progress is not None and task is not None:
            done_before[name] = position
            progress.update(task, completed=sum(done_before.values()))

    tally = S.Tally()
    chunks = S.iter_file_chunks(S.Inputs(tuple(files)),
                                max_line_bytes=max_line, tally=tally,
                                progress=on_progress if progress is not None else None)
    fmt = args.out_format
    with contextlib.ExitStack() as stack:
        # -o is written whole or not at all: a temporary file renamed at the end (an interrupted run leaves none)
        target = stack.enter_context(output_path(args.out)) if args.out else None
        sink = stack.enter_context(open(target, "w", encoding="utf-8", newline="")) if target and fmt != "parquet" else None
        tally = _write(S, args, chunks, tally, sink, target, spec, options, progress)
    if not args.no_summary:
        err_console.print(summary_table(tally))
    return 1 if args.strict and tally.refused else 0


def _write(S, args: argparse.Namespace, chunks, tally, sink, target: str | None, spec, options, progress):
    """The records of every chunk, to ``sink`` (or stdout), or as Parquet to ``target``; the tally."""
    fmt = args.out_format
    out = sink or sys.stdout
    writer = None
    try:
        if progress is not None:
            progress.start()
        if fmt == "csv":
            out.write(S.format_csv([], header=True))
        for produced, chunk_tally in S.run_scan(chunks, "records" if args.messages_only else fmt,
                                               jobs=args.jobs, profile_spec=spec, options=options):
            chunk_tally.files = 0  # files are counted as they are opened
            tally.add(chunk_tally)
            if args.messages_only:
                records = [r for r in produced if r.is_message]
                produced = (S.format_jsonl(records) if fmt == "jsonl" else S.format_csv(records) if fmt == "csv"
                            else (S.to_arrow_batch(records, args.json_column) if records else None))
            if fmt == "parquet":
                if produced is not None:
                    if writer is None:
                        import pyarrow.parquet as pq

                        writer = pq.ParquetWriter(target, S.arrow_schema(args.json_column))
                    writer.write_batch(produced)
            elif produced:
                out.write(produced)
        if fmt == "parquet" and writer is None:
            import pyarrow.parquet as pq

            pq.write_table(S.to_arrow([], json_column=args.json_column), target)
    finally:
        if progress is not None:
            progress.stop()
        if writer is not None:
            writer.close()
    out.flush()
    return tally
