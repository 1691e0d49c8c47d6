// The command line: rogerwilco-js validate, digest, make-rb, check-rb, adapter.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const CLI = fileURLToPath(new URL("../cli.js", import.meta.url));
const SPEC = fileURLToPath(new URL("../../../spec-section8.rw1", import.meta.url));
const HO = "RW1 HO a-1 from=a to=b item=x ask=DRAFT due=20261010 rb=acc acc=len:120w";

const run = (args, input = "") => spawnSync(process.execPath, [CLI, ...args], { input, encoding: "utf-8" });

test("validate passes the spec's section 8 lines", () => {
  const result = run(["validate", SPEC]);
  assert.equal(result.status, 0, result.stdout + result.stderr);
  assert.match(result.stdout, /^19 lines, 19 valid, 0 refused/m);
});

test("validate shows the refused token with a caret and exits 1", () => {
  const result = run(["validate"], "RW1 HO a-1 from=a to=b item=x ask=DRAFTY\n");
  assert.equal(result.status, 1);
  assert.match(result.stdout, /<stdin>:1:31: fail UNK \[enum\] ask=DRAFTY/);
  assert.match(result.stdout, /\n {32}\^{10}\n/);
  const json = run(["validate", "-f", "json"], "RW1 HO a-1 from=a to=b item=x ask=DRAFTY\n");
  assert.equal(JSON.parse(json.stdout).findings[0].token, "ask=DRAFTY");
});

test("make-rb, check-rb and digest work together", () => {
  const made = run(["make-rb", "--ho", HO, "--n", "2", "--acc", "len:120w"]);
  assert.equal(made.status, 0, made.stderr);
  const rb = made.stdout.trim();
  const digest = run(["digest", HO]).stdout.trim();
  assert.ok(rb.endsWith(`h=${digest}`));
  const checked = run(["check-rb", "--ho", HO, "--rb", rb]);
  assert.equal(checked.status, 0, checked.stdout);
  assert.match(checked.stdout, /wilco/);
  const void_ = run(["check-rb", "--ho", HO, "--rb", rb.replace("len:120w", "len:150w")]);
  assert.equal(void_.status, 1);
});

test("errors are one line, never a stack trace", () => {
  for (const args of [["make-rb", "--ho", HO], ["make-rb", "--ho", HO.replace("rb=acc", "rb=plan"), "--n", "2"], ["digest", "RW1 HO broken"], ["nope"], ["validate", "/no/such/file"]]) {
    const result = run(args);
    assert.notEqual(result.status, 0, args.join(" "));
    assert.ok(!/\n\s+at /.test(result.stderr), result.stderr);
    assert.match(result.stderr, /^rogerwilco-js: /);
  }
});

test("the adapter subcommand speaks the contract", () => {
  const result = run(["adapter"], JSON.stringify({ op: "start", contract: 2, seq: 1 }) + "\n");
  assert.equal(JSON.parse(result.stdout).contract, 2);
});
