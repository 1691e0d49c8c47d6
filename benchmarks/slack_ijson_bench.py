"""The Slack export reader against ijson: what streaming the export with ijson costs, and what the reader costs.

The question (should the reader stream the export with ``ijson`` rather than
follow the JSON structure itself?) has two halves. Speed and memory: this
script measures both on a generated export (scan_bench's ``make_slack``, in
benchmarks/_data/, pretty-printed and compact) in one run:

* ``rogerwilco scan`` on the export (wall seconds, peak RSS of the process);
* the reader's own structure following alone (``JsonPath`` over each line of
  a pretty-printed export, ``compact_chunks`` over a compact one), the part
  ijson would replace;
* ijson streaming the same export message by message (``ijson.items(f,
  "item")``, C backend ``yajl2_c`` and pure-Python backend), reading each
  message's ``text``, ``ts`` and ``blocks`` texts and nothing more: the floor
  of any reader built on ijson, before a single candidate is checked;
* ``json.load`` of the whole export, the unbounded baseline.

Records: the reader reports each candidate at its physical line and column
and its JSON pointer (``/12/blocks/0/...``); ijson's events carry no byte
offset, line or column, so a reader built on them alone cannot say where a
candidate sits.

Usage: python benchmarks/slack_ijson_bench.py [--messages 64000]   (needs ijson: the bench extra)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scan_bench import _MEASURE, DATA, ensure_slack, run_scan  # noqa: E402

_IJSON = r"""
import sys, ijson
backend = ijson.get_backend(sys.argv[2])
texts = 0
with open(sys.argv[1], "rb") as f:
    for message in backend.items(f, "item"):
        texts += len(message.get("text", "")) + len(message.get("ts", ""))
        for block in message.get("blocks", ()):
            for element in block.get("elements", ()):
                texts += sum(len(e.get("text", "")) for e in element.get("elements", ()))
print(texts, file=sys.stderr)
"""

_STRUCTURE = r"""
import sys
from rogerwilco.io.scan.frames import JsonPath
from rogerwilco.io.scan.sources import compact_chunks
strings = 0
with open(sys.argv[1], "rb") as f:
    if sys.argv[2] == "compact":
        for chunk in compact_chunks(b"", f, sys.argv[1]):
            strings += len(chunk.elements or ())
    else:
        tracker = JsonPath()
        for raw in f:
            strings += len(tracker.feed(raw.decode("utf-8", "surrogateescape")))
print(strings, file=sys.stderr)
"""

_JSON_LOAD = r"""
import json, sys
with open(sys.argv[1], "rb") as f:
    print(len(json.load(f)), file=sys.stderr)
"""


def measure(code: str, *args: str) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB) of ``python -c code args``."""
    cmd = [sys.executable, "-c", _MEASURE, sys.executable, "-c", code, *args]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.split()
    if int(out[0]) != 0:
        raise SystemExit(f"{code[:30]!r} exited {out[0]}")
    return float(out[1]), int(out[2]) / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--messages", type=int, default=64_000, help="messages in the export (default 64,000)")
    args = ap.parse_args()
    try:
        import ijson  # noqa: F401
    except ImportError:
        raise SystemExit("slack_ijson_bench.py needs ijson: pip install 'rogerwilco[bench]'") from None
    DATA.mkdir(exist_ok=True)
    print(f"{'export':<28} {'reader':<28} {'wall s':>8} {'peak RSS MiB':>13}")
    for compact in (False, True):
        suffix = "-compact" if compact else ""
        path = ensure_slack(DATA / f"slack-{args.messages}{suffix}.json", args.messages, compact)
        name = f"{path.name} ({path.stat().st_size >> 20} MiB)"
        rows = [("rogerwilco scan", run_scan(path, 1)),
                ("rogerwilco structure only", measure(_STRUCTURE, str(path), "compact" if compact else "pretty")),
                ("ijson yajl2_c (parse only)", measure(_IJSON, str(path), "yajl2_c")),
                ("ijson python (parse only)", measure(_IJSON, str(path), "python")),
                ("json.load (whole)", measure(_JSON_LOAD, str(path)))]
        for reader, (wall, rss) in rows:
            print(f"{name:<28} {reader:<28} {wall:8.2f} {rss:13.1f}")


if __name__ == "__main__":
    main()
