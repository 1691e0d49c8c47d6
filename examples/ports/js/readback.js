// Readback: the five tiers of check-rb, check-ho, check-dn and make-rb
// (spec 5.1-5.3, decisions D6, D7, D12, D15).
//
// Theory of operation
// -------------------
// A handoff (HO) transfers ownership only when its readback (RB) passes
// every tier the sender asked for with rb= (default echo):
//
//   tier 1  always            re, from and to answer the HO (receipt)
//   tier 2  always            h= is the HO's digest; absent is a note
//   tier 3  always            the echo set (D7) by decoded value: missing or
//                             mismatch; any other HO slot repeated must be
//                             equal; an RB exp later than the HO's is expiry
//   tier 4  acc/plan/criteria the comprehension check (comprehension.js),
//                             keys= as required keys; plan also needs do=
//   tier 5  exec              every execution slot of the ask (the profile's
//                             exec map): equal to the HO's, or, where the HO
//                             leaves it to the receiver, present and not
//                             contradicted by the sender's record
//
// Messages are JSON forms (the objects checkLine returns). Values are
// compared decoded, type and all, never as strings. The execution maps, the
// readback levels and every slot type come from the vocabulary files; the
// echo set of each level is D7's rule, written once below.

import { RW1Error, Receiver, checkLine, refusalOf, digest, toLine, writeValue, canonicalJson } from "./rw1.js";
import { Comparator, parseCriteria, CriteriaError } from "./comprehension.js";
import { parseNow, validTime } from "./thread.js";

const DEFAULT_LEVEL = "echo";
// D7: the echo set of each level. "*" is every slot the HO carries.
const LEVEL_ECHO = new Map([
  ["echo", ["item", "ask", "due"]],
  ["all", ["item", "*"]],
  ["acc", ["item", "ask", "due"]],
  ["plan", ["item", "ask", "due"]],
  ["exec", ["item", "ask", "due"]],
]);
const NEVER_ECHOED = new Set(["rb", "keys", "exp", "acc"]);
const HOP_ENVELOPE = new Set(["re", "from", "to"]);
const RB_OWN_SLOTS = new Set(["h", "eta", "not", "asm", "exp", "acc", "do"]);
const COMPREHENSION_LEVELS = ["acc", "plan"];
const RECEIPT = [["re", "id"], ["from", "to"], ["to", "from"]];
const DN_RECEIPT = [...RECEIPT, ["item", "item"]];

const PASSED = "passed";
const FAILED = "failed";
const NOT_CHECKED = "not checked";
const NOT_ASKED = "not asked";

const has = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);

function readbackError(message) {
  return new RW1Error(message, { kind: "ReadbackInputError" });
}

const fail = (kind, message, { tier = null, key = null, sender = null, receiver = null } = {}) =>
  ({ severity: "fail", kind, tier, key, message, sender, receiver });
const note = (kind, message, { tier = null, key = null, sender = null, receiver = null } = {}) =>
  ({ severity: "note", kind, tier, key, message, sender, receiver });

// ---------------------------------------------------------------- inputs

function asReceiver(profiles) {
  if (profiles instanceof Receiver) return profiles;
  return new Receiver(profiles || []);
}

const isMessage = (value) => value !== null && typeof value === "object" && !Array.isArray(value)
  && typeof value.type === "string" && typeof value.id === "string" && value.slots !== null && typeof value.slots === "object";

// A message of type `want` from a message or a line: [message, null] or [null, form finding].
function coerce(value, receiver, want, name) {
  let message;
  if (isMessage(value)) {
    message = value;
  } else if (typeof value === "string") {
    const result = checkLine(value, receiver);
    if (result.message === null) {
      const first = refusalOf(result);
      const detail = first && first.token ? `${first.token}: ${first.message}` : first ? first.message : "unreadable";
      return [null, fail("form", `the ${name} does not parse: ${detail}`)];
    }
    message = result.message;
  } else {
    return [null, fail("form", `the ${name} is neither a line nor a message`)];
  }
  if (message.type !== want) return [null, fail("form", `the ${name} is a ${message.type}, not a ${want}`)];
  return [message, null];
}

// Any slot by key, envelope included; undefined and null both read as absent (null).
function get(message, key) {
  let value;
  if (key === "re" || key === "from" || key === "to" || key === "item") value = message[key];
  else value = has(message.slots, key) ? message.slots[key] : null;
  return value === undefined ? null : value;
}

const profileOf = (message) => (typeof message.slots.p === "string" ? message.slots.p : null);

function vocabularyOf(message, receiver) {
  const p = profileOf(message);
  return p !== null && receiver.holds(p) ? receiver.vocabulary(p) : receiver.vocabulary(null);
}

// A value as the slot type decodes it: text kept by a line without p=, or a record's JSON.
function decoded(vocab, key, value) {
  const slot = vocab.slots.get(key);
  if (!slot) return value;
  if (typeof value === "string") {
    try {
      return slot.type.decode(value);
    } catch (exc) {
      return value;
    }
  }
  if (Array.isArray(value) && slot.type.isList) {
    try {
      return slot.type.decode(writeValue(key, value));
    } catch (exc) {
      return value;
    }
  }
  return value;
}

// Equal decoded values, type included (true is not 1), lists in order.
function same(a, b) {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (Array.isArray(a) || Array.isArray(b)) return false;
  if (a === null || b === null) return a === b;
  if (typeof a !== typeof b) return false;
  if (typeof a === "object") return canonicalJson(a) === canonicalJson(b);
  return a === b;
}

function written(key, value) {
  if (value === null || value === undefined) return null;
  try {
    return writeValue(key, value);
  } catch (exc) {
    return JSON.stringify(value);
  }
}

// The readback levels the HO asks for (echo when it names none).
function levelsOf(ho) {
  const rb = Array.isArray(ho.slots.rb) ? ho.slots.rb : [];
  const levels = rb.filter((t) => LEVEL_ECHO.has(t));
  return levels.length ? levels : [DEFAULT_LEVEL];
}

// D7: the slots the RB must echo, in the HO's order of interest.
function echoSet(ho) {
  const keys = [];
  for (const level of levelsOf(ho)) {
    for (const key of LEVEL_ECHO.get(level)) {
      if (key === "*") keys.push(...Object.keys(ho.slots).filter((k) => !NEVER_ECHOED.has(k)));
      else if (get(ho, key) !== null) keys.push(key);
    }
  }
  const rb = Array.isArray(ho.slots.rb) ? ho.slots.rb : [];
  keys.push(...rb.filter((t) => !LEVEL_ECHO.has(t) && !NEVER_ECHOED.has(t) && !HOP_ENVELOPE.has(t) && get(ho, t) !== null));
  return [...new Set(keys)];
}

function execSlots(ho, vocab) {
  const ask = typeof ho.slots.ask === "string" ? ho.slots.ask : "";
  return vocab.execSlots.get(ask) || [];
}

// ---------------------------------------------------------------- the tiers

function tierReceipt(ho, rb, tier = 1, pairs = RECEIPT) {
  const findings = [];
  for (const [rbField, hoField] of pairs) {
    const want = hoField === "id" ? ho.id : get(ho, hoField);
    const got = get(rb, rbField);
    if (got !== want) {
      findings.push(fail("receipt", `${rbField}=${got} where the ${ho.type} gives ${want}`, { tier, key: rbField, sender: want, receiver: got }));
    }
  }
  return findings;
}

function tierDigest(ho, rb) {
  const h = has(rb.slots, "h") ? rb.slots.h : null;
  const want = digest(ho);
  if (h === null) return [note("digest", "no h=: integrity not checked", { tier: 2, key: "h", sender: want })];
  if (h !== want) return [fail("digest", `h=${h} is not the digest of the HO (${want})`, { tier: 2, key: "h", sender: want, receiver: h })];
  return [];
}

function compareSlot(key, hoValue, rb, vocab, tier, require) {
  let got = get(rb, key);
  if (got === null) {
    if (require) return [fail("missing", `${key} not read back`, { tier, key, sender: written(key, hoValue) })];
    return [];
  }
  const want = decoded(vocab, key, hoValue);
  got = decoded(vocab, key, got);
  if (!same(want, got)) {
    return [fail("mismatch", `${key}: read back ${written(key, got)}, sent ${written(key, want)}`,
      { tier, key, sender: written(key, want), receiver: written(key, got) })];
  }
  return [];
}

const TIME_RE = /^[0-9]{8}T[0-9]{4}Z$/;

function tierEcho(ho, rb, vocab) {
  const findings = [];
  const required = echoSet(ho);
  const tier5 = new Set(levelsOf(ho).includes("exec") ? execSlots(ho, vocab) : []);
  for (const key of required) {
    if (tier5.has(key)) continue;
    findings.push(...compareSlot(key, get(ho, key), rb, vocab, 3, true));
  }
  for (const [key, value] of Object.entries(ho.slots)) {
    if (required.includes(key) || tier5.has(key) || NEVER_ECHOED.has(key) || RB_OWN_SLOTS.has(key)) continue;
    findings.push(...compareSlot(key, value, rb, vocab, 3, false));
  }
  // A slot of the handoff's vocabulary the HO never carried, read back with a
  // value, is a misread too; the receiver's own slots and the execution values
  // it resolves are its to add.
  const handoffSlots = vocab.types.HO.slots;
  const resolved = new Set(execSlots(ho, vocab));
  for (const [key, value] of Object.entries(rb.slots)) {
    if (has(ho.slots, key) || RB_OWN_SLOTS.has(key) || resolved.has(key) || key === "p" || key.startsWith("x_") || !handoffSlots.has(key)) continue;
    findings.push(fail("mismatch", `${key}: read back ${written(key, value)}, which the handoff does not carry`,
      { tier: 3, key, receiver: written(key, value) }));
  }
  const hoExp = has(ho.slots, "exp") ? ho.slots.exp : null;
  const rbExp = has(rb.slots, "exp") ? rb.slots.exp : null;
  if (hoExp !== null && rbExp !== null) {
    const comparable = typeof hoExp === "string" && typeof rbExp === "string" && TIME_RE.test(hoExp) && TIME_RE.test(rbExp);
    if (!comparable || rbExp > hoExp) {
      findings.push(fail("expiry", `the readback's exp=${rbExp} outlives the handoff's exp=${hoExp}`, { tier: 3, key: "exp", sender: hoExp, receiver: rbExp }));
    }
  }
  return findings;
}

// The sender's criteria: those passed to the check, else the HO's acc=; null when none.
function senderCriteria(ho, expectAcc) {
  if (expectAcc !== null && expectAcc !== undefined) {
    try {
      return parseCriteria(expectAcc);
    } catch (exc) {
      if (exc instanceof CriteriaError) throw readbackError(`expected criteria: ${exc.message}`);
      throw exc;
    }
  }
  const acc = ho.slots.acc;
  if (Array.isArray(acc) && acc.length) return parseCriteria(acc);
  return null;
}

function tierComprehension(ho, rb, vocab, expectAcc) {
  const findings = [];
  const theirs = senderCriteria(ho, expectAcc);
  const rawMine = has(rb.slots, "acc") ? rb.slots.acc : null;
  if (rawMine === null) {
    findings.push(fail("missing", "the HO asks for acceptance criteria; the readback carries no acc=", { tier: 4, key: "acc" }));
  }
  let mine;
  try {
    mine = parseCriteria(rawMine || []);
  } catch (exc) {
    if (!(exc instanceof CriteriaError)) throw exc;
    mine = [];
  }
  const notTokens = (Array.isArray(rb.slots.not) ? rb.slots.not : []).filter((t) => typeof t === "string");
  const comparator = Comparator.forVocabulary(vocab);
  findings.push(...comparator.compare(theirs, mine, { notTokens, requiredKeys: Array.isArray(ho.slots.keys) ? ho.slots.keys : [] }));
  if (levelsOf(ho).includes("plan") && get(rb, "do") === null) {
    findings.push(fail("plan", "rb=plan: the readback does not say what it will produce (do=)", { tier: 4, key: "do" }));
  }
  return [findings, theirs !== null];
}

function tierExecution(ho, rb, vocab, record) {
  const slots = execSlots(ho, vocab);
  if (!slots.length) {
    return [note("no-exec", `the profile names no execution slots for ask=${ho.slots.ask}: tier 5 not checked`, { tier: 5, key: "ask" })];
  }
  const findings = [];
  for (const key of slots) {
    const hoValue = get(ho, key);
    if (hoValue !== null) {
      findings.push(...compareSlot(key, hoValue, rb, vocab, 5, true));
      continue;
    }
    let got = get(rb, key);
    if (got === null) {
      findings.push(fail("missing", `${key}: the value the receiver will use is not read back`, { tier: 5, key }));
      continue;
    }
    if (record === null || record === undefined || !has(record, key)) {
      // D12: a value the receiver resolved with no sender record to check it against
      findings.push(note("unchecked", `${key}: the receiver resolved ${written(key, got)}; no record of the sender's to check it against`,
        { tier: 5, key, receiver: written(key, got) }));
      continue;
    }
    const want = decoded(vocab, key, record[key]);
    got = decoded(vocab, key, got);
    if (!same(want, got)) {
      findings.push(fail("record", `${key}: the receiver resolved ${written(key, got)}; the record holds ${written(key, want)}`,
        { tier: 5, key, sender: written(key, want), receiver: written(key, got) }));
    }
  }
  return findings;
}

function status(findings, tier, checked = true) {
  if (findings.some((f) => f.tier === tier && f.severity === "fail")) return FAILED;
  return checked ? PASSED : NOT_CHECKED;
}

const report = (findings, extra = {}) => ({ passed: !findings.some((f) => f.severity === "fail"), findings, ...extra });

// Spec 3.1: nothing is done on an HO, and no statement is confirmed, after its
// exp. exp is the latest moment, so its own minute is still in time.
const AFTER_EXPIRY = {
  handoff: "nothing may be done on it: send a new HO from the record",
  readback: "its statement cannot be confirmed: read back again",
};

function expired(message, what, at) {
  const exp = has(message.slots, "exp") ? message.slots.exp : null;
  const limit = typeof exp === "string" ? validTime(exp) : null;
  if (limit === null || at <= limit) return [];
  const stamp = new Date(at).toISOString().replace(/[-:]/g, "").slice(0, 13) + "Z";
  return [fail("expired", `the ${what} expired at ${exp} (now ${stamp}); ${AFTER_EXPIRY[what]}`, { key: "exp", sender: exp, receiver: stamp })];
}

function atOf(now) {
  try {
    return parseNow(now);
  } catch (exc) {
    if (exc instanceof RW1Error) throw readbackError(exc.message);
    throw exc;
  }
}

// ---------------------------------------------------------------- check-rb

// Check a readback against its handoff, tier by tier (spec 5.1).
// now (a YYYYMMDDTHHMMZ string, a Date, or the clock) is when the check runs.
function checkRb(ho, rb, { profiles = null, expectAcc = null, record = null, now = null } = {}) {
  const at = atOf(now);
  const receiver = asReceiver(profiles);
  const [hoMsg, hoProblem] = coerce(ho, receiver, "HO", "handoff");
  const [rbMsg, rbProblem] = coerce(rb, receiver, "RB", "readback");
  if (hoMsg === null || rbMsg === null) {
    const tiers = { 1: NOT_CHECKED, 2: NOT_CHECKED, 3: NOT_CHECKED, 4: NOT_CHECKED, 5: NOT_CHECKED };
    return report([hoProblem, rbProblem].filter(Boolean), { tiers });
  }
  const vocab = vocabularyOf(hoMsg, receiver);
  const levels = levelsOf(hoMsg);
  const findings = [...expired(hoMsg, "handoff", at), ...expired(rbMsg, "readback", at),
    ...tierReceipt(hoMsg, rbMsg), ...tierDigest(hoMsg, rbMsg), ...tierEcho(hoMsg, rbMsg, vocab)];
  const tiers = {
    1: status(findings, 1),
    2: status(findings, 2, has(rbMsg.slots, "h")),
    3: status(findings, 3),
    4: NOT_ASKED,
    5: NOT_ASKED,
  };
  if (COMPREHENSION_LEVELS.some((l) => levels.includes(l)) || (expectAcc !== null && expectAcc !== undefined)) {
    const [comp, compared] = tierComprehension(hoMsg, rbMsg, vocab, expectAcc);
    findings.push(...comp);
    tiers[4] = status(comp, 4, compared);
  }
  if (levels.includes("exec")) {
    const execution = tierExecution(hoMsg, rbMsg, vocab, record);
    findings.push(...execution);
    tiers[5] = status(execution, 5, execSlots(hoMsg, vocab).length > 0 && !execution.some((f) => f.kind === "unchecked"));
  }
  return report(findings, { tiers });
}

// ---------------------------------------------------------------- check-echo

// Under rb=all, the sender's check of the receiver's echo of its ST or AN
// (spec 5 rule 1): receipt, digest, and every slot the change carries read
// back equal (tiers 1 to 3, as for a readback).
function checkEcho(change, rb, { profiles = null } = {}) {
  const receiver = asReceiver(profiles);
  const changeMsg = typeof change === "string" ? checkLine(change, receiver).message : change;
  const [echo, problem] = coerce(rb, receiver, "RB", "echo");
  if (changeMsg === null) throw new RW1Error("the change does not parse", { kind: "ValueError" });
  if (echo === null) return { passed: false, findings: problem !== null ? [problem] : [] };
  const vocab = vocabularyOf(changeMsg, receiver);
  const findings = [...tierReceipt(changeMsg, echo), ...tierDigest(changeMsg, echo)];
  for (const [key, value] of Object.entries(changeMsg.slots)) {
    if (key !== "p") findings.push(...compareSlot(key, value, echo, vocab, 3, true));
  }
  return report(findings);
}

// ---------------------------------------------------------------- check-ho

const TAIL = "tail"; // in relay mode: the received tail, and the name a relay's role gives it among what it adds
const isMapping = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

// A record as slot values: an object of slot values, or an HO line (its item and slots).
function recordOf(record, receiver) {
  if (isMapping(record)) return [new Map(Object.entries(record)), null];
  const [message, problem] = coerce(record, receiver, "HO", "record");
  if (message === null) return [null, problem];
  const out = new Map();
  if (message.item !== null) out.set("item", message.item);
  for (const [k, v] of Object.entries(message.slots)) out.set(k, v);
  return [out, null];
}

// Check an HO against the record before it is sent (spec 5.3). In relay mode
// (relayAdds given) the record is the HO the relay received: the forwarded
// line may carry nothing beyond it but the slots its role adds, and its tail
// must equal the received tail unless relayAdds names "tail" (D15: the brief
// lives in the tail). The received tail is the received line's, or, for a
// record given as slot values, the value of its "tail" key (absent: none).
function checkHo(line, record, { profiles = null, relayAdds = null } = {}) {
  const receiver = asReceiver(profiles);
  const relay = relayAdds !== null && relayAdds !== undefined;
  const [ho, problem] = coerce(line, receiver, "HO", "handoff");
  let receivedTail = null;
  if (relay && isMapping(record) && has(record, TAIL)) {
    record = { ...record };
    receivedTail = record[TAIL];
    delete record[TAIL];
  }
  const [held, recordProblem] = recordOf(record, receiver);
  if (ho === null || held === null) return report([problem, recordProblem].filter(Boolean));
  if (relay && !isMapping(record)) receivedTail = coerce(record, receiver, "HO", "record")[0].tail;
  const vocab = vocabularyOf(ho, receiver);
  const adds = new Set(relay ? relayAdds : []);
  const findings = [];
  for (const [key, value] of held) {
    if (relay && HOP_ENVELOPE.has(key)) continue; // a relay's hop has its own envelope
    const want = decoded(vocab, key, value);
    const got = get(ho, key);
    if (got === null) {
      findings.push(fail("missing", `${key}: the record holds ${written(key, want)}; the line omits it`, { key, sender: written(key, want) }));
    } else if (!same(want, decoded(vocab, key, got))) {
      findings.push(fail("mismatch", `${key}: the line says ${written(key, got)}; the record holds ${written(key, want)}`,
        { key, sender: written(key, want), receiver: written(key, got) }));
    }
  }
  if (relay) {
    const extra = [...(ho.item !== null ? [["item", ho.item]] : []), ...Object.entries(ho.slots)];
    for (const [key, value] of extra) {
      if (!held.has(key) && !adds.has(key)) {
        findings.push(fail("mismatch", `${key}=${written(key, value)} is neither in the received handoff nor added by the relay's role`,
          { key, receiver: written(key, value) }));
      }
    }
    if (!adds.has(TAIL)) findings.push(...relayTail(receivedTail, ho.tail));
  } else {
    for (const key of execSlots(ho, vocab)) {
      if (!held.has(key) && get(ho, key) !== null) {
        findings.push(fail("mismatch", `${key}=${written(key, get(ho, key))} is an execution value the record does not hold`,
          { key, receiver: written(key, get(ho, key)) }));
      }
    }
  }
  if (execSlots(ho, vocab).length && !levelsOf(ho).includes("exec")) {
    findings.push(fail("level", `the profile names execution slots for ask=${ho.slots.ask}; the line does not ask rb=exec`,
      { key: "rb", sender: "exec", receiver: written("rb", ho.slots.rb) }));
  }
  return report(findings);
}

// The forwarded tail against the received one, character for character (D15).
function relayTail(received, forwarded) {
  if (received === undefined) received = null;
  if (received === forwarded) return [];
  const shown = received === null ? null : typeof received === "string" ? received : JSON.stringify(received);
  if (forwarded === null) return [fail("missing", "the relay dropped the received tail; it carries the brief", { key: TAIL, sender: shown })];
  if (received === null) {
    return [fail("mismatch", "the relay added a tail the received handoff did not have, and its role does not add one", { key: TAIL, receiver: forwarded })];
  }
  return [fail("mismatch", "the relay changed the tail it received; the brief lives there", { key: TAIL, sender: shown, receiver: forwarded })];
}

// ---------------------------------------------------------------- check-dn

function planValue(ho, rb, key) {
  let value = get(ho, key);
  if (value === null && rb !== null) value = get(rb, key);
  return value;
}

// Check a done report against the plan (spec 5.3).
// now is when the act is reported: once the HO's exp has passed, an act (out=OK or PARTIAL) is expired.
function checkDn(ho, dn, rb = null, { profiles = null, record = null, now = null } = {}) {
  const at = atOf(now);
  const receiver = asReceiver(profiles);
  const [hoMsg, hoProblem] = coerce(ho, receiver, "HO", "handoff");
  const [dnMsg, dnProblem] = coerce(dn, receiver, "DN", "done report");
  const [rbMsg, rbProblem] = rb === null || rb === undefined ? [null, null] : coerce(rb, receiver, "RB", "readback");
  if (hoMsg === null || dnMsg === null || rbProblem !== null) return report([hoProblem, dnProblem, rbProblem].filter(Boolean));
  const vocab = vocabularyOf(hoMsg, receiver);
  // out=NOOP reports that nothing ran: the right close of an expired handoff, never an act after its exp
  const acted = get(dnMsg, "out") !== "NOOP";
  const findings = [...(acted ? expired(hoMsg, "handoff", at) : []), ...tierReceipt(hoMsg, dnMsg, null, DN_RECEIPT)];
  const rbPassed = rbMsg !== null && checkRb(hoMsg, rbMsg, { profiles: receiver, record, now: new Date(at) }).passed;
  const approved = rbPassed ? rbMsg : null;
  const out = get(dnMsg, "out");
  const askedExec = levelsOf(hoMsg).includes("exec");
  for (const key of execSlots(hoMsg, vocab)) {
    const got = get(dnMsg, key);
    if (out === "NOOP") {
      if (got !== null) findings.push(fail("noop-values", `out=NOOP: nothing ran, yet the report carries ${key}=${written(key, got)}`, { key, receiver: written(key, got) }));
      continue;
    }
    if (got === null) {
      if (out === "OK" && askedExec) {
        findings.push(fail("missing", `out=OK: ${key} as executed is not reported`, { key, sender: written(key, planValue(hoMsg, approved, key)) }));
      }
      continue;
    }
    const plan = planValue(hoMsg, approved, key);
    if (plan === null) {
      const why = rbMsg !== null ? "the readback did not pass" : "no readback was given";
      findings.push(fail("mismatch", `${key}=${written(key, got)} was executed with no approved value (${why})`, { key, receiver: written(key, got) }));
      continue;
    }
    const want = decoded(vocab, key, plan);
    const have = decoded(vocab, key, got);
    if (!same(want, have)) {
      findings.push(fail("mismatch", `${key}: executed ${written(key, have)}, planned ${written(key, want)}`,
        { key, sender: written(key, want), receiver: written(key, have) }));
    }
  }
  return report(findings);
}

// ---------------------------------------------------------------- make-rb

function tokenList(value, name) {
  if (value === null || value === undefined) return null;
  let items;
  if (typeof value === "string") items = value.split("+");
  else if (Array.isArray(value)) items = value;
  else if (typeof value === "object") items = Object.keys(value);
  else throw readbackError(`${name}: a list of tokens`);
  if (!items.length || !items.every((i) => typeof i === "string" && i)) throw readbackError(`${name}: a list of tokens`);
  return [...items];
}

// Compose the readback by code from the HO as delivered (spec 5.3). Throws
// RW1Error (kind ReadbackInputError) when the level asks for something the
// receiver did not give.
function makeRb(ho, n, { profiles = null, acc = null, do: doValue = null, not = null, asm = null, eta = null, values = null, digest: withDigest = true } = {}) {
  const receiver = asReceiver(profiles);
  const [message, problem] = coerce(ho, receiver, "HO", "handoff");
  if (message === null) throw readbackError(problem ? problem.message : "not a handoff");
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0) throw readbackError("n is a message number (an integer, 0 or more)");
  const vocab = vocabularyOf(message, receiver);
  const levels = levelsOf(message);
  const given = new Map(Object.entries(values || {}));
  const slots = {};
  if (profileOf(message) !== null) slots.p = profileOf(message);
  for (const key of echoSet(message)) if (key !== "item") slots[key] = get(message, key);
  // rb=all: keys= echoed too, as spec 5.1's "every slot" and the published reference's check ask (D7's check does not)
  if (levels.includes("all") && has(message.slots, "keys")) slots.keys = message.slots.keys;
  if (levels.includes("exec")) {
    for (const key of execSlots(message, vocab)) {
      let value = given.has(key) ? given.get(key) : null;
      given.delete(key);
      value = value === null ? get(message, key) : decoded(vocab, key, value);
      if (value === null) throw readbackError(`execution slot ${key}: the HO leaves it to the receiver; give its value`);
      slots[key] = value;
    }
  }
  for (const [key, value] of given) slots[key] = decoded(vocab, key, value);
  let criteria = tokenList(acc, "acc");
  if (COMPREHENSION_LEVELS.some((l) => levels.includes(l))) {
    if (criteria === null && has(message.slots, "acc")) criteria = message.slots.acc;
    if (criteria === null) throw readbackError("the HO asks rb=acc: give the receiver's acceptance criteria (acc)");
  }
  if (criteria !== null) {
    try {
      parseCriteria(criteria);
    } catch (exc) {
      if (exc instanceof CriteriaError) throw readbackError(`acc: ${exc.message}`);
      throw exc;
    }
    slots.acc = [...criteria];
  }
  if (levels.includes("plan") && (doValue === null || doValue === undefined)) throw readbackError("the HO asks rb=plan: say what will be produced (do)");
  if (doValue !== null && doValue !== undefined) slots.do = doValue;
  for (const [key, value] of [["not", tokenList(not, "not")], ["asm", tokenList(asm, "asm")], ["eta", eta]]) {
    if (value !== null && value !== undefined) slots[key] = value;
  }
  if (withDigest) slots.h = digest(message);
  const rb = { v: message.v, type: "RB", id: `${message.to}-${n}`, re: message.id, from: message.to, to: message.from, item: message.item, slots, tail: null };
  let line;
  try {
    line = toLine(rb);
  } catch (exc) {
    if (exc instanceof RW1Error) throw readbackError(`the readback cannot be written: ${exc.token} ${exc.message}`.trim());
    throw exc;
  }
  const result = checkLine(line, receiver);
  if (result.message === null) {
    const first = refusalOf(result);
    throw readbackError(`the readback cannot be written: ${first.token || ""} ${first.message}`.trim());
  }
  return result.message;
}

export {
  checkRb,
  checkEcho,
  checkHo,
  checkDn,
  makeRb,
  asReceiver,
  coerce,
  get,
  echoSet,
  levelsOf,
  execSlots,
  PASSED,
  FAILED,
  NOT_CHECKED,
  NOT_ASKED,
};
