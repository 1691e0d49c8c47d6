// The conformance contract (versions 1 and 2): one JSON request in, one JSON
// response out.
//
// Every response has `ok`: true and the op's fields, or false and a short
// `error` when the op itself could not be carried out. A request the port
// cannot use (not JSON, no op, a missing or ill-typed field, a profile that
// does not load) answers `ok: false` and the adapter reads on. Version 2:
// `{"op": "start", "contract": 2}` is answered with the handshake, and every
// response echoes the request's `seq` when it has one, errors included. A
// client that never says `start` and sends no `seq` speaks version 1.
//
// Error texts follow the Python adapter's: "bad request: ..." for a request
// that cannot be used, "<ErrorKind>: ..." for the package's own errors.

import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import * as rw1 from "./rw1.js";
import { checkRb, checkHo, checkDn, makeRb } from "./readback.js";
import { checkThread } from "./thread.js";

const CONTRACT = 2;
const HERE = path.dirname(fileURLToPath(import.meta.url));
const PACKAGE = JSON.parse(fs.readFileSync(path.join(HERE, "package.json"), "utf-8"));
const BAD_REQUEST_KINDS = new Set(["TypeError", "ValueError", "KeyError"]);

const receivers = new Map();

class BadRequest extends Error {}

const has = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

function field(request, name, type = null) {
  if (!has(request, name)) throw new BadRequest(`KeyError: '${name}'`);
  const value = request[name];
  if (type && typeof value !== type) throw new BadRequest(`TypeError: ${name} is not a ${type}`);
  return value;
}

// A request field as the checks take it: a line, or a value no check reads as one.
const lineOrNot = (value) => (typeof value === "string" ? value : false);

function mapping(request, name) {
  const value = has(request, name) ? request[name] : null;
  if (value !== null && !isObject(value)) throw new BadRequest(`ValueError: ${name} is an object of slot values`);
  return value;
}

// The receiver a request describes, cached. Profiles are bundled names or
// objects given inline; a file path is refused (a request never makes the
// adapter read the file system).
function receiverFor(request) {
  const profiles = has(request, "profiles") && request.profiles ? request.profiles : [];
  if (!Array.isArray(profiles)) throw new BadRequest("ValueError: profiles is a list of bundled profile names or profile objects");
  for (const entry of profiles) {
    if (typeof entry === "string" && !rw1.BUNDLED_PROFILES.includes(entry)) {
      throw new BadRequest(`ValueError: unknown profile ${JSON.stringify(entry)}: give a bundled name (${rw1.BUNDLED_PROFILES.join(", ")}) or the profile object inline`);
    }
    if (typeof entry !== "string" && !isObject(entry)) throw new BadRequest("ValueError: a profile is a bundled name or an object");
  }
  const key = rw1.canonicalJson(profiles);
  if (!receivers.has(key)) receivers.set(key, new rw1.Receiver(profiles));
  return receivers.get(key);
}

// A non-negative integer field (not a float, not a boolean).
function intField(request, name) {
  const value = field(request, name);
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) throw new BadRequest(`ValueError: ${name} is a non-negative integer`);
  return value;
}

// Python's bool() of a JSON value.
function truthy(value) {
  if (Array.isArray(value)) return value.length > 0;
  if (isObject(value)) return Object.keys(value).length > 0;
  return Boolean(value);
}

const refused = (why, token) => ({ valid: false, why: why || "UNK", token: token || "" });

// Findings as the contract shapes them: severity, kind, tier, key, message (+ token, column, why).
function findingJson(f) {
  const out = { severity: f.severity, kind: f.kind, tier: f.tier === undefined ? null : f.tier, key: f.key === undefined ? null : f.key, message: f.message };
  for (const name of ["token", "column", "why"]) if (f[name] !== undefined && f[name] !== null) out[name] = f[name];
  return out;
}

const reportJson = (report) => ({ passed: report.passed, findings: report.findings.map(findingJson) });

const OPS = {
  parse(request) {
    const result = rw1.checkLine(field(request, "line", "string"), receiverFor(request));
    if (result.message !== null) return { valid: true, json: result.message };
    const first = rw1.refusalOf(result);
    return refused(first.why, first.token);
  },

  encode(request) {
    const json = field(request, "json");
    const receiver = receiverFor(request);
    try {
      return { valid: true, line: rw1.encode(json, receiver) };
    } catch (exc) {
      if (exc instanceof rw1.RW1Error) return refused(exc.why, exc.token);
      throw exc;
    }
  },

  digest(request) {
    const line = field(request, "line", "string");
    const receiver = request.profiles && request.profiles.length ? receiverFor(request) : rw1.Receiver.allBundled();
    return { h: rw1.digest(rw1.strictMessage(line, receiver)) };
  },

  reply(request) {
    const line = field(request, "line", "string");
    const me = field(request, "as");
    const n = intField(request, "n");
    return { reply: rw1.refusalFor(rw1.checkLine(line, receiverFor(request)), me, n) };
  },

  "make-rb"(request) {
    const ho = field(request, "ho");
    const n = field(request, "n");
    if (typeof n !== "number" || !Number.isInteger(n)) throw new BadRequest("ValueError: n is an integer");
    const values = mapping(request, "values");
    const message = makeRb(lineOrNot(ho), n, {
      profiles: receiverFor(request),
      acc: request.acc, do: request.do, not: request.not, asm: request.asm, eta: request.eta,
      values, digest: has(request, "digest") ? truthy(request.digest) : true,
    });
    return { line: rw1.toLine(message) };
  },

  "check-rb"(request) {
    const ho = field(request, "ho");
    const rb = field(request, "rb");
    const receiver = receiverFor(request);
    const record = mapping(request, "record");
    return reportJson(checkRb(lineOrNot(ho), lineOrNot(rb), { profiles: receiver, expectAcc: request.expect_acc, record,
      now: has(request, "now") ? request.now : null }));
  },

  "check-ho"(request) {
    const record = mapping(request, "record");
    if (record === null) throw new BadRequest("ValueError: check-ho needs a record");
    const adds = has(request, "relay_adds") ? request.relay_adds : null;
    if (adds !== null && (!Array.isArray(adds) || !adds.every((a) => typeof a === "string"))) {
      throw new BadRequest("ValueError: relay_adds is a list of slot names");
    }
    const line = field(request, "line");
    return reportJson(checkHo(lineOrNot(line), record, { profiles: receiverFor(request), relayAdds: adds }));
  },

  "check-dn"(request) {
    const ho = field(request, "ho");
    const dn = field(request, "dn");
    const rb = has(request, "rb") && request.rb !== null ? lineOrNot(request.rb) : null;
    const receiver = receiverFor(request);
    const record = mapping(request, "record");
    return reportJson(checkDn(lineOrNot(ho), lineOrNot(dn), rb, { profiles: receiver, record, now: has(request, "now") ? request.now : null }));
  },

  "check-thread"(request) {
    const lines = field(request, "lines");
    if (!Array.isArray(lines) || !lines.every((l) => typeof l === "string")) throw new BadRequest("TypeError: lines is a list of strings");
    const report = checkThread(lines, { now: has(request, "now") ? request.now : null, profiles: receiverFor(request) });
    return { ...reportJson(report), ledger: report.ledger };
  },
};

function handshake() {
  return {
    contract: CONTRACT,
    implementation: { name: PACKAGE.name, version: PACKAGE.version, language: "javascript", homepage: PACKAGE.homepage },
    ops: Object.keys(OPS).sort(),
    profiles: [...rw1.BUNDLED_PROFILES],
  };
}

function answer(request) {
  if (!isObject(request) || typeof request.op !== "string") return { ok: false, error: "bad request: an object with op" };
  if (request.op === "start") return { ok: true, ...handshake() };
  if (!has(OPS, request.op)) return { ok: false, error: "unsupported" };
  try {
    return { ok: true, ...OPS[request.op](request) };
  } catch (exc) {
    if (exc instanceof BadRequest) return { ok: false, error: `bad request: ${exc.message}` };
    if (exc instanceof rw1.RW1Error) {
      if (BAD_REQUEST_KINDS.has(exc.kind)) return { ok: false, error: `bad request: ${exc.kind}: ${exc.message}` };
      return { ok: false, error: `${exc.kind}: ${exc.message}` };
    }
    if (exc instanceof RangeError) return { ok: false, error: `bad request: ValueError: ${exc.message}` };
    return { ok: false, error: `internal error: ${exc.name}: ${exc.message}` };
  }
}

// One request (already parsed) to its response; `seq` echoed when present.
function handle(request) {
  const response = answer(request);
  if (isObject(request) && has(request, "seq")) response.seq = request.seq;
  return response;
}

// One line of input to one line of output (without the newline), or null for a blank line.
function handleLine(text) {
  if (!text.trim()) return null;
  let request;
  try {
    request = rw1.parseJsonExact(text);
  } catch (exc) {
    return JSON.stringify({ ok: false, error: `bad request: not JSON (${exc.message})` });
  }
  let response;
  try {
    response = handle(request);
  } catch (exc) {
    response = { ok: false, error: `internal error: ${exc && exc.name}: ${exc && exc.message}` };
    if (isObject(request) && has(request, "seq")) response.seq = request.seq;
  }
  let out;
  try {
    out = JSON.stringify(response);
  } catch (exc) {
    out = JSON.stringify({ ok: false, error: `internal error: unwritable answer (${exc.message})`, ...(isObject(request) && has(request, "seq") ? { seq: request.seq } : {}) });
  }
  // ASCII only on the wire, as the Python adapter writes, so no character can break the line.
  return out.replace(/[\u007f-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

// Serve the contract on standard input and output until input ends.
function serve(input = process.stdin, output = process.stdout) {
  const rl = readline.createInterface({ input, crlfDelay: Infinity, terminal: false });
  rl.on("line", (text) => {
    const out = handleLine(text);
    if (out !== null) output.write(out + "\n");
  });
  return new Promise((resolve) => rl.on("close", resolve));
}

export { handle, handleLine, serve, handshake, OPS, CONTRACT };
