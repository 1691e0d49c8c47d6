"""Lint configuration: where it is found, what it may say, which files it selects.

Theory of operation
-------------------
Configuration is found the way common Python linters find theirs: from the
starting folder (the current one) upwards, the first folder holding a
``rogerwilco.toml`` or ``.rogerwilco.toml`` (the whole file is the
configuration, its lint keys under ``[lint]``), or a ``pyproject.toml`` that
*has* a ``[tool.rogerwilco]`` table. A ``pyproject.toml`` without that table
is passed over, so a sub-project's own ``pyproject.toml`` never hides the
repository's settings. ``--config FILE`` names the file; ``--isolated`` reads
none.

Keys (``[tool.rogerwilco.lint]`` or ``[lint]``), each checked for its type;
a wrong key or type names the file, the key and what was expected:

``select``, ``ignore``
    rule codes or prefixes, as on the command line;
``per-file-ignores``
    a table of glob to codes (``"archive/**" = ["RW101"]``);
``include``, ``exclude``, ``extend-exclude``
    globs choosing the files a walked folder contributes (files named on the
    command line are always linted);
``profiles``, ``core-only``, ``now``, ``fail-on``, ``baseline``.

Globs are matched against the path relative to the folder holding the
configuration (``/`` separated): ``*`` and ``?`` stay within one path
segment, ``**`` spans any number of them, and a glob with no ``/`` also
matches the file's name alone.

Each file its own configuration (:class:`FileConfigs`): a run from a
repository's root over a monorepo lints each file with the configuration
nearest to it, found from the file's folder upwards as above (as ruff does),
so a sub-project's ``[tool.rogerwilco.lint]`` applies to its own files.
``--config`` and ``--isolated`` give one configuration to every file.

A walked folder also leaves out what git ignores: the ``.gitignore`` files
of the folder, of its subfolders and of its parents up to the repository
root, read with ``pathspec`` (git's own matching rules, negations included).
``respect-gitignore = false`` turns that off; files named on the command
line are always linted.
"""

from __future__ import annotations

import os
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

import attrs

from ..core.errors import RW1Error
from ..core.files import CONFIG_MAX_BYTES, read_limited

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 in CI
    import tomli as tomllib

CONFIG_NAMES = ("rogerwilco.toml", ".rogerwilco.toml")
#: what a walked folder contributes by default: RW1 streams, logs, Markdown, JSON Lines
DEFAULT_INCLUDE = ("*.rw1", "*.log", "*.md", "*.markdown", "*.jsonl", "*.ndjson")
#: folders and files a walk never enters by default
DEFAULT_EXCLUDE = (".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "node_modules", "__pycache__",
                   ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis", "build", "dist", "site-packages")
FAIL_ON = ("error", "warning", "never")

_LIST_KEYS = ("select", "ignore", "profiles", "include", "exclude", "extend-exclude")
_KNOWN = frozenset(_LIST_KEYS + ("per-file-ignores", "core-only", "now", "fail-on", "baseline", "respect-gitignore"))


@attrs.frozen(kw_only=True)
class LintConfig:
    """The settings in force, and the folder globs are relative to."""

    path: Path | None = None  # the file read, None when none was
    root: Path = attrs.field(factory=Path.cwd)
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    include: tuple[str, ...] = DEFAULT_INCLUDE
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    profiles: tuple[str, ...] | None = None
    core_only: bool = False
    now: str | None = None
    fail_on: str = "warning"
    baseline: Path | None = None
    respect_gitignore: bool = True

    # ----------------------------------------------------------------- options

    def options(self, *, select: Sequence[str] | None = None, ignore: Sequence[str] | None = None,
                profiles: Sequence[str] | None = None, core_only: bool = False, now: str | None = None) -> dict:
        """This configuration as :func:`rogerwilco.io.lint.lint_stream`'s options (its receiver, rules and
        time), the ones given here (a command line's) winning over it; a bad code in it or in its per-file
        ignores raises, naming the code."""
        from ..core.vocab import Receiver
        from .lint import selected_rules

        select = select if select else self.select
        ignore = list(ignore) if ignore is not None else list(self.ignore)
        selected_rules(select, ignore)  # a bad code is a usage error, naming it
        for _glob, codes in self.per_file_ignores:
            selected_rules(None, codes)
        if core_only or (self.core_only and not profiles):
            receiver = Receiver()
        elif profiles or self.profiles:
            receiver = Receiver.load(profiles or self.profiles or ())
        else:
            receiver = Receiver.all_bundled()
        now = now or self.now
        if now == "now":
            import datetime as dt

            now = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%MZ")
        return {"profiles": receiver, "now": now, "select": select, "ignore": tuple(ignore)}

    # ----------------------------------------------------------------- files

    def relative(self, path: str | os.PathLike) -> str | None:
        """``path`` relative to the configuration's folder, ``/`` separated; None when outside it."""
        try:
            rel = Path(os.path.abspath(path)).relative_to(self.root.resolve())
        except ValueError:
            try:
                rel = Path(os.path.abspath(path)).resolve().relative_to(self.root.resolve())
            except ValueError:
                return None
        return rel.as_posix()

    def _matches(self, patterns: Iterable[str], path: str | os.PathLike) -> bool:
        rel = self.relative(path)
        name = Path(path).name
        for pattern in patterns:
            if glob_match(pattern, rel if rel is not None else Path(path).as_posix(), name):
                return True
        return False

    def excluded(self, path: str | os.PathLike) -> bool:
        rel = self.relative(path)
        parts = (rel if rel is not None else Path(path).as_posix()).split("/")
        for pattern in self.exclude:
            if "/" not in pattern.strip("/") and any(glob_match(pattern, part, part) for part in parts):
                return True
        return self._matches(self.exclude, path)

    def included(self, path: str | os.PathLike) -> bool:
        return self._matches(self.include, path) and not self.excluded(path)

    def ignored_for(self, path: str) -> tuple[str, ...]:
        """The codes ``per-file-ignores`` turns off for ``path``."""
        if path in ("-", "<stdin>"):
            return ()
        out: list[str] = []
        for pattern, codes in self.per_file_ignores:
            if self._matches((pattern,), path):
                out.extend(codes)
        return tuple(out)

    def walk(self, given: str) -> Iterator[str]:
        """A file as given, or the included files under a folder (sorted, excluded and git-ignored folders not
        entered): :meth:`FileConfigs.walk` with this configuration for every file."""
        yield from FileConfigs(self).walk(given)


# --------------------------------------------------------------------- globs


@lru_cache(maxsize=256)
def _glob_re(pattern: str) -> re.Pattern[str]:
    out = []
    i = 0
    pattern = pattern.lstrip("/") if pattern.startswith("/") else pattern
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:[^/]*/)*")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = pattern.find("]", i + 1)
            if end == -1:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1:end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end
        else:
            out.append(re.escape(c))
        i += 1
    # a folder pattern also selects everything below it
    return re.compile("".join(out) + "(?:/.*)?")


def glob_match(pattern: str, rel: str, name: str) -> bool:
    """Whether ``pattern`` selects a path (relative, ``/`` separated) or, for a glob with no ``/``, its name."""
    compiled = _glob_re(pattern.rstrip("/") or pattern)
    if compiled.fullmatch(rel):
        return True
    return "/" not in pattern.strip("/") and compiled.fullmatch(name) is not None


# -------------------------------------------------------------- discovery


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(read_limited(path, what="lint configuration", limit=CONFIG_MAX_BYTES).decode("utf-8"))
    except OSError as exc:
        raise RW1Error(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise RW1Error(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise RW1Error(f"{path}: not valid TOML: {exc}") from None


def _section(path: Path, doc: Mapping[str, Any]) -> tuple[Mapping[str, Any] | None, str]:
    """The lint table of a document, and how to name it in messages; None when the file has no rogerwilco table."""
    if path.name == "pyproject.toml":
        tool = doc.get("tool", {})
        if not isinstance(tool, dict):
            raise RW1Error(f"{path}: tool is expected to be a table ([tool]), got {_kind(tool)}")
        if "rogerwilco" not in tool:
            return None, "[tool.rogerwilco.lint]"
        top, name = tool["rogerwilco"], "[tool.rogerwilco.lint]"
    else:
        top, name = doc, "[lint]"
    if not isinstance(top, dict):
        raise RW1Error(f"{path}: [tool.rogerwilco] is expected to be a table")
    unknown = sorted(set(top) - {"lint"})
    if unknown:
        where = "[tool.rogerwilco]" if path.name == "pyproject.toml" else "the top level"
        raise RW1Error(f"{path}: unknown key {unknown[0]!r} in {where} (expected: a [lint] table)")
    lint = top.get("lint", {})
    if not isinstance(lint, dict):
        raise RW1Error(f"{path}: {name} is expected to be a table")
    return lint, name


def find_config(start: Path | None = None) -> Path | None:
    """The configuration file in force from ``start`` (default: the current folder) upwards, or None."""
    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        for name in CONFIG_NAMES:
            candidate = directory / name
            if candidate.is_file():
                return candidate
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            section, _ = _section(candidate, _read_toml(candidate))
            if section is not None:
                return candidate
    return None


def _strings(path: Path, table: str, key: str, value: Any) -> tuple[str, ...]:
    if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        raise RW1Error(f"{path}: {table} {key} is expected to be a list of strings, got {_kind(value)}")
    return tuple(value)


def _kind(value: Any) -> str:
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "a list",
            dict: "a table"}.get(type(value), type(value).__name__)


def load_config(path: Path | None, *, root: Path | None = None) -> LintConfig:
    """The configuration in one file (``pyproject.toml``, ``rogerwilco.toml``), checked key by key."""
    if path is None:
        return LintConfig(root=root or Path.cwd())
    path = Path(path)
    section, table = _section(path, _read_toml(path))
    folder = path.resolve().parent
    if section is None:
        return LintConfig(path=path, root=folder)
    options: dict[str, Any] = {}
    for key, value in section.items():
        if key not in _KNOWN:
            raise RW1Error(f"{path}: unknown key {key!r} in {table} (known: {', '.join(sorted(_KNOWN))})")
        if key in _LIST_KEYS:
            options[key] = _strings(path, table, key, value)
        elif key == "per-file-ignores":
            if not isinstance(value, dict):
                raise RW1Error(f"{path}: {table} per-file-ignores is expected to be a table of glob = [codes], "
                               f"got {_kind(value)}")
            options[key] = tuple((glob, _strings(path, table, f"per-file-ignores {glob!r}", codes))
                                 for glob, codes in value.items())
        elif key in ("core-only", "respect-gitignore"):
            if not isinstance(value, bool):
                raise RW1Error(f"{path}: {table} {key} is expected to be true or false, got {_kind(value)}")
            options[key] = value
        elif key == "now":
            if not isinstance(value, str):
                raise RW1Error(f"{path}: {table} now is expected to be a string YYYYMMDDTHHMMZ, got {_kind(value)}")
            options[key] = value
        elif key == "fail-on":
            if value not in FAIL_ON:
                raise RW1Error(f"{path}: {table} fail-on is expected to be one of {', '.join(FAIL_ON)}, got {value!r}")
            options[key] = value
        elif key == "baseline":
            if not isinstance(value, str):
                raise RW1Error(f"{path}: {table} baseline is expected to be a file name, got {_kind(value)}")
            options[key] = folder / value
    exclude = options.pop("exclude", DEFAULT_EXCLUDE) + options.pop("extend-exclude", ())
    return LintConfig(
        path=path, root=folder,
        select=options.get("select"), ignore=options.get("ignore", ()),
        per_file_ignores=options.get("per-file-ignores", ()),
        include=options.get("include", DEFAULT_INCLUDE), exclude=exclude,
        profiles=options.get("profiles"), core_only=options.get("core-only", False),
        now=options.get("now"), fail_on=options.get("fail-on", "warning"), baseline=options.get("baseline"),
        respect_gitignore=options.get("respect-gitignore", True),
    )


def discover(config: str | None = None, *, isolated: bool = False, start: Path | None = None) -> LintConfig:
    """The configuration for a run: ``--config``, else the one found upwards, else the defaults."""
    if isolated:
        return LintConfig(root=(start or Path.cwd()).resolve())
    if config is not None:
        return load_config(Path(config))
    found = find_config(start)
    return load_config(found) if found is not None else LintConfig(root=(start or Path.cwd()).resolve())


class FileConfigs:
    """The configuration of each file: the nearest one at or above its folder, or ``fixed`` for every file.

    Each folder's answer is kept, so a walk over many files reads each configuration file once."""

    def __init__(self, fixed: LintConfig | None = None, *, cwd: Path | None = None) -> None:
        self.fixed = fixed
        self._cwd = (cwd or Path.cwd()).resolve()
        self._by_folder: dict[Path, LintConfig] = {}
        self._ignores: dict[Path, Any] = {}

    def for_path(self, path: str | os.PathLike) -> LintConfig:
        """The configuration ``path`` (a file, or a folder) is linted with."""
        if self.fixed is not None:
            return self.fixed
        here = Path(os.path.abspath(path))
        return self._for_folder(here if here.is_dir() else here.parent)

    def _for_folder(self, folder: Path) -> LintConfig:
        known = self._by_folder.get(folder)
        if known is not None:
            return known
        found = find_config(folder)
        config = load_config(found) if found is not None else LintConfig(root=self._cwd)
        self._by_folder[folder] = config
        return config

    def walk(self, given: str) -> Iterator[str]:
        """A file as given, or the files under a folder that its configurations include and git does not ignore
        (sorted; excluded and ignored folders not entered)."""
        path = Path(given)
        if not path.is_dir():
            yield given
            return
        found: list[str] = []
        ignored = _GitIgnored(path) if self.for_path(path).respect_gitignore else None
        for directory, folders, files in os.walk(path):
            config = self.for_path(directory)
            if ignored is not None:
                ignored.enter(directory)
            folders[:] = [f for f in folders if not config.excluded(os.path.join(directory, f))
                          and not (ignored is not None and ignored(os.path.join(directory, f), folder=True))]
            found.extend(full for full in (os.path.join(directory, name) for name in files)
                         if config.included(full) and not (ignored is not None and ignored(full)))
        yield from sorted(found)


class _GitIgnored:
    """Whether git ignores a path under a walked folder: the ``.gitignore`` of every folder from the repository
    root (or the walked folder, outside a repository) down to the path's, each matched relative to its own
    folder with git's rules (``pathspec``)."""

    def __init__(self, top: Path) -> None:
        top = Path(os.path.abspath(top))
        root = repository_root(top) or top
        self._specs: dict[Path, Any] = {}
        for folder in (top, *top.parents):
            self._load(folder)
            if folder == root:
                break

    def _load(self, folder: Path) -> None:
        if folder in self._specs:
            return
        self._specs[folder] = None
        ignore_file = folder / ".gitignore"
        if ignore_file.is_file():
            import pathspec

            try:
                lines = read_limited(ignore_file, what=".gitignore", limit=CONFIG_MAX_BYTES).decode("utf-8", "replace")
            except OSError as exc:
                raise RW1Error(f"cannot read {ignore_file}: {exc.strerror}") from None
            self._specs[folder] = pathspec.GitIgnoreSpec.from_lines(lines.splitlines())

    def enter(self, directory: str) -> None:
        self._load(Path(os.path.abspath(directory)))

    def __call__(self, path: str, *, folder: bool = False) -> bool:
        here = Path(os.path.abspath(path))
        ignored: bool | None = None
        # from the shallowest .gitignore to the deepest: a deeper file's match (a negation among them) wins
        for base in sorted(self._specs, key=lambda folder_: len(folder_.parts)):
            spec = self._specs[base]
            if spec is None:
                continue
            try:
                rel = here.relative_to(base).as_posix()
            except ValueError:
                continue
            verdict = spec.check_file(rel + "/" if folder else rel).include
            if verdict is not None:
                ignored = verdict
        return bool(ignored)


def repository_root(start: str | os.PathLike) -> Path | None:
    """The nearest folder at or above ``start`` holding ``.git`` (a folder or a worktree's file)."""
    here = Path(os.path.abspath(start))
    if not here.is_dir():
        here = here.parent
    for directory in (here, *here.parents):
        if (directory / ".git").exists():
            return directory
    return None


__all__: Sequence[str] = ("FileConfigs", "LintConfig", "discover", "find_config", "load_config", "glob_match", "repository_root",
                          "DEFAULT_INCLUDE", "DEFAULT_EXCLUDE", "FAIL_ON")
