"""completion: shell completion scripts, generated from the parser itself."""

from __future__ import annotations

import argparse
import sys

SHELLS = ("bash", "zsh", "fish")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("completion", help="print a shell completion script (bash, zsh, fish)")
    p.add_argument("shell", choices=SHELLS, help="the shell")
    p.set_defaults(func=cmd_completion)


def _tree(parser: argparse.ArgumentParser) -> dict[str, list[str]]:
    """Each command path ("" for the top, "tool prepare" for a verb) -> the words that may follow it."""
    out: dict[str, list[str]] = {}

    def walk(p: argparse.ArgumentParser, path: str) -> None:
        words: list[str] = []
        for action in p._actions:
            words.extend(o for o in action.option_strings if o.startswith("--"))
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    words.append(name)
                    walk(child, f"{path} {name}".strip())
        out[path] = sorted(set(words))

    walk(parser, "")
    return out


def bash_script(tree: dict[str, list[str]]) -> str:
    cases = "\n".join(f'        "{path}") words="{" ".join(words)}" ;;' for path, words in sorted(tree.items()))
    return f"""# rogerwilco completion for bash: eval "$(rogerwilco completion bash)"
_rogerwilco() {{
    local cur path="" w words
    cur="${{COMP_WORDS[COMP_CWORD]}}"
    for w in "${{COMP_WORDS[@]:1:COMP_CWORD-1}}"; do
        case "$w" in -*) ;; *) [[ -n "$(_rogerwilco_words "${{path:+$path }}$w")" ]] && path="${{path:+$path }}$w" ;; esac
    done
    words="$(_rogerwilco_words "$path")"
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
    [[ ${{#COMPREPLY[@]}} -eq 0 ]] && COMPREPLY=($(compgen -f -- "$cur"))
}}
_rogerwilco_words() {{
    local words=""
    case "$1" in
{cases}
    esac
    printf '%s' "$words"
}}
complete -o filenames -F _rogerwilco rogerwilco
"""


def zsh_script(tree: dict[str, list[str]]) -> str:
    return "# rogerwilco completion for zsh: eval \"$(rogerwilco completion zsh)\"\n" \
           "autoload -U +X bashcompinit && bashcompinit\n" + bash_script(tree)


def fish_script(tree: dict[str, list[str]]) -> str:
    lines = ["# rogerwilco completion for fish: rogerwilco completion fish | source"]
    lines.append("complete -c rogerwilco -f")
    for path, words in sorted(tree.items()):
        parts = path.split()
        if not parts:
            cond = "__fish_use_subcommand"
        else:
            cond = " && ".join(f"__fish_seen_subcommand_from {p}" for p in parts)
        for word in words:
            if word.startswith("--"):
                lines.append(f"complete -c rogerwilco -n '{cond}' -l {word[2:]}")
            else:
                lines.append(f"complete -c rogerwilco -n '{cond}' -a {word}")
    lines.append("complete -c rogerwilco -F")
    return "\n".join(lines) + "\n"


def cmd_completion(args: argparse.Namespace) -> int:
    from ..cli import build_parser

    tree = _tree(build_parser())
    script = {"bash": bash_script, "zsh": zsh_script, "fish": fish_script}[args.shell](tree)
    sys.stdout.write(script)
    return 0
