"""completion: shell completion scripts, generated from the parser itself.

bash, zsh and tcsh scripts are shtab's (static scripts: a Tab press runs no
Python). shtab writes no fish script, so fish's is written here from the
same parser, one ``complete`` line per word.
"""

from __future__ import annotations

import argparse
import sys

SHELLS = ("bash", "zsh", "tcsh", "fish")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("completion", help="print a shell completion script (bash, zsh, tcsh, fish)")
    p.add_argument("shell", choices=SHELLS, help="the shell")
    p.set_defaults(func=cmd_completion)


def _parsers(parser: argparse.ArgumentParser, path: str = "") -> dict[str, argparse.ArgumentParser]:
    """Each command path ("" for the top, "tool prepare" for a verb) -> its parser."""
    out = {path: parser}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                out.update(_parsers(child, f"{path} {name}".strip()))
    return out


def _with_files(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Positional arguments without choices complete file names (inputs are files, or ``-``)."""
    import shtab

    for p in _parsers(parser).values():
        for action in p._actions:
            if not action.option_strings and not action.choices and action.nargs != 0:
                action.complete = shtab.FILE  # type: ignore[attr-defined]  # shtab's documented hook
    return parser


def script(parser: argparse.ArgumentParser, shell: str) -> str:
    """The completion script for ``shell``."""
    if shell == "fish":
        return fish_script(parser)
    import shtab

    usage = {"bash": 'eval "$(rogerwilco completion bash)"', "zsh": 'eval "$(rogerwilco completion zsh)"',
             "tcsh": "eval `rogerwilco completion tcsh`"}[shell]
    return f"# rogerwilco completion for {shell}: {usage}\n" + shtab.complete(_with_files(parser), shell=shell)


def fish_script(parser: argparse.ArgumentParser) -> str:
    lines = ["# rogerwilco completion for fish: rogerwilco completion fish | source", "complete -c rogerwilco -f"]
    for path, p in sorted(_parsers(parser).items()):
        cond = " && ".join(f"__fish_seen_subcommand_from {w}" for w in path.split()) or "__fish_use_subcommand"
        for action in p._actions:
            lines.extend(f"complete -c rogerwilco -n '{cond}' -l {o[2:]}" for o in action.option_strings
                         if o.startswith("--"))
            if isinstance(action, argparse._SubParsersAction):
                lines.extend(f"complete -c rogerwilco -n '{cond}' -a {name}" for name in action.choices)
    lines.append("complete -c rogerwilco -F")
    return "\n".join(lines) + "\n"


def cmd_completion(args: argparse.Namespace) -> int:
    from ..cli import build_parser

    sys.stdout.write(script(build_parser(), args.shell))
    return 0
