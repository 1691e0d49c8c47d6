"""skill: write the Agent Skill folder (SKILL.md) for an agent to load."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("skill", help="write an Agent Skill folder (SKILL.md with the legend) for an agent to load")
    p.add_argument("--profile", "-p", metavar="NAME|PATH", help="the profile (default: the core alone)")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="where the skill folder goes: DIR/<name>/SKILL.md (e.g. ~/.claude/skills or .claude/skills)")
    p.set_defaults(func=cmd_skill)


def cmd_skill(args: argparse.Namespace) -> int:
    from ..skill import write_skill

    path = write_skill(args.out, args.profile)
    sys.stdout.write(f"{path}\n")
    return 0
