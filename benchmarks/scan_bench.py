"""Scan throughput, scaling and memory, with the core parse path as the baseline.

Generates mixed logs under benchmarks/_data/ (git-ignored; made once, reused
when present): noise log lines, RW1 messages behind timestamps, levels,
``[agent]`` and ``agent:`` prefixes, in JSON Lines records and Markdown
quotes, and about 2% broken messages. Then, every figure measured in this
run:

* lines/s of ``rogerwilco scan`` single-process and with ``-j 2`` on the
  large log, and the scaling ratio (goal: >= 0.8 x N on N cores);
* peak RSS of the scanning processes (largest process: the parent, or a
  worker under -j) on the small and the large log: flat means the two are
  about equal and both under 100 MB;
* per-message cost of scanning against ``rogerwilco.check_line`` alone on
  the same message texts (the core path): the scanner's overhead per message
  is the ratio, and it runs no extra parse.

Against ``jq``: the large log's records (``rogerwilco scan``'s own JSON
Lines output, written once) read back by ``jq -c .`` and by ``json.loads``
per line, CPU time beside the scan's (``--no-jq`` leaves it out; ``jq`` is
``apt-get install jq``). The goal: the scan of the log at least as fast as
``jq -c .`` over the same records. Beside them, Parquet: ``rogerwilco scan
-o FILE.parquet`` of the log against the scan to JSON Lines, and against
pyarrow's own JSON reader and Parquet writer over the same records (the
pyarrow it writes with; left out where pyarrow is not installed).

Slack mode (issue: a Slack export must be read in bounded memory): a
pretty-printed Slack-style export (a JSON array of messages, each with its
``blocks`` copy, about 1 KB a message) at two sizes, and the same export
written compact on one line; peak RSS of each with -j 1 and -j N. Flat
means under 100 MB at both sizes.

Usage: python benchmarks/scan_bench.py [--lines 1000000] [--small 250000] [--jobs 2]
                                        [--slack 64000] [--slack-small 16000] [--no-lines] [--no-slack]
                                        [--no-jq] [--jq-only]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "_data"

MESSAGES = [
    "RW1 HO {a}-{n} from={a} to={b} item=gh:crox/site#{k} ask=DRAFT due=20261002 pri=2 conf=M keep={a} // hero copy, 120 words, no em dashes",
    "RW1 RB {b}-{n} re={a}-{m} from={b} to={a} item=gh:crox/site#{k} ask=DRAFT due=20261002 h=c40bba4360dc",
    "RW1 AQ {b}-{n} re={a}-{m} from={b} to={a} item=gh:crox/site#{k} need=ENUM opts=formal+plain+punchy // tone?",
    "RW1 AN {a}-{n} re={b}-{m} from={a} to={b} val=plain",
    "RW1 DN {b}-{n} re={a}-{m} from={b} to={a} item=gh:crox/site#{k} out=OK art=sha256:9f3e1c // v1, 118 words",
    "RW1 ST {b}-{n} from={b} to={a} item=jira:OPS-{k} pct=40 eta=20261003",
    "RW1 UN {b}-{n} re={a}-{m} from={b} to={a} item=gh:crox/site#{k} why=NOCTX alt=copywriter // no style guide on file",
]
BROKEN = [
    "RW1 HO {a}-{n} from={a} to={b} item=gh:crox/site#{k} ask=DRAFTT",
    "RW1 HO {a}-{n} from={a}  to={b} item=x:{k} ask=FIX",
    "RW2 ST {a}-{n} from={a} to={b} item=x:{k}",
    "RW1 HO {a}-{n} from={a} to={b} ask=FIX pri=9",
]
AGENTS = ["research", "writer", "ops", "builder", "triage", "payer", "scheduler"]
WORDS = ("request handled cache miss retry backoff upstream connection pool RWLock acquired released "
         "worker heartbeat queue depth latency p99 flushed segment compaction checkpoint tokens").split()


def make_log(path: Path, lines: int, seed: int = 7) -> None:
    rnd = random.Random(seed)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as out:
        for i in range(lines):
            ts = f"2026-10-01T{(i // 3600) % 24:02d}:{(i // 60) % 60:02d}:{i % 60:02d}.{i % 1000:03d}Z"
            r = rnd.random()
            if r < 0.8:
                words = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(10, 16)))
                out.write(f"{ts} {rnd.choice(('INFO', 'DEBUG', 'WARN'))} [svc-{rnd.randint(1, 9)}] {words} id={rnd.getrandbits(40):x}\n")
                continue
            a, b = rnd.sample(AGENTS, 2)
            template = rnd.choice(BROKEN) if rnd.random() < 0.1 else rnd.choice(MESSAGES)
            msg = template.format(a=a, b=b, n=i, m=max(1, i - 3), k=rnd.randint(1, 999))
            form = rnd.random()
            if form < 0.4:
                out.write(f"{ts} INFO [{b}] {msg}\n")
            elif form < 0.6:
                out.write(f"{b}: {msg}\n")
            elif form < 0.9:
                out.write(json.dumps({"ts": ts, "level": "info", "agent": b, "event": {"msg": msg}}) + "\n")
            else:
                out.write(f"> {msg}\n")
    tmp.replace(path)


def make_slack(path: Path, messages: int, *, compact: bool = False, seed: int = 7) -> None:
    """A Slack-style export: a JSON array of messages, half of them RW1 lines, each with a blocks copy."""
    rnd = random.Random(seed)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as out:
        out.write("[" if compact else "[\n")
        for i in range(messages):
            if rnd.random() < 0.5:
                a, b = rnd.sample(AGENTS, 2)
                template = rnd.choice(BROKEN) if rnd.random() < 0.1 else rnd.choice(MESSAGES)
                text = template.format(a=a, b=b, n=i, m=max(1, i - 3), k=rnd.randint(1, 999))
            else:
                text = " ".join(rnd.choice(WORDS) for _ in range(12))
            message = {
                "type": "message", "text": text, "user": f"U0{rnd.randint(0, 10 ** 6):07d}",
                "ts": f"{1790000000 + i}.{i % 10 ** 6:06d}", "team": "T0123",
                "blocks": [{"type": "rich_text", "block_id": f"b{i}", "elements": [
                    {"type": "rich_text_section", "elements": [{"type": "text", "text": text}]}]}],
                "user_profile": {"real_name": "Agent", "display_name": "agent", "team": "T0123"},
            }
            sep = "," if i < messages - 1 else ""
            if compact:
                out.write(json.dumps(message) + sep)
            else:
                out.write("    " + json.dumps(message, indent=4).replace("\n", "\n    ") + sep + "\n")
        out.write("]\n")
    tmp.replace(path)


def ensure_slack(path: Path, messages: int, compact: bool = False) -> Path:
    if not path.exists():
        print(f"generating {path.name} ({messages:,} messages)...", file=sys.stderr)
        make_slack(path, messages, compact=compact)
    return path


def ensure(path: Path, lines: int) -> Path:
    if not path.exists():
        print(f"generating {path.name} ({lines:,} lines)...", file=sys.stderr)
        make_log(path, lines)
    return path


def count_lines(path: Path) -> int:
    n = 0
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            n += block.count(b"\n")
    return n


_MEASURE = r"""
import resource, subprocess, sys, time
t = time.perf_counter()
with open(sys.argv[1], "wb") as out:
    rc = subprocess.call(sys.argv[2:], stdout=out)
wall = time.perf_counter() - t
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(rc, wall, usage.ru_maxrss, usage.ru_utime + usage.ru_stime)
"""


def measure(cmd: list[str], stdout: str = os.devnull) -> tuple[float, float, float]:
    """(wall seconds, peak RSS MiB of the largest child process, CPU seconds of all of them) of one command."""
    said = subprocess.run([sys.executable, "-c", _MEASURE, stdout, *cmd], check=True, capture_output=True,
                          text=True).stdout.split()
    rc, wall, rss_kib, cpu = int(said[0]), float(said[1]), int(said[2]), float(said[3])
    if rc != 0:
        raise SystemExit(f"{cmd[0]} exited {rc}")
    return wall, rss_kib / 1024, cpu


def run_scan(path: Path, jobs: int, out: str = os.devnull) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB of the largest scanning process) of one CLI scan."""
    wall, rss, _ = measure([sys.executable, "-m", "rogerwilco", "scan", str(path), "-o", out, "-f", "jsonl",
                            "--no-summary", "-j", str(jobs)])
    return wall, rss


def jq_figures(path: Path, rounds: int = 3) -> None:
    """The scan of ``path`` against ``jq -c .`` and ``json.loads`` over the same records, CPU seconds, best of
    ``rounds`` interleaved."""
    records = path.with_suffix(".records.jsonl")
    if not records.exists():
        run_scan(path, 1, str(records))
    jq = shutil.which("jq")
    loads = "import json, sys\nfor line in open(sys.argv[1], 'rb'): json.loads(line)"
    parquet = str(path.with_suffix(".bench.parquet"))
    to_parquet = ("import sys, pyarrow.json as j, pyarrow.parquet as pq\n"
                  "pq.write_table(j.read_json(sys.argv[1]), sys.argv[2])")
    paths = {"rogerwilco scan (-j 1)": [sys.executable, "-m", "rogerwilco", "scan", str(path), "-f", "jsonl",
                                         "--no-summary"],
             "json.loads per record": [sys.executable, "-c", loads, str(records)]}
    if importlib.util.find_spec("pyarrow") is not None:
        paths["rogerwilco scan -o .parquet"] = [sys.executable, "-m", "rogerwilco", "scan", str(path), "-o", parquet,
                                                "--no-summary"]
        paths["pyarrow.json to Parquet"] = [sys.executable, "-c", to_parquet, str(records), parquet]
    if jq is not None:
        paths["jq -c . over the records"] = [jq, "-c", ".", str(records)]
    best = {name: (float("inf"), float("inf")) for name in paths}
    for _ in range(rounds):
        for name, cmd in paths.items():
            wall, _, cpu = measure(cmd)
            best[name] = min(best[name], (cpu, wall))
    n = count_lines(records)
    print(f"against jq: {n:,} records of {path.name}, best of {rounds} interleaved rounds, CPU seconds (wall)")
    for name, (cpu, wall) in best.items():
        print(f"  {name:28s} {cpu:7.2f} s ({wall:.2f} s)")
    if "rogerwilco scan -o .parquet" in best:
        Path(parquet).unlink(missing_ok=True)
        to_file = best["rogerwilco scan -o .parquet"][0]
        print(f"  scan -o .parquet / scan to JSON Lines: {to_file / best['rogerwilco scan (-j 1)'][0]:.2f}x; "
              f"/ pyarrow's own JSON reader and Parquet writer over the records: "
              f"{to_file / best['pyarrow.json to Parquet'][0]:.2f}x")
    if jq is None:
        print("  jq -c . : not installed (apt-get install jq)")
        return
    scan_cpu, jq_cpu = best["rogerwilco scan (-j 1)"][0], best["jq -c . over the records"][0]
    print(f"  scan / jq: {scan_cpu / jq_cpu:.2f}x the CPU time (goal <= 1.00)")


def parse_cost(path: Path, limit: int = 100_000) -> tuple[float, float, float, int]:
    """µs per message: check_line alone (the core path), the scanner on the same texts as bare
    lines, and the scanner on the log lines they came from (prefixes, JSON, quotes)."""
    sys.path.insert(0, str(HERE.parent))
    from rogerwilco import Receiver, check_line
    from rogerwilco.io.scan import CANDIDATE_RE, records_of_line

    receiver = Receiver.all_bundled()
    log_lines, texts = [], []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if "RW" in line and CANDIDATE_RE.search(line):
                records = records_of_line(line, receiver, file="x", line=1)
                log_lines.append(line)
                texts.extend(r.text for r in records)
                if len(log_lines) >= limit:
                    break
    best = {"core": float("inf"), "bare": float("inf"), "log": float("inf")}
    for _ in range(3):
        for name, work in (("core", lambda: [check_line(t, receiver) for t in texts]),
                           ("bare", lambda: [records_of_line(t, receiver, file="x", line=1) for t in texts]),
                           ("log", lambda: [records_of_line(t, receiver, file="x", line=1) for t in log_lines])):
            t = time.perf_counter()
            work()
            best[name] = min(best[name], time.perf_counter() - t)
    n = len(texts)
    return best["core"] / n * 1e6, best["bare"] / n * 1e6, best["log"] / n * 1e6, n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, default=1_000_000, help="lines of the large log (default 1,000,000)")
    ap.add_argument("--small", type=int, default=250_000, help="lines of the small log (default 250,000)")
    ap.add_argument("--jobs", type=int, default=2, help="workers for the parallel run (default 2)")
    ap.add_argument("--slack", type=int, default=64_000, help="messages in the large Slack export (default 64,000)")
    ap.add_argument("--slack-small", type=int, default=16_000, help="messages in the small Slack export")
    ap.add_argument("--no-lines", action="store_true", help="skip the mixed-log figures")
    ap.add_argument("--no-slack", action="store_true", help="skip the Slack-export figures")
    ap.add_argument("--no-jq", action="store_true", help="skip the comparison with jq")
    ap.add_argument("--jq-only", action="store_true", help="only the comparison with jq (the large log)")
    args = ap.parse_args()
    DATA.mkdir(exist_ok=True)
    if args.jq_only:
        jq_figures(ensure(DATA / f"mixed-{args.lines}.log", args.lines))
        return
    if not args.no_lines:
        lines_figures(args)
    if not args.no_slack:
        slack_figures(args)


def slack_figures(args: argparse.Namespace) -> None:
    print(f"load average before the Slack runs: {os.getloadavg()[0]:.2f}")
    for compact in (False, True):
        shape = "compact, one line" if compact else "pretty-printed"
        suffix = "-compact" if compact else ""
        small = ensure_slack(DATA / f"slack-{args.slack_small}{suffix}.json", args.slack_small, compact)
        large = ensure_slack(DATA / f"slack-{args.slack}{suffix}.json", args.slack, compact)
        mb_s, mb_l = small.stat().st_size / 1e6, large.stat().st_size / 1e6
        wall_s, rss_s = run_scan(small, 1)
        wall_l, rss_l = run_scan(large, 1)
        wall_j, rss_j = run_scan(large, args.jobs)
        print(f"Slack export ({shape}): small {mb_s:.1f} MB, large {mb_l:.1f} MB")
        print(f"  peak RSS -j 1: small {rss_s:.1f} MiB, large {rss_l:.1f} MiB (ratio {rss_l / rss_s:.2f}); "
              f"-j {args.jobs} large {rss_j:.1f} MiB (largest process)")
        print(f"  time: -j 1 small {wall_s:.1f} s, large {wall_l:.1f} s ({mb_l / wall_l:.1f} MB/s); "
              f"-j {args.jobs} large {wall_j:.1f} s")


def lines_figures(args: argparse.Namespace) -> None:
    large = ensure(DATA / f"mixed-{args.lines}.log", args.lines)
    small = ensure(DATA / f"mixed-{args.small}.log", args.small)
    n_large, n_small = count_lines(large), count_lines(small)
    mb_large, mb_small = large.stat().st_size / 1e6, small.stat().st_size / 1e6
    print(f"cores: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.2f} (other work on the machine skews -j)")
    print(f"large log: {n_large:,} lines, {mb_large:.1f} MB   small log: {n_small:,} lines, {mb_small:.1f} MB")

    wall1, rss1 = min(run_scan(large, 1) for _ in range(2))
    wallj, rssj = min(run_scan(large, args.jobs) for _ in range(2))
    wall_s, rss_s = run_scan(small, 1)
    wall_sj, rss_sj = run_scan(small, args.jobs)
    rate1, ratej = n_large / wall1, n_large / wallj
    scaling = ratej / rate1
    print(f"scan -j 1: {rate1:,.0f} lines/s ({wall1:.2f} s, {mb_large / wall1:.1f} MB/s)")
    print(f"scan -j {args.jobs}: {ratej:,.0f} lines/s ({wallj:.2f} s)")
    print(f"scaling: {scaling:.2f}x on {args.jobs} workers = {scaling / args.jobs:.2f} x N (goal >= 0.80)")
    print(f"peak RSS -j 1: small {rss_s:.1f} MiB, large {rss1:.1f} MiB (ratio {rss1 / rss_s:.2f})")
    print(f"peak RSS -j {args.jobs}: small {rss_sj:.1f} MiB, large {rssj:.1f} MiB (largest process; ratio {rssj / rss_sj:.2f})")
    print(f"load average after the timed runs: {os.getloadavg()[0]:.2f}")
    if not args.no_jq:
        jq_figures(large)
    core_us, bare_us, log_us, n = parse_cost(large)
    print(f"per message ({n:,} messages): check_line alone {core_us:.1f} us; scanner on the same texts as bare lines "
          f"{bare_us:.1f} us (ratio {bare_us / core_us:.2f}); scanner on their log lines {log_us:.1f} us "
          f"(ratio {log_us / core_us:.2f}: prefixes, JSON decoding, record building)")


if __name__ == "__main__":
    main()
