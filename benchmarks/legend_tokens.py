"""Token counts of the generated legends, full and lean, for every bundled profile.

Counts come from a real tokenizer that works offline (the ``tokens`` extra:
``pip install 'rogerwilco[tokens] @ git+https://github.com/croxio/rogerwilco'``, package bpe-openai), with the
o200k_base and cl100k_base encodings, over the text format that
``rogerwilco legend [--profile NAME] [--lean]`` prints. The goal for the pay
profile is at most 1,500 tokens full (the published vocabulary, whose full
legend the spec puts at about 1,600) and 1,000 lean (o200k_base).

    python benchmarks/legend_tokens.py [--format text|md] [--markdown]
"""

from __future__ import annotations

import argparse
import sys

from rogerwilco.core.legend import legend
from rogerwilco.core.vocab import bundled_profile_names, bundled_vocabulary, compile_vocabulary, core_vocabulary, load_profile

ENCODINGS = ("o200k_base", "cl100k_base")
GOAL = {("pay", "full"): 1500, ("pay", "lean"): 1000}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--format", choices=("text", "md"), default="text", help="legend format counted")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = parser.parse_args(argv)
    try:
        import bpe_openai
    except ImportError:
        sys.stderr.write("legend_tokens: needs the tokens extra: pip install 'rogerwilco[tokens] @ git+https://github.com/croxio/rogerwilco'\n")
        return 2
    encoders = {name: bpe_openai.get_encoding(name) for name in ENCODINGS}
    rows = []
    for name in (None, *bundled_profile_names()):
        vocab = core_vocabulary() if name is None else (
            bundled_vocabulary(name) if name in ("pay", "clin", "pform") else compile_vocabulary(load_profile(name)))
        for mode in ("full", "lean"):
            text = legend(vocab, lean=mode == "lean", fmt=args.format)
            counts = [len(encoders[e].encode(text)) for e in ENCODINGS]
            goal = GOAL.get((name, mode))
            verdict = "" if goal is None else (f"<= {goal} met" if counts[0] <= goal else f"<= {goal} NOT met")
            rows.append((name or "core", mode, len(text), *counts, verdict))
    head = ("profile", "legend", "chars", *ENCODINGS, "goal (o200k)")
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join("---" for _ in head) + "|")
        for row in rows:
            print("| " + " | ".join(str(c) for c in row) + " |")
    else:
        widths = [max(len(str(r[i])) for r in (head, *rows)) for i in range(len(head))]
        for row in (head, *rows):
            print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
