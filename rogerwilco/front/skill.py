"""The Agent Skill: a SKILL.md an agent loads to read, write and check RW1 lines.

Theory of operation
-------------------
An Agent Skill is a folder named after the skill holding ``SKILL.md``: YAML
front matter with ``name`` (lowercase letters, digits and single hyphens, at
most 64 characters, the folder's own name) and ``description`` (what the
skill does and when to use it, at most 1024 characters), then a Markdown body
the agent reads when the skill applies. :func:`skill_text` writes one from
the vocabulary: the legend is generated (:func:`rogerwilco.core.legend.legend`),
never written by hand, so it names exactly the codes and slots the validator
accepts; the rest says how to check lines with this package, on the command
line and in Python. :func:`write_skill` puts it in ``<out>/<name>/SKILL.md``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..core._version import __version__
from ..core.legend import legend
from ..core.vocab import Receiver

#: the Agent Skills format's limits (agentskills.io specification)
NAME_RE = re.compile(r"[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9]))*")
MAX_NAME = 64
MAX_DESCRIPTION = 1024

#: how this package is installed until a release carries it (docs/migrating.md)
INSTALL = "pip install 'rogerwilco @ git+https://github.com/croxio/rogerwilco'"


def skill_name(profile: str | None) -> str:
    """``rogerwilco``, or ``rogerwilco-<profile>`` (an underscore of a profile name becomes a hyphen)."""
    if profile is None:
        return "rogerwilco"
    suffix = re.sub(r"-{2,}", "-", re.sub(r"[^a-z0-9-]", "-", profile.lower())).strip("-")
    return f"rogerwilco-{suffix}"[:MAX_NAME].rstrip("-")


def _description(profile: str | None) -> str:
    under = f" under the {profile} profile" if profile else ""
    return (f"Read, write and check RW1 one-line messages{under}: handoffs (HO), readbacks (RB), questions, answers, "
            "status, done reports and refusals between agents. Use when handing work to another agent or subagent, "
            "when a message starts with 'RW1 ', or before and after an act that cannot be undone (check the "
            "readback and the done report with the rogerwilco package).")


def _body(profile: str | None, legend_text: str) -> str:
    p = f" --profile {profile}" if profile else ""
    pp = f', "{profile}"' if profile else ""
    title = f"RW1 messages (rogerwilco {__version__}" + (f", profile {profile})" if profile else ")")
    return f"""# {title}

One message per line, facts in keyed slots, reasoning in the tail. The legend
below is generated from the vocabulary the validator uses: write only the
types, slots and codes it names.

## The legend

```text
{legend_text}
```

## What to do

- Handing work over: send an HO; you own the item until the receiver's RB
  passes your check. Before an act that cannot be undone, ask `rb=exec`.
- Receiving an HO: send the RB before anything else. Where you can run code,
  compose it with `make-rb` (it adds `h=`), never by hand.
- A line you cannot read, or a code you do not know: reply `UN why=UNK`,
  never guess.
- Every HO closes once: DN, UN or FL from its receiver, or CX from its sender.

## Checking lines with rogerwilco

Install: `{INSTALL}` (`rogerwilco --version` names this package).

- `rogerwilco validate{p} "<line>"`: every finding; exit 1 when the line is refused
- `rogerwilco make-rb{p} "<HO>" <your-id>-<n>`: the readback, by code, with `h=`
- `rogerwilco check-rb{p} "<HO>" "<RB>"`: the sender's check; exit 0 means wilco
- `rogerwilco check-ho{p} "<HO>" '<record json>'`: before sending, the HO against the record
- `rogerwilco check-dn{p} "<HO>" "<DN>" --rb "<RB>"`: after the act, the done report against the plan
- `rogerwilco check-thread FILE`: every handoff closes
- `rogerwilco legend{p} --lean`: the legend above

In Python:

```python
import rogerwilco as rw
problems, notes = rw.check_rb_full(ho, rb{pp})   # empty problems: the readback passes
rb = rw.make_rb(ho, "writer-1"{pp})
```
"""


def skill_text(profile: str | None = None) -> tuple[str, str]:
    """(the skill's name, its SKILL.md text) for the core, or the core and one profile (a name or a path)."""
    vocab = Receiver().vocabulary(None)
    if profile is not None:
        receiver = Receiver.load([profile])
        vocab = receiver.vocabulary(receiver.names[0])
        profile = vocab.profile
    name = skill_name(profile)
    # a JSON string is a YAML double-quoted scalar: the description's colons stay text
    text = (f"---\nname: {name}\ndescription: {json.dumps(_description(profile))}\n---\n\n"
            + _body(profile, legend(vocab, lean=True)))
    return name, text


def write_skill(out: str | Path, profile: str | None = None) -> Path:
    """Write ``<out>/<name>/SKILL.md`` and return its path."""
    name, text = skill_text(profile)
    folder = Path(out) / name
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "SKILL.md"
    path.write_text(text, encoding="utf-8")
    return path


__all__ = ["INSTALL", "MAX_DESCRIPTION", "MAX_NAME", "NAME_RE", "skill_name", "skill_text", "write_skill"]
