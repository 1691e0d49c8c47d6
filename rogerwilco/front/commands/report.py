"""report: a conversation as one self-contained HTML audit report (or served on localhost)."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator

from ...core.errors import RW1Error
from ._common import add_profiles, display_name, note, open_input, receiver_from


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="a conversation as one self-contained HTML audit report")
    p.add_argument("file", nargs="?", help="the conversation, one line per message in the order sent (- for stdin)")
    p.add_argument("-o", "--output", metavar="PATH", default="report.html",
                   help="where the report goes (default: report.html; - for standard output)")
    p.add_argument("--now", metavar="YYYYMMDDTHHMMZ", help="when the conversation is read (default: the clock, UTC)")
    p.add_argument("--serve", action="store_true",
                   help="serve the report on 127.0.0.1 until interrupted, instead of writing it")
    p.add_argument("--port", type=int, default=0, help="the port --serve listens on (default: any free port)")
    add_profiles(p)
    p.set_defaults(func=cmd_report)


@contextmanager
def _rereadable(name: str | None) -> Iterator[str]:
    """A path the conversation can be read from again (the report reads it three times): the file itself,
    or standard input copied to a temporary file."""
    if name not in (None, "-"):
        with open_input(name):  # the same refusals as every command (a directory, a compressed file ...)
            pass
        yield str(name)
        return
    with tempfile.NamedTemporaryFile(prefix="rw1-report-", suffix=".rw1") as copy:
        with open_input(name) as fh:
            shutil.copyfileobj(fh, copy)
        copy.flush()
        yield copy.name


def cmd_report(args: argparse.Namespace) -> int:
    from ...checks.thread import parse_now
    from ..render.report import write_report

    try:
        now = parse_now(args.now)
    except ValueError as exc:
        raise RW1Error(str(exc)) from None
    receiver = receiver_from(args)
    with _rereadable(args.file) as path:
        def open_lines() -> IO[bytes]:
            return open(path, "rb")

        name = display_name(args.file)
        if args.serve:
            with tempfile.TemporaryDirectory(prefix="rw1-report-") as folder:
                page = Path(folder) / "report.html"
                with open(page, "w", encoding="utf-8") as out:
                    report = write_report(open_lines, out, name=name, receiver=receiver, now=now)
                _serve(page, args.port)
            return 0 if report.passed else 1
        if args.output == "-":
            report = write_report(open_lines, sys.stdout, name=name, receiver=receiver, now=now)
        else:
            try:
                out = open(args.output, "w", encoding="utf-8")
            except OSError as exc:
                raise RW1Error(f"cannot write {args.output}: {exc.strerror}") from None
            with out:
                report = write_report(open_lines, out, name=name, receiver=receiver, now=now)
            note(f"wrote {args.output}: {report.fails} fails, {report.notes} notes")
        return 0 if report.passed else 1


def _serve(page: Path, port: int) -> None:
    """Serve ``page`` alone at ``/`` on 127.0.0.1 (every other path is 404: no folder is ever listed)."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class OnePage(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
            if self.path not in ("/", "/report.html"):
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(page.stat().st_size))
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            with open(page, "rb") as fh:
                shutil.copyfileobj(fh, self.wfile)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (http.server's name)
            return  # quiet: the terminal shows the address alone

    try:
        server = ThreadingHTTPServer(("127.0.0.1", port), OnePage)
    except OSError as exc:
        raise RW1Error(f"cannot listen on 127.0.0.1:{port}: {exc.strerror}") from None
    with server:
        sys.stderr.write(f"rogerwilco: serving the report at http://127.0.0.1:{server.server_address[1]}/ "
                         "(Ctrl-C stops)\n")
        sys.stderr.flush()
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
