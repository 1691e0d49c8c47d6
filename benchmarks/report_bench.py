"""``rogerwilco report`` over long conversations: time to write, file size, peak memory, and the page in Chromium.

The conversations are thread_bench's (handoffs between 40 pairs of agents, read back, re-issued, questioned,
cancelled, some left open; written under benchmarks/_data/ once per size). For each size the report is written
in a fresh process that reports its wall time and peak RSS, beside ``check-thread`` on the same file in the
same run (the report is meant to keep check-thread's memory bound); every figure has its ratio against the
smallest size. With ``--browser`` each report is then opened in the system Chromium (tests/browser's
playwright-core; run ``npm ci`` there first): the time until the page has drawn itself, the JavaScript heap,
and a scroll from the first message to the last in 100 steps (the worst and the mean time of a step, and how
many arrows are in the page at the end: the diagram is windowed, so that number does not grow).

Usage: python benchmarks/report_bench.py [--sizes 1000,10000,100000] [--browser]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from thread_bench import data_file  # noqa: E402 (the same conversations as check-thread's benchmark)

NOW = "20261003T0900Z"

CHILD = r"""
import json, os, resource, sys, time
what, path, out = sys.argv[1], sys.argv[2], sys.argv[3]
from rogerwilco.front.cli import main
start = time.perf_counter()
if what == "report":
    code = main(["report", "--now", "%s", path, "-o", out])
else:
    saved = os.dup(1)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    try:
        code = main(["check-thread", "--now", "%s", "--format", "json", path])
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "exit": code}))
""" % (NOW, NOW)

OPEN = r"""
import { createRequire } from "node:module";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
const require = createRequire(process.argv[2]);
const { chromium } = require("playwright-core");
const profile = mkdtempSync(join(tmpdir(), "rw1-bench-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: "/usr/bin/chromium", headless: true, offline: true, viewport: { width: 1400, height: 1000 },
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"] });
const page = await context.newPage();
const start = Date.now();
await page.goto(pathToFileURL(process.argv[3]).href, { timeout: 0 });
await page.waitForSelector("body[data-ready='1']", { timeout: 0 });
const ready = Date.now() - start;
const scroll = await page.evaluate(async () => {
  const box = document.getElementById("lanes");
  const frame = () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  const steps = 100, times = [];
  for (let i = 1; i <= steps; i++) {
    const t = performance.now();
    box.scrollTop = (box.scrollHeight - box.clientHeight) * i / steps;
    await frame();
    times.push(performance.now() - t);
  }
  return { worst: Math.max(...times), mean: times.reduce((a, b) => a + b, 0) / steps,
           arrows: document.querySelectorAll("#lanes g.msg").length,
           heap: performance.memory ? performance.memory.usedJSHeapSize / 1048576 : null };
});
await context.close();
rmSync(profile, { recursive: true, force: true });
process.stdout.write(JSON.stringify({ ready, ...scroll }));
"""


def measure(what: str, path: Path, out: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, what, str(path), str(out)], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    return json.loads(done.stdout)


def open_in_browser(page: Path, folder: Path) -> dict:
    script = folder / "open.mjs"
    script.write_text(OPEN, encoding="utf-8")
    done = subprocess.run(["node", str(script), str(ROOT / "tests" / "browser" / "package.json"), str(page)],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="comma-separated line counts (first is the baseline)")
    parser.add_argument("--browser", action="store_true", help="also open each report in Chromium and scroll it")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="rw1-report-bench-") as tmp:
        folder = Path(tmp)
        base = None
        for size in sizes:
            path = data_file(size)
            page = folder / f"report-{size}.html"
            report = measure("report", path, page)
            thread = measure("check-thread", path, page)
            mib = page.stat().st_size / 1048576
            if base is None:
                base = (size, report, mib)
            n0, r0, m0 = base
            print(f"{size:>8} lines  report {report['seconds']:7.2f} s  {mib:7.1f} MiB file  peak {report['peak_mib']:6.1f} MiB"
                  f"  (check-thread {thread['seconds']:6.2f} s, peak {thread['peak_mib']:6.1f} MiB)"
                  f"  | x{size / n0:.0f} lines: time x{report['seconds'] / r0['seconds']:.1f}, size x{mib / m0:.1f},"
                  f" memory x{report['peak_mib'] / r0['peak_mib']:.2f}", flush=True)
            if args.browser:
                seen = open_in_browser(page, folder)
                heap = f"{seen['heap']:.0f} MiB" if seen["heap"] is not None else "n/a"
                print(f"{'':>8}        browser: drawn in {seen['ready'] / 1000:.2f} s, JS heap {heap}, scroll step "
                      f"mean {seen['mean']:.1f} ms worst {seen['worst']:.1f} ms, {seen['arrows']} arrows in the page",
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
