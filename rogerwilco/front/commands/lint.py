"""lint: the never-guess pass and the stream rules over message files, for CI."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, Iterator

from ._common import UsageError, add_profiles, default_inputs, is_line_argument
from ._output import output_file

if TYPE_CHECKING:
    from ...io.lint_config import LintConfig

_EPILOG = """\
examples:
  rogerwilco lint conversations/                      walk a folder (RW1 streams, logs, Markdown, JSON Lines)
  rogerwilco lint -f sarif -o lint.sarif .            SARIF for code scanning
  rogerwilco lint -f github --fail-on error logs/     workflow annotations; warnings do not fail
  rogerwilco lint --write-baseline lint-baseline.json logs/   adopt on an existing pile of logs
  rogerwilco lint --baseline lint-baseline.json logs/ report only findings that are new
  cat run.log | rogerwilco lint --stdin-filename logs/run.log -

configuration: [tool.rogerwilco.lint] in the closest pyproject.toml that has it, or
rogerwilco.toml / .rogerwilco.toml ([lint] table); see docs/lint.md.

exit codes: 0 nothing to fail on, 1 findings at or above --fail-on, 2 usage error,
unreadable input or a bad configuration.
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "lint", help="lint message files: every line checked, plus rules across the stream (RW001...)",
        description="Lint RW1 message files (one conversation per file), and the RW1 lines inside logs, "
                    "Markdown and JSON Lines. Every line goes through the never-guess pass, then rules run "
                    "across the stream.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="message files or folders (walked with include/exclude), - for stdin; none: stdin when piped, "
                        "else the current folder")
    p.add_argument("--format", "-f", choices=FORMATS, default="text", type=_format,
                   help="output format: text, json (an array), json-lines (one finding a line), sarif, github")
    p.add_argument("--output-file", "-o", metavar="PATH", help="write the report to this file instead of stdout")
    p.add_argument("--stdin-filename", metavar="PATH",
                   help="the name standard input stands for (its per-file ignores, its mode and its SARIF location)")
    p.add_argument("--select", action="append", metavar="CODES", help="rules or prefixes to enable (comma-separated; default all)")
    p.add_argument("--ignore", action="append", metavar="CODES", help="rules or prefixes to disable (comma-separated)")
    p.add_argument("--now", metavar="YYYYMMDDTHHMMZ", help="the time to judge exp= and due= against (RW106, RW107); 'now' for the clock")
    p.add_argument("--fail-on", choices=("error", "warning", "never"),
                   help="the lowest level that makes the exit code 1 (default: warning)")
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings (same as --fail-on never)")
    p.add_argument("--baseline", metavar="FILE", help="report only findings this baseline does not record")
    p.add_argument("--write-baseline", metavar="FILE", help="record every finding in FILE and exit 0")
    p.add_argument("--config", metavar="FILE", help="read the configuration from this pyproject.toml or rogerwilco.toml")
    p.add_argument("--isolated", "--no-config", action="store_true", dest="isolated",
                   help="read no configuration file")
    p.add_argument("--list-rules", action="store_true", help="print the rule table and stop")
    add_profiles(p)
    p.set_defaults(func=cmd_lint)


FORMATS = ("text", "json", "json-lines", "sarif", "github")


def _format(name: str) -> str:
    return "json-lines" if name == "jsonl" else name  # the common short name of JSON Lines


def _codes(values: list[str] | None) -> list[str] | None:
    if values is None:
        return None
    return [code for value in values for code in value.split(",") if code.strip()]


@contextlib.contextmanager
def _output(path: str | None) -> Iterator[IO[str]]:
    if path is None:
        yield sys.stdout
        return
    with output_file(path) as fh:  # whole or not at all: an interrupted run leaves the last report as it was
        yield fh


def cmd_lint(args: argparse.Namespace) -> int:
    from ...io.lint import lint_paths, new_findings, read_baseline, write_baseline
    from ...io.lint_config import FileConfigs, discover
    from ..render import excerpt_width, make_console
    from ..render.progress import FileProgress

    if args.list_rules:
        from ..render.lint import rules_table

        make_console().print(rules_table())
        return 0
    for name in args.files:
        if is_line_argument(name) and not Path(name).exists():
            raise UsageError(f"{name[:40]}{'...' if len(name) > 40 else ''} is a line, not a file: lint reads files "
                             "of lines (`rogerwilco validate LINE` checks one line)")
    config = discover(args.config, isolated=args.isolated)  # the run's own: its exit policy and baseline
    configs = FileConfigs(config if args.config or args.isolated else None)  # each file's nearest, as ruff
    settings = _Settings(args)
    settings(config)  # a bad code or profile is a usage error before any file is read
    fail_on = "never" if args.exit_zero else (args.fail_on or config.fail_on)
    baseline_path = args.baseline or (str(config.baseline) if config.baseline and not args.write_baseline else None)
    baseline = read_baseline(baseline_path) if baseline_path else None

    files = args.files or default_inputs()
    counts: dict[str, dict[str, int]] = {}  # each file's RW1 lines and messages (lint_stream's counts)
    every: list = []
    nfiles = 0
    written = 0  # findings in the JSON array so far
    progress = FileProgress("lint", _input_bytes(files, configs) if sys.stderr.isatty() else 0)
    with _output(args.output_file) as out, progress:
        console = None
        if args.format == "text":
            from ..render.lint import finding_text

            console = make_console(file=out) if args.output_file else make_console()
            width = excerpt_width(out)
        for _name, findings in lint_paths(files, config=configs, settings=settings, counts=counts,
                                          stdin_filename=args.stdin_filename, on_open=progress.reading):
            nfiles += 1
            if baseline is not None:
                findings = new_findings(findings, baseline, baseline_path)  # type: ignore[arg-type]
            every.extend(findings)
            if args.write_baseline:
                continue
            if args.format == "text":
                for f in findings:
                    console.print(finding_text(f, width))  # type: ignore[union-attr]
            elif args.format == "json-lines":
                for f in findings:
                    out.write(json.dumps(f.to_json(), ensure_ascii=True) + "\n")
            elif args.format == "json":  # one array, written as the findings come
                for f in findings:
                    out.write(("[\n  " if not written else ",\n  ") + json.dumps(f.to_json(), ensure_ascii=True))
                    written += 1
            elif args.format == "github":
                from ...io.sarif import github_annotation

                for f in findings:
                    out.write(github_annotation(f) + "\n")
        if args.write_baseline:
            n = write_baseline(args.write_baseline, every)
            print(f"rogerwilco: recorded {n} finding{'s' if n != 1 else ''} in {args.write_baseline}", file=sys.stderr)
            return 0
        if args.format == "json":
            out.write("\n]\n" if written else "[]\n")
        if args.format == "sarif":
            from ...io.sarif import to_sarif

            out.write(json.dumps(to_sarif(every, start=Path.cwd()), ensure_ascii=True, indent=2) + "\n")
        empty = [name for name, tally in counts.items() if not tally.get("lines")]
        if args.format == "text":
            from ..render.lint import summary_text

            console.print(summary_text(every, nfiles, empty=len(empty)))  # type: ignore[union-attr]
    named = set(files) | ({args.stdin_filename or "<stdin>"} if "-" in files else set())
    _say_empty([name for name in empty if name in named])
    return 1 if _fails(every, fail_on) else 0


def _say_empty(names: list[str]) -> None:
    """A note for each file named on the command line that holds no RW1 line: no finding there means nothing
    was checked, not that something passed (a folder's files are counted in the summary alone)."""
    from ...core.files import is_stream_file
    from ._common import note

    for name in names:
        if is_stream_file(name):
            note(f"{name} holds no RW1 line: it is empty or blank")
        else:
            note(f"{name} holds no RW1 line: lint reads a file that is not an RW1 stream (.rw1) as a log, Markdown "
                 f"or JSON Lines, and checks the RW1 lines inside it; `rogerwilco validate {name}` reads every line "
                 "as a message")


class _Settings:
    """A file's configuration as :func:`rogerwilco.io.lint.lint_stream`'s options, the command line winning
    over it; each configuration's options made once (its receiver is loaded once)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self._made: dict[object, dict] = {}

    def __call__(self, config: LintConfig) -> dict:
        key = config.path
        if key not in self._made:
            self._made[key] = self._options(config)
        return self._made[key]

    def _options(self, config: LintConfig) -> dict:
        args = self.args
        return config.options(select=_codes(args.select) if args.select else None,
                              ignore=_codes(args.ignore) or [] if args.ignore else None,
                              profiles=args.profiles, core_only=args.core_only, now=args.now)


def _input_bytes(files: list[str], config) -> int:
    """The bytes the run will read (for the progress bar): the files named and those the folders contribute."""
    from ..render.progress import sizes

    return sizes(name for given in files if given != "-" for name in config.walk(given))


def _fails(findings: list, fail_on: str) -> bool:
    if fail_on == "never":
        return False
    if fail_on == "error":
        return any(f.level == "error" for f in findings)
    return bool(findings)
