"""SARIF 2.1.0 and GitHub workflow annotations for lint findings.

Theory of operation
-------------------
:func:`to_sarif` builds one run: the tool driver lists every rule of
:data:`rogerwilco.lint.RULES` (id, name, short and full description, help
with the rule's example, default level), and each finding becomes a result
with its rule id and index, level, message, one physical location (a
relative URI, 1-based line and code-point columns spanning the token) and a
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
from typing import Any, Iterable
from urllib.parse import quote

from . import __version__
from .errors import printable
from .lint import RULES, LintFinding

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT_KEY = "rogerwilcoLine/v1"
_RULE_INDEX = {code: i for i, code in enumerate(RULES)}


def _pascal(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("-"))


def sarif_rules() -> list[dict[str, Any]]:
    rules = []
    for rule in RULES.values():
        example = f"fires on:\n{rule.bad}\n\nquiet on:\n{rule.good}"
        rules.append({
            "id": rule.code,
            "name": _pascal(rule.name),
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": f"{rule.code} {rule.name}: {rule.summary}."},
            "help": {"text": example, "markdown": f"**{rule.code}** {rule.summary}.\n\nFires on:\n\n```\n{rule.bad}\n```\n\n"
                                                  f"Quiet on:\n\n```\n{rule.good}\n```"},
            "defaultConfiguration": {"level": rule.level},
            "properties": {"tags": ["rw1", "stream" if rule.code.startswith("RW1") else "line"]},
        })
    return rules


def artifact_uri(file: str) -> str:
    """A relative URI for a file name (forward slashes, percent-encoded)."""
    if file in ("<stdin>", "-"):
        return "stdin"
    path = file
    if os.path.isabs(path):
        try:
            path = os.path.relpath(path)
        except ValueError:
            pass
    return quote(path.replace(os.sep, "/"), safe="/._-~")


def sarif_result(finding: LintFinding) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": max(1, finding.line)}
    if finding.column:
        region["startColumn"] = finding.column
        region["endColumn"] = finding.column + max(1, len(finding.token or ""))
    return {
        "ruleId": finding.code,
        "ruleIndex": _RULE_INDEX[finding.code],
        "level": finding.level,
        "message": {"text": f"{finding.token}: {finding.message}" if finding.token else finding.message},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": artifact_uri(finding.file)}, "region": region}}],
        "partialFingerprints": {FINGERPRINT_KEY: finding.fingerprint()},
    }


def to_sarif(findings: Iterable[LintFinding]) -> dict[str, Any]:
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "rogerwilco", "version": __version__, "semanticVersion": __version__,
                                "rules": sarif_rules()}},
            "columnKind": "unicodeCodePoints",
            "results": [sarif_result(f) for f in findings],
        }],
    }


def escape_data(text: str) -> str:
    # CR and LF as the runner's own escapes; every other control or
    # line-breaking character shown as an escape, so no reader of the log
    # (some split on U+2028 too) sees a second line.
    return printable(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotation(finding: LintFinding) -> str:
    """One workflow command line: ``::error file=F,line=N,col=C,title=RW105::message``."""
    command = "error" if finding.level == "error" else "warning"
    props = [f"file={escape_property(finding.file)}", f"line={finding.line}"]
    if finding.column:
        props.append(f"col={finding.column}")
    props.append(f"title={escape_property(finding.code + ' ' + finding.rule.name)}")
    text = f"{finding.token}: {finding.message}" if finding.token else finding.message
    return f"::{command} {','.join(props)}::{escape_data(text)}"
