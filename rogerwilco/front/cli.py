"""The ``rogerwilco`` command.

Each subcommand lives in its own module under :mod:`rogerwilco.front.commands` and
registers itself (``register(subparsers)``); this module finds them, runs the
chosen one, and guarantees the exit contract: 0 clean, 1 findings, 2 usage
or unreadable input, and never a Python traceback on the user's terminal.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Any, NoReturn, Sequence

from . import commands
from ..core.errors import RW1Error, printable
from .quick import VERSION_LINE, closed_streams_to_devnull, stdout_to_devnull


class _EscapingWriter:
    """stderr as the CLI writes it: whatever user text a message quotes, every
    invisible or terminal-driving character in it is shown escaped (D14), so
    no error path can put ESC, CSI or OSC 8 on a user's terminal. Line breaks
    the CLI writes itself pass through."""

    def __init__(self, stream) -> None:
        self.unescaped = stream

    def write(self, text: str) -> int:
        self.unescaped.write("\n".join(printable(part) for part in text.split("\n")))
        return len(text)

    def __getattr__(self, name: str):
        return getattr(self.unescaped, name)


class _PipeWriter:
    """stdout that outlives its reader: once the reader has gone (``| head``), what is written is dropped and
    the command runs to its end, so its exit status still says what it found (refused lines after the
    tenth are still refused)."""

    def __init__(self, stream) -> None:
        self.unwrapped = stream
        self.closed_by_reader = False

    def write(self, text: str) -> int:
        if not self.closed_by_reader:
            try:
                return self.unwrapped.write(text)
            except BrokenPipeError:
                self._reader_gone()
        return len(text)

    def flush(self) -> None:
        if not self.closed_by_reader:
            try:
                self.unwrapped.flush()
            except BrokenPipeError:
                self._reader_gone()

    def _reader_gone(self) -> None:
        self.closed_by_reader = True
        stdout_to_devnull()

    def __getattr__(self, name: str):
        return getattr(self.unwrapped, name)


def _degrade_encoding(stream) -> None:
    """Output to any encoding: what the encoding cannot hold is written as a
    backslash escape, never a crash (PYTHONIOENCODING=ascii, a legacy console)."""
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(errors="backslashreplace")
        except (ValueError, OSError):
            pass


def _terminal_width() -> int:
    """The columns argparse would ask ``shutil.get_terminal_size`` for (COLUMNS, else the terminal, else 80).

    Asked here because importing shutil loads bz2, lzma and fnmatch, and argparse makes
    a formatter on every ``add_argument``: every run of a command would pay for them.
    """
    from .render import terminal_columns

    return terminal_columns(sys.__stdout__) or 80


class _Plain(argparse.HelpFormatter):
    """argparse's own formatter, at the width argparse gives it, found without shutil."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position, _terminal_width() - 2 if width is None else width)


class _Parser(argparse.ArgumentParser):
    """argparse's parser with a usage error in one line that says what was meant, and the top-level help
    grouped by task."""

    #: the option strings a mistyped option is compared with: the run's command's and the global ones
    known_options: list[str] = []
    #: the run's command, for the help a usage error points to
    command: str | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Plain)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:  # usage errors exit 2, as argparse does: one line, no usage block
        if message.startswith("unrecognized arguments: "):
            message += _option_hint(message.split(": ", 1)[1].split(), self.known_options or
                                    list(self._option_string_actions))
        if "did you mean" not in message and "lists the commands" not in message:
            command = self.prog if self.prog != "rogerwilco" or not self.command else f"rogerwilco {self.command}"
            message += f" (see `{command} --help`)"
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)

    def _check_value(self, action: argparse.Action, value: object) -> None:
        """A value outside the choices, said with the closest choice (a command, a format, a shell)."""
        choices = action.choices
        if choices is None or value in choices:
            return
        import difflib  # here, not at import: only a mistyped word needs it

        names = [str(c) for c in choices]
        close = difflib.get_close_matches(str(value), names, n=1, cutoff=0.6)
        if close:
            said = f"did you mean {close[0]}?"
        elif isinstance(action, argparse._SubParsersAction):
            said = "`rogerwilco --help` lists the commands"
        else:
            said = f"choose from {', '.join(names)}"
        raise argparse.ArgumentError(action, f"invalid choice: {value!r} ({said})")

    def format_help(self) -> str:
        grouped = _grouped_help(self)
        return grouped if grouped is not None else super().format_help()


def _option_hint(words: list[str], options: list[str]) -> str:
    """`` (did you mean --format?)`` for the first mistyped option that is close to a known one, else nothing."""
    import difflib

    for word in words:
        if word.startswith("-"):
            close = difflib.get_close_matches(word.split("=", 1)[0], options, n=1, cutoff=0.6)
            if close:
                return f" (did you mean {close[0]}?)"
    return ""


def _grouped_help(parser: argparse.ArgumentParser) -> str | None:
    """The top-level help: the commands grouped by task, with which command to use when (None: a command's help)."""
    import textwrap  # here: only the help needs it

    from .commands._help import TASKS, WHICH

    sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    if parser.prog != "rogerwilco" or sub is None or len(sub.choices) < 2:
        return None
    helps = {a.dest: a.help or "" for a in sub._choices_actions}
    width = max(40, min(_terminal_width(), 100))
    lines = [parser.format_usage().rstrip(), "", parser.description or "", "", *textwrap.wrap(WHICH, width)]
    for task, names in (*TASKS, ("other", tuple(sorted(set(helps) - {n for _, ns in TASKS for n in ns})))):
        shown = [n for n in names if n in helps]
        if not shown:
            continue
        lines += ["", f"{task}:"]
        for name in shown:
            lines += textwrap.wrap(helps[name], width, initial_indent=f"  {name:<14}", subsequent_indent=" " * 16)
    lines += ["", "options:", "  -h, --help    show this help and exit", "  --version     " + (parser._option_string_actions["--version"].help or ""),
              *textwrap.wrap("colour in reports: auto (a terminal, unless NO_COLOR is set; FORCE_COLOR forces it), "
                             "always, never; it may come anywhere on the line", width,
                             initial_indent="  --color {auto,always,never}  ".ljust(16), subsequent_indent=" " * 16),
              "", parser.epilog or ""]
    return "\n".join(lines) + "\n"


class _Formatter(_Plain):
    """argparse's own formatter, keeping the examples and exit codes of the epilog as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith("examples:"):
            return "\n".join(indent + line for line in text.splitlines())
        return super()._fill_text(text, width, indent)


_QUICK_START = """rogerwilco: parse, validate, read back and check RW1 lines (one-line agent messages).

Quick start:
  rogerwilco validate examples/spec-section8.rw1       check every line of a file
  rogerwilco parse examples/spec-section8.rw1          lines to JSON forms
  rogerwilco check-rb --ho 'RW1 HO ...' --rb 'RW1 RB ...'   check a readback against its handoff
  rogerwilco scan examples/logs                        find RW1 lines in logs
  rogerwilco legend --profile pay                      the legend a model reads RW1 from

  rogerwilco --help               every command
  rogerwilco COMMAND --help       what a command does, two examples, its exit codes
  rogerwilco completion bash      shell completion (bash, zsh, fish)
"""


# Which module of rogerwilco.front.commands registers each subcommand: a run imports
# only the one it needs (tests/test_cli.py checks this table against the
# modules' own registrations). Help, completion and an unknown name load them all.
_COMMAND_MODULES = {
    "adapter": "adapter", "completion": "completion", "conformance": "conformance", "grammar": "grammar",
    "parse": "lines", "encode": "lines", "validate": "lines", "digest": "lines", "reply": "lines",
    "to-json": "lines", "from-json": "lines",
    "ledger": "ledger", "lint": "lint", "lsp": "lsp", "mcp": "mcp", "legend": "profiles", "profile": "profiles",
    "check-src": "profiles", "check-rb": "readback", "check-ho": "readback", "check-dn": "readback",
    "make-rb": "readback", "scan": "scan", "skill": "skill", "schema": "schema", "check-thread": "thread", "tool": "tool",
    "report": "report",
}


def _command_module_names() -> list[str]:
    """Every subcommand module, as found in the package."""
    import pkgutil  # only help, completion and an unknown name list them all: a run of one command does not

    return sorted(info.name for info in pkgutil.iter_modules(commands.__path__) if not info.name.startswith("_"))


class _Version(argparse.Action):
    """``--version``: one line, unwrapped (argparse's own action wraps it to the terminal)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        sys.stdout.write(VERSION_LINE + "\n")
        parser.exit()


class _Unbuilt:
    """The parser of a command the run does not run: every call made on it (``add_argument``, ``set_defaults``,
    a group) is done to nothing and returns it again."""

    def __getattr__(self, name: str) -> Any:
        return self._nothing

    def _nothing(self, *args: Any, **kwargs: Any) -> _Unbuilt:
        return self


class _OneCommand:
    """The subparsers as a command module's ``register`` sees them when the run names one of its commands: only
    that command's parser is built. A module registers several commands (``lines`` seven), and each parser,
    with its arguments, costs argparse a gettext look-up per heading and a formatter per argument."""

    def __init__(self, sub: argparse._SubParsersAction, command: str) -> None:
        self.sub = sub
        self.command = command

    def add_parser(self, name: str, **kwargs: Any) -> Any:
        if name == self.command or self.command in kwargs.get("aliases", ()):
            return self.sub.add_parser(name, **kwargs)
        return _Unbuilt()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The CLI's parser: every subcommand, or only ``command``'s when it is a known one (none for ``--version``)."""
    from .commands._help import HELP, epilog

    parser = _Parser(
        prog="rogerwilco",
        description="RW1: parse, validate, read back and check one-line agent messages.",
        epilog="Run `rogerwilco COMMAND --help` for a command's examples and exit codes.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="print the package, its version and what it is, and exit")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour in reports: auto (a terminal, unless NO_COLOR is set), always, never")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    if command == "--version":
        module_names: list[str] = []  # the version needs no subcommand
    elif command in _COMMAND_MODULES:
        module_names = [_COMMAND_MODULES[command]]
    else:
        module_names = _command_module_names()
    for name in module_names:
        module = importlib.import_module(f"{commands.__name__}.{name}")
        module.register(_OneCommand(sub, command) if command in _COMMAND_MODULES else sub)
    for name, child in sub.choices.items():
        child.formatter_class = _Formatter
        # a global option may come anywhere on the line: after the command too (its value, when given, wins)
        child.add_argument("--color", choices=("auto", "always", "never"), default=argparse.SUPPRESS,
                           help="colour in reports (as before the command)")
        if name in HELP:
            child.description = HELP[name][0]
            child.epilog = epilog(name)
    return parser


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand an argument list names (the first word not an option), or None
    (help: every subcommand); ``--version`` when that comes first (none)."""
    words = iter(argv)
    for word in words:
        if word == "--color":
            next(words, None)
        elif word == "--version":
            return word
        elif word in ("-h", "--help"):
            return None
        elif not word.startswith("-"):
            return word
    return None


def _options_of(parser: argparse.ArgumentParser, command: str | None) -> list[str]:
    """The option strings a run may give: the global ones and its command's."""
    options = list(parser._option_string_actions)
    sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    if sub is not None and command in sub.choices:
        options += list(sub.choices[command]._option_string_actions)
    return options


def main(argv: Sequence[str] | None = None) -> int:
    closed_streams_to_devnull()
    _degrade_encoding(sys.stdout)
    _degrade_encoding(sys.stderr)
    stderr, stdout = sys.stderr, sys.stdout
    sys.stderr = _EscapingWriter(stderr)
    sys.stdout = _PipeWriter(stdout)
    try:
        return _main(argv)
    finally:
        sys.stderr, sys.stdout = stderr, stdout


def _main(argv: Sequence[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        sys.stdout.write(_QUICK_START)
        return 0
    command = _command_of(argv)
    parser = build_parser(command)
    _Parser.known_options = _options_of(parser, command)
    _Parser.command = command if command in _COMMAND_MODULES else None
    args = parser.parse_args(argv)
    from .render import set_color

    set_color(args.color)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        code = args.func(args)
        sys.stdout.flush()
        return int(code or 0)
    except RW1Error as exc:
        sys.stderr.write(f"rogerwilco: {exc}\n")
        return 2
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):
            # the reader went away (| head) under a write that bypassed the text stream: not an error of ours
            stdout_to_devnull()
            return 0
        sys.stderr.write(f"rogerwilco: {exc.strerror or exc}: {getattr(exc, 'filename', '') or ''}\n")
        return 2
    except ImportError as exc:  # an optional extra that is not installed: say which, and how
        from ..core.extras import install_hint

        sys.stderr.write(f"rogerwilco: {install_hint(exc)}\n")
        return 2
    except KeyboardInterrupt:  # Ctrl-C: one line on what was written, and the shell's status for SIGINT
        return _interrupted()
    except Exception as exc:  # noqa: BLE001 - the contract: no traceback reaches a user
        if _from_an_interrupt(exc):
            return _interrupted()
        sys.stderr.write(f"rogerwilco: internal error: {type(exc).__name__}: {exc}\n")
        if os.environ.get("ROGERWILCO_DEBUG"):
            import traceback

            traceback.print_exc()
        return 2


def _interrupted() -> int:
    from .commands._output import interrupted_line

    _forget_the_interrupt()
    sys.stderr.write(f"\nrogerwilco: {interrupted_line()}\n")
    return 130


def _from_an_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` was raised because of a Ctrl-C: Python 3.10 wraps a KeyboardInterrupt raised while a class
    is made (a module importing, ``__set_name__``) in a RuntimeError, its cause."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _forget_the_interrupt() -> None:
    """Keep ``python -m rogerwilco`` at status 130 after a Ctrl-C it handled.

    CPython notes a KeyboardInterrupt that leaves any code run from a string (``eval``/``exec``, as
    ``collections.namedtuple`` runs while a module is imported) as "unhandled", even when it is caught
    later, and ``python -m`` then ends the process by SIGINT instead of with the status it returned.
    A string evaluated to the end clears that note.
    """
    eval("None")  # noqa: S307 - a constant: what clears the note is that a string ran to its end


def run() -> None:
    raise SystemExit(main())


__all__ = [
    "build_parser",
    "main",
    "run",
]
