// rogerwilco-js: RW1 for JavaScript. The public API.
//
// A message is its JSON form (decision D1): a plain object with the nine
// keys v type id re from to item slots tail. Every function here either
// returns a value or throws RW1Error, the package's own error (why, token,
// kind); no other exception escapes. Profiles are given as `profiles`: a
// list of bundled names (pay, clin, pform), profile objects or file paths,
// or a Receiver built once from such a list.

import * as rw1 from "./rw1.js";
import * as readback from "./readback.js";
import * as thread from "./thread.js";
import { parseCriteria as rawParseCriteria } from "./comprehension.js";

const { RW1Error, Receiver } = rw1;

// Run `fn`; anything thrown that is not an RW1Error becomes one, so callers
// catch one error type only.
function guarded(fn) {
  return (...args) => {
    try {
      return fn(...args);
    } catch (exc) {
      if (exc instanceof RW1Error) throw exc;
      const err = new RW1Error(exc && exc.message ? exc.message : String(exc), { kind: exc instanceof RangeError || exc instanceof TypeError ? "ValueError" : "InternalError" });
      err.cause = exc;
      throw err;
    }
  };
}

const receiverOf = (profiles) => readback.asReceiver(profiles);

function needString(value, name) {
  if (typeof value !== "string") throw new RW1Error(`${name} is a string`, { kind: "ValueError" });
  return value;
}

// Every finding of one line: {message (the JSON form, or null), findings, refusal (the first fail, or null)}.
function _check(line, { profiles = null } = {}) {
  const result = rw1.checkLine(needString(line, "line"), receiverOf(profiles));
  return { message: result.message, findings: result.findings, refusal: rw1.refusalOf(result) };
}

// A valid message from a line, or RW1Error naming why (UNK or VER) and the offending token.
function _parse(line, { profiles = null } = {}) {
  return rw1.strictMessage(needString(line, "line"), receiverOf(profiles));
}

// A JSON form (object or JSON text) checked and returned as a message; RW1Error when refused.
function _fromJSON(json, { profiles = null } = {}) {
  const receiver = receiverOf(profiles);
  return rw1.strictMessage(rw1.encode(json, receiver), receiver);
}

// The line of a message (its JSON form), checked by reading it back (D3).
function _toLine(message, { profiles = null } = {}) {
  return rw1.encode(message, receiverOf(profiles));
}

// The canonical JSON text of a message (D1, D9: JCS).
function _toJSON(message) {
  const profiles = Receiver.allBundled();
  const form = typeof message === "string" ? _parse(message, { profiles }) : _fromJSON(message, { profiles });
  return rw1.canonicalJson(form);
}

// h=: the first 12 hex digits of SHA-256 of the canonical JSON. A line is
// read with every bundled profile unless `profiles` says otherwise.
function _digest(message, { profiles = null } = {}) {
  const held = profiles === null ? Receiver.allBundled() : profiles;
  const form = typeof message === "string" ? _parse(message, { profiles: held }) : _fromJSON(message, { profiles: held });
  return rw1.digest(form);
}

// The UN line a receiver named `me` sends for a line, with its number `n`; null when the line is valid or cannot be addressed.
function _reply(line, me, n, { profiles = null } = {}) {
  return rw1.refusalFor(rw1.checkLine(needString(line, "line"), receiverOf(profiles)), me, n);
}

function _checkRb(ho, rb, { profiles = null, expectAcc = null, record = null } = {}) {
  return readback.checkRb(ho, rb, { profiles: receiverOf(profiles), expectAcc, record });
}

function _checkHo(line, record, { profiles = null, relayAdds = null } = {}) {
  if (record === null || typeof record !== "object" || Array.isArray(record)) throw new RW1Error("record is an object of slot values", { kind: "ValueError" });
  return readback.checkHo(line, record, { profiles: receiverOf(profiles), relayAdds });
}

function _checkDn(ho, dn, { rb = null, profiles = null, record = null } = {}) {
  return readback.checkDn(ho, dn, rb, { profiles: receiverOf(profiles), record });
}

function _makeRb(ho, n, options = {}) {
  return readback.makeRb(ho, n, { ...options, profiles: receiverOf(options.profiles || null) });
}

function _checkThread(lines, { now = null, profiles = null } = {}) {
  return thread.checkThread(lines, { now, profiles: receiverOf(profiles) });
}

function _parseCriteria(criteria) {
  try {
    return rawParseCriteria(criteria);
  } catch (exc) {
    throw new RW1Error(exc.message, { kind: "CriteriaError" });
  }
}

export const check = guarded(_check);
export const parse = guarded(_parse);
export const fromJSON = guarded(_fromJSON);
export const toLine = guarded(_toLine);
export const toJSON = guarded(_toJSON);
export const digest = guarded(_digest);
export const reply = guarded(_reply);
export const checkRb = guarded(_checkRb);
export const checkHo = guarded(_checkHo);
export const checkDn = guarded(_checkDn);
export const makeRb = guarded(_makeRb);
export const checkThread = guarded(_checkThread);
export const parseCriteria = guarded(_parseCriteria);
export const loadProfile = guarded((source) => rw1.loadProfile(source));
// A receiver: the profiles it holds, loaded and checked once; pass it as `profiles`.
export const receiver = guarded((profiles = []) => new Receiver(profiles));
export const BUNDLED_PROFILES = Object.freeze([...rw1.BUNDLED_PROFILES]);
export { RW1Error, Receiver };
