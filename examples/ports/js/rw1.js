// RW1 for Node.js: the port that proves the grammar, the vocabulary data and
// the conformance suite are reusable from another language.
//
// Theory of operation
// -------------------
// Syntax comes from grammar/rw1.lark only: rw1_parser.js is generated from it
// by generate.py (lark-js runtime plus Lark's own LALR tables and terminals),
// and this file never states a syntax rule of its own. The generated lexer
// runs its regexes with the `u` flag, so character classes count code points
// (astral characters included) as Python does. Lark reports columns in
// UTF-16 units here; they are converted to code points before use, because
// the protocol counts code points (D3). The lark-js runtime throws a plain
// SyntaxError when text remains after the tail (its lexer for a state that
// accepts only the end of the line cannot be built); that is read as the
// syntax error it is, at the end of the last token lexed.
//
// Vocabulary comes from profiles/*.json, the same files the Python package
// reads: the core (rw1.json) and a profile are merged and compiled into one
// table per message type (slot key -> slot type, plus required keys). The
// never-guess pass walks those tables; nothing here names a type's slots or
// a profile. Slot types decode a raw value into the JSON form's value (D1,
// D2) or throw a short reason.
//
// Refusals follow D4: the first failing finding gives why (VER for an
// unknown version token, UNK for everything else) and the offending token
// exactly as written.

import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import { fileURLToPath } from "node:url";
import * as lark from "./rw1_parser.js";
import { compilePattern, PatternError, MAX_MATCH_STEPS } from "./iregexp.js";

const VERSION = "RW1";
const TAIL_MARK = " // ";
const HERE = path.dirname(fileURLToPath(import.meta.url));

// The data files: RW1_PROFILES_DIR, else the copy an npm package carries
// (data/profiles, made by `npm pack`), else the repository's profiles/.
function profilesDir() {
  if (process.env.RW1_PROFILES_DIR) return process.env.RW1_PROFILES_DIR;
  const packaged = path.join(HERE, "data", "profiles");
  if (fs.existsSync(path.join(packaged, "rw1.json"))) return packaged;
  return path.resolve(HERE, "..", "..", "..", "profiles");
}
const PROFILES_DIR = profilesDir();
const BUNDLED_PROFILES = ["pay", "clin", "pform", "deploy"];
const JSON_KEYS = ["v", "type", "id", "re", "from", "to", "item", "slots", "tail"];

const AGENT_RE = /^[A-Za-z0-9._-]+$/;
const MSGID_RE = /^([A-Za-z0-9._-]+)-([0-9]+)$/;
const KEY_RE = /^[a-z][a-z0-9_]*$/;
const INT_RE = /^-?[0-9]+$/;
const DATE_RE = /^[0-9]{8}$/;
const TIME_RE = /^([0-9]{8})T([0-9]{2})([0-9]{2})Z$/;
const MONEY_RE = /^-?[0-9]+\.[0-9]{2}$/;
const NUM_RE = /^-?[0-9]+(?:\.[0-9]+)?(?:\/-?[0-9]+(?:\.[0-9]+)?)?$/;
const DIGEST_RE = /^[0-9a-f]{12}$/;
// Any key text (spec 5.2: a key outside the closed set is noted, not refused), as slot_types.constraint in rw1.json.
const CONSTRAINT_RE = /^([^:+]+):(.+)$/su;
const INT_TYPE_RE = /^int:(-?[0-9]+)-(-?[0-9]+)$/;
const NUMBER_RE = /^-?[0-9]+(?:\.[0-9]+)?$/;
const NAME_RE = /^[a-z][a-z0-9_-]*$/;
const CODE_RE = /^[!-~]+$/;

class RW1Error extends Error {
  constructor(message, { why = "UNK", token = "", column = null, kind = "RW1Error" } = {}) {
    super(message);
    this.why = why;
    this.token = token;
    this.column = column;
    this.kind = kind;
  }
}

// ---------------------------------------------------------------- text helpers

const cps = (s) => Array.from(s);
const cpLen = (s) => cps(s).length;

// Python's str.isspace(), which differs from JavaScript's \s (U+FEFF).
const PY_SPACE = new Set([0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680,
  0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a,
  0x2028, 0x2029, 0x202f, 0x205f, 0x3000]);

function hex(code, width) {
  return code.toString(16).padStart(width, "0");
}

// Text shown to a person with every invisible character escaped (D14): the
// same fixed table as rogerwilco/core/display.py (INVISIBLE_RANGES).
const INVISIBLE_RANGES = [
  [0x0000, 0x001f], [0x007f, 0x009f], [0x00a0, 0x00a0], [0x00ad, 0x00ad], [0x034f, 0x034f],
  [0x0600, 0x0605], [0x061c, 0x061c], [0x06dd, 0x06dd], [0x070f, 0x070f], [0x0890, 0x0891],
  [0x08e2, 0x08e2], [0x115f, 0x1160], [0x1680, 0x1680], [0x17b4, 0x17b5], [0x180b, 0x180f],
  [0x2000, 0x200f], [0x2028, 0x202f], [0x205f, 0x206f], [0x3000, 0x3000], [0x3164, 0x3164],
  [0xd800, 0xdfff], [0xfe00, 0xfe0f], [0xfeff, 0xfeff], [0xffa0, 0xffa0], [0xfff0, 0xfffb],
  [0x110bd, 0x110bd], [0x110cd, 0x110cd], [0x13430, 0x1343f], [0x1bca0, 0x1bca3],
  [0x1d173, 0x1d17a], [0xe0000, 0xe0fff],
];

function isInvisible(code) {
  return INVISIBLE_RANGES.some(([lo, hi]) => lo <= code && code <= hi);
}

function printable(text) {
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0);
    if (isInvisible(code)) {
      out += code < 0x100 ? `\\x${hex(code, 2)}` : code < 0x10000 ? `\\u${hex(code, 4)}` : `\\U${hex(code, 8)}`;
    } else {
      out += ch;
    }
  }
  return out;
}

// Python's repr() of a string, for messages that quote the input.
function pyRepr(text) {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const code = ch.codePointAt(0);
    if (ch === "\\" || ch === quote) out += "\\" + ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch !== " " && /[\p{C}\p{Z}]/u.test(ch)) {
      out += code < 0x100 ? `\\x${hex(code, 2)}` : code < 0x10000 ? `\\u${hex(code, 4)}` : `\\U${hex(code, 8)}`;
    } else out += ch;
  }
  return out + quote;
}

function pyStr(value) {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

// ---------------------------------------------------------------- syntax

const EXPECTED = {
  VERSION: "the version token RW1",
  TYPE: "a message type in uppercase (HO, RB, AQ, ...)",
  MSGID: "a message id <from>-<n>",
  SLOT: "a slot key=value (key: a lowercase letter, then [a-z0-9_])",
  _TAIL_MARK: "' // ' before a tail",
  _SP: "a single space",
  TAIL: "tail text",
  $END: "the end of the line",
};

let lastToken = null;
const TERMINALS = ["VERSION", "TYPE", "MSGID", "SLOT", "TAIL", "_TAIL_MARK", "_SP"];
const lexerCallbacks = Object.fromEntries(TERMINALS.map((name) => [name, (tok) => { lastToken = tok; return tok; }]));
let parserInstance = null;

function parser() {
  if (parserInstance === null) {
    parserInstance = lark.get_parser({ g_regex_flags: "u", lexer_callbacks: lexerCallbacks });
  }
  return parserInstance;
}

// The space-delimited chunk containing 1-based column (code points), and its column.
function chunkAt(text, column) {
  const t = cps(text);
  let idx = Math.min(Math.max(column - 1, 0), t.length);
  let start;
  if (idx < t.length && t[idx] !== " ") {
    start = t.lastIndexOf(" ", idx - 1) + 1;
    if (idx === 0) start = 0;
  } else {
    let nxt = idx;
    while (nxt < t.length && t[nxt] === " ") nxt += 1;
    if (nxt < t.length) {
      start = nxt;
    } else {
      let end = t.length;
      while (end > 0 && t[end - 1] === " ") end -= 1;
      if (end === 0) return ["", 1];
      start = t.lastIndexOf(" ", end - 1) + 1;
    }
  }
  let end = t.indexOf(" ", start);
  if (end === -1) end = t.length;
  return [t.slice(start, end).join(""), start + 1];
}

function utf16ColumnToCodePoints(text, column) {
  return cpLen(text.slice(0, Math.max(column - 1, 0))) + 1;
}

function expectedNames(exc) {
  const raw = exc.expected || exc.allowed;
  if (!raw) return [];
  return [...raw].map(String).sort();
}

// The bidirectional controls the grammar refuses anywhere in a line (D14).
const BIDI_CONTROLS = new Set([0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e,
  0x2066, 0x2067, 0x2068, 0x2069]);
// The invisible characters a tail may hold, each bound to visible characters
// (D16): a joiner between two of them, a variation selector right after one.
const isTailJoiner = (code) => code === 0x200c || code === 0x200d;
const isTailSelector = (code) => code >= 0xfe00 && code <= 0xfe0f;
const isTailOnly = (code) => isTailJoiner(code) || isTailSelector(code);
const isSurrogate = (code) => code >= 0xd800 && code <= 0xdfff;
// Every other invisible character that is no whitespace, control or surrogate: refused anywhere (D16).
const isInvisibleFormat = (code) => isInvisible(code) && code >= 0xa0 && !isSurrogate(code) && !PY_SPACE.has(code) && !isTailOnly(code);

// Index of the first joiner or selector of the tail at `start` that the grammar's TWORD does not bind.
function unboundInTail(t, start) {
  let before = " ";
  for (let i = start; i < t.length; i++) {
    const code = t[i].codePointAt(0);
    if (isTailSelector(code)) {
      if (before !== "char") return i;
      before = "selector";
    } else if (isTailJoiner(code)) {
      const next = i + 1 < t.length ? t[i + 1].codePointAt(0) : null;
      if ((before !== "char" && before !== "selector") || next === null || next === 0x20 || isTailOnly(next)) return i;
      before = "join";
    } else {
      before = t[i] === " " ? " " : "char";
    }
  }
  return null;
}

// Why a character at `column` cannot stand where it does.
function refusedCharacter(ch, column, inTail) {
  const code = ch.codePointAt(0);
  const shown = `${printable(ch)} (U+${hex(code, 4).toUpperCase()}) at column ${column}`;
  if (BIDI_CONTROLS.has(code)) return `bidirectional control ${shown} is not allowed in a line: it changes how the text around it displays`;
  if (isTailOnly(code)) {
    if (!inTail) return `invisible character ${shown} is not allowed outside the tail: values hold only visible characters`;
    if (isTailJoiner(code)) return `joiner ${shown} is allowed in the tail only between two visible characters`;
    return `variation selector ${shown} is allowed in the tail only right after a visible character`;
  }
  if (isInvisibleFormat(code)) return `invisible character ${shown} is not allowed in a line: it shows as nothing, so text holding it looks like other text`;
  return `character ${shown} is not allowed in a line`;
}

function describe(text, column, expected, exc) {
  const t = cps(text);
  const idx = column - 1;
  if (!text) return "empty line";
  // the tail (after the first " // ") may hold no-break and other non-breaking spaces,
  // and joiners and selectors bound to visible characters
  const mark = text.indexOf(" // ");
  const tailFrom = mark < 0 ? t.length : cpLen(text.slice(0, mark)) + 4;
  const unbound = unboundInTail(t, tailFrom);
  for (let i = 0; i < t.length; i++) {
    const ch = t[i];
    const code = ch.codePointAt(0);
    const headOnly = i < tailFrom && ((PY_SPACE.has(code) && ch !== " ") || isTailOnly(code));
    if (headOnly || i === unbound || BIDI_CONTROLS.has(code) || isInvisibleFormat(code) || code < 0x20
        || (code >= 0x7f && code <= 0x9f) || ch === "\u2028" || ch === "\u2029" || isSurrogate(code)) {
      return refusedCharacter(ch, i + 1, i >= tailFrom);
    }
  }
  if (t[0] === " ") return "leading space";
  if (text.endsWith(" ")) return "trailing space";
  if (text.includes("  ")) return `two spaces in a row at column ${cpLen(text.slice(0, text.indexOf("  "))) + 1}`;
  if (text.endsWith(" //")) return "empty tail: ' //' must be followed by a space and text";
  if (!text.startsWith("RW") || !/^[0-9]/.test(t.slice(2, 3).join(""))) return "a line starts with the version token RW1";
  if (exc && expected.length) {
    const wanted = expected.map((name) => EXPECTED[name] || name).join(" or ");
    const got = idx < t.length ? t.slice(idx).join("").split(" ")[0] : "the end of the line";
    return `expected ${wanted}, found ${pyRepr(printable(got))}`;
  }
  return "malformed line";
}

function syntaxError(text, exc) {
  const length = cpLen(text);
  let column;
  if (exc instanceof lark.UnexpectedToken) {
    column = exc.token && exc.token.type === "$END" ? length + 1 : exc.column;
    if (typeof column === "number") column = utf16ColumnToCodePoints(text, column);
  } else if (exc instanceof lark.UnexpectedCharacters) {
    column = typeof exc.column === "number" ? utf16ColumnToCodePoints(text, exc.column) : null;
  } else if (exc instanceof SyntaxError) {
    // The runtime could not build a lexer for a state that accepts only the
    // end of the line: the error is the first character after the last token.
    column = lastToken ? cpLen(text.slice(0, lastToken.start_pos + lastToken.value.length)) + 1 : 1;
  } else {
    column = null;
  }
  if (typeof column !== "number" || column < 1) column = length + 1;
  const expected = exc instanceof SyntaxError ? ["$END"] : expectedNames(exc);
  const message = describe(text, column, expected, exc instanceof SyntaxError ? null : exc);
  const [token, tokenColumn] = chunkAt(text, column);
  return new RW1Error(message, { why: "UNK", token, column: token ? tokenColumn : column, kind: "RW1SyntaxError" });
}

// One line into {text, version, type, id, slots: [[key, raw]], tail}, or a syntax error.
function parseRaw(text) {
  lastToken = null;
  let tree;
  try {
    tree = parser().parse(text);
  } catch (exc) {
    if (exc instanceof lark.UnexpectedInput || exc instanceof SyntaxError) throw syntaxError(text, exc);
    throw exc;
  }
  const [version, type, id, ...rest] = tree.children;
  const slots = [];
  let tail = null;
  for (const tok of rest) {
    if (tok.type === "SLOT") {
      const at = tok.value.indexOf("=");
      slots.push([tok.value.slice(0, at), tok.value.slice(at + 1)]);
    } else {
      tail = tok.value;
    }
  }
  return { text, version: version.value, type: type.value, id: id.value, slots, tail };
}

function slotColumn(raw, index) {
  let col = cpLen(raw.version) + cpLen(raw.type) + cpLen(raw.id) + 3;
  for (const [key, value] of raw.slots.slice(0, index)) col += cpLen(key) + cpLen(value) + 2;
  return col + 1;
}

// ---------------------------------------------------------------- slot types

// a profile pattern, matched on the whole value (D11) by the automaton the Python package builds; one outside
// the portable subset (which the Python package refuses at load) by the host's regular expressions
function wholeMatch(source) {
  try {
    return compilePattern(source);
  } catch (exc) {
    if (!(exc instanceof PatternError)) throw exc;
    const re = new RegExp(`^(?:${source})$`, "u");
    return { pattern: source, matches: (value) => re.test(value) };
  }
}

function pattern(re, what) {
  return (raw) => {
    if (!re.test(raw)) throw new Error(`not ${what}`);
  };
}

function checkDate(raw) {
  if (!DATE_RE.test(raw)) throw new Error("not a date YYYYMMDD");
  const y = Number(raw.slice(0, 4));
  const m = Number(raw.slice(4, 6));
  const d = Number(raw.slice(6));
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  if (y < 1 || m < 1 || m > 12 || d < 1 || d > days[m - 1]) throw new Error("not a calendar date");
}

function checkTime(raw) {
  const m = TIME_RE.exec(raw);
  if (!m) throw new Error("not a UTC time YYYYMMDDTHHMMZ");
  checkDate(m[1]);
  if (Number(m[2]) > 23 || Number(m[3]) > 59) throw new Error("not a time of day");
}

function intCodec(lo, hi) {
  return (raw) => {
    if (!INT_RE.test(raw)) throw new Error("not an integer");
    const value = Number(raw) + 0; // -0 reads as 0
    if ((lo !== null && value < lo) || (hi !== null && value > hi)) throw new Error(`out of range ${lo}-${hi}`);
    return value;
  };
}

// A type name from the vocabulary into {name, decode, enumName, isList}.
function compileType(name, enums, rbCodes = new Set()) {
  if (typeof name !== "string") throw new Error(`unknown slot type ${pyRepr(pyStr(name))}`);
  if (name.startsWith("list:")) {
    const inner = compileType(name.slice(5), enums, rbCodes);
    if (inner.isList) throw new Error(`nested list type ${pyRepr(name)}`);
    return {
      name,
      enumName: inner.enumName,
      isList: true,
      decode(raw) {
        const parts = raw.split("+");
        if (parts.includes("")) throw new Error("empty list element");
        return parts.map((part) => inner.decode(part));
      },
    };
  }
  if (name.startsWith("enum:")) {
    const enumName = name.slice(5);
    if (!Object.prototype.hasOwnProperty.call(enums, enumName)) {
      throw new Error(`type ${pyRepr(name)} names an enum that is not defined`);
    }
    const codes = enums[enumName];
    return {
      name, enumName, isList: false,
      decode(raw) {
        if (!Object.prototype.hasOwnProperty.call(codes, raw)) throw new Error(`unknown ${enumName} code`);
        return raw;
      },
    };
  }
  if (name.startsWith("int:")) {
    const m = INT_TYPE_RE.exec(name);
    if (!m || Number(m[1]) > Number(m[2])) throw new Error(`bad integer type ${pyRepr(name)} (int:<lo>-<hi>)`);
    return { name, enumName: null, isList: false, decode: intCodec(Number(m[1]), Number(m[2])) };
  }
  if (name === "days") {
    // a number of days, 0 or more, written 14 or 14d (the published profiles write stall=19d); written back 14
    const decodeInt = intCodec(null, null);
    return {
      name, enumName: null, isList: false,
      decode(raw) {
        if (!/^[0-9]+d?$/.test(raw)) throw new Error("not a number of days (digits, optionally ending in d: 14 or 14d)");
        return decodeInt(raw.endsWith("d") ? raw.slice(0, -1) : raw);
      },
    };
  }
  if (name === "bool") {
    return {
      name, enumName: null, isList: false,
      decode(raw) {
        if (raw === "Y") return true;
        if (raw === "N") return false;
        throw new Error("not Y or N");
      },
    };
  }
  if (name === "rb") {
    return {
      name, enumName: null, isList: false,
      decode(raw) {
        if (!rbCodes.has(raw)) throw new Error("unknown readback level or slot");
        return raw;
      },
    };
  }
  const checks = {
    token: null,
    ref: null,
    text: null,
    agent: pattern(AGENT_RE, "an agent name"),
    msgid: pattern(MSGID_RE, "a message id <agent>-<n>"),
    date: checkDate,
    time: checkTime,
    money: pattern(MONEY_RE, "money with two decimals and no separators"),
    num: pattern(NUM_RE, "a number (or two numbers with a slash)"),
    digest: pattern(DIGEST_RE, "12 lowercase hex digits"),
    constraint: pattern(CONSTRAINT_RE, "a constraint key:value"),
  };
  if (!Object.prototype.hasOwnProperty.call(checks, name)) throw new Error(`unknown slot type ${pyRepr(name)}`);
  const check = checks[name];
  return {
    name, enumName: null, isList: false,
    decode(raw) {
      if (check) check(raw);
      return raw;
    },
  };
}

// ---------------------------------------------------------------- vocabulary

const has = (obj, key) => obj !== null && typeof obj === "object" && Object.prototype.hasOwnProperty.call(obj, key);
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

function readJson(file) {
  let text;
  try {
    text = fs.readFileSync(file, "utf-8");
  } catch (exc) {
    throw new RW1Error(`profile file not found: ${file}`, { kind: "ProfileError" });
  }
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (exc) {
    throw new RW1Error(`not valid JSON: ${exc.message}`, { kind: "ProfileError" });
  }
  if (!isObject(doc)) throw new RW1Error("a profile is a JSON object", { kind: "ProfileError" });
  return doc;
}

let coreDoc = null;
let compareDoc = null;

// The comparison data (compare.json): constraint keys, set-valued keys,
// aliases and the word lists of the comprehension check.
function compareDocument() {
  if (compareDoc === null) compareDoc = readJson(path.join(PROFILES_DIR, "compare.json"));
  return compareDoc;
}

// The core, with the comparison data's keys and aliases merged in as the
// Python package does: enum ckey, set_valued_keys, aliases.
function coreDocument() {
  if (coreDoc === null) {
    const core = readJson(path.join(PROFILES_DIR, "rw1.json"));
    const compare = compareDocument();
    core.enums = { ...core.enums, ckey: { ...compare.constraint_keys } };
    core.set_valued_keys = [...compare.set_valued_keys];
    core.aliases = { ...compare.aliases };
    coreDoc = core;
  }
  return coreDoc;
}

const PROFILE_KEYS = new Set(["profile", "version", "extends", "enums", "asks", "why", "slots", "agents", "asks_used",
  "exec", "constraint_keys", "aliases", "translation", "desc", "$schema",
  // kept as notes, as the published reference profiles write them
  "description", "item_namespace", "item_examples", "item_kinds"]);

function codesOf(value, where, problems) {
  if (Array.isArray(value)) value = Object.fromEntries(value.map((c) => [c, ""]));
  if (!isObject(value)) {
    problems.push([where, "expected an object of code: description"]);
    return {};
  }
  const out = {};
  for (const [code, desc] of Object.entries(value)) {
    if (!CODE_RE.test(code) || code.includes("+")) problems.push([`${where}.${code}`, "a code is visible ASCII with no '+'"]);
    else if (typeof desc !== "string") problems.push([`${where}.${code}`, "a code's description is a string"]);
    else out[code] = desc;
  }
  return out;
}

// Every problem of a profile document, as [JSON path, message] pairs (D5).
function profileProblems(doc) {
  const core = coreDocument();
  const problems = [];
  for (const key of Object.keys(doc)) {
    if (!PROFILE_KEYS.has(key)) problems.push([`$.${key}`, `unknown profile key ${pyRepr(key)}`]);
  }
  const name = doc.profile;
  if (typeof name !== "string" || !NAME_RE.test(name)) problems.push(["$.profile", "a profile names itself with a lowercase name"]);
  else if (name.toUpperCase() === "RW1") problems.push(["$.profile", "the core's own name cannot be a profile"]);
  if (typeof doc.version !== "string") problems.push(["$.version", "a profile has a version string"]);
  if (doc.extends !== "RW1" && doc.extends !== "core") problems.push(["$.extends", 'a profile extends "RW1" (the core, also written "core")']);

  const coreEnums = core.enums;
  const enums = {};
  for (const [k, v] of Object.entries(coreEnums)) enums[k] = { ...v };
  const extend = (enumName, codes, where) => {
    if (!has(enums, enumName)) enums[enumName] = {};
    for (const [code, desc] of Object.entries(codes)) {
      if (has(coreEnums[enumName] || {}, code)) problems.push([`${where}.${code}`, `redefines core ${enumName} code ${pyRepr(code)}`]);
      enums[enumName][code] = desc;
    }
  };
  let rawEnums = has(doc, "enums") ? doc.enums : {};
  if (!isObject(rawEnums)) {
    problems.push(["$.enums", "expected an object of enum name: codes"]);
    rawEnums = {};
  }
  for (const [enumName, codes] of Object.entries(rawEnums)) extend(enumName, codesOf(codes, `$.enums.${enumName}`, problems), `$.enums.${enumName}`);
  extend("ask", codesOf(has(doc, "asks") ? doc.asks : {}, "$.asks", problems), "$.asks");
  extend("why", codesOf(has(doc, "why") ? doc.why : {}, "$.why", problems), "$.why");
  extend("ckey", codesOf(has(doc, "constraint_keys") ? doc.constraint_keys : {}, "$.constraint_keys", problems), "$.constraint_keys");
  if (has(enums, "ans")) {
    for (const code of Object.keys(enums.ans)) {
      for (const coreEnum of ["ask", "why", "out", "need", "conf"]) {
        if (has(coreEnums[coreEnum], code)) problems.push([`$.enums.ans.${code}`, `answer ${pyRepr(code)} collides with core ${coreEnum} code`]);
      }
      if (["Y", "N", "tail"].includes(code)) problems.push([`$.enums.ans.${code}`, `answer ${pyRepr(code)} collides with a reserved value`]);
    }
  }

  const types = Object.keys(core.types);
  const slotNames = new Set(Object.keys(core.slots));
  let rawSlots = has(doc, "slots") ? doc.slots : [];
  if (!Array.isArray(rawSlots)) {
    problems.push(["$.slots", "expected a list of slot definitions"]);
    rawSlots = [];
  }
  rawSlots.forEach((slot, i) => {
    const where = `$.slots[${i}]`;
    if (!isObject(slot)) {
      problems.push([where, "a slot definition is an object"]);
      return;
    }
    const key = slot.key;
    if (typeof key !== "string" || !KEY_RE.test(key)) {
      problems.push([`${where}.key`, "a slot key matches [a-z][a-z0-9_]*"]);
      return;
    }
    if (has(core.slots, key) || core.envelope.includes(key)) problems.push([`${where}.key`, `redefines core slot ${pyRepr(key)}`]);
    if (key.startsWith("x_")) problems.push([`${where}.key`, "x_ keys are extensions, not profile slots"]);
    if (slotNames.has(key) && !has(core.slots, key)) problems.push([`${where}.key`, `slot ${pyRepr(key)} defined twice`]);
    slotNames.add(key);
    for (const extra of Object.keys(slot)) {
      if (!["key", "type", "on", "required", "desc"].includes(extra)) problems.push([`${where}.${extra}`, `unknown slot field ${pyRepr(extra)}`]);
    }
    try {
      compileType(pyStr(slot.type), enums);
    } catch (exc) {
      problems.push([`${where}.type`, exc.message]);
    }
    const on = has(slot, "on") ? slot.on : types;
    if (!Array.isArray(on) || !on.every((t) => types.includes(t))) problems.push([`${where}.on`, "'on' lists message types"]);
    if (has(slot, "required") && typeof slot.required !== "boolean") problems.push([`${where}.required`, "'required' is true or false"]);
    if (has(slot, "desc") && typeof slot.desc !== "string") problems.push([`${where}.desc`, "'desc' is a string"]);
  });

  const agents = has(doc, "agents") ? doc.agents : [];
  if (!Array.isArray(agents) || !agents.every((a) => typeof a === "string" && AGENT_RE.test(a))) {
    problems.push(["$.agents", "agents is a list of agent names [A-Za-z0-9._-]+"]);
  }
  const asksUsed = has(doc, "asks_used") ? doc.asks_used : [];
  if (!Array.isArray(asksUsed)) problems.push(["$.asks_used", "asks_used is a list of core asks"]);
  else asksUsed.forEach((ask, i) => {
    if (!has(enums.ask, ask)) problems.push([`$.asks_used[${i}]`, `${pyRepr(pyStr(ask))} is not an ask of the core or this profile`]);
  });
  let execMap = has(doc, "exec") ? doc.exec : {};
  if (!isObject(execMap)) {
    problems.push(["$.exec", "exec maps an ask to its execution slots"]);
    execMap = {};
  }
  for (const [ask, slots] of Object.entries(execMap)) {
    if (!has(enums.ask, ask)) problems.push([`$.exec.${ask}`, `${pyRepr(ask)} is not an ask`]);
    if (!Array.isArray(slots)) {
      problems.push([`$.exec.${ask}`, "execution slots are a list"]);
      continue;
    }
    slots.forEach((key, i) => {
      if (!slotNames.has(key)) problems.push([`$.exec.${ask}[${i}]`, `execution slot ${pyRepr(pyStr(key))} is not a slot`]);
    });
  }
  const aliases = has(doc, "aliases") ? doc.aliases : {};
  if (!isObject(aliases) || !Object.values(aliases).every((v) => Array.isArray(v) && v.every((s) => typeof s === "string"))) {
    problems.push(["$.aliases", "aliases map a canonical value to a list of spellings"]);
  }
  let rules = has(doc, "translation") ? doc.translation : [];
  if (isObject(rules)) rules = has(rules, "rules") ? rules.rules : [];
  if (!Array.isArray(rules)) {
    problems.push(["$.translation", "translation is a list of rules"]);
    rules = [];
  }
  const ruleSlots = new Set([...slotNames, "item", "re", "from", "to"]);
  rules.forEach((rule, i) => problems.push(...ruleProblems(rule, `$.translation[${i}]`, ruleSlots, types)));
  return problems;
}

function ruleProblems(rule, where, slotNames, types) {
  const problems = [];
  if (!isObject(rule)) return [[where, "a rule is an object"]];
  const allowed = ["id", "on", "when", "require", "require_tail", "match", "sum", "evidence", "desc"];
  for (const key of Object.keys(rule)) {
    if (!allowed.includes(key)) problems.push([`${where}.${key}`, `unknown rule field ${pyRepr(key)}`]);
  }
  if (typeof rule.id !== "string") problems.push([`${where}.id`, "a rule has an id"]);
  const on = has(rule, "on") ? rule.on : [];
  if (!Array.isArray(on) || !on.every((t) => types.includes(t))) problems.push([`${where}.on`, "'on' lists message types"]);
  let when = has(rule, "when") ? rule.when : {};
  if (!isObject(when)) {
    problems.push([`${where}.when`, "'when' maps a slot to a value or {\"prefix\": ...}"]);
    when = {};
  }
  const named = Object.keys(when).map((k) => [`${where}.when.${k}`, k]);
  (Array.isArray(rule.require) ? rule.require : []).forEach((key, i) => named.push([`${where}.require[${i}]`, key]));
  let match = has(rule, "match") ? rule.match : {};
  if (!isObject(match)) {
    problems.push([`${where}.match`, "'match' maps a slot to a regex"]);
    match = {};
  }
  for (const [key, pat] of Object.entries(match)) {
    named.push([`${where}.match.${key}`, key]);
    try {
      if (typeof pat !== "string") throw new Error("not a string");
      new RegExp(pat, "u");
    } catch (exc) {
      problems.push([`${where}.match.${key}`, `bad pattern ${pyRepr(pyStr(pat))}`]);
    }
  }
  const total = has(rule, "sum") ? rule.sum : null;
  if (total !== null) {
    if (!isObject(total) || !Array.isArray(total.parts) || typeof total.total !== "string") {
      problems.push([`${where}.sum`, "'sum' is {\"parts\": [slots], \"total\": slot}"]);
    } else {
      total.parts.forEach((key, i) => named.push([`${where}.sum.parts[${i}]`, key]));
      named.push([`${where}.sum.total`, total.total]);
    }
  }
  if (has(rule, "evidence")) {
    if (typeof rule.evidence !== "string") problems.push([`${where}.evidence`, "'evidence' names the slot that points at the evidence"]);
    else named.push([`${where}.evidence`, rule.evidence]);
  }
  for (const [w, key] of named) {
    if (!slotNames.has(key)) problems.push([w, `rule names unknown slot ${pyRepr(pyStr(key))}`]);
  }
  return problems;
}

// A profile document from a bundled name, a file path, or an object, checked against the core.
function loadProfile(source) {
  let doc;
  if (isObject(source)) {
    doc = { ...source };
  } else if (typeof source === "string") {
    const file = path.join(PROFILES_DIR, `${source}.json`);
    if (BUNDLED_PROFILES.includes(source) || (NAME_RE.test(source) && fs.existsSync(file))) doc = readJson(file);
    else doc = readJson(source);
  } else {
    throw new RW1Error("a profile is a name, a path or an object", { kind: "ProfileError" });
  }
  const problems = profileProblems(doc);
  if (problems.length) throw new RW1Error(`${problems[0][0]}: ${problems[0][1]}`, { kind: "ProfileError" });
  return doc;
}

const asCodes = (value) => (Array.isArray(value) ? Object.fromEntries(value.map((c) => [c, ""])) : { ...value });

// The core plus at most one profile, compiled into per-type slot tables.
function compileVocabulary(profile = null) {
  const core = coreDocument();
  const pname = profile ? profile.profile : null;
  const enums = {};
  for (const [k, v] of Object.entries(core.enums)) enums[k] = { ...v };
  if (profile) {
    for (const [enumName, codes] of Object.entries(profile.enums || {})) {
      enums[enumName] = { ...(enums[enumName] || {}), ...asCodes(codes) };
    }
    Object.assign(enums.ask, asCodes(profile.asks || {}));
    Object.assign(enums.why, asCodes(profile.why || {}));
    Object.assign(enums.ckey, asCodes(profile.constraint_keys || {}));
  }
  const slotSpecs = new Map();
  for (const [key, spec] of Object.entries(core.slots)) slotSpecs.set(key, [spec.type, null]);
  const profileSlots = profile ? profile.slots || [] : [];
  for (const spec of profileSlots) slotSpecs.set(spec.key, [spec.type, pname]);
  const rbCodes = new Set([...Object.keys(core.rb_levels), ...slotSpecs.keys()]);
  const slots = new Map();
  for (const [key, [typeName, owner]] of slotSpecs) slots.set(key, { key, type: compileType(typeName, enums, rbCodes), profile: owner });

  const typeNames = Object.keys(core.types);
  const allowed = {};
  const required = {};
  for (const [tname, spec] of Object.entries(core.types)) {
    allowed[tname] = [...spec.required, ...spec.optional, "p"];
    required[tname] = [...spec.required];
  }
  for (const spec of profileSlots) {
    const on = spec.on && spec.on.length ? spec.on : typeNames;
    for (const tname of on) {
      allowed[tname].push(spec.key);
      if (spec.required) required[tname].push(spec.key);
    }
  }
  for (const [tname, spec] of Object.entries(core.types)) {
    if (spec.echoes) allowed[tname].push(...allowed[spec.echoes]);
  }
  const types = {};
  for (const tname of typeNames) {
    types[tname] = {
      name: tname,
      required: required[tname],
      slots: new Map([...new Set(allowed[tname])].map((key) => [key, slots.get(key)])),
    };
  }
  const compileRule = (raw) => ({
    id: raw.id,
    on: new Set(raw.on && raw.on.length ? raw.on : typeNames),
    when: raw.when || {},
    require: raw.require || [],
    requireTail: Boolean(raw.require_tail),
    // a profile pattern matches the whole value (D11)
    match: Object.entries(raw.match || {}).map(([k, v]) => [k, wholeMatch(v)]),
    sum: raw.sum || null,
    desc: raw.desc || "",
  });
  let translation = profile ? profile.translation || [] : [];
  if (isObject(translation)) translation = translation.rules || [];
  const rules = [...(core.rules || []), ...translation].map(compileRule);
  // every spelling (and the canonical value itself) -> the canonical value, lowercased
  const aliases = new Map();
  for (const source of [core.aliases || {}, (profile && profile.aliases) || {}]) {
    for (const [canonical, spellings] of Object.entries(source)) {
      aliases.set(canonical.toLowerCase(), canonical.toLowerCase());
      for (const spelling of spellings) aliases.set(spelling.toLowerCase(), canonical.toLowerCase());
    }
  }
  const execSlots = new Map(Object.entries((profile && profile.exec) || {}).map(([ask, keys]) => [ask, [...keys]]));
  return {
    profile: pname,
    envelope: core.envelope,
    types,
    slots,
    enums,
    rules,
    rbLevels: Object.keys(core.rb_levels),
    constraintKeys: new Set(Object.keys(enums.ckey || {})),
    setValuedKeys: new Set(core.set_valued_keys || []),
    aliases,
    execSlots,
    agents: profile && profile.agents && profile.agents.length ? new Set(profile.agents) : null,
    reservedAgents: new Set(core.reserved_agents || []),
    tailMax: core.tail_max === undefined ? 300 : Number(core.tail_max),
  };
}

let coreVocab = null;
function coreVocabulary() {
  if (coreVocab === null) coreVocab = compileVocabulary(null);
  return coreVocab;
}

let allBundledReceiver = null;

// The profiles a receiver holds (names, paths or objects), compiled once each.
class Receiver {
  constructor(profiles = []) {
    this.vocabs = new Map();
    for (const entry of profiles) {
      const vocab = compileVocabulary(loadProfile(entry));
      this.vocabs.set(vocab.profile, vocab);
    }
  }

  static allBundled() {
    if (allBundledReceiver === null) allBundledReceiver = new Receiver(BUNDLED_PROFILES);
    return allBundledReceiver;
  }

  get names() {
    return [...this.vocabs.keys()];
  }

  holds(name) {
    return this.vocabs.has(name);
  }

  vocabulary(name = null) {
    return name === null ? coreVocabulary() : this.vocabs.get(name);
  }
}

// ---------------------------------------------------------------- never guess

const AGENT_TYPES = new Set(["agent", "list:agent"]);
const fail = (kind, token, message, extra = {}) => ({ severity: "fail", kind, token, message, why: "UNK", ...extra });
const note = (kind, message, extra = {}) => ({ severity: "note", kind, message, ...extra });

function checkLine(text, receiver) {
  let raw;
  try {
    raw = parseRaw(text);
  } catch (exc) {
    if (!(exc instanceof RW1Error)) throw exc;
    const version = text.split(" ")[0];
    if (/^RW[0-9]+$/.test(version) && version !== VERSION) {
      return { text, raw: null, message: null, findings: [fail("version", version, "unsupported protocol version", { why: "VER", column: 1 })] };
    }
    return { text, raw: null, message: null, findings: [fail("syntax", exc.token, exc.message, { column: exc.column })] };
  }
  return checkRaw(raw, receiver);
}

function requiringProfile(receiver, key) {
  for (const name of receiver.names) {
    const vocab = receiver.vocabulary(name);
    const slot = vocab.slots.get(key);
    if (slot && slot.profile === name && Object.values(vocab.types).some((t) => t.required.includes(key))) return name;
  }
  return null;
}

function conditionHolds(cond, value) {
  if (value === undefined || value === null) return false;
  if (isObject(cond)) {
    if (has(cond, "prefix")) return typeof value === "string" && value.startsWith(cond.prefix);
    if (has(cond, "in")) return Array.isArray(cond.in) && cond.in.some((c) => c === value);
    return false;
  }
  return value === cond;
}

function rawOf(raw, key) {
  for (const [k, v] of raw.slots) if (k === key) return v;
  return null;
}

// Decimal text as [BigInt, scale], or null when it is not a plain decimal.
function decimal(text) {
  const m = /^(-?)([0-9]+)(?:\.([0-9]+))?$/.exec(text);
  if (!m) return null;
  const frac = m[3] || "";
  return [BigInt(m[1] + m[2] + frac), frac.length];
}

function formatDecimal(value, scale) {
  const negative = value < 0n;
  let digits = (negative ? -value : value).toString().padStart(scale + 1, "0");
  if (scale) digits = digits.slice(0, digits.length - scale) + "." + digits.slice(digits.length - scale);
  return (negative ? "-" : "") + digits;
}

function checkRules(raw, vocab, values) {
  const findings = [];
  for (const rule of vocab.rules) {
    if (!rule.on.has(raw.type)) continue;
    if (!Object.entries(rule.when).every(([key, cond]) => conditionHolds(cond, values.get(key)))) continue;
    const why = rule.desc || rule.id;
    for (const key of rule.require) {
      if (!values.has(key)) findings.push(fail("rule", key, `required: ${why}`, { key }));
    }
    if (rule.requireTail && raw.tail === null) {
      // D12: the token is the slot whose value asks for the tail (val=tail), else the mark
      const asking = Object.keys(rule.when).find((k) => rawOf(raw, k) !== null);
      const token = asking === undefined ? "//" : `${asking}=${rawOf(raw, asking)}`;
      findings.push(fail("rule", token, `tail required: ${why}`));
    }
    for (const [key, pattern] of rule.match) {
      const written = rawOf(raw, key);
      const matched = written === null ? null : pattern.matches(written);
      if (matched === false) {
        findings.push(fail("rule", `${key}=${written}`, `does not have the required shape: ${why}`, { key }));
      } else if (written !== null && matched === null) {
        // past the work a value may cost, counted as the Python package counts it (docs/profiles.md)
        findings.push(fail("rule", `${key}=${written}`, `too long (${[...written].length} characters) to match against the pattern ${pyRepr(pattern.pattern)} within ${String(MAX_MATCH_STEPS).replace(/\B(?=([0-9]{3})+$)/g, ",")} steps: ${why}`, { key }));
      }
    }
    if (rule.sum) {
      const { parts, total } = rule.sum;
      if ([...parts, total].every((k) => rawOf(raw, k) !== null)) {
        const numbers = [...parts, total].map((k) => decimal(rawOf(raw, k)));
        if (numbers.some((n) => n === null)) continue;
        const scale = Math.max(0, ...numbers.map((n) => n[1]));
        const scaled = numbers.map(([v, s]) => v * 10n ** BigInt(scale - s));
        const partScale = Math.max(0, ...numbers.slice(0, -1).map((n) => n[1]));
        const got = scaled.slice(0, -1).reduce((a, b) => a + b, 0n);
        if (got !== scaled[scaled.length - 1]) {
          const shown = formatDecimal(got / 10n ** BigInt(scale - partScale), partScale);
          findings.push(fail("rule", `${total}=${rawOf(raw, total)}`, `is not ${parts.join(" + ")} = ${shown}: ${why}`, { key: total }));
        }
      }
    }
  }
  const ans = vocab.enums.ans;
  if (ans && Object.keys(ans).length) {
    if (raw.type === "AQ" && values.get("need") === "ENUM") {
      for (const opt of values.get("opts") || []) {
        if (!has(ans, opt)) {
          findings.push(fail("answer", `opts=${rawOf(raw, "opts")}`, `option ${opt} is not in the profile's answer vocabulary (ans)`, { key: "opts" }));
          break;
        }
      }
    }
    if (raw.type === "AN") {
      const val = values.get("val");
      if (typeof val === "string" && !(["tail", "Y", "N"].includes(val) || NUMBER_RE.test(val) || has(ans, val))) {
        findings.push(fail("answer", `val=${val}`, "is not in the profile's answer vocabulary (ans)", { key: "val" }));
      }
    }
  }
  return findings;
}

function checkRaw(raw, receiver) {
  const findings = [];
  if (raw.version !== VERSION) {
    findings.push(fail("version", raw.version, "unsupported protocol version", { why: "VER", column: 1 }));
    return { text: raw.text, raw, message: null, findings };
  }
  let vocab = coreVocabulary();
  let profileName = null;
  const seen = new Map();
  raw.slots.forEach(([key, value], i) => {
    if (seen.has(key)) {
      findings.push(fail("repeated", `${key}=${value}`, "repeats a key already given", { column: slotColumn(raw, i), key }));
    } else {
      seen.set(key, i);
    }
    if (key === "p") profileName = value; // the last p= given, as a dict of the slots reads it
  });
  if (profileName !== null) {
    if (receiver.holds(profileName)) vocab = receiver.vocabulary(profileName);
    else findings.push(fail("profile", `p=${profileName}`, "names a profile the receiver does not hold", { key: "p" }));
  }
  const table = has(vocab.types, raw.type) ? vocab.types[raw.type] : null;
  if (table === null) findings.push(fail("type", raw.type, "unknown message type", { column: cpLen(raw.version) + 2 }));
  const allowed = table === null ? vocab.slots : table.slots;

  const values = new Map();
  raw.slots.forEach(([key, rawval], i) => {
    if (values.has(key)) return;
    let slot = allowed.get(key);
    if (!slot) {
      slot = vocab.slots.get(key);
      if (slot && table !== null) findings.push(note("off-type", `${key} is not a slot of ${raw.type}; ignored by receivers`, { key, column: slotColumn(raw, i) }));
    }
    if (!slot) {
      values.set(key, rawval);
      if (key.startsWith("x_")) return;
      // D4: a slot a held profile requires, on a line that names no profile, is refused; on another profile's
      // line it is unknown there (spec 7) and kept
      const owner = vocab.profile === null ? requiringProfile(receiver, key) : null;
      if (owner !== null) {
        findings.push(fail("profile", `${key}=${rawval}`, `is a required slot of profile ${owner}, used without p=${owner}`, { column: slotColumn(raw, i), key }));
      } else {
        findings.push(note("unknown-key", `unknown key ${key} kept as text`, { key, column: slotColumn(raw, i) }));
      }
      return;
    }
    try {
      values.set(key, slot.type.decode(rawval));
    } catch (exc) {
      values.set(key, rawval);
      findings.push(fail(slot.type.enumName ? "enum" : "value", `${key}=${rawval}`, exc.message, { column: slotColumn(raw, i), key }));
    }
  });

  // A profile that names its agents closes them as an enum closes its codes:
  // every agent-typed value is one of them or human, else refused.
  if (vocab.agents !== null) {
    for (const [key, slot] of vocab.slots) {
      if (!AGENT_TYPES.has(slot.type.name) || !values.has(key)) continue;
      const value = values.get(key);
      const bad = (Array.isArray(value) ? value : [value]).find((a) => typeof a === "string" && !vocab.agents.has(a) && !vocab.reservedAgents.has(a));
      if (bad !== undefined) {
        const i = raw.slots.findIndex(([k]) => k === key);
        findings.push(fail("agent", `${key}=${raw.slots[i][1]}`, `${bad} is not an agent of profile ${vocab.profile}`, { column: slotColumn(raw, i), key }));
      }
    }
  }
  const sender = values.get("from");
  if (typeof sender === "string") {
    const m = MSGID_RE.exec(raw.id);
    if (!m || m[1] !== sender) findings.push(fail("id", raw.id, `is not <from>-<n> for from=${sender}`));
  }
  if (table !== null) {
    for (const key of table.required) {
      if (!values.has(key)) findings.push(fail("missing", key, `required on ${raw.type}, missing`, { key }));
    }
  }
  if (table !== null) findings.push(...checkRules(raw, vocab, values));
  if (raw.tail !== null && cpLen(raw.tail) > vocab.tailMax) {
    findings.push(fail("tail", "//", `tail is ${cpLen(raw.tail)} characters, over ${vocab.tailMax}`));
  }
  let message = null;
  if (!findings.some((f) => f.severity === "fail")) {
    const envelope = {};
    for (const key of vocab.envelope) {
      envelope[key] = values.has(key) ? values.get(key) : null;
      values.delete(key);
    }
    message = {
      v: raw.version,
      type: raw.type,
      id: raw.id,
      re: envelope.re,
      from: envelope.from,
      to: envelope.to,
      item: envelope.item,
      slots: Object.fromEntries(values),
      tail: raw.tail,
    };
  }
  return { text: raw.text, raw, message, findings };
}

const refusalOf = (result) => result.findings.find((f) => f.severity === "fail") || null;

// ---------------------------------------------------------------- exact JSON

// A JSON number written with a fraction or an exponent (2.0, 1e0). JSON.parse
// would read it as the integer 2 or 1, which Python's reader keeps a float,
// and a float is never an RW1 value (D9): the checks see this object instead,
// which no slot type, count or record accepts.
class JsonFloat {
  constructor(literal) {
    this.literal = literal;
  }

  toJSON() {
    return Number(this.literal);
  }
}

const NUMBER_AT = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const MARK = `\u0000rw1-float-${crypto.randomBytes(6).toString("hex")}:`;

// JSON text as values, exactly: numbers written with a fraction or an
// exponent become JsonFloat. Text without such a number takes JSON.parse alone.
function parseJsonExact(text) {
  let out = null;
  let last = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i += 1;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      inString = true;
      continue;
    }
    if (ch === "-" || (ch >= "0" && ch <= "9")) {
      NUMBER_AT.lastIndex = i;
      const m = NUMBER_AT.exec(text);
      if (!m) continue;
      const literal = m[0];
      if (/[.eE]/.test(literal)) {
        out = (out === null ? "" : out) + text.slice(last, i) + JSON.stringify(MARK + literal);
        last = i + literal.length;
      }
      i += literal.length - 1;
    }
  }
  if (out === null) return JSON.parse(text);
  return JSON.parse(out + text.slice(last), (key, value) => (typeof value === "string" && value.startsWith(MARK) ? new JsonFloat(value.slice(MARK.length)) : value));
}

// ---------------------------------------------------------------- writing

function writeValue(key, value) {
  if (typeof value === "boolean") return value ? "Y" : "N";
  if (value instanceof JsonFloat) throw new RW1Error(`${key}: cannot write a float`, { token: key, kind: "EncodeError" });
  if (typeof value === "number") {
    if (!Number.isInteger(value)) throw new RW1Error(`${key}: cannot write a float`, { token: key, kind: "EncodeError" });
    return String(value);
  }
  if (typeof value === "string") {
    if (value === "") throw new RW1Error(`empty value for ${key}`, { token: key, kind: "EncodeError" });
    return value;
  }
  if (Array.isArray(value)) {
    if (!value.length) throw new RW1Error(`empty list for ${key}`, { token: key, kind: "EncodeError" });
    const items = value.map((v) => writeValue(key, v));
    if (items.some((item) => item.includes("+"))) throw new RW1Error(`a list element of ${key} contains '+'`, { token: key, kind: "EncodeError" });
    return items.join("+");
  }
  const kind = value === null ? "NoneType" : "dict";
  throw new RW1Error(`${key}: cannot write a ${kind}`, { token: key, kind: "EncodeError" });
}

// The line, in the recommended order: envelope, then slots as held.
function toLine(message) {
  const parts = [message.v, message.type, message.id];
  if (message.re !== null) parts.push(`re=${message.re}`);
  parts.push(`from=${message.from}`, `to=${message.to}`);
  if (message.item !== null) parts.push(`item=${message.item}`);
  for (const [key, value] of Object.entries(message.slots)) parts.push(`${key}=${writeValue(key, value)}`);
  let line = parts.join(" ");
  if (message.tail !== null) line += TAIL_MARK + message.tail;
  return line;
}

function sameJson(a, b) {
  if (typeof a === "boolean" || typeof b === "boolean") return typeof a === typeof b && a === b;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (a === undefined) a = null;
  if (a === null || b === null) return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  return typeof a === typeof b && typeof a !== "object" && a === b;
}

// A JSON form validated and written as a line (D1, D3); throws RW1Error.
// D9: a number that is not an integer (however written) and a lone surrogate
// have no canonical form; refused before anything else, token the key, as the
// reference does.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function unwritable(value) {
  if (value instanceof JsonFloat || (typeof value === "number" && !Number.isInteger(value))) return "is not an integer";
  if (typeof value === "string" && LONE_SURROGATE.test(value)) return "holds a lone surrogate";
  // one level: a list holds scalars, and a nested list is refused by its type, not here
  if (Array.isArray(value)) return value.filter((v) => !Array.isArray(v)).map(unwritable).find((why) => why) || null;
  return null;
}

function refuseUnwritable(obj) {
  for (const [key, value] of Object.entries(obj)) {
    if (key === "slots" && isObject(value)) {
      for (const [slot, item] of Object.entries(value)) {
        if (LONE_SURROGATE.test(slot)) throw new RW1Error("a slot key holds a lone surrogate", { why: "UNK", token: "slots", kind: "RefusedError" });
        const why = unwritable(item);
        if (why) throw new RW1Error(`${slot}: ${why}`, { why: "UNK", token: slot, kind: "RefusedError" });
      }
      continue;
    }
    const why = unwritable(value);
    if (why) throw new RW1Error(`${key}: ${why}`, { why: "UNK", token: key, kind: "RefusedError" });
  }
}

function encode(obj, receiver) {
  if (typeof obj === "string") {
    try {
      obj = parseJsonExact(obj);
    } catch (exc) {
      throw new RW1Error(`not JSON: ${exc.message}`, { token: "json", kind: "EncodeError" });
    }
  }
  if (!isObject(obj)) throw new RW1Error("a JSON form is an object", { token: "json", kind: "EncodeError" });
  refuseUnwritable(obj);
  const missing = JSON_KEYS.filter((k) => !has(obj, k));
  const extra = Object.keys(obj).filter((k) => !JSON_KEYS.includes(k));
  if (missing.length || extra.length) {
    throw new RW1Error(`a JSON form has exactly the keys ${JSON_KEYS.join(" ")}`, { token: missing.length ? missing[0] : extra[0], kind: "EncodeError" });
  }
  if (typeof obj.v !== "string") throw new RW1Error("v is a string", { token: "v", kind: "EncodeError" });
  if (obj.v !== VERSION) throw new RW1Error(`unknown version token ${pyStr(obj.v)}`, { why: "VER", token: pyStr(obj.v), kind: "RefusedError" });
  for (const key of ["type", "id", "from", "to"]) {
    if (typeof obj[key] !== "string") throw new RW1Error(`${key} is a string`, { token: key, kind: "EncodeError" });
  }
  for (const key of ["re", "item", "tail"]) {
    if (obj[key] !== null && typeof obj[key] !== "string") throw new RW1Error(`${key} is a string or null`, { token: key, kind: "EncodeError" });
  }
  const slots = obj.slots;
  if (!isObject(slots)) throw new RW1Error("slots is an object", { token: "slots", kind: "EncodeError" });
  const parts = [obj.v, obj.type, obj.id];
  for (const key of ["re", "from", "to", "item"]) {
    if (obj[key] !== null) parts.push(`${key}=${obj[key]}`);
  }
  for (const [key, value] of Object.entries(slots)) {
    if (!KEY_RE.test(key)) throw new RW1Error(`slot key ${pyRepr(key)} is not [a-z][a-z0-9_]*`, { token: key, kind: "EncodeError" });
    if (["re", "from", "to", "item"].includes(key)) throw new RW1Error(`${key} belongs at the top level, not in slots`, { token: key, kind: "EncodeError" });
    parts.push(`${key}=${writeValue(key, value)}`);
  }
  let line = parts.join(" ");
  if (obj.tail !== null) line += TAIL_MARK + obj.tail;
  const result = checkLine(line, receiver);
  if (result.message === null) {
    const first = refusalOf(result);
    if (first.kind === "syntax") {
      const inTail = obj.tail !== null && (first.column || 0) > cpLen(line) - cpLen(obj.tail);
      throw new RW1Error(`cannot write: ${first.message}`, { token: inTail ? "tail" : first.token, kind: "EncodeError" });
    }
    throw new RW1Error(first.message, { why: first.why || "UNK", token: first.token || "", kind: "RefusedError" });
  }
  const read = result.message;
  for (const key of ["type", "id", "re", "from", "to", "item", "tail"]) {
    // A space or mark in an envelope value would read back as other slots or a tail (D3).
    if (read[key] !== obj[key]) {
      throw new RW1Error(`${key}: ${JSON.stringify(obj[key])} does not read back as written`, { token: key, kind: "EncodeError" });
    }
  }
  const decoded = read.slots;
  for (const [key, value] of Object.entries(slots)) {
    if (!sameJson(decoded[key], value)) {
      throw new RW1Error(`${key}: the JSON value ${JSON.stringify(value)} is not of the slot's type`, { token: key, kind: "EncodeError" });
    }
  }
  return toLine(result.message);
}

// ---------------------------------------------------------------- digest

// Canonical JSON (D1): sorted keys, no whitespace, non-ASCII kept as UTF-8.
function canonicalJson(value) {
  if (Array.isArray(value)) return "[" + value.map(canonicalJson).join(",") + "]";
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return "{" + keys.map((k) => JSON.stringify(k) + ":" + canonicalJson(value[k])).join(",") + "}";
  }
  return JSON.stringify(value);
}

function digest(message) {
  return crypto.createHash("sha256").update(canonicalJson(message), "utf8").digest("hex").slice(0, 12);
}

// A valid message from a line, or an RW1Error naming why not.
function strictMessage(text, receiver) {
  const result = checkLine(text, receiver);
  if (result.message !== null) return result.message;
  const first = refusalOf(result);
  throw new RW1Error(first.message, {
    why: first.why || "UNK", token: first.token || "", column: first.column,
    kind: first.kind === "syntax" ? "RW1SyntaxError" : "RefusedError",
  });
}

// ---------------------------------------------------------------- refusals

function addressOf(text, raw) {
  const tokens = raw ? [raw.id, ...raw.slots.map(([k, v]) => `${k}=${v}`)] : text.split(" ").slice(2);
  if (!tokens.length || !MSGID_RE.test(tokens[0])) return null;
  const senders = tokens.slice(1).filter((t) => t.startsWith("from=")).map((t) => t.slice(5));
  if (senders.length !== 1 || !AGENT_RE.test(senders[0])) return null;
  return [tokens[0], senders[0]];
}

// The UN reply a receiver named `me` sends for a checked line, or null.
function refusalFor(result, me, n) {
  const first = refusalOf(result);
  if (first === null) return null;
  const address = addressOf(result.text, result.raw);
  if (address === null) return null;
  const [theirId, theirFrom] = address;
  if (typeof me !== "string" || !AGENT_RE.test(me) || n < 0) throw new RangeError(`cannot reply as ${pyRepr(pyStr(me))} with number ${n}`);
  const token = printable(first.token || "");
  const detail = printable(first.message);
  let tail = token ? `${token} ${detail}` : detail;
  if (cpLen(tail) > 300) tail = cps(tail).slice(0, 297).join("").replace(/ +$/, "") + "...";
  return `RW1 UN ${me}-${n} re=${theirId} from=${me} to=${theirFrom} why=${first.why || "UNK"} // ${tail}`;
}

export {
  VERSION,
  parseJsonExact,
  JsonFloat,
  RW1Error,
  Receiver,
  parseRaw,
  checkLine,
  refusalOf,
  refusalFor,
  encode,
  toLine,
  writeValue,
  strictMessage,
  digest,
  canonicalJson,
  compileVocabulary,
  loadProfile,
  compareDocument,
  printable,
  pyRepr,
  chunkAt,
  cpLen,
  PY_SPACE,
  MSGID_RE,
  AGENT_RE,
  BUNDLED_PROFILES,
  PROFILES_DIR,
};
