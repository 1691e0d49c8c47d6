"""SARIF 2.1.0 and GitHub workflow annotations for lint findings.

Theory of operation
-------------------
:func:`to_sarif` builds one run: the tool driver lists every rule of
:data:`rogerwilco.io.lint.RULES` (id, name, short and full description, help
with the rule's example, default level), and each finding becomes a result
with its rule id and index, level, message, one physical location (a URI
relative to the repository root under the ``%SRCROOT%`` base, whose absolute
``file://`` URI ``originalUriBaseIds`` gives, or an absolute ``file://`` URI
for a file outside any repository; 1-based line and code-point columns
spanning the token), a ``fixes`` entry where a "did you mean" suggestion
exists, and a
``partialFingerprints`` entry that does not change when lines move, so a
code-scanning service matches a finding across commits. The output validates
against the OASIS SARIF 2.1.0 schema (tested against the vendored schema).

:func:`github_annotation` writes the ``::error file=...::message`` workflow
command. Its data is escaped as the runner reads it back (``%`` ``\\r``
``\\n`` as ``%25`` ``%0D`` ``%0A``; in properties also ``:`` and ``,``), so
text from a message file can never end the command early or start another.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Iterable
from urllib.parse import quote

from ..core._version import __version__
from ..core.errors import printable
from .lint import RULES, LintFinding, LintRule
from .lint_config import repository_root

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT_KEY = "rogerwilcoLine/v1"
SRCROOT = "%SRCROOT%"
#: the project's home, where each rule's documentation is (the same URL as pyproject's Homepage)
HOMEPAGE = "https://github.com/croxio/rogerwilco"
DOCS_URL = HOMEPAGE + "/blob/main/docs/lint.md"
_RULE_INDEX = {code: i for i, code in enumerate(RULES)}


def _pascal(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("-"))


def _anchor(rule: LintRule) -> str:
    """The anchor GitHub gives the rule's heading in docs/lint.md (``### RW001 syntax (error)``)."""
    heading = f"{rule.code} {rule.name} ({rule.level})".lower()
    return re.sub(r"[^a-z0-9 _-]", "", heading).replace(" ", "-")


def help_uri(rule: LintRule) -> str:
    return f"{DOCS_URL}#{_anchor(rule)}"


def sarif_rules() -> list[dict[str, Any]]:
    rules = []
    for rule in RULES.values():
        example = f"fires on:\n{rule.bad}\n\nquiet on:\n{rule.good}"
        rules.append({
            "id": rule.code,
            "name": _pascal(rule.name),
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": f"{rule.code} {rule.name}: {rule.summary}."},
            "helpUri": help_uri(rule),
            "help": {"text": example, "markdown": f"**{rule.code}** {rule.summary}.\n\nFires on:\n\n```\n{rule.bad}\n```\n\n"
                                                  f"Quiet on:\n\n```\n{rule.good}\n```"},
            "defaultConfiguration": {"level": rule.level},
            "properties": {"tags": ["rw1", "stream" if rule.code.startswith("RW1") else "line"]},
        })
    return rules


def _encode(path: str) -> str:
    return quote(path, safe="/._-~")


def artifact_location(file: str, root: Path | None) -> dict[str, Any]:
    """Where a file is, for SARIF: relative to the repository root under ``%SRCROOT%``, else an absolute ``file://`` URI."""
    if file in ("<stdin>", "-", "<stream>"):
        return {"uri": "stdin"}
    absolute = Path(os.path.abspath(file))
    if root is not None:
        try:
            rel = absolute.relative_to(root)
        except ValueError:
            try:
                rel = absolute.resolve().relative_to(root.resolve())
            except ValueError:
                rel = None
        if rel is not None:
            return {"uri": _encode(rel.as_posix()), "uriBaseId": SRCROOT}
    return {"uri": absolute.resolve().as_uri()}


def artifact_uri(file: str) -> str:
    """A file's URI as SARIF reports it from the current folder (relative to the repository root where there is one)."""
    return artifact_location(file, repository_root(Path.cwd()))["uri"]


def sarif_result(finding: LintFinding, root: Path | None = None) -> dict[str, Any]:
    line = max(1, finding.line)
    region: dict[str, Any] = {"startLine": line, "endLine": line}
    if finding.column:
        region["startColumn"] = finding.column
        region["endColumn"] = finding.end_column
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "ruleIndex": _RULE_INDEX[finding.code],
        "level": finding.level,
        "message": {"text": finding.said()},
        "locations": [{"physicalLocation": {"artifactLocation": artifact_location(finding.file, root),
                                            "region": region}}],
        "partialFingerprints": {FINGERPRINT_KEY: finding.fingerprint()},
    }
    if finding.fix and finding.column:
        result["fixes"] = [{
            "description": {"text": f"replace {finding.token} with {finding.fix}"},
            "artifactChanges": [{"artifactLocation": artifact_location(finding.file, root),
                                 "replacements": [{"deletedRegion": dict(region),
                                                   "insertedContent": {"text": finding.fix}}]}],
        }]
    return result


def to_sarif(findings: Iterable[LintFinding], *, start: Path | None = None) -> dict[str, Any]:
    """One SARIF run; locations relative to the repository holding ``start`` (default: the current folder)."""
    root = repository_root(start or Path.cwd())
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "rogerwilco", "version": __version__, "semanticVersion": __version__,
                            "informationUri": HOMEPAGE, "rules": sarif_rules()}},
        "columnKind": "unicodeCodePoints",
        "results": [sarif_result(f, root) for f in findings],
    }
    if root is not None:
        run["originalUriBaseIds"] = {SRCROOT: {"uri": root.resolve().as_uri() + "/"}}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def escape_data(text: str) -> str:
    # CR and LF as the runner's own escapes; every other control or
    # line-breaking character shown as an escape, so no reader of the log
    # (some split on U+2028 too) sees a second line.
    return printable(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workspace_path(file: str, workspace: str | None = None) -> str:
    """A file as a workflow annotation names it: relative to the workspace the runner resolves ``file=`` against
    (``GITHUB_WORKSPACE``, else the repository root above the working folder), so a step run from a subfolder
    still lands on the right file; a file outside it, absolute. Standard input stays as named."""
    if file in ("<stdin>", "-", "<stream>"):
        return file
    base = workspace if workspace is not None else os.environ.get("GITHUB_WORKSPACE")
    root = Path(base) if base else repository_root(Path.cwd())
    absolute = Path(os.path.abspath(file))
    if root is not None:
        for here, there in ((absolute, Path(os.path.abspath(root))), (absolute.resolve(), Path(root).resolve())):
            try:
                return here.relative_to(there).as_posix()
            except ValueError:
                continue
    return absolute.as_posix()


def github_annotation(finding: LintFinding, workspace: str | None = None) -> str:
    """One workflow command: ``::error file=F,line=N,endLine=N,col=C,endColumn=E,title=rogerwilco (RW105)::message``,
    ``F`` relative to the workspace (:func:`workspace_path`)."""
    command = "error" if finding.level == "error" else "warning"
    props = [f"file={escape_property(workspace_path(finding.file, workspace))}", f"line={finding.line}",
             f"endLine={finding.line}"]
    if finding.column:
        props.append(f"col={finding.column}")
        props.append(f"endColumn={finding.end_column}")
    props.append(f"title={escape_property(f'rogerwilco ({finding.code})')}")
    return f"::{command} {','.join(props)}::{escape_data(finding.said())}"
