#!/usr/bin/env node
// The RW1 conformance adapter for the Node.js port.
//
// One JSON request per line on standard input, one JSON response per line on
// standard output, in order (the contract in conformance/README.md). The ops
// parse, encode, digest and reply are implemented; any other op answers
// {"ok": false, "error": "unsupported"}, which the harness counts as skipped.
// A request that cannot be carried out (bad JSON, a missing field, a profile
// that does not load) answers ok: false with a short error; no request ends
// the process.

"use strict";

const readline = require("readline");
const rw1 = require("./rw1.js");

const receivers = new Map();

function badRequest(message) {
  const err = new Error(message);
  err.badRequest = true;
  return err;
}

function field(request, name, type) {
  if (!Object.prototype.hasOwnProperty.call(request, name)) throw badRequest(`missing ${name}`);
  const value = request[name];
  if (type && typeof value !== type) throw badRequest(`${name} is not a ${type}`);
  return value;
}

function receiverFor(request) {
  const profiles = request.profiles || [];
  if (!Array.isArray(profiles)) throw badRequest("profiles is a list");
  const key = rw1.canonicalJson(profiles);
  if (!receivers.has(key)) receivers.set(key, new rw1.Receiver(profiles));
  return receivers.get(key);
}

// Python's int() of a request field: integers, integral strings, truncated numbers.
function integer(value) {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number" && Number.isFinite(value)) return Math.trunc(value);
  if (typeof value === "string" && /^\s*[+-]?[0-9]+(_[0-9]+)*\s*$/.test(value)) return Number(value.replace(/_/g, ""));
  throw badRequest(`n is not an integer: ${JSON.stringify(value)}`);
}

const refused = (why, token) => ({ valid: false, why: why || "UNK", token: token || "" });

const OPS = {
  parse(request) {
    const line = field(request, "line", "string");
    const result = rw1.checkLine(line, receiverFor(request));
    if (result.message !== null) return { valid: true, json: result.message };
    const first = rw1.refusalOf(result);
    return refused(first.why, first.token);
  },

  encode(request) {
    const json = field(request, "json");
    try {
      return { valid: true, line: rw1.encode(json, receiverFor(request)) };
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
    const n = integer(field(request, "n"));
    const result = rw1.checkLine(line, receiverFor(request));
    return { reply: rw1.refusalFor(result, me, n) };
  },
};

function handle(request) {
  if (request === null || typeof request !== "object" || Array.isArray(request) || typeof request.op !== "string") {
    return { ok: false, error: "bad request: an object with op" };
  }
  if (!Object.prototype.hasOwnProperty.call(OPS, request.op)) return { ok: false, error: "unsupported" };
  try {
    return { ok: true, ...OPS[request.op](request) };
  } catch (exc) {
    if (exc instanceof rw1.RW1Error) return { ok: false, error: `${exc.kind}: ${exc.message}` };
    if (exc.badRequest || exc instanceof RangeError) return { ok: false, error: `bad request: ${exc.message}` };
    return { ok: false, error: `internal error: ${exc.name}: ${exc.message}` };
  }
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
rl.on("line", (text) => {
  if (!text.trim()) return;
  let response;
  try {
    response = handle(JSON.parse(text));
  } catch (exc) {
    response = { ok: false, error: `bad request: not JSON (${exc.message})` };
  }
  process.stdout.write(JSON.stringify(response) + "\n");
});
