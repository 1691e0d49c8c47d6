#!/usr/bin/env node
// Speed of the JavaScript port: lines per second of full parse and
// validation (checkLine: the grammar, then the never-guess pass with the
// bundled profiles) against JSON.parse of the same messages' JSON forms
// (canonical text), in one run on one machine.
//
//   node bench.js [--lines N] [--rounds R]
//
// The corpus is every valid line of the conformance suite's parse cases and
// the spec's section 8 lines, cycled to N lines (default 20000). Each side is
// timed over R rounds (default 5) after one warm-up round; the best round
// counts. Prints both rates and the ratio (how many times faster JSON.parse is).

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { checkLine, Receiver, canonicalJson } from "./rw1.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "..", "..", "..");

function option(name, fallback) {
  const at = process.argv.indexOf(name);
  return at >= 0 && at + 1 < process.argv.length ? Number(process.argv[at + 1]) : fallback;
}

function corpus(receiver) {
  const lines = fs.readFileSync(path.join(ROOT, "examples", "spec-section8.rw1"), "utf-8").split("\n").filter(Boolean);
  const walk = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  for (const file of walk(path.join(ROOT, "conformance")).filter((f) => f.endsWith(".json") && !f.endsWith("schema.json")).sort()) {
    const doc = JSON.parse(fs.readFileSync(file, "utf-8"));
    for (const c of doc.cases || []) {
      if (c.request.op === "parse" && c.expect.valid === true && !c.request.profiles?.some((p) => typeof p !== "string")) lines.push(c.request.line);
    }
  }
  return lines.filter((line) => checkLine(line, receiver).message !== null);
}

function best(rounds, fn) {
  fn();
  let fastest = Infinity;
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    fn();
    fastest = Math.min(fastest, Number(process.hrtime.bigint() - start) / 1e9);
  }
  return fastest;
}

const total = option("--lines", 20000);
const rounds = option("--rounds", 5);
const receiver = Receiver.allBundled();
const base = corpus(receiver);
const lines = Array.from({ length: total }, (_, i) => base[i % base.length]);
const forms = lines.map((line) => canonicalJson(checkLine(line, receiver).message));

let sink = 0;
const parseSeconds = best(rounds, () => {
  for (const line of lines) if (checkLine(line, receiver).message !== null) sink += 1;
});
const jsonSeconds = best(rounds, () => {
  for (const text of forms) if (JSON.parse(text) !== null) sink += 1;
});
const rate = (s) => Math.round(total / s);
console.log(`corpus: ${base.length} distinct valid lines, cycled to ${total}; best of ${rounds} rounds; node ${process.version}`);
console.log(`parse+validate (checkLine)   ${rate(parseSeconds).toLocaleString("en-US").padStart(12)} lines/s`);
console.log(`JSON.parse of the JSON forms ${rate(jsonSeconds).toLocaleString("en-US").padStart(12)} lines/s`);
if (sink !== 2 * total * (rounds + 1)) throw new Error("a line did not read back");
console.log(`ratio: JSON.parse is ${(parseSeconds / jsonSeconds).toFixed(1)}x faster than full parse and validation`);
