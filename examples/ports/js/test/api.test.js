// Unit tests of the public API (node --test).

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import * as rw from "../index.js";

const HO = "RW1 HO a-1 from=a to=b item=doc:brief ask=DRAFT due=20261010 rb=acc acc=len:120w+tone:plain";

test("parse gives the JSON form (D1) and toLine writes it back", () => {
  const msg = rw.parse("RW1 HO a-1 from=a to=b item=x ask=DRAFT pri=02 keep=research");
  assert.deepEqual(msg, {
    v: "RW1", type: "HO", id: "a-1", re: null, from: "a", to: "b", item: "x",
    slots: { ask: "DRAFT", pri: 2, keep: ["research"] }, tail: null,
  });
  assert.equal(rw.toLine(msg), "RW1 HO a-1 from=a to=b item=x ask=DRAFT pri=2 keep=research");
});

test("a refusal names why and the offending token (D4)", () => {
  for (const [line, why, token] of [
    ["RW2 HO a-1 from=a to=b item=x ask=DRAFT", "VER", "RW2"],
    ["RW1 HO a-1 from=a to=b item=x ask=PAYY", "UNK", "ask=PAYY"],
    ["RW1 HO a-1 from=a to=b item=x ask=DRAFT pri=9", "UNK", "pri=9"],
    ["RW1 HO a-1 from=a to=b item=x", "UNK", "ask"],
    ["RW1 HO a-1 from=a  to=b item=x ask=DRAFT", "UNK", "to=b"],
  ]) {
    assert.throws(() => rw.parse(line), (exc) => exc instanceof rw.RW1Error && exc.why === why && exc.token === token, line);
  }
});

test("the spec's digests come out exactly (D1)", () => {
  const lines = fs.readFileSync(new URL("../../../spec-section8.rw1", import.meta.url), "utf-8").split("\n").filter(Boolean);
  const research = lines.find((l) => l.startsWith("RW1 HO") && l.includes(" research-01 ") ) || lines.find((l) => l.includes("research-01"));
  assert.ok(research);
  const digests = lines.map((l) => { try { return rw.digest(l); } catch (exc) { return null; } });
  assert.ok(digests.includes("c40bba4360dc"));
});

test("toJSON is the canonical text: sorted keys, JCS escapes (D9)", () => {
  const msg = rw.parse("RW1 HO a-1 from=a to=b item=x ask=DRAFT // <b>&\u2028?".replace("\u2028", "é"));
  const text = rw.toJSON(msg);
  assert.ok(text.startsWith('{"from":"a","id":"a-1","item":"x","re":null,"slots":{"ask":"DRAFT"},"tail":"<b>&é?"'));
});

test("reply addresses a UN to the sender of a refused line", () => {
  assert.equal(rw.reply("RW1 HO a-1 from=a to=b item=x ask=PAYY", "b", 7).split(" // ")[0],
    "RW1 UN b-7 re=a-1 from=b to=a why=UNK");
  assert.equal(rw.reply("RW1 HO a-1 from=a to=b item=x ask=DRAFT", "b", 7), null);
});

test("makeRb composes a readback that checkRb passes", () => {
  const rb = rw.makeRb(HO, 2, { acc: "len:120w+tone:plain" });
  assert.equal(rb.type, "RB");
  assert.equal(rb.slots.h, rw.digest(HO));
  const report = rw.checkRb(HO, rb);
  assert.equal(report.passed, true, JSON.stringify(report.findings));
  assert.equal(report.tiers[4], "passed");
});

test("checkRb fails a contradiction and a wrong digest", () => {
  const rb = "RW1 RB b-2 re=a-1 from=b to=a item=doc:brief ask=DRAFT due=20261010 acc=len:150w+tone:plain h=000000000000";
  const report = rw.checkRb(HO, rb);
  assert.equal(report.passed, false);
  const kinds = report.findings.filter((f) => f.severity === "fail").map((f) => `${f.kind}:${f.tier}:${f.key}`).sort();
  assert.deepEqual(kinds, ["contradiction:4:len", "digest:2:h"]);
});

test("a negation is never the same fact (D13)", () => {
  const ho = "RW1 HO a-1 from=a to=b item=x ask=DRAFT rb=acc acc=tone:plain";
  const report = rw.checkRb(ho, rw.makeRb(ho, 2, { acc: "tone:not-plain" }));
  assert.ok(report.findings.some((f) => f.kind === "contradiction" && f.key === "tone"));
});

test("set-valued keys pair one to one (D15)", () => {
  const ho = "RW1 HO a-1 from=a to=b item=x ask=DRAFT rb=acc acc=must:monday-problem+must:pricing-problem";
  const report = rw.checkRb(ho, rw.makeRb(ho, 2, { acc: "must:monday-problem" }));
  assert.equal(report.passed, false);
  assert.ok(report.findings.some((f) => f.kind === "gap" && f.key === "must" && f.severity === "fail"));
});

test("checkHo, checkDn and checkThread report findings", () => {
  const ho = "RW1 HO a-1 from=a to=b item=x ask=DRAFT due=20261010";
  assert.equal(rw.checkHo(ho, { item: "x", ask: "DRAFT", due: "20261010" }).passed, true);
  const bad = rw.checkHo(ho, { item: "x", ask: "DRAFT", due: "20261011" });
  assert.deepEqual(bad.findings.map((f) => f.kind), ["mismatch"]);
  const dn = "RW1 DN b-3 re=a-1 from=b to=a item=x out=OK";
  assert.equal(rw.checkDn(ho, dn).passed, true);
  const rb = "RW1 RB b-2 re=a-1 from=b to=a item=x ask=DRAFT due=20261010";
  const thread = rw.checkThread([ho, rb, dn, "RW1 DN b-4 re=a-1 from=b to=a item=x out=OK"], { now: "20261001T0000Z" });
  assert.equal(thread.passed, false);
  assert.deepEqual(thread.findings.map((f) => [f.kind, f.key]), [["closed-twice", "a-1"]]);
  assert.equal(thread.ledger.handoffs[0].state, "closed");
  // an act with no readback before it (spec 5 rule 1)
  const early = rw.checkThread([ho, dn], { now: "20261001T0000Z" });
  assert.deepEqual(early.findings.map((f) => [f.kind, f.key, f.token]), [["act-before-wilco", "a-1", "b-3"]]);
});

test("only RW1Error escapes the API", () => {
  const calls = [
    () => rw.parse(null), () => rw.parse({}), () => rw.toLine(null), () => rw.toLine({ v: "RW1" }),
    () => rw.digest(5), () => rw.checkRb(null, null, { profiles: 7 }), () => rw.makeRb(HO, -1),
    () => rw.makeRb(HO, 1, { acc: 5 }), () => rw.checkThread("x"), () => rw.checkThread([], { now: "yesterday" }),
    () => rw.checkHo("x", null), () => rw.loadProfile("/no/such/file.json"), () => rw.receiver(["nope-profile"]),
    () => rw.parseCriteria("len"), () => rw.fromJSON("{"), () => rw.reply("RW1 HO a-1 from=a to=b item=x ask=PAYY", "b c", 1),
  ];
  for (const call of calls) {
    assert.throws(call, (exc) => exc instanceof rw.RW1Error, call.toString());
  }
});

test("an HO continues only an HO taken before it: not itself, a loop in the order given", () => {
  const self = rw.checkThread(["RW1 HO a-1 re=a-1 from=a to=b item=x ask=DRAFT"], { now: "20261001T0000Z" });
  assert.deepEqual(self.ledger.handoffs.map((h) => [h.id, h.state]), [["a-1", "awaiting-readback"]]);
  const loop = rw.checkThread(["RW1 HO a-2 re=a-1 from=a to=b item=x ask=DRAFT", "RW1 HO a-1 re=a-2 from=a to=b item=x ask=DRAFT"], { now: "20261001T0000Z" });
  assert.deepEqual(loop.ledger.handoffs.map((h) => [h.id, h.state, h.next]), [["a-2", "reissued", "a-1"], ["a-1", "awaiting-readback", null]]);
});

test("under rb=all an act before the echo of the sender's change is act-before-echo; an UNDO links to the act", () => {
  const lines = [
    "RW1 HO a-1 from=a to=b item=x ask=FIX rb=all",
    "RW1 RB b-1 re=a-1 from=b to=a item=x ask=FIX",
    "RW1 ST a-2 re=a-1 from=a to=b item=x eta=20261008",
    "RW1 DN b-3 re=a-1 from=b to=a item=x out=OK",
  ];
  const early = rw.checkThread(lines, { now: "20261001T0000Z" });
  assert.deepEqual(early.findings.map((f) => [f.kind, f.key, f.token]), [["act-before-echo", "a-1", "b-3"]]);
  const echoed = [...lines.slice(0, 3), "RW1 RB b-2 re=a-2 from=b to=a item=x ask=FIX eta=20261008", lines[3],
    "RW1 HO a-4 from=a to=b item=x ask=UNDO ctx=b-3"];
  const later = rw.checkThread(echoed, { now: "20261001T0000Z" });
  assert.deepEqual(later.findings.map((f) => f.kind), ["open"]);
  const undo = later.ledger.handoffs.find((h) => h.id === "a-4");
  assert.deepEqual([undo.undoes, undo.reverses], ["a-1", "b-3"]);
});
