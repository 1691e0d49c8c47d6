// The comprehension check: the sender's criteria against the receiver's
// (spec 5.2, decisions D6, D13, D15).
//
// Theory of operation
// -------------------
// The rules live here; every word list and table lives in the comparison
// data file, profiles/compare.json, the one the Python package reads: the
// text normalisation (Unicode form, case, separators, word characters), the
// plural folding, the len units, the loose-match stop words and minimum
// length, the negating words and prefixes, and which keys the receiver's
// not= tokens and the sender's must: values are. Constraint keys, set-valued
// keys and aliases come through the vocabulary (core plus profile).
//
// A value is normalised into words; two values are the same fact when equal,
// one a word prefix of the other, or one's word set containing the other's;
// a negation on one side only is never the same fact (D13). Set-valued keys
// pair sender and receiver values one to one: exact matches first, then
// same-fact matches, then loose ones (D15).

import { compareDocument, PY_SPACE } from "./rw1.js";
import { CASEFOLD } from "./unicode_tables.js";

const TIER = 4;

// ---------------------------------------------------------------- the data

let DATA = null;

// The comparison data, compiled once: sets and regexes from compare.json.
function data() {
  if (DATA !== null) return DATA;
  const doc = compareDocument();
  const text = doc.text || {};
  const plural = doc.plural || {};
  const len = doc.len || {};
  const loose = doc.loose || {};
  const negation = doc.negation || {};
  const exclusion = doc.exclusion || {};
  const categories = String(text.word_chars || "L N").split(/\s+/).filter(Boolean);
  DATA = {
    form: text.unicode || null,
    casefold: (text.case || "lower") === "casefold",
    separators: new Set(Array.from(text.separators || "")),
    wordChar: new RegExp(`^[${categories.map((c) => `\\p{${c}}`).join("")}]$`, "u"),
    esEndings: [...(plural.es_endings || [])],
    sMinLength: Number(plural.s_min_length || 4),
    sKeepEndings: [...(plural.s_keep_endings || [])],
    lenKey: len.key || "len",
    lenUnits: new Map(Object.entries(len.units || {})),
    looseMin: Number(loose.min_length || 3),
    stopWords: new Set(loose.stop_words || []),
    negWords: new Set(negation.words || []),
    negPrefixes: [...(negation.prefixes || [])],
    pairingOrder: [...((doc.set_matching || {}).order || ["exact", "same", "loose"])],
    notAsKey: exclusion.receiver_key || "no",
    excludesKey: exclusion.sender_key || "must",
  };
  return DATA;
}

// ---------------------------------------------------------------- criteria

class CriteriaError extends Error {}

const CRITERION_KEY_RE = /^[A-Za-z][A-Za-z0-9_]*$/;

// "len:120w+tone:plain" or ["len:120w", ...] as [{key, value}]; keys lowercased.
function parseCriteria(criteria) {
  if (criteria === null || criteria === undefined) return [];
  let items;
  if (typeof criteria === "string") items = criteria.split("+");
  else if (Array.isArray(criteria)) items = criteria;
  else if (typeof criteria === "object") items = Object.keys(criteria); // Python's list() of a mapping
  else throw new CriteriaError(`criteria are a key:value string or a list, not ${typeof criteria}`);
  const out = [];
  for (const item of items) {
    if (item !== null && typeof item === "object" && !Array.isArray(item) && typeof item.key === "string" && typeof item.value === "string") {
      out.push(item);
      continue;
    }
    if (typeof item !== "string") throw new CriteriaError(`a criterion is a key:value string, not ${item === null ? "None" : typeof item}`);
    const at = item.indexOf(":");
    const key = at < 0 ? "" : item.slice(0, at);
    const value = at < 0 ? "" : item.slice(at + 1);
    if (at < 0 || !key || !value || !CRITERION_KEY_RE.test(key)) throw new CriteriaError(`not a key:value criterion: ${JSON.stringify(item)}`);
    out.push({ key: key.toLowerCase(), value });
  }
  return out;
}

// ---------------------------------------------------------------- normalisation

// Full case folding (Unicode CaseFolding.txt, status C and F), from the
// table generate.py writes from the same Unicode data the Python package uses.
function foldCase(text) {
  if (!data().casefold) return text.toLowerCase();
  let out = "";
  for (const ch of text) {
    const folded = CASEFOLD[ch];
    out += folded === undefined ? ch : folded;
  }
  return out;
}

// NFC (or the form the data names), then case folding (D15).
function canonicalText(text) {
  const d = data();
  return foldCase(d.form ? text.normalize(d.form) : text);
}

// The singular of a word by D6's rule (no dictionary, both sides alike).
function foldPlural(word) {
  const d = data();
  if (d.esEndings.some((e) => word.endsWith(e))) return word.slice(0, -2);
  if (Array.from(word).length >= d.sMinLength && word.endsWith("s") && !d.sKeepEndings.some((e) => word.endsWith(e))) {
    return word.slice(0, -1);
  }
  return word;
}

// A character that ends a word besides the separators: U+0009 to U+000D and category Z.
const BREAK_RE = /^[\t-\r\p{Z}]$/u;
const breaksWord = (ch) => BREAK_RE.test(ch);

function splitWords(value) {
  const d = data();
  const words = [];
  let current = "";
  for (const ch of canonicalText(value)) {
    if (d.separators.has(ch) || breaksWord(ch)) {
      if (current) words.push(current);
      current = "";
    } else if (d.wordChar.test(ch)) {
      current += ch;
    }
  }
  if (current) words.push(current);
  return words.map(foldPlural);
}

// The vocabulary's aliases keyed and valued by normalised words.
function aliasTable(aliases) {
  const table = new Map();
  for (const [spelling, canonical] of aliases) {
    const key = splitWords(spelling).join("-");
    if (key) table.set(key, splitWords(canonical));
  }
  return table;
}

function normalise(value, aliases = null) {
  const words = splitWords(value);
  if (aliases && aliases.size) {
    const hit = aliases.get(words.join("-"));
    if (hit !== undefined) return hit;
  }
  return words;
}

const sameWords = (a, b) => a.length === b.length && a.every((w, i) => w === b[i]);

// Equal, a word prefix of the other, or word-set containment (D6), where no
// negation divides them (D13).
function sameFact(a, b) {
  if (sameWords(a, b)) return true;
  if (!a.length || !b.length || negationDiffers(a, b)) return false;
  return sameFactPlain(a, b);
}

// D6's same fact, negation aside.
function sameFactPlain(a, b) {
  if (sameWords(a, b)) return true;
  if (!a.length || !b.length) return false;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (sameWords(long.slice(0, short.length), short)) return true;
  const sa = new Set(a);
  const sb = new Set(b);
  return [...sa].every((w) => sb.has(w)) || [...sb].every((w) => sa.has(w));
}

function distinctive(words) {
  const d = data();
  return new Set(words.filter((w) => Array.from(w).length >= d.looseMin && !d.stopWords.has(w)));
}

// A shared distinctive word (set-valued keys only).
function looseMatch(a, b) {
  if (negationDiffers(a, b)) return false;
  const da = distinctive(a);
  for (const w of distinctive(b)) if (da.has(w)) return true;
  return false;
}

// D13: is `a` negated against `b`? It holds a negating word, or a negating
// prefix standing before a word `b` holds (un-plain), or joined to one (unplain).
function negated(a, b) {
  const d = data();
  const held = new Set(b);
  for (let i = 0; i < a.length; i++) {
    const word = a[i];
    if (d.negWords.has(word)) return true;
    for (const prefix of d.negPrefixes) {
      if (word === prefix && i + 1 < a.length && held.has(a[i + 1])) return true;
      if (word.length > prefix.length && word.startsWith(prefix) && held.has(word.slice(prefix.length))) return true;
    }
  }
  return false;
}

// Exactly one of the two is negated against the other: a contradiction (D13).
const negationDiffers = (a, b) => negated(a, b) !== negated(b, a);

// `a` with what negates it against `b` taken out: not-plain, un-plain and
// unplain as plain.
function withoutNegation(a, b) {
  const d = data();
  const held = new Set(b);
  const out = [];
  for (let i = 0; i < a.length; i++) {
    let word = a[i];
    if (d.negWords.has(word)) continue;
    if (d.negPrefixes.includes(word) && i + 1 < a.length && held.has(a[i + 1])) continue;
    for (const prefix of d.negPrefixes) {
      if (word.length > prefix.length && word.startsWith(prefix) && held.has(word.slice(prefix.length))) {
        word = word.slice(prefix.length);
        break;
      }
    }
    out.push(word);
  }
  return out;
}

function sharesDistinctive(a, b) {
  const da = distinctive(a);
  for (const w of distinctive(b)) if (da.has(w)) return true;
  return false;
}

// "120w" as [number text, unit]; null where the value is not number-and-unit.
const LEN_RE = /^([0-9]+(?:\.[0-9]+)?)[-_]?([a-z]*)$/;

function pyStrip(text) {
  const chars = Array.from(text);
  let start = 0;
  let end = chars.length;
  while (start < end && PY_SPACE.has(chars[start].codePointAt(0))) start += 1;
  while (end > start && PY_SPACE.has(chars[end - 1].codePointAt(0))) end -= 1;
  return chars.slice(start, end).join("");
}

// A decimal's canonical text, so that 120, 120.0 and 0120 compare equal.
function decimalKey(text) {
  let [whole, frac = ""] = text.split(".");
  whole = whole.replace(/^0+(?=[0-9])/, "");
  frac = frac.replace(/0+$/, "");
  return frac ? `${whole}.${frac}` : whole;
}

function readLen(value) {
  const d = data();
  const m = LEN_RE.exec(pyStrip(canonicalText(value)));
  if (!m) return null;
  let unit = d.lenUnits.get(m[2] ? foldPlural(m[2]) : "");
  if (unit === undefined) unit = d.lenUnits.get(m[2]);
  if (unit === undefined) return null;
  return [decimalKey(m[1]), unit];
}

// ---------------------------------------------------------------- the comparison

const finding = (severity, kind, key, message, sender = null, receiver = null) => ({
  severity, kind, tier: TIER, key, message, sender, receiver,
});

const EXACT = "exact";
const SAME = "same";
const LOOSE = "loose";
const NEGATED = "negated";

// D15's pairing of set values: relations[i][j] relates sender i to receiver j.
// For each relation in the data's order (exact, same, loose), a maximum
// matching among the values earlier rounds left unpaired: first each sender
// value in written order takes the first free receiver value it relates to,
// then each one still unpaired looks for an augmenting path (Kuhn), receiver
// values in written order. Returns
// [sender index, receiver index, relation] in sender order.
function pairOneToOne(relations) {
  const nSender = relations.length;
  const nReceiver = nSender ? relations[0].length : 0;
  const senderPair = new Array(nSender).fill(null);
  const receiverPair = new Array(nReceiver).fill(null);
  const how = new Array(nSender).fill(null);
  for (const rank of data().pairingOrder) {
    const fixed = new Set();
    for (let j = 0; j < nReceiver; j++) if (receiverPair[j] !== null) fixed.add(j);
    const edges = [];
    for (let i = 0; i < nSender; i++) {
      const row = [];
      if (senderPair[i] === null) for (let j = 0; j < nReceiver; j++) if (!fixed.has(j) && relations[i][j] === rank) row.push(j);
      edges.push(row);
    }
    for (let i = 0; i < nSender; i++) {
      const j = edges[i].find((k) => receiverPair[k] === null);
      if (j !== undefined) {
        senderPair[i] = j;
        receiverPair[j] = i;
      }
    }
    for (let i = 0; i < nSender; i++) if (senderPair[i] === null && edges[i].length) augment(i, edges, senderPair, receiverPair);
    for (let i = 0; i < nSender; i++) if (senderPair[i] !== null && how[i] === null) how[i] = rank;
  }
  const out = [];
  for (let i = 0; i < nSender; i++) if (senderPair[i] !== null && how[i] !== null) out.push([i, senderPair[i], how[i]]);
  return out;
}

// One augmenting path from sender `start` (Kuhn's algorithm, without recursion).
function augment(start, edges, senderPair, receiverPair) {
  const reachedFrom = new Map();
  const stack = [[start, 0]];
  while (stack.length) {
    const top = stack[stack.length - 1];
    const [i] = top;
    let pushed = false;
    while (top[1] < edges[i].length) {
      let j = edges[i][top[1]];
      top[1] += 1;
      if (reachedFrom.has(j)) continue;
      reachedFrom.set(j, i);
      if (receiverPair[j] === null) {
        for (;;) { // flip the path back to start
          const via = reachedFrom.get(j);
          const previous = senderPair[via];
          senderPair[via] = j;
          receiverPair[j] = via;
          if (via === start) return true;
          j = previous;
        }
      }
      stack.push([receiverPair[j], 0]);
      pushed = true;
      break;
    }
    if (!pushed) stack.pop();
  }
  return false;
}

class Comparator {
  constructor(constraintKeys, setValuedKeys, aliases) {
    this.keys = new Set(constraintKeys);
    this.setValued = new Set(setValuedKeys);
    this.aliases = aliasTable(aliases);
  }

  static forVocabulary(vocab) {
    return new Comparator(vocab.constraintKeys, vocab.setValuedKeys, vocab.aliases);
  }

  value(text) {
    return { text, words: normalise(text, this.aliases) };
  }

  // "exact", "same", "loose" (a match with a note), "negated" (D13) or null.
  relation(key, a, b) {
    if (key === data().lenKey) {
      const la = readLen(a.text);
      const lb = readLen(b.text);
      if (la !== null && lb !== null) {
        if (la[0] !== lb[0]) return null;
        if (la[1] === lb[1]) return EXACT;
        return la[1] === "" || lb[1] === "" ? LOOSE : null;
      }
      // D6: len is a number and a unit; a value that is not one cannot be the same fact.
      if (la !== null || lb !== null) return null;
    }
    if (sameWords(a.words, b.words)) return EXACT;
    if (a.words.length && b.words.length && negationDiffers(a.words, b.words)) {
      // D13: a contradiction, where the two are otherwise related
      const sa = withoutNegation(a.words, b.words);
      const sb = withoutNegation(b.words, a.words);
      return sameFactPlain(sa, sb) || (this.setValued.has(key) && sharesDistinctive(sa, sb)) ? NEGATED : null;
    }
    if (sameFact(a.words, b.words)) return SAME;
    if (this.setValued.has(key) && looseMatch(a.words, b.words)) return LOOSE;
    return null;
  }

  // "same" (exact or same fact), "loose" (a match with a note) or null.
  match(key, a, b) {
    const found = this.relation(key, a, b);
    if (found === EXACT) return SAME;
    return found === SAME || found === LOOSE ? found : null;
  }

  group(constraints, findings, side) {
    const groups = new Map();
    for (const c of constraints) {
      if (!this.keys.has(c.key)) {
        findings.push(finding("note", "unknown-key", c.key, `${side} key ${c.key} is outside the closed set; not compared`,
          side === "sender" ? `${c.key}:${c.value}` : null, side === "receiver" ? `${c.key}:${c.value}` : null));
        continue;
      }
      if (!groups.has(c.key)) groups.set(c.key, []);
      groups.get(c.key).push(this.value(c.value));
    }
    return groups;
  }

  // Every tier-4 finding of the receiver's criteria against the sender's.
  // `sender` null: the sender holds no criteria; only `requiredKeys` (the
  // HO's keys=) are checked, and an `unchecked` note says the rest was not.
  compare(sender, receiver, { notTokens = [], requiredKeys = [] } = {}) {
    const d = data();
    const findings = [];
    const mine = this.group(receiver, findings, "receiver");
    for (const token of notTokens) {
      if (!mine.has(d.notAsKey)) mine.set(d.notAsKey, []);
      mine.get(d.notAsKey).push(this.value(token));
    }
    const theirs = sender !== null ? this.group(sender, findings, "sender") : new Map();
    for (const key of new Set(requiredKeys)) {
      if (!mine.has(key) && !theirs.has(key)) {
        findings.push(finding("fail", "gap", key, `keys= names ${key}; the readback's acc= has no ${key}:`, `${key}:`, null));
      }
    }
    if (sender === null) {
      findings.push(finding("note", "unchecked", null, "no sender criteria: the readback's acc= was not compared"));
      return findings;
    }
    const excluded = [];
    const ruledOut = new Set();
    for (const must of theirs.get(d.excludesKey) || []) {
      (mine.get(d.notAsKey) || []).forEach((v, j) => {
        const found = this.relation(d.notAsKey, must, v);
        if (found === EXACT || found === SAME) {
          ruledOut.add(j);
          excluded.push(finding("fail", "excluded", d.excludesKey,
            `the readback rules out ${v.text}, which the sender requires (${d.excludesKey}:${must.text})`,
            `${d.excludesKey}:${must.text}`, `${d.notAsKey}:${v.text}`));
        } else if (found === LOOSE) {
          excluded.push(finding("note", "loose", d.excludesKey,
            `the readback rules out ${v.text}, which shares a word with ${d.excludesKey}:${must.text}; confirm`,
            `${d.excludesKey}:${must.text}`, `${d.notAsKey}:${v.text}`));
        }
      });
    }
    // a no: value that rules out a must: is reported as excluded, not again as an assumption
    const compared = new Map(mine);
    if (ruledOut.size) {
      const kept = mine.get(d.notAsKey).filter((_, j) => !ruledOut.has(j));
      if (!kept.length && !theirs.has(d.notAsKey)) compared.delete(d.notAsKey);
      else compared.set(d.notAsKey, kept);
    }
    for (const [key, values] of theirs) {
      const got = compared.get(key) || [];
      if (!got.length) {
        for (const v of values) {
          findings.push(finding("fail", "gap", key, `the sender holds ${key}:${v.text}; the readback has no ${key}:`, `${key}:${v.text}`, null));
        }
        continue;
      }
      if (this.setValued.has(key)) findings.push(...this.compareSet(key, values, got));
      else findings.push(...this.compareSingle(key, values, got));
    }
    for (const [key, values] of compared) {
      if (theirs.has(key)) continue;
      for (const v of values) {
        findings.push(finding("note", "assumption", key, `${key}:${v.text} is the receiver's own; confirm or correct`, null, `${key}:${v.text}`));
      }
    }
    findings.push(...excluded);
    return findings;
  }

  compareSingle(key, sender, receiver) {
    const results = sender.map((s) => receiver.map((r) => this.match(key, s, r)));
    const senderOk = results.every((row) => row.some((m) => m !== null));
    const receiverOk = receiver.every((_, j) => sender.some((__, i) => results[i][j] !== null));
    const sText = sender.map((v) => `${key}:${v.text}`).join("+");
    const rText = receiver.map((v) => `${key}:${v.text}`).join("+");
    if (!(senderOk && receiverOk)) {
      return [finding("fail", "contradiction", key, `${key}: the sender means ${sText}, the readback says ${rText}`, sText, rText)];
    }
    const all = results.flat();
    if (all.includes(LOOSE) && !all.includes(SAME)) {
      return [finding("note", "loose", key, `${key}: ${sText} and ${rText} taken as the same fact; confirm`, sText, rText)];
    }
    return [];
  }

  // D15: set values pair one to one; an unpaired sender value is a gap, or a
  // contradiction where an unpaired receiver value negates it (D13); an
  // unpaired receiver value is a contradiction where it negates a sender
  // value, else an assumption.
  compareSet(key, sender, receiver) {
    const relations = sender.map((s) => receiver.map((r) => this.relation(key, s, r)));
    const pairs = pairOneToOne(relations);
    const findings = [];
    const pairedSender = new Set(pairs.map(([i]) => i));
    const pairedReceiver = new Set(pairs.map(([, j]) => j));
    const openReceiver = receiver.map((_, j) => j).filter((j) => !pairedReceiver.has(j));
    for (const [i, j, how] of pairs) {
      if (how === LOOSE) {
        findings.push(finding("note", "loose", key, `${key}:${sender[i].text} loosely matched by ${receiver[j].text}; confirm`,
          `${key}:${sender[i].text}`, `${key}:${receiver[j].text}`));
      }
    }
    sender.forEach((s, i) => {
      if (pairedSender.has(i)) return;
      const at = openReceiver.findIndex((j) => relations[i][j] === NEGATED);
      if (at >= 0) {
        const [opposite] = openReceiver.splice(at, 1);
        findings.push(contradiction(key, s, receiver[opposite]));
        return;
      }
      findings.push(finding("fail", "gap", key, `the sender holds ${key}:${s.text}; the readback does not`, `${key}:${s.text}`, null));
    });
    for (const j of openReceiver) {
      const opposite = sender.findIndex((_, i) => relations[i][j] === NEGATED);
      if (opposite >= 0) {
        findings.push(contradiction(key, sender[opposite], receiver[j]));
        continue;
      }
      findings.push(finding("note", "assumption", key, `${key}:${receiver[j].text} is the receiver's own; confirm or correct`, null, `${key}:${receiver[j].text}`));
    }
    return findings;
  }
}

const contradiction = (key, s, r) => finding("fail", "contradiction", key,
  `${key}: the sender means ${s.text}, the readback says the opposite: ${r.text}`, `${key}:${s.text}`, `${key}:${r.text}`);

export {
  Comparator,
  CriteriaError,
  parseCriteria,
  normalise,
  splitWords,
  foldPlural,
  sameFact,
  looseMatch,
  readLen,
  negationDiffers,
  negated,
  canonicalText,
  pairOneToOne,
};
