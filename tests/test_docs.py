"""Docs that cannot drift: every command and snippet of the docs runs against shipped files.

See ``docs/snippets.py`` for the rules a block follows; ``python
docs/snippets.py --write`` regenerates the outputs quoted in console blocks.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
from pathlib import Path

import pytest
from tests.bounds import HANG, timed

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("doc_snippets", ROOT / "docs" / "snippets.py")
snippets = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(snippets)  # type: ignore[union-attr]

BLOCKS = list(snippets.blocks())
RUN = [b for b in BLOCKS if b.lang in ("sh", "console", "python")]
BAD = ("internal error", "Traceback", "No such file", "cannot read", "not found")


@pytest.fixture(scope="module")
def where(tmp_path_factory):
    return snippets.scratch(tmp_path_factory.mktemp("docs"))


def test_there_are_runnable_snippets_in_every_doc_that_names_a_command():
    assert len([b for b in RUN if b.lang == "console"]) >= 3
    assert len([b for b in RUN if b.lang == "sh"]) >= 5
    assert len([b for b in RUN if b.lang == "python"]) >= 5


@pytest.mark.parametrize("block", [b for b in BLOCKS], ids=[b.where for b in BLOCKS])
def test_commands_are_in_blocks_that_run(block):
    assert snippets.stray_commands(block) == [], f"{block.where}: tag the block sh or console, or write a synopsis"


PATH = re.compile(r"(?<![\w/.-])((?:examples|profiles|docs|benchmarks|conformance|grammar)/[\w./*-]*[\w*])")


def test_every_repository_path_the_docs_name_ships():
    missing = set()
    for path in snippets.doc_files():
        for name in PATH.findall(path.read_text(encoding="utf-8")):
            if not list(ROOT.glob(name)):
                missing.add(f"{path.relative_to(ROOT)}: {name}")
    assert not missing, sorted(missing)


def shell(script: str, where: Path, what: str):
    """A snippet run with CI's own bound, its time reported at the end of the run when it is slow."""
    return timed(what, lambda: snippets.run_shell(script, where, timeout=HANG))


@pytest.mark.parametrize("block", [b for b in RUN if b.lang == "sh"], ids=[b.where for b in RUN if b.lang == "sh"])
def test_shell_snippets_run(block, where):
    proc = shell(block.body, where, block.where)
    out = proc.stdout + proc.stderr
    assert not any(bad in out for bad in BAD), f"{block.where}:\n{out[-3000:]}"


CONSOLE = [(b, cmd, out) for b in RUN if b.lang == "console" for cmd, out in snippets.console_pairs(b.body)]


@pytest.mark.parametrize("block,command,expected", CONSOLE, ids=[f"{b.where} {c[:40]}" for b, c, _ in CONSOLE])
def test_console_outputs_are_what_the_command_prints(block, command, expected, where):
    shown = timed(f"{block.where} `{command}`", lambda: snippets.console_output(command, where))
    assert shown == expected, (
        f"{block.where}: the output quoted for `{command}` is stale; run python docs/snippets.py --write")


@pytest.mark.parametrize("block", [b for b in RUN if b.lang == "python"], ids=[b.where for b in RUN if b.lang == "python"])
def test_python_snippets_run(block, tmp_path):
    script = tmp_path / "snippet.py"
    script.write_text(snippets.checked_python(block.body), encoding="utf-8")
    proc = shell(f"python {script}", snippets.scratch(tmp_path / "cwd"), block.where)  # a directory of its own: snippets write files
    assert proc.returncode == 0, f"{block.where}:\n{proc.stderr[-3000:]}"


# Every command the docs name, in prose or in a block, is one the CLI has, with options it takes.

MENTION = re.compile(r"`(rogerwilco [^`\n]+)`")
SHELL_BREAK = re.compile(r"\s(?:\||&&|;|>|2>&1|#)(?=\s|$)|;\s")


def command_mentions() -> list[tuple[str, str]]:
    """(where, command) for each ``rogerwilco ...`` the docs show."""
    out = []
    for path in snippets.doc_files() + [ROOT / "conformance" / "README.md"]:
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(ROOT)
        for m in MENTION.finditer(text):
            out.append((f"{rel}:{text.count(chr(10), 0, m.start()) + 1}", m.group(1)))
        for block in snippets.blocks([path]):
            for i, line in enumerate(block.body.splitlines(), start=block.line + 1):
                for part in re.split(r"\s(?:&&|;)\s|;\s", line):
                    part = part.strip()
                    if part.startswith("$ "):
                        part = part[2:]
                    if part.startswith("rogerwilco "):
                        out.append((f"{rel}:{i}", part))
    return out


def _words(command: str) -> list[str]:
    command = SHELL_BREAK.split(" " + command, 1)[0].strip()
    try:
        return shlex.split(command)[1:]
    except ValueError:  # an unbalanced quote in prose (`--ho "...`): take the words as they are
        return command.split()[1:]


def problems_of(command: str) -> list[str]:
    import argparse

    from rogerwilco.front.cli import build_parser

    parser = build_parser()
    words = _words(command)
    while words and words[0].startswith("-"):  # the options before the command (--color never)
        option = words.pop(0)
        if option.split("=")[0] not in parser._option_string_actions:
            return [f"rogerwilco takes no {option}"]
        if option == "--color" and words:
            words.pop(0)
    if not words or re.fullmatch(r"[A-Z_|.]+", words[0]):
        return []  # `rogerwilco COMMAND --help`: a synopsis
    path = ["rogerwilco"]
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or not words:
            break
        name = next((w for w in words if not w.startswith("-")), None)
        if name is None or re.fullmatch(r"[A-Z_|.]+", name):
            break
        missing = [n for n in name.split("|") if n not in subs[0].choices]  # `prepare|commit`: each
        if missing:
            return [f"{' '.join(path)} has no command {n!r}" for n in missing]
        words = words[words.index(name) + 1:]
        if "|" in name:  # the options that follow belong to every alternative
            return [p for n in name.split("|") for p in problems_of(" ".join(["rogerwilco", *path[1:], n, *words]))]
        path.append(name)
        parser = subs[0].choices[name]
    out = []
    for word in words:
        word = word.strip("[]")
        if re.fullmatch(r"--?[a-zA-Z][\w-]*(=.*)?", word):
            option = word.split("=")[0]
            if option not in parser._option_string_actions:
                out.append(f"{' '.join(path)} takes no {option}")
    return out


MENTIONS = command_mentions()


def test_the_docs_name_commands():
    assert len(MENTIONS) >= 50


@pytest.mark.parametrize("where,command", MENTIONS, ids=[f"{w} {c[:50]}" for w, c in MENTIONS])
def test_every_command_the_docs_name_exists_with_its_options(where, command):
    assert problems_of(command) == [], f"{where}: `{command}`"


def test_a_stale_command_or_option_is_caught():
    assert problems_of("rogerwilco check-rb --ho X --rb Y --expect-acc len:120w") == []
    assert problems_of("rogerwilco tool status --store tool.db") == []
    assert problems_of("rogerwilco tool statuz --store tool.db") == ["rogerwilco tool has no command 'statuz'"]
    assert problems_of("rogerwilco check-rb --ho X --accept Y") == ["rogerwilco check-rb takes no --accept"]
    assert problems_of("rogerwilco validat FILE") == ["rogerwilco has no command 'validat'"]
    assert problems_of("rogerwilco tool prepare|commit --ledger PATH [--as NAME]") == []
    assert problems_of("rogerwilco tool prepare|commit [--asks NAME]") == ["rogerwilco tool prepare takes no --asks",
                                                                          "rogerwilco tool commit takes no --asks"]
    assert problems_of("rogerwilco --colour never validate") == ["rogerwilco takes no --colour"]


def test_a_value_a_snippet_shows_is_asserted():
    body = "x = (1, 'a')\nx  # (1, 'a')\nlen('ab')\n# 2\nprint(x)  # the tuple, printed\n"
    checked = snippets.checked_python(body)
    assert "assert (x) == ((1, 'a'))" in checked and "assert (len('ab')) == (2)" in checked
    assert "assert" not in snippets.checked_python("f()  # [1, ...]\n")  # elided: not a claim of the whole
    assert "print(x)  # the tuple, printed" in checked
    namespace: dict = {}
    exec(compile(checked, "snippet", "exec"), namespace)  # noqa: S102 - the test's own text
    wrong = snippets.checked_python("len('ab')  # 3\n")
    with pytest.raises(AssertionError):
        exec(compile(wrong, "snippet", "exec"), {})  # noqa: S102


# The commands the docs quote in prose (tables, sentences) run too, when they are whole commands.

SERVERS = ("adapter", "lsp", "mcp")  # they serve a client on stdin: their own tests drive them
HOLE = re.compile(r"\b[A-Z][A-Z_]{2,}\b|\[|\.\.\.|…|\$[A-Z]|\\?\|")
INLINE = sorted({(w.split(":")[0], c) for w, c in command_mentions() if not HOLE.search(c)
                 and len(_words(c)) >= 2 and _words(c)[0] not in SERVERS
                 and f"`{c}`" in (ROOT / w.split(":")[0]).read_text(encoding="utf-8")})


def test_there_are_whole_commands_in_prose():
    assert len(INLINE) >= 8


@pytest.mark.parametrize("doc,command", INLINE, ids=[f"{d} {c[:60]}" for d, c in INLINE])
def test_whole_commands_in_prose_run(doc, command, where):
    proc = shell(command + " </dev/null", where, f"{doc} `{command}`")
    out = proc.stdout + proc.stderr
    assert proc.returncode in (0, 1), f"{doc}: `{command}` exits {proc.returncode}:\n{out[-2000:]}"
    assert not any(bad in out for bad in BAD), f"{doc}: `{command}`:\n{out[-2000:]}"
    assert out.strip(), f"{doc}: `{command}` prints nothing"


# Every module, name and source file the docs point to exists.

DOTTED = re.compile(r"`(rogerwilco(?:\.[A-Za-z_]\w*)+)")
SOURCE = re.compile(r"(?<![\w/.-])((?:rogerwilco|tests)/[\w/.-]+\.py)\b")
# a configuration file's name, and the VS Code extension's settings (editors/vscode)
NOT_NAMES = {"rogerwilco.toml", *json.loads((ROOT / "editors" / "vscode" / "package.json").read_text(encoding="utf-8"))
             ["contributes"]["configuration"]["properties"]}


def resolve(dotted: str) -> object:
    import importlib

    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            target = getattr(target, name)
        return target
    raise ModuleNotFoundError(dotted)


def _named(pattern: re.Pattern) -> list[tuple[str, str]]:
    out = set()
    for path in snippets.doc_files() + [ROOT / "conformance" / "README.md"]:
        for name in pattern.findall(path.read_text(encoding="utf-8")):
            out.add((str(path.relative_to(ROOT)), name))
    return sorted(out)


@pytest.mark.parametrize("doc,name", [d for d in _named(DOTTED) if d[1] not in NOT_NAMES])
def test_every_name_the_docs_give_exists(doc, name):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DeprecationWarning)
        try:
            resolve(name)
        except (ImportError, AttributeError) as exc:
            pytest.fail(f"{doc} names `{name}`: {exc}")
    deprecated = [w for w in caught if issubclass(w.category, DeprecationWarning)
                  and "rogerwilco" in str(w.message)]
    # Only the page that lists the renames may name an old name; everywhere else names today's.
    if deprecated and doc != "docs/architecture.md":
        pytest.fail(f"{doc} names `{name}`, a deprecated name: {deprecated[0].message}")


@pytest.mark.parametrize("doc,path", _named(SOURCE))
def test_every_source_file_the_docs_name_exists(doc, path):
    assert (ROOT / path).is_file(), f"{doc} names {path}"


def test_a_name_that_is_gone_is_caught():
    assert resolve("rogerwilco.display.printable")
    with pytest.raises(AttributeError):
        resolve("rogerwilco.display.no_such_name")
