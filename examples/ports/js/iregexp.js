// Profile patterns matched as the Python package matches them
// (rogerwilco/core/iregexp.py): the portable I-Regexp subset of D11, compiled
// to the same Thompson automaton, state for state, and matched by following
// every live state at once, one step per character.
//
// The work is counted as Python counts it: the states visited by the plain
// simulation (the live states at each character, and every state the
// epsilon closure reaches). A value whose match would visit more than
// MAX_MATCH_STEPS states is refused, never matched at length: matches()
// answers null, and the rule check reports it as Python does
// (docs/profiles.md). Both ports build the same automaton, so they refuse
// the same values. Python caches the state sets as a DFA; the count does not
// depend on that cache, and the budget bounds the work here without one.

const MAX_REPEAT = 1000;
const MAX_STATES = 10000;
const MAX_MATCH_STEPS = 20000;

const ESCAPABLE = new Set("()*+-.?[\\]^{|}");
const CONTROL_ESCAPES = new Map([["n", "\n"], ["r", "\r"], ["t", "\t"]]);
const CHAR = 0;
const SPLIT = 1;
const MATCH = 2;

class PatternError extends Error {
  constructor(message, position) {
    super(`${message} (at character ${position + 1} of the pattern)`);
    this.position = position;
  }
}

const cp = (ch) => ch.codePointAt(0);
const digits = (text) => /^[0-9]+$/.test(text);

// the syntax tree: ["set", ranges, negated], ["cat", nodes], ["alt", nodes], ["rep", node, low, high]
class Parser {
  constructor(pattern) {
    this.p = [...pattern]; // code points, as Python indexes a str
    this.i = 0;
  }

  fail(message, at = null) {
    return new PatternError(message, at === null ? this.i : at);
  }

  peek() {
    return this.i < this.p.length ? this.p[this.i] : null;
  }

  startsWith(text, at) {
    return [...text].every((ch, k) => this.p[at + k] === ch);
  }

  parse() {
    const [node] = this.alternation();
    if (this.i < this.p.length) throw this.fail("unbalanced ')'");
    return node;
  }

  alternation() {
    const branches = [];
    let [node, quantified] = this.concatenation();
    branches.push(node);
    while (this.peek() === "|") {
      this.i += 1;
      const [next, q] = this.concatenation();
      branches.push(next);
      quantified = quantified || q;
    }
    return [branches.length === 1 ? branches[0] : ["alt", branches], quantified];
  }

  concatenation() {
    const pieces = [];
    let quantified = false;
    while (![null, "|", ")"].includes(this.peek())) {
      const [node, q] = this.piece();
      pieces.push(node);
      quantified = quantified || q;
    }
    return [pieces.length === 1 ? pieces[0] : ["cat", pieces], quantified];
  }

  piece() {
    const start = this.i;
    const [atom, innerQuantified] = this.atom();
    const bounds = this.quantifier();
    if (bounds === null) return [atom, innerQuantified];
    if (innerQuantified) {
      throw this.fail("nested quantifier: a quantified group holds a quantifier (not portable, and it can run for ever on a backtracking engine)", start);
    }
    const next = this.peek();
    if (next === "?") throw this.fail("lazy quantifier: not in the portable subset");
    if (next === "+") throw this.fail("possessive quantifier: not in the portable subset");
    if (next === "*" || next === "{") throw this.fail("a quantifier follows a quantifier");
    return [["rep", atom, bounds[0], bounds[1]], true];
  }

  quantifier() {
    const ch = this.peek();
    if (ch === "?") { this.i += 1; return [0, 1]; }
    if (ch === "*") { this.i += 1; return [0, null]; }
    if (ch === "+") { this.i += 1; return [1, null]; }
    if (ch !== "{") return null;
    const start = this.i;
    const end = this.p.indexOf("}", start);
    const body = end > 0 ? this.p.slice(start + 1, end).join("") : "";
    const comma = body.indexOf(",");
    const lowText = comma < 0 ? body : body.slice(0, comma);
    const highText = comma < 0 ? "" : body.slice(comma + 1);
    if (end < 0 || !digits(lowText) || (comma >= 0 && highText && !digits(highText))) {
      throw this.fail("a '{' starts a counted repeat {n} or {n,m}; a literal brace is written \\{", start);
    }
    if (comma >= 0 && !highText) throw this.fail("{n,} has no upper bound: write {n,m}, or + or *", start);
    const low = Number(lowText);
    const high = comma >= 0 ? Number(highText) : low;
    if (low > high) throw this.fail(`counted repeat {${body}} has its bounds the wrong way round`, start);
    if (high > MAX_REPEAT) throw this.fail(`counted repeat {${body}} is over the limit of ${MAX_REPEAT}`, start);
    this.i = end + 1;
    return [low, high];
  }

  atom() {
    const ch = this.p[this.i];
    const start = this.i;
    if (ch === "(") {
      if (this.startsWith("(?", this.i)) {
        throw this.fail("'(?' constructs (non-capturing or named groups, lookaround, inline flags) are not in the portable subset: write a plain group ( )");
      }
      this.i += 1;
      const [node, quantified] = this.alternation();
      if (this.peek() !== ")") throw this.fail("unbalanced '('", start);
      this.i += 1;
      return [node, quantified];
    }
    if (ch === "[") return [this.bracket(), false];
    if (ch === ".") {
      this.i += 1;
      return [["set", [], true], false];
    }
    if (ch === "\\") {
      const code = cp(this.escape());
      return [["set", [[code, code]], false], false];
    }
    if ("*+?{".includes(ch)) throw this.fail(`quantifier '${ch}' has nothing to repeat`);
    if (ch === "^" || ch === "$") {
      const literal = ch === "^" ? "\\^" : "[$]";
      throw this.fail(`anchor '${ch}': a pattern always matches the whole value, anchors are not in the portable subset (a literal ${ch} is written ${literal})`);
    }
    if (ch === "]" || ch === "}") throw this.fail(`a literal '${ch}' is written \\${ch}`);
    this.literalCheck(ch);
    this.i += 1;
    return [["set", [[cp(ch), cp(ch)]], false], false];
  }

  literalCheck(ch) {
    const code = cp(ch);
    if (code >= 0xd800 && code <= 0xdfff) throw this.fail("a lone surrogate is not a character");
  }

  escape() {
    const start = this.i;
    this.i += 1;
    const ch = this.peek();
    if (ch === null) throw this.fail("a pattern cannot end with '\\'", start);
    this.i += 1;
    if (ESCAPABLE.has(ch)) return ch;
    if (CONTROL_ESCAPES.has(ch)) return CONTROL_ESCAPES.get(ch);
    if ("dDwWsS".includes(ch)) {
      throw this.fail(`shorthand \\${ch} is not portable (engines disagree on what it matches): write a bracket class such as [0-9]`, start);
    }
    if (ch === "p" || ch === "P") throw this.fail(`\\${ch}{...} Unicode properties are not in the portable subset`, start);
    if ("bBAZzG".includes(ch)) {
      throw this.fail(`anchor \\${ch}: a pattern always matches the whole value, anchors are not in the portable subset`, start);
    }
    if (/^\p{Nd}$/u.test(ch) || ch === "k") throw this.fail("backreferences are not in the portable subset", start);
    throw this.fail(`unknown escape \\${ch}`, start);
  }

  bracket() {
    const start = this.i;
    this.i += 1;
    const negated = this.peek() === "^";
    if (negated) this.i += 1;
    const ranges = [];
    let first = true;
    for (;;) {
      const ch = this.peek();
      if (ch === null) throw this.fail("unterminated bracket class '['", start);
      if (ch === "]") {
        if (first) throw this.fail("empty bracket class: a literal ']' is written \\]", start);
        this.i += 1;
        break;
      }
      if (ch === "-") {
        if (first || this.startsWith("-]", this.i)) {
          this.i += 1;
          ranges.push([0x2d, 0x2d]);
          first = false;
          continue;
        }
        throw this.fail("a '-' inside a class is a range a-z, or the first or last character");
      }
      const low = this.classChar();
      if (this.peek() === "-" && !this.startsWith("-]", this.i)) {
        this.i += 1;
        if (this.peek() === null) throw this.fail("unterminated bracket class '['", start);
        const at = this.i;
        const high = this.classChar();
        if (cp(high) < cp(low)) throw this.fail(`range ${low}-${high} runs backwards`, at);
        ranges.push([cp(low), cp(high)]);
      } else {
        ranges.push([cp(low), cp(low)]);
      }
      first = false;
    }
    ranges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    return ["set", ranges, negated];
  }

  classChar() {
    const ch = this.p[this.i];
    if (ch === "\\") return this.escape();
    if (ch === "[") throw this.fail("a literal '[' inside a class is written \\[ (nested classes are not portable)");
    this.literalCheck(ch);
    this.i += 1;
    return ch;
  }
}

// the automaton: for state s, kind[s] CHAR matches one character by sets[s] and goes to out1[s]; SPLIT goes
// to out1[s] and out2[s] on no character (-1: none); MATCH accepts
class Builder {
  constructor() {
    this.kind = [];
    this.sets = [];
    this.out1 = [];
    this.out2 = [];
  }

  state(kind, charset = null) {
    if (this.kind.length >= MAX_STATES) throw new PatternError(`pattern is too large: over ${MAX_STATES} automaton states`, 0);
    this.kind.push(kind);
    this.sets.push(charset);
    this.out1.push(-1);
    this.out2.push(-1);
    return this.kind.length - 1;
  }

  patch(holes, target) {
    for (const [s, which] of holes) (which === 1 ? this.out1 : this.out2)[s] = target;
  }

  // a fragment: [entry state, dangling exits as [state, 1 or 2]]
  build(node) {
    const tag = node[0];
    if (tag === "set") {
      const s = this.state(CHAR, [node[1], node[2]]);
      return [s, [[s, 1]]];
    }
    if (tag === "cat") {
      let [entry, holes] = this.empty();
      for (const child of node[1]) {
        const [cEntry, cHoles] = this.build(child);
        this.patch(holes, cEntry);
        holes = cHoles;
      }
      return [entry, holes];
    }
    if (tag === "alt") {
      const entries = [];
      let holes = [];
      for (const child of node[1]) {
        const [cEntry, cHoles] = this.build(child);
        entries.push(cEntry);
        holes = holes.concat(cHoles);
      }
      let entry = entries[entries.length - 1];
      for (const e of entries.slice(0, -1).reverse()) {
        const split = this.state(SPLIT);
        this.out1[split] = e;
        this.out2[split] = entry;
        entry = split;
      }
      return [entry, holes];
    }
    const [, child, low, high] = node;
    let [entry, holes] = this.empty();
    for (let k = 0; k < low; k++) {
      const [cEntry, cHoles] = this.build(child);
      this.patch(holes, cEntry);
      holes = cHoles;
    }
    if (high === null) {
      const split = this.state(SPLIT);
      this.patch(holes, split);
      const [cEntry, cHoles] = this.build(child);
      this.out1[split] = cEntry;
      this.patch(cHoles, split);
      return [entry, [[split, 2]]];
    }
    const exits = [];
    for (let k = 0; k < high - low; k++) {
      const split = this.state(SPLIT);
      this.patch(holes, split);
      const [cEntry, cHoles] = this.build(child);
      this.out1[split] = cEntry;
      exits.push([split, 2]);
      holes = cHoles;
    }
    return [entry, holes.concat(exits)];
  }

  empty() {
    const s = this.state(SPLIT); // an epsilon state with one exit
    return [s, [[s, 1]]];
  }
}

function inSet([ranges, negated], code) {
  for (const [lo, hi] of ranges) if (lo <= code && code <= hi) return !negated;
  return negated;
}

class IRegexp {
  constructor(pattern) {
    this.pattern = pattern;
    const tree = pattern ? new Parser(pattern).parse() : ["cat", []];
    const builder = new Builder();
    const [entry, holes] = builder.build(tree);
    this.final = builder.state(MATCH);
    builder.patch(holes, this.final);
    Object.assign(this, { kind: builder.kind, sets: builder.sets, out1: builder.out1, out2: builder.out2 });
    this.start = this.closure([entry], null);
  }

  // the states reachable by epsilon moves, keeping the character states and the final one; counter[0] grows by
  // every state visited
  closure(states, counter) {
    const seen = new Set();
    const stack = [...states];
    const kept = [];
    while (stack.length) {
      const s = stack.pop();
      if (s < 0 || seen.has(s)) continue;
      seen.add(s);
      if (this.kind[s] === SPLIT) {
        stack.push(this.out2[s]);
        stack.push(this.out1[s]);
      } else {
        kept.push(s);
      }
    }
    if (counter !== null) counter[0] += seen.size;
    return new Set(kept);
  }

  step(current, code, counter) {
    const moved = [];
    for (const s of current) if (this.kind[s] === CHAR && inSet(this.sets[s], code)) moved.push(this.out1[s]);
    counter[0] += current.size;
    return this.closure(moved, counter);
  }

  // whether the whole of value matches, or null when deciding it would visit more than MAX_MATCH_STEPS states
  matches(value) {
    let current = this.start;
    const counter = [current.size];
    for (const ch of value) {
      if (counter[0] + current.size > MAX_MATCH_STEPS) return null; // a step visits every live state at least
      current = this.step(current, cp(ch), counter);
      if (counter[0] > MAX_MATCH_STEPS) return null;
      if (!current.size) return false;
    }
    return current.has(this.final);
  }
}

// a compiled pattern, or a PatternError where it is outside the portable subset or the limits
function compilePattern(pattern) {
  return new IRegexp(pattern);
}

export { compilePattern, IRegexp, PatternError, MAX_MATCH_STEPS };
