// Threads: every handoff closes exactly once (spec 5 rule 1, 5.4).
//
// Theory of operation
// -------------------
// checkThread takes a conversation in the order it was sent and rebuilds its
// threads from re= alone: position only orders events, it never decides what
// a message answers. Each line is read with the never-guess pass; a line that
// cannot be read is a `form` finding and takes no part. An id seen twice is
// one message delivered twice when the two are equal, else a `form` finding.
// A re= naming no message in the stream is `reply-to-unknown`.
//
// An HO from the same sender to the same receiver about the same item whose
// re= names an earlier HO (a re-send) or an RB of it (a re-issue) continues
// that handoff; a re-send answered `UN why=DUP` by its receiver is a
// duplicate and closes only itself. The closes of a handoff (DN, UN, FL from
// its receiver; CX from its sender to its receiver, any other CX being
// `cancel-wrong-party`) are walked in stream order through CLOSE_TRANSITIONS,
// a table of (state, event) -> (next state, finding kinds). A live HO still
// open at the end is compared with `now`: past exp= is `open-past-exp`, a day
// after due= is `open-past-due`; otherwise it is the note `open`. One whose
// readback failed and was neither re-issued nor cancelled is also `held` (a
// note). An AQ neither answered nor refused by the agent it asked is
// `unanswered`: a fail once its by= has passed, a note before.
//
// Under rb=all (spec 5 rule 1) an ST or AN from a handoff's sender to its
// receiver about the open handoff is a change, echoed when an RB answering it
// passes checkEcho; a DN reporting the act (out=OK or PARTIAL) while a change
// waits for its echo is `act-before-echo`. An HO ask=UNDO whose ctx= names a
// DN is linked in the ledger to the act it reverses: `undoes` (the HO that DN
// answers) and `reverses` (the DN), spec 5.4.
//
// The readback region (READBACK_TRANSITIONS) gives act-before-wilco: a DN
// reporting the act before a readback of the live issue passed, or, under
// rb=acc, plan or exec, before the sender's AN re=<RB> val=Y; and
// confirm-void / confirm-without-readback: an AN val=Y to a readback that
// did not pass, or before any. An HO that starts a handoff of an item while
// a handoff of it its sender made to another agent is still open (no close
// earlier in the stream) is `two-owners` (spec 5 rule 1).
//
// An HO's readback passed when any RB answering it passes checkRb. The owner
// of an item is the `to` of the most recent HO whose readback passed, else
// the sender of its first HO. Every finding about a handoff carries that
// handoff's live HO id as `key`, and the offending message's id as `token`.

import { RW1Error, checkLine, refusalOf, canonicalJson } from "./rw1.js";
import { checkRb, checkEcho, asReceiver, get, levelsOf } from "./readback.js";

const CLOSERS = new Set(["DN", "UN", "FL", "CX"]);
// a readback is judged before any exp=: the thread check judges expiry at its own now (open-past-exp),
// never at the day it happens to run
const BEFORE_ANY_EXP = new Date(0);
// The readback levels whose act waits for the sender's verdict, AN re=<RB> val=Y: the sender checks them
// against what the receiver does not hold (criteria kept back, its record).
const VERDICT_LEVELS = new Set(["acc", "plan", "exec"]);
const HANDOFF_STATES = ["awaiting-readback", "owned", "held", "orphaned", "closed", "reissued"];
const TIME_RE = /^([0-9]{4})([0-9]{2})([0-9]{2})T([0-9]{2})([0-9]{2})Z$/;

// Readback states: offered (no readback yet); void (it failed the check);
// read-back (it passed at a level whose act waits for the sender's AN val=Y);
// wilco (cleared to act). Events: RB-pass, RB-pass-wait (a pass at a verdict
// level), RB-void, confirm (AN val=Y to the RB), refuse (val=N), DN-act.
const READBACK_TRANSITIONS = new Map(Object.entries({
  "offered RB-pass": ["wilco", []], "void RB-pass": ["wilco", []],
  "read-back RB-pass": ["read-back", []], "wilco RB-pass": ["wilco", []],
  "offered RB-pass-wait": ["read-back", []], "void RB-pass-wait": ["read-back", []],
  "read-back RB-pass-wait": ["read-back", []], "wilco RB-pass-wait": ["wilco", []],
  "offered RB-void": ["void", []], "void RB-void": ["void", []],
  "read-back RB-void": ["read-back", []], "wilco RB-void": ["wilco", []],
  "read-back confirm": ["wilco", []], "wilco confirm": ["wilco", []],
  "offered confirm": ["offered", ["confirm-without-readback"]], "void confirm": ["void", ["confirm-void"]],
  "read-back refuse": ["void", []], "wilco refuse": ["void", []],
  "offered refuse": ["offered", []], "void refuse": ["void", []],
  "offered DN-act": ["offered", ["act-before-wilco"]], "void DN-act": ["void", ["act-before-wilco"]],
  "read-back DN-act": ["read-back", ["act-before-wilco"]], "wilco DN-act": ["wilco", []],
}));

// Close states: open; done (by a DN that ran the act); closed (by a DN
// out=NOOP, a UN or an FL); cancelled (by a CX, not yet answered); answered (a
// CX answered by the receiver's DN); late-cancel (a CX after the act's DN: the
// act's DN answers it); cancel-after-close (a CX after a UN, FL or NOOP: no
// close may follow). Events: DN-act (out=OK or PARTIAL), DN-noop, UN, FL, CX.
const CLOSE_TRANSITIONS = new Map(Object.entries({
  "open DN-act": ["done", []],
  "open DN-noop": ["closed", []],
  "open UN": ["closed", []],
  "open FL": ["closed", []],
  "open CX": ["cancelled", []],
  "done DN-act": ["done", ["closed-twice"]],
  "done DN-noop": ["done", ["closed-twice"]],
  "done UN": ["done", ["closed-twice"]],
  "done FL": ["done", ["closed-twice"]],
  "done CX": ["late-cancel", ["closed-twice"]],
  "closed DN-act": ["closed", ["closed-twice"]],
  "closed DN-noop": ["closed", ["closed-twice"]],
  "closed UN": ["closed", ["closed-twice"]],
  "closed FL": ["closed", ["closed-twice"]],
  "closed CX": ["cancel-after-close", ["closed-twice"]],
  "late-cancel DN-act": ["done", []],
  "late-cancel DN-noop": ["closed", []],
  "late-cancel UN": ["closed", ["closed-twice"]],
  "late-cancel FL": ["closed", ["closed-twice"]],
  "late-cancel CX": ["late-cancel", ["closed-twice"]],
  "cancel-after-close DN-act": ["cancel-after-close", ["closed-twice"]],
  "cancel-after-close DN-noop": ["cancel-after-close", ["closed-twice"]],
  "cancel-after-close UN": ["cancel-after-close", ["closed-twice"]],
  "cancel-after-close FL": ["cancel-after-close", ["closed-twice"]],
  "cancel-after-close CX": ["cancel-after-close", ["closed-twice"]],
  "cancelled DN-act": ["answered", ["act-after-cancel"]],
  "cancelled DN-noop": ["answered", []],
  "cancelled UN": ["answered", ["closed-twice"]],
  "cancelled FL": ["answered", ["closed-twice"]],
  "cancelled CX": ["cancelled", ["closed-twice"]],
  "answered DN-act": ["answered", ["closed-twice", "act-after-cancel"]],
  "answered DN-noop": ["answered", ["closed-twice"]],
  "answered UN": ["answered", ["closed-twice"]],
  "answered FL": ["answered", ["closed-twice"]],
  "answered CX": ["answered", ["closed-twice"]],
}));

const fail = (kind, key, message, token = null) => ({ severity: "fail", kind, tier: null, key, message, ...(token !== null ? { token } : {}) });
const note = (kind, key, message, token = null) => ({ severity: "note", kind, tier: null, key, message, ...(token !== null ? { token } : {}) });

function validTime(text) {
  const m = TIME_RE.exec(text);
  if (!m) return null;
  const [y, mo, d, h, mi] = m.slice(1).map(Number);
  const back = new Date(0);
  back.setUTCFullYear(y, mo - 1, d); // (Date.UTC reads the years 0 to 99 as 1900 to 1999)
  back.setUTCHours(h, mi, 0, 0);
  const at = back.getTime();
  if (y < 1 || back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59) return null;
  return at;
}

// `now` as milliseconds since the epoch: a YYYYMMDDTHHMMZ string, a Date, or the clock.
function parseNow(now) {
  if (now === null || now === undefined) return Date.now();
  if (now instanceof Date) return now.getTime();
  if (typeof now !== "string" || !TIME_RE.test(now)) {
    throw new RW1Error(`now is a UTC time YYYYMMDDTHHMMZ, not ${JSON.stringify(now)}`, { kind: "ValueError" });
  }
  const at = validTime(now);
  if (at === null) throw new RW1Error(`now ${JSON.stringify(now)} is not a real time`, { kind: "ValueError" });
  return at;
}

const dayOf = (ms) => new Date(ms).toISOString().slice(0, 10).replace(/-/g, "");

// The stream's messages in order, each id once; form findings for the rest, and
// the ids of refused lines whose envelope reads (a reply to one names a message
// that was sent: the refused line's own finding is the one root cause).
function read(lines, receiver) {
  const messages = [];
  const findings = [];
  const refused = new Set();
  const byId = new Map();
  lines.forEach((entry, index) => {
    const number = index + 1;
    let message;
    if (typeof entry === "string") {
      let text = entry.endsWith("\n") ? entry.slice(0, -1) : entry;
      text = text.endsWith("\r") ? text.slice(0, -1) : text;
      if (text === "") return;
      const result = checkLine(text, receiver);
      message = result.message;
      if (message === null) {
        const problem = refusalOf(result);
        if (problem === null) return;
        findings.push(fail("form", null, `line ${number}: not a valid message (${problem.token || problem.kind}: ${problem.message}); left out of the thread`));
        if (result.raw && result.raw.id) refused.add(result.raw.id);
        return;
      }
    } else if (entry !== null && typeof entry === "object" && typeof entry.type === "string" && typeof entry.id === "string") {
      message = entry;
    } else {
      throw new RW1Error(`a thread line is a string or a message, not ${entry === null ? "null" : typeof entry}`, { kind: "TypeError" });
    }
    const earlier = byId.get(message.id);
    if (earlier !== undefined) {
      if (canonicalJson(earlier) !== canonicalJson(message)) {
        findings.push(fail("form", null, `line ${number}: id ${message.id} is already used by a different message; this one is left out of the thread`));
      }
      return;
    }
    byId.set(message.id, message);
    messages.push(message);
  });
  return [messages, findings, refused];
}

const sameParties = (a, b) => a.from === b.from && a.to === b.to && a.item === b.item;

// Rebuild the threads of a conversation and report what did not close right.
function checkThread(lines, { now = null, profiles = null } = {}) {
  if (!Array.isArray(lines)) throw new RW1Error("lines is a list of lines", { kind: "TypeError" });
  const at = parseNow(now);
  const receiver = asReceiver(profiles);
  const [messages, findings, refused] = read(lines, receiver);
  const position = new Map(messages.map((m, i) => [m.id, i]));
  const byId = new Map(messages.map((m) => [m.id, m]));

  for (const m of messages) {
    if (m.re !== null && !byId.has(m.re) && !refused.has(m.re)) {
      findings.push(fail("reply-to-unknown", null, `${m.type} ${m.id} answers re=${m.re}, which names no message in the stream`));
    }
  }

  const hos = messages.filter((m) => m.type === "HO");

  // readback of every HO
  const readback = new Map();
  for (const ho of hos) {
    const rbs = messages.filter((m) => m.type === "RB" && m.re === ho.id);
    const good = rbs.find((rb) => checkRb(ho, rb, { profiles: receiver, now: BEFORE_ANY_EXP }).passed);
    if (good !== undefined) readback.set(ho.id, ["passed", good.id]);
    else if (rbs.length) readback.set(ho.id, ["failed", rbs[rbs.length - 1].id]);
    else readback.set(ho.id, [null, null]);
  }

  // which HO a message answers, through the RB, AN or CX it replies to
  const target = (m) => {
    const seen = new Set([m.id]);
    let current = m.re !== null ? byId.get(m.re) : undefined;
    while (current !== undefined && ["RB", "AN", "CX"].includes(current.type) && !seen.has(current.id)) {
      seen.add(current.id);
      current = current.re !== null ? byId.get(current.re) : undefined;
    }
    return current !== undefined && current.type === "HO" ? current : null;
  };

  // issues of one handoff: re-sends and re-issues. The link a line names
  // (issue link: re= an earlier HO between the same parties, or re= the
  // receiver's RB of one) holds only where that HO was taken first: HOs are
  // taken in the order given, one that carries forward an HO listed later
  // waits for it, and a loop of re= among HOs is taken in the order given.
  const issueLink = (ho) => {
    const named = ho.re !== null ? byId.get(ho.re) : undefined;
    if (named === undefined) return null;
    if (named.type === "HO" && sameParties(named, ho)) return [named.id, "resend"];
    if (named.type === "RB" && named.re !== null) {
      const earlier = byId.get(named.re);
      if (earlier !== undefined && earlier.type === "HO" && sameParties(earlier, ho) && named.from === earlier.to) return [earlier.id, "reissue"];
    }
    return null;
  };
  const links = new Map(hos.map((ho) => [ho.id, issueLink(ho)]));

  const duplicate = new Map(); // a re-send answered UN why=DUP -> that UN
  for (const m of messages) {
    if (m.type === "UN" && get(m, "why") === "DUP" && links.has(m.re) && links.get(m.re) !== null && links.get(m.re)[1] === "resend") {
      const ho = byId.get(m.re);
      if (m.from === ho.to && !duplicate.has(m.re)) duplicate.set(m.re, m);
    }
  }

  const previous = new Map(); // HO id -> [earlier HO id, "resend" | "reissue"]
  const sameSlots = (a, b) => canonicalJson({ ...a, id: "", re: null, tail: null }) === canonicalJson({ ...b, id: "", re: null, tail: null });
  // an original its sender numbered past the lost HO was sent after it: a new handoff (ids go forward)
  const numbered = (id, sender) => {
    const rest = id.startsWith(`${sender}-`) ? id.slice(sender.length + 1) : "";
    return /^[0-9]+$/.test(rest) ? BigInt(rest) : null;
  };
  const numberedAfter = (original, link, sender) => {
    const [a, b] = [numbered(original, sender), numbered(link, sender)];
    return a !== null && b !== null && a >= b;
  };
  // an HO whose re= names an HO of its sender's the log lacks
  const untraced = (ho) => ho.re !== null && !byId.has(ho.re) && ho.re.startsWith(`${ho.from}-`);
  const resendsUnseen = (later, ho) => sameParties(later, ho) && !previous.has(later.id) && !duplicate.has(later.id)
    && untraced(later) && !numberedAfter(ho.id, later.re, later.from) && sameSlots(later, ho);
  const taken = new Set();
  const takeOrder = [];
  const take = (ho) => {
    let link = links.get(ho.id);
    if (duplicate.has(ho.id) && link !== null && link[1] === "resend") link = null;
    // a re-send of a re-send answered UN why=DUP was sent before that UN came: it carries forward the handoff
    // the re-send repeated
    const hops = new Set();
    while (link !== null && link[1] === "resend" && duplicate.has(link[0]) && !hops.has(link[0])) {
      hops.add(link[0]);
      const up = links.get(link[0]);
      // (one that came before the HO it repeats, a handoff of its own then, repeated nothing taken: this
      // re-send stays with it, in the handoff that UN closed)
      if (up === null || position.get(up[0]) > position.get(link[0])) break;
      link = [up[0], "resend"];
    }
    if (link !== null && taken.has(link[0])) previous.set(ho.id, link);
    taken.add(ho.id);
    // an original (no re=) taken after a re-send of a re-send the log lacks (same parties, item and slots) is
    // held apart from it: it may be its original, or another handoff of the same slots
    takeOrder.push(ho);
  };
  const waiting = new Map(); // HO id -> [[place, HO]] waiting for it
  let ready = [];
  hos.forEach((ho, place) => {
    const link = links.get(ho.id);
    if (link !== null && !taken.has(link[0]) && link[0] !== ho.id) {
      if (!waiting.has(link[0])) waiting.set(link[0], []);
      waiting.get(link[0]).push([place, ho]);
      return;
    }
    ready.push([place, ho]);
    while (ready.length) {
      ready.sort((a, b) => a[0] - b[0]);
      const [, next] = ready.shift();
      take(next);
      ready.push(...(waiting.get(next.id) || []));
      waiting.delete(next.id);
    }
  });
  for (const [, ho] of [...waiting.values()].flat().sort((a, b) => a[0] - b[0])) take(ho);

  // an HO taken at its place before the HO it carries forward (below, the walk) is a handoff of its own until
  // that HO is taken; one that then stays apart (both read back or closed) is detached from the thread
  const detached = new Set();
  const carriedTo = new Map(); // HO id -> the later HO that carries it forward
  const carry = () => {
    carriedTo.clear();
    for (const ho of hos) {
      if (previous.has(ho.id) && !duplicate.has(ho.id) && !detached.has(ho.id)) carriedTo.set(previous.get(ho.id)[0], ho.id);
    }
  };
  carry();

  const root = (hoId) => {
    const seen = new Set();
    while (previous.has(hoId) && !duplicate.has(hoId) && !detached.has(hoId) && !seen.has(hoId)) {
      seen.add(hoId);
      hoId = previous.get(hoId)[0];
    }
    return hoId;
  };

  // the HOs' ids by a key of each, in stream order
  const groupBy = (key) => {
    const found = new Map();
    for (const ho of hos) {
      const k = key(ho.id);
      if (!found.has(k)) found.set(k, []);
      found.get(k).push(ho.id);
    }
    return found;
  };
  let groups = groupBy(root);

  // each handoff's live issue (the last HO taken into it), and the HOs each
  // agent sent or received, by item, in the order taken
  // A re-issue answers a readback: where every HO of its thread (by re=) listed after it carries it forward,
  // it and those are taken at their places in the walk below (or just before the first message naming one),
  // so an act on the issue before it that the log lists first is judged on that issue (a crossing, as the live
  // end saw it). In each thread, the first such re-issue.
  const threadRoot = (id) => {
    const seen = new Set([id]);
    for (let link = links.get(id); link != null && !seen.has(link[0]); link = links.get(id)) {
      id = link[0];
      seen.add(id);
    }
    return id;
  };
  const carries = (id, earlier) => {
    const seen = new Set();
    while (!seen.has(id)) {
      if (id === earlier) return true;
      seen.add(id);
      const link = links.get(id);
      if (link == null) return false;
      id = link[0];
    }
    return false;
  };
  const threads = groupBy(threadRoot);
  const later = new Set();
  for (const members of threads.values()) {
    for (const reissue of members) {
      const link = links.get(reissue);
      if (link === null || link[1] !== "reissue") continue;
      const carrying = members.filter((id) => carries(id, reissue));
      if (members.every((id) => position.get(id) <= position.get(reissue) || carrying.includes(id))) {
        for (const id of carrying) later.add(id);
        break;
      }
    }
  }
  const liveOf = new Map();
  const issuesOf = new Map(); // each handoff's issues so far, in the order taken
  const itemHos = new Map();
  for (const ho of takeOrder) {
    if (!later.has(ho.id)) {
      liveOf.set(root(ho.id), ho.id);
      if (!issuesOf.has(root(ho.id))) issuesOf.set(root(ho.id), []);
      issuesOf.get(root(ho.id)).push(ho.id);
    }
    if (ho.item === null || later.has(ho.id)) continue;
    for (const agent of ho.from === ho.to ? [ho.from] : [ho.from, ho.to]) {
      const key = `${agent} ${ho.item}`;
      if (!itemHos.has(key)) itemHos.set(key, []);
      itemHos.get(key).push(ho.id);
    }
  }

  // every handoff's state, walked in stream order: the close region
  // (CLOSE_TRANSITIONS) and, under rb=all, the echo region: an ST or AN of the
  // sender's to the receiver about the open handoff is a change, echoed when
  // an RB answering it passes checkEcho; a DN reporting the act (DN-act) while
  // a change waits for its echo is act-before-echo (spec 5 rule 1).
  const state = new Map([...groups.keys()].map((g) => [g, { rb: "offered", close: "open", echo: "echoed", pending: [], firstCloser: null, cancels: [], kinds: [] }]));
  // an HO the walk below takes at its place before the HO it carries forward (listed later) came first: a handoff
  // of its own, keyed by that HO, until the HO it carries forward is taken (then it joins it, or stays apart)
  const aloneOf = new Map(); // HO id -> the first HO of the handoff of its own it is in
  const aloneWaiting = new Map(); // HO id not taken yet -> the first HOs of such handoffs that carry it forward
  const cur = (hoId) => aloneOf.get(hoId) ?? root(hoId); // the handoff an HO is in now
  // the handoff a re-send answered UN why=DUP repeated, followed back through re-sends answered so in turn
  const repeatedOf = (named) => {
    const seen = new Set([named]);
    let g = cur(links.get(named)[0]);
    while (duplicate.has(g) && !seen.has(g) && links.get(g) !== null && links.get(g)[1] === "resend") {
      seen.add(g);
      g = cur(links.get(g)[0]);
    }
    return g;
  };
  const changes = new Map(); // an ST or AN -> the handoff it changes
  const changeOf = (m) => {
    const named = m.re !== null ? byId.get(m.re) : undefined;
    if (m.type === "AN" && named !== undefined && (named.type === "RB" || named.type === "CX")) return null; // a go-ahead, a cancel's answer
    let ho = null;
    const seen = new Set([m.id]);
    let current = named;
    while (current !== undefined && ["RB", "AN", "CX", "AQ", "ST"].includes(current.type) && !seen.has(current.id)) {
      seen.add(current.id);
      current = current.re !== null ? byId.get(current.re) : undefined;
    }
    if (current !== undefined && current.type === "HO") {
      ho = current;
    } else if (m.type === "ST" && named === undefined && m.item !== null) {
      // a status naming no message: the latest open handoff of its item that its sender is party to
      const list = itemHos.get(`${m.from} ${m.item}`) || [];
      for (let i = list.length - 1; i >= 0; i--) {
        const g = cur(list[i]);
        if (state.get(g).close === "open") {
          ho = byId.get(liveOf.get(g));
          break;
        }
      }
    }
    if (ho === null) return null;
    let g = cur(ho.id);
    // a change naming a re-send answered UN why=DUP changes the handoff that re-send repeated
    if (duplicate.has(g) && links.get(g) !== null && links.get(g)[1] === "resend" && !later.has(links.get(g)[0])) g = repeatedOf(g);
    if (ho.from !== m.from || ho.to !== m.to || state.get(g).close !== "open") return null;
    return levelsOf(byId.get(liveOf.get(g))).includes("all") ? g : null;
  };
  const readbackStep = (s, event, m) => {
    const [next, raised] = READBACK_TRANSITIONS.get(`${s.rb} ${event}`);
    s.rb = next;
    for (const kind of raised) s.kinds.push([kind, m]);
  };
  // whether the handoff's live issue carries hoId forward by re-sends alone (the same HO again): a readback
  // of hoId that crossed them reads back the live issue; a re-issue may change the HO
  // (every issue taken into it after hoId is a re-send: after a re-issue, a readback of an issue before it counts
  // for nothing, wherever the re-issue sits in the chain of re=)
  const resentSince = (g, hoId) => {
    const issues = issuesOf.get(g) || [];
    const at = issues.indexOf(hoId);
    return at >= 0 && issues.slice(at + 1).every((x) => links.get(x) !== null && links.get(x)[1] === "resend");
  };
  // a CX that names an HO listed after it is held until that HO arrives, as the live endpoint holds it: it
  // takes that HO's place, after any close listed between them
  const arrival = [];
  const held = []; // [place of the named HO, the CX], by that place
  messages.forEach((m, place) => {
    while (held.length && held[0][0] < place) arrival.push(held.shift()[1]);
    const named = m.type === "CX" && m.re !== null && byId.has(m.re) && byId.get(m.re).type === "HO" ? position.get(m.re) : -1;
    if (named > place) {
      held.push([named, m]);
      held.sort((a, b) => a[0] - b[0] || position.get(a[1].id) - position.get(b[1].id));
      return;
    }
    arrival.push(m);
  });
  arrival.push(...held.map(([, m]) => m));
  const arrivalPlace = new Map(arrival.map((m, i) => [m.id, i]));
  // a cancel naming a re-send whose re= names an HO the log lacks (not read back) withdraws the first handoff
  // that re-send may repeat, open or read back, whose HO came before the cancel: its sender cancels the handoff
  // it holds, whose live issue that re-send may be (spec 5.4; the live endpoint applies it there)
  const untracedOriginal = (g, cx) => {
    const first = byId.get(g);
    if (first === undefined || first.type !== "HO" || state.get(g).rb !== "offered" || !untraced(first)) return null;
    for (const o of takeOrder) {
      const other = cur(o.id);
      const start = byId.get(other); // an original, or a re-send whose re= names an HO the log lacks
      if (other === g || liveOf.get(other) !== o.id || (start.re !== null && !untraced(start))) continue;
      const st = state.get(other);
      if (!(st.close === "open" || st.rb === "read-back" || st.rb === "wilco")) continue;
      if (arrivalPlace.get(other) < arrivalPlace.get(cx.id) && resendsUnseen(first, byId.get(other))) return other;
    }
    return null;
  };
  const takeLater = (id) => {
    const chain = []; // it, then what it carries forward first
    let alone = null;
    while (later.has(id) && !chain.includes(id)) {
      chain.push(id);
      const link = links.get(id);
      // an HO listed before the one it carries forward came first, as a handoff of its own: taken alone (a
      // re-send of an HO the walk takes later is a handoff of its own until that HO is taken)
      if (link == null) break;
      if ((arrivalPlace.get(link[0]) ?? -1) > arrivalPlace.get(id)) {
        if (link[1] === "resend" && later.has(link[0]) && !duplicate.has(id)) alone = id;
        break;
      }
      id = link[0];
    }
    for (const x of chain.reverse()) takeOne(x, x === alone);
  };
  // such a handoff's key is its first issue: one that comes later, and that the first re-sends, takes its place
  const rekey = (from, to) => {
    for (const map of [state, issuesOf, liveOf]) {
      map.set(to, map.get(from));
      map.delete(from);
    }
    for (const map of [aloneOf, changes]) for (const [x, k] of map) if (k === from) map.set(x, to);
  };
  const takeOne = (id, alone = false) => {
    later.delete(id);
    const link = links.get(id);
    const resentFirst = aloneWaiting.get(id) || []; // handoffs of their own whose first issue re-sends it
    aloneWaiting.delete(id);
    let first = false;
    if (alone) {
      if (resentFirst.length) {
        // its re-send came first, as a handoff of its own: it joins that handoff as its first issue
        rekey(resentFirst.shift(), id);
        issuesOf.get(id).unshift(id);
        first = true;
      } else {
        state.set(id, { rb: "offered", close: "open", echo: "echoed", pending: [], firstCloser: null, cancels: [], kinds: [] });
      }
      aloneOf.set(id, id);
      if (!aloneWaiting.has(link[0])) aloneWaiting.set(link[0], []);
      aloneWaiting.get(link[0]).push(id);
    } else if (link != null && link[1] === "resend" && aloneOf.has(link[0])) {
      aloneOf.set(id, aloneOf.get(link[0])); // a re-send of such a handoff is one of its issues
    }
    const g = cur(id);
    if (!issuesOf.has(g)) issuesOf.set(g, []);
    const issues = issuesOf.get(g);
    // re-sends of it taken before it (they came first) join it after it, and the latest of them stays live
    const resent = issues.findIndex((x) => x !== id && carries(x, id));
    if (!first && resent < 0) {
      liveOf.set(g, id);
      issues.push(id);
    } else if (!first) {
      issues.splice(resent, 0, id);
    }
    const ho = byId.get(id);
    if (ho.item !== null) {
      for (const agent of ho.from === ho.to ? [ho.from] : [ho.from, ho.to]) {
        const key = `${agent} ${ho.item}`;
        if (!itemHos.has(key)) itemHos.set(key, []);
        const list = itemHos.get(key); // before the first HO listed after it
        const at = list.findIndex((x) => position.get(x) > position.get(id));
        list.splice(at < 0 ? list.length : at, 0, id);
      }
    }
    // a re-issue offers the handoff again, whatever its readback was; a re-send changes nothing
    if (link !== null && link[1] === "reissue") state.get(g).rb = "offered";
    if (!alone) for (const other of resentFirst) join(id, other);
  };
  // a handoff of its own whose first HO carries forward ``target``, now taken: it joins target's handoff,
  // which keeps its readback and close, where it was neither read back nor closed (or target is a re-issue,
  // offered again: a readback before it counts for nothing); the other way round where target's handoff was
  // neither; each stays apart where both were (each act was a handoff's of its own then). The cancels of the
  // one taken in apply to the one that holds them both.
  const join = (target, first) => {
    if (aloneOf.has(target)) return;
    const g = cur(target);
    const mine = state.get(first);
    const theirs = state.get(g);
    const standing = (s) => s.close === "open" || s.close === "cancelled";
    const unread = (s) => s.rb === "offered" || s.rb === "void";
    const reissued = links.get(target) !== null && links.get(target)[1] === "reissue";
    let into, taken;
    if ((reissued || unread(mine)) && standing(mine)) [into, taken] = [theirs, mine];
    else if (unread(theirs) && standing(theirs)) [into, taken] = [mine, theirs];
    else {
      detached.add(first);
      return;
    }
    const own = issuesOf.get(first);
    const issues = issuesOf.get(g);
    issues.splice(issues.indexOf(target) + 1, 0, ...own);
    liveOf.set(g, issues[issues.length - 1]);
    for (const x of own) aloneOf.delete(x);
    for (const [x, k] of changes) if (k === first) changes.set(x, g);
    issuesOf.delete(first);
    liveOf.delete(first);
    state.delete(first);
    state.set(g, into);
    for (const cx of taken.cancels) closeStep(into, cx, "CX");
  };
  const closeStep = (s, m, event) => {
    if (m.type !== "CX") for (const c of s.cancels) acknowledged.add(c.id);
    if (event === "DN-act") readbackStep(s, event, m);
    const [next, raised] = CLOSE_TRANSITIONS.get(`${s.close} ${event}`);
    if (s.close === "cancelled" && next !== "cancelled" && !s.answeredBy) s.answeredBy = m;
    s.close = next;
    if (s.firstCloser === null) s.firstCloser = m;
    if (m.type === "CX") s.cancels.push(m);
    for (const kind of raised) s.kinds.push([kind, m]);
    if (event === "DN-act" && s.echo === "unechoed") s.kinds.push(["act-before-echo", m]);
  };
  const acknowledged = new Set();
  for (const m of arrival) {
    if (m.type === "HO") {
      takeLater(m.id);
      continue;
    }
    if (m.re !== null) takeLater(m.re);
    if (m.type === "AN" && byId.has(m.re) && byId.get(m.re).type === "RB") {
      // the sender's verdict on the live issue's readback: confirm (val=Y) or refuse (val=N)
      const rb = byId.get(m.re);
      const ho = rb.re !== null ? byId.get(rb.re) : undefined;
      const val = get(m, "val");
      if (ho !== undefined && ho.type === "HO" && m.from === ho.from && m.to === ho.to
          && resentSince(cur(ho.id), ho.id) && (val === "Y" || val === "N")) {
        readbackStep(state.get(cur(ho.id)), val === "Y" ? "confirm" : "refuse", m);
      }
      continue;
    }
    if (m.type === "AN" && byId.has(m.re) && byId.get(m.re).type === "CX") {
      if (m.from === byId.get(m.re).to) {
        acknowledged.add(m.re);
        // the receiver's first answer to the cancel: the withdrawn handoff stands until it
        const ho = target(byId.get(m.re));
        if (ho !== null) {
          const named = cur(ho.id);
          const g = duplicate.has(named) ? repeatedOf(named) : named;
          const s = state.get(g);
          if (s !== undefined && s.close === "cancelled" && !s.answeredBy) s.answeredBy = m;
        }
      }
      continue;
    }
    if (m.type === "ST" || m.type === "AN") {
      const g = changeOf(m);
      if (g !== null) {
        const s = state.get(g);
        s.pending.push(m.id);
        s.echo = "unechoed";
        changes.set(m.id, g);
      }
      continue;
    }
    if (m.type === "RB") {
      const named = m.re !== null ? byId.get(m.re) : undefined;
      if (named !== undefined && named.type === "HO") {
        const g = cur(named.id);
        if (resentSince(g, named.id)) {
          const event = !checkRb(named, m, { profiles: receiver, now: BEFORE_ANY_EXP }).passed ? "RB-void"
            : levelsOf(named).some((level) => VERDICT_LEVELS.has(level)) ? "RB-pass-wait" : "RB-pass";
          readbackStep(state.get(g), event, m);
        }
        continue;
      }
      const g = named !== undefined ? changes.get(named.id) : undefined;
      if (g !== undefined) {
        const s = state.get(g);
        if (s.pending.includes(named.id) && checkEcho(named, m, { profiles: receiver }).passed) {
          s.pending.splice(s.pending.indexOf(named.id), 1);
          if (!s.pending.length) s.echo = "echoed";
        }
      }
      continue;
    }
    if (!CLOSERS.has(m.type)) continue;
    const ho = target(m);
    if (ho === null) continue;
    if (m.type === "CX") {
      if (m.from !== ho.from || m.to !== ho.to) {
        findings.push(fail("cancel-wrong-party", ho.id, `CX ${m.id} comes from ${m.from} to ${m.to}; only ${ho.id}'s sender ${ho.from} can cancel it, to its receiver ${ho.to}`, m.id));
        continue;
      }
    } else if (m.from !== ho.to) {
      continue;
    }
    // a cancel naming a re-send answered UN why=DUP withdraws the handoff that re-send repeated; any other
    // close naming it before that UN closed it goes to that handoff too (the re-send was one of its issues then)
    // (where the HO it repeats is not taken yet, a re-issue the log lists later, the re-send was a handoff of
    // its own then: the close stays with it)
    const named = cur(ho.id);
    const repeated = duplicate.has(named) && !later.has(links.get(named)[0]) &&
      (m.type === "CX" || (state.get(named).close === "open" && m !== duplicate.get(named)));
    let g = repeated ? repeatedOf(named) : named;
    if (m.type === "CX") g = untracedOriginal(g, m) ?? g;
    closeStep(state.get(g), m, m.type === "DN" ? (get(m, "out") === "NOOP" ? "DN-noop" : "DN-act") : m.type);
  }
  for (const first of new Set(aloneOf.values())) detached.add(first); // never joined: handoffs of their own
  if (detached.size) {
    groups = groupBy(root);
    carry();
  }

  // an ask=UNDO: the act it reverses, followed back from the DN its ctx= names (spec 5.4)
  const reversal = (ho) => {
    if (get(ho, "ask") !== "UNDO") return {};
    const ctx = get(ho, "ctx");
    for (const ref of Array.isArray(ctx) ? ctx : ctx === null ? [] : [ctx]) {
      const dn = byId.get(ref);
      if (dn === undefined || dn.type !== "DN") continue;
      const reversed = target(dn);
      if (reversed !== null) return { undoes: reversed.id, reverses: dn.id };
    }
    return {};
  };

  // two owners (spec 5 rule 1): an HO that starts a handoff of an item while a handoff of it its sender
  // made to another agent is still open (no close of it earlier in the stream)
  const ownersTwice = new Map(); // handoff (its root) -> [[HO, [other root, other receiver, close]]]
  const standing = new Map(); // "from item" -> [[root, receiver, place of its first close or null]]
  const seenGroups = new Set();
  for (const ho of hos) {
    const g = root(ho.id);
    // a re-send answered UN why=DUP repeats a handoff that stands (or not) on its own
    if (ho.item === null || seenGroups.has(g) || duplicate.has(g)) continue;
    seenGroups.add(g);
    const here = position.get(ho.id);
    const k = `${ho.from} ${ho.item}`;
    const earlier = (standing.get(k) || []).filter(([, , close]) => close === null || close > here);
    const other = earlier.find(([, to]) => to !== ho.to);
    if (other !== undefined) ownersTwice.set(g, [...(ownersTwice.get(g) || []), [ho, other]]);
    // a handoff withdrawn by a cancel stands until its receiver answers the cancel
    const { firstCloser: closer, answeredBy } = state.get(g);
    const until = closer !== null && closer.type === "CX" ? (answeredBy || null) : closer;
    earlier.push([g, ho.to, until !== null ? position.get(until.id) : null]);
    standing.set(k, earlier);
  }

  // not the owner (spec 5 rule 1, "Until then the sender owns the item"): an HO that starts a handoff of an
  // item while a handoff of it to its sender is open and not read back, and the item is not the sender's by
  // its own record then (the to of its latest HO of the item whose readback passed and that no cancel
  // withdrew, else its first HO's sender); the live endpoint refuses it, before two-owners
  // a readback of the sender's own HO at a level whose verdict is the sender's counts for the sender from its
  // AN val=Y: until then the verdict is the sender's alone (criteria or a record the stream may not hold)
  const notOwner = new Map(); // handoff (its root) -> [HO, the root of the handoff it was offered]
  const confirmedAt = new Map(); // agent + "\u0000" + RB id -> place of the agent's first AN val=Y naming it
  messages.forEach((m, i) => {
    const key = `${m.from}\u0000${m.re}`;
    if (m.type === "AN" && m.re !== null && !confirmedAt.has(key) && get(m, "val") === "Y") confirmedAt.set(key, i);
  });
  const ofItem = new Map(); // item -> its HOs so far, in stream order
  const startSeen = new Set();
  const passedBefore = (hoId, here) => {
    const [rbState, rbId] = readback.get(hoId);
    return rbState === "passed" && position.get(rbId) < here;
  };
  for (const ho of hos) {
    if (ho.item === null) continue;
    if (!ofItem.has(ho.item)) ofItem.set(ho.item, []);
    const before = ofItem.get(ho.item);
    before.push(ho);
    const g = root(ho.id);
    if (startSeen.has(g)) continue;
    startSeen.add(g);
    if (links.get(ho.id) !== null) continue; // a re-send or re-issue hands nothing on anew
    const here = position.get(ho.id);
    const earlier = before.slice(0, -1).filter((m) => m.from === ho.from || m.to === ho.from);
    let holder = earlier.length ? earlier[0].from : null;
    for (let i = earlier.length - 1; i >= 0; i--) {
      const m = earlier[i];
      if (passedBefore(m.id, here) && !state.get(root(m.id)).cancels.some((c) => position.get(c.id) < here)) {
        if (m.from === ho.from && levelsOf(m).some((level) => VERDICT_LEVELS.has(level))
            && !(confirmedAt.get(`${ho.from}\u0000${readback.get(m.id)[1]}`) < here)) continue;
        holder = m.to;
        break;
      }
    }
    if (holder === ho.from) continue;
    const unread = earlier.find((m) => {
      if (m.to !== ho.from || m.from === ho.from) return false;
      const other = root(m.id);
      const closer = state.get(other).firstCloser;
      return (closer === null || position.get(closer.id) > here) && !groups.get(other).some((i) => passedBefore(i, here));
    });
    if (unread !== undefined) notOwner.set(g, [ho, root(unread.id)]);
  }

  // a readback of an HO whose re= names an HO of its sender's the stream lacks (the first issue of its
  // handoff), while an original HO of the same sender, receiver, item and slots came before it, read back or
  // not, open or closed since: a re-send of that handoff, it may be (one act per handoff); the live endpoint
  // refuses the RB
  const readBackAgain = new Map(); // handoff (its root) -> [[RB, HO]]
  const openAt = (g, here) => {
    const closer = state.get(g).firstCloser;
    return closer === null || position.get(closer.id) > here;
  };
  for (const m of messages) {
    const ho = m.type === "RB" && m.re !== null ? byId.get(m.re) : undefined;
    if (ho === undefined || ho.type !== "HO" || ho.item === null || m.from !== ho.to) continue;
    const g = root(ho.id);
    const here = position.get(m.id);
    if (!openAt(g, here)) continue;
    const original = hos.find((o) => o.re === null && o.from === ho.from && o.to === ho.to && o.item === ho.item
      && position.get(o.id) < here && root(o.id) !== g
      && resendsUnseen(ho, o));
    if (original !== undefined) {
      const state = groups.get(root(original.id)).some((i) => passedBefore(i, here)) ? "read back" : "held";
      readBackAgain.set(g, [...(readBackAgain.get(g) || []), [m, ho, original, state]]);
    }
  }

  const states = new Map();
  for (const [groupRoot, members] of groups) {
    const live = members.filter((h) => !carriedTo.has(h));
    const { firstCloser, cancels, kinds } = state.get(groupRoot);
    const key = live.length ? live[live.length - 1] : members[members.length - 1];
    if (notOwner.has(groupRoot)) {
      const [ho, offeredRoot] = notOwner.get(groupRoot);
      const offered = liveOf.get(offeredRoot);
      const offeredBy = byId.get(offered).from;
      findings.push(fail("not-owner", key, `HO ${ho.id} hands ${ho.item} on, but ${offered} offered it to ${ho.from}, which had not read it back: ${offeredBy} owns ${ho.item} until a readback passes (spec 5 rule 1)`, ho.id));
    }
    for (const [ho, [otherRoot, otherTo]] of notOwner.has(groupRoot) ? [] : ownersTwice.get(groupRoot) || []) {
      const held = liveOf.get(otherRoot);
      findings.push(fail("two-owners", key, `HO ${ho.id} hands ${ho.item} to ${ho.to} while ${held} (to ${otherTo}) is still open: two agents could own ${ho.item}; ${ho.from} withdraws ${held} first (CX)`, ho.id));
    }
    for (const [rb, ho, original, state] of readBackAgain.get(groupRoot) || []) {
      findings.push(fail("read-back", key, `RB ${rb.id} reads back ${ho.id}, which names ${ho.re} (not in the stream) and repeats ${original.id}, which ${ho.to} ${state}: a re-send of it, it may be (one act per handoff); ${ho.to} answers ${ho.id} UN why=DUP`, rb.id));
    }
    for (const [kind, closer] of kinds) {
      if (kind === "closed-twice") {
        findings.push(fail(kind, key, `${key} is closed more than once: ${closer.type} ${closer.id} after ${firstCloser.type} ${firstCloser.id}`, closer.id));
      } else if (kind === "act-before-wilco") {
        findings.push(fail(kind, key, `${closer.type} ${closer.id} reports an act on ${key} before its readback passed (and, under rb=acc, plan or exec, before AN val=Y)`, closer.id));
      } else if (kind === "confirm-void") {
        findings.push(fail(kind, key, `AN ${closer.id} confirms a readback of ${key} that did not pass`, closer.id));
      } else if (kind === "confirm-without-readback") {
        findings.push(fail(kind, key, `AN ${closer.id} confirms ${key} before any readback`, closer.id));
      } else if (kind === "act-before-echo") {
        findings.push(fail(kind, key, `DN ${closer.id} reports an act on ${key} before the sender's change to it was echoed (rb=all)`, closer.id));
      } else {
        findings.push(fail(kind, key, `DN ${closer.id} reports out=${get(closer, "out")} after a cancel of ${key}; out=NOOP is the answer to a cancel that arrived first`, closer.id));
      }
    }
    for (const cx of cancels) {
      if (!acknowledged.has(cx.id)) findings.push(note("cancel-unacknowledged", key, `CX ${cx.id} of ${key} is not yet answered by ${cx.to}`, cx.id));
    }

    for (const hoId of members) {
      const ho = byId.get(hoId);
      const [rbState, rbId] = readback.get(hoId);
      const common = {
        id: ho.id, item: ho.item, from: ho.from, to: ho.to, ask: get(ho, "ask"),
        readback: rbState, rb: rbId, exp: get(ho, "exp"), due: get(ho, "due"), ...reversal(ho),
      };
      if (carriedTo.has(hoId)) {
        states.set(hoId, { ...common, state: "reissued", by: null, closer: null, next: carriedTo.get(hoId) });
        continue;
      }
      if (firstCloser !== null) {
        states.set(hoId, { ...common, state: "closed", by: firstCloser.type, closer: firstCloser.id, next: null });
        continue;
      }
      const late = [];
      const exp = get(ho, "exp");
      if (exp !== null && at > validTime(exp)) late.push(fail("open-past-exp", ho.id, `${ho.id} is still open past its exp=${exp}`));
      const due = get(ho, "due");
      if (due !== null && dayOf(at) > due) late.push(fail("open-past-due", ho.id, `${ho.id} is still open after its due=${due}`));
      if (rbState === "failed") {
        // a held handoff: re-issue it or cancel it, never leave it (5.4)
        late.push(note("held", ho.id, `${ho.id}'s readback ${rbId} did not pass and it was neither re-issued nor cancelled`, rbId));
      }
      let state;
      if (late.some((f) => f.severity === "fail")) {
        findings.push(...late);
        state = "orphaned";
      } else if (late.length) {
        findings.push(...late);
        findings.push(note("open", ho.id, `${ho.id} is open and in time`));
        state = "held";
      } else {
        findings.push(note("open", ho.id, `${ho.id} is open and in time`));
        state = rbState === "passed" ? "owned" : rbState === "failed" ? "held" : "awaiting-readback";
      }
      states.set(hoId, { ...common, state, by: null, closer: null, next: null });
    }
  }

  // every question answered or refused by the agent it asked, never left (spec 5 rule 2)
  for (const aq of messages) {
    if (aq.type !== "AQ") continue;
    if (messages.some((m) => (m.type === "AN" || m.type === "UN") && m.re === aq.id && m.from === aq.to)) continue;
    const by = get(aq, "by");
    if (by !== null && dayOf(at) > by) {
      findings.push(fail("unanswered", null, `AQ ${aq.id} to ${aq.to} is not answered, and its by=${by} has passed`, aq.id));
    } else {
      findings.push(note("unanswered", null, `AQ ${aq.id} to ${aq.to} is not answered yet${by !== null ? ` (by=${by})` : ""}`, aq.id));
    }
  }

  // the owner of each item
  const owners = new Map();
  for (const ho of hos) {
    if (ho.item === null) continue;
    if (!owners.has(ho.item)) owners.set(ho.item, { item: ho.item, owner: ho.from, via: null });
    if (readback.get(ho.id)[0] === "passed") owners.set(ho.item, { item: ho.item, owner: ho.to, via: ho.id });
  }
  const ledger = {
    items: [...owners.values()],
    handoffs: [...hos].sort((a, b) => position.get(a.id) - position.get(b.id)).map((ho) => states.get(ho.id)),
  };
  return { passed: !findings.some((f) => f.severity === "fail"), findings, ledger };
}

export { checkThread, parseNow, validTime, CLOSE_TRANSITIONS, HANDOFF_STATES };
