// The adapter: contract versions 1 and 2, and requests it cannot use.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { handle, handleLine } from "../protocol.js";

const ADAPTER = fileURLToPath(new URL("../adapter.js", import.meta.url));
const HO = "RW1 HO a-1 from=a to=b item=x ask=DRAFT due=20261010";

test("the v2 handshake lists every op and the bundled profiles", () => {
  const answer = handle({ op: "start", contract: 2, seq: 1 });
  assert.equal(answer.ok, true);
  assert.equal(answer.contract, 2);
  assert.equal(answer.seq, 1);
  assert.equal(answer.implementation.language, "javascript");
  assert.equal(answer.implementation.name, "rogerwilco-js");
  assert.deepEqual(answer.ops, ["check-dn", "check-ho", "check-rb", "check-thread", "digest", "encode", "make-rb", "parse", "reply"]);
  assert.deepEqual(answer.profiles, ["pay", "clin", "pform", "deploy"]);
});

test("seq is echoed on every answer, errors included; v1 requests get none", () => {
  assert.equal(handle({ op: "parse", line: HO, seq: 7 }).seq, 7);
  assert.equal(handle({ op: "nope", seq: 8 }).seq, 8);
  assert.equal(handle({ op: "parse", seq: 9 }).seq, 9);
  assert.equal(handle({ op: "parse", seq: 9 }).ok, false);
  assert.equal("seq" in handle({ op: "parse", line: HO }), false);
});

test("requests the port cannot use answer ok: false and nothing else", () => {
  const bad = [
    "{", "[]", "null", "5", '"x"', '{"op": 5}', '{"op": "parse"}', '{"op": "parse", "line": 5}',
    '{"op": "parse", "line": "x", "profiles": "pay"}', '{"op": "parse", "line": "x", "profiles": ["/etc/passwd"]}',
    '{"op": "parse", "line": "x", "profiles": [{"profile": "bad"}]}', '{"op": "reply", "line": "x", "as": "me", "n": -1}',
    '{"op": "make-rb", "ho": "x", "n": true}', '{"op": "make-rb", "ho": "RW1 HO a-1 from=a to=b item=x ask=DRAFT", "n": 1, "values": []}',
    '{"op": "check-ho", "line": "x"}', '{"op": "check-ho", "line": "x", "record": {}, "relay_adds": "ask"}',
    '{"op": "check-thread", "lines": "x"}', '{"op": "check-thread", "lines": [], "now": "soon"}',
    '{"op": "check-rb", "ho": "RW1 HO a-1 from=a to=b item=x ask=DRAFT", "rb": "RW1 RB b-1 re=a-1 from=b to=a item=x ask=DRAFT", "expect_acc": 5}', '{"op": "make-rb", "ho": "RW1 HO a-1 from=a to=b item=x ask=DRAFT", "n": 1, "acc": "nokey"}',
  ];
  for (const text of bad) {
    const answer = JSON.parse(handleLine(text));
    assert.equal(answer.ok, false, text);
    assert.equal(typeof answer.error, "string", text);
    assert.ok(!answer.error.startsWith("internal error"), `${text}: ${answer.error}`);
  }
});

test("a broken line is a form finding, not an error", () => {
  const answer = handle({ op: "check-rb", ho: "RW1 HO", rb: 5 });
  assert.equal(answer.ok, true);
  assert.equal(answer.passed, false);
  assert.deepEqual(answer.findings.map((f) => f.kind), ["form", "form"]);
});

test("the process answers every line in order and survives bad ones", () => {
  const input = [
    JSON.stringify({ op: "start", contract: 2, seq: 1 }),
    "not json",
    JSON.stringify({ op: "digest", line: HO, seq: 2 }),
    "",
    JSON.stringify({ op: "parse", line: "RW1 HO a-1 from=a to=b item=x ask=DRAFT // caf\u00e9\u2028", seq: 3 }),
    JSON.stringify({ op: "unsupported-op", seq: 4 }),
  ].join("\n") + "\n";
  const run = spawnSync(process.execPath, [ADAPTER], { input, encoding: "utf-8" });
  assert.equal(run.status, 0, run.stderr);
  const answers = run.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(answers.length, 5);
  assert.deepEqual(answers.map((a) => a.seq), [1, undefined, 2, 3, 4]);
  assert.equal(answers[1].ok, false);
  assert.match(answers[2].h, /^[0-9a-f]{12}$/);
  assert.equal(answers[3].valid, false);
  assert.deepEqual(answers[4], { ok: false, error: "unsupported", seq: 4 });
  assert.ok(/^[\x00-\x7f]*$/.test(run.stdout), "the adapter writes ASCII only");
});

test("numbers written with a fraction or an exponent are never integers (D9)", () => {
  const form = '{"v":"RW1","type":"HO","id":"a-1","re":null,"from":"a","to":"b","item":"x","slots":{"ask":"DRAFT","pri":PRI},"tail":null}';
  const encode = (pri) => JSON.parse(handleLine(`{"op":"encode","json":${form.replace("PRI", pri)}}`));
  assert.deepEqual(encode("2"), { ok: true, valid: true, line: "RW1 HO a-1 from=a to=b item=x ask=DRAFT pri=2" });
  for (const pri of ["2.0", "1e0", "2E0", "-0.0"]) {
    assert.deepEqual(encode(pri), { ok: true, valid: false, why: "UNK", token: "pri" }, pri);
  }
  const reply = JSON.parse(handleLine('{"op":"reply","line":"RW1 HO a-1 from=a to=b item=x ask=PAYY","as":"b","n":2.0,"seq":3}'));
  assert.equal(reply.ok, false);
  assert.equal(reply.seq, 3);
  // a number-like text inside a string is text
  const parsed = JSON.parse(handleLine('{"op":"parse","line":"RW1 HO a-1 from=a to=b item=x ask=DRAFT // 2.0 \\" 1e5"}'));
  assert.equal(parsed.json.tail, '2.0 " 1e5');
});
