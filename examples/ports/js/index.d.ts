// Type declarations of rogerwilco-js, the JavaScript implementation of RW1.

/** A slot value as decoded (D1, D2): integers, booleans (Y/N), lists, or text. */
export type SlotValue = string | number | boolean | string[] | number[];

/** A message: its JSON form (decision D1). */
export interface Message {
  v: "RW1";
  type: string;
  id: string;
  re: string | null;
  from: string;
  to: string;
  item: string | null;
  /** Every keyed slot other than re, from, to, item, in written order (p= included). */
  slots: Record<string, SlotValue>;
  tail: string | null;
}

/** What a check established, in the conformance contract's shape. */
export interface Finding {
  severity: "fail" | "note";
  kind: string;
  /** The readback tier (1-5), or null outside the readback tiers. */
  tier: 1 | 2 | 3 | 4 | 5 | null;
  /** The slot or constraint key concerned (for threads: the handoff's id), or null. */
  key: string | null;
  message: string;
  /** Line findings: the offending token as written; thread findings: the offending message's id. */
  token?: string | null;
  /** Line findings: the 1-based column (code points) of the token. */
  column?: number | null;
  /** Line findings that fail: the refusal's reason code. */
  why?: "UNK" | "VER" | null;
  /** Readback findings: the sender's value and the receiver's, as written. */
  sender?: unknown;
  receiver?: unknown;
}

export type TierStatus = "passed" | "failed" | "not checked" | "not asked";

export interface Report {
  passed: boolean;
  findings: Finding[];
}

export interface ReadbackReport extends Report {
  tiers: Record<1 | 2 | 3 | 4 | 5, TierStatus>;
}

export interface HandoffState {
  id: string;
  item: string | null;
  from: string;
  to: string;
  ask: string | null;
  state: "awaiting-readback" | "owned" | "held" | "orphaned" | "closed" | "reissued";
  readback: "passed" | "failed" | null;
  rb: string | null;
  by: "DN" | "UN" | "FL" | "CX" | null;
  closer: string | null;
  next: string | null;
  exp: string | null;
  due: string | null;
  /** An ask=UNDO whose ctx= names a DN: the HO that DN answers (spec 5.4). */
  undoes?: string;
  /** An ask=UNDO whose ctx= names a DN: that DN. */
  reverses?: string;
}

export interface ThreadReport extends Report {
  ledger: {
    items: { item: string; owner: string; via: string | null }[];
    handoffs: HandoffState[];
  };
}

/** A profile as JSON (decision D5). */
export type ProfileDocument = Record<string, unknown> & { profile: string; version: string; extends: "RW1" };

/** Bundled profile names (pay, clin, pform), profile objects, or paths of profile files. */
export type ProfileSource = string | ProfileDocument;

/** The profiles a receiver holds, loaded and checked once. */
export class Receiver {
  constructor(profiles?: ProfileSource[]);
  static allBundled(): Receiver;
  readonly names: string[];
  holds(name: string): boolean;
}

export type Profiles = Receiver | ProfileSource[] | null;

/** The package's own error: the only exception its functions throw. */
export class RW1Error extends Error {
  /** The refusal's reason: UNK, or VER for an unknown version token. */
  why: "UNK" | "VER" | string;
  /** The offending token exactly as written (D4), or a field name. */
  token: string;
  column: number | null;
  /** RW1SyntaxError, RefusedError, EncodeError, ProfileError, ReadbackInputError, CriteriaError, ValueError, ... */
  kind: string;
}

export const BUNDLED_PROFILES: readonly string[];

/** Every finding of one line, and its JSON form when valid. */
export function check(line: string, options?: { profiles?: Profiles }): {
  message: Message | null;
  findings: Finding[];
  refusal: Finding | null;
};

/** A valid message from a line; throws RW1Error naming why and the token. */
export function parse(line: string, options?: { profiles?: Profiles }): Message;

/** A JSON form (object or JSON text) checked and returned as a message. */
export function fromJSON(json: Message | string | object, options?: { profiles?: Profiles }): Message;

/** The line of a message, written in the recommended order and read back before it is returned (D3). */
export function toLine(message: Message, options?: { profiles?: Profiles }): string;

/** The canonical JSON text (D1, D9: RFC 8785). */
export function toJSON(message: Message | string): string;

/** h=: the first 12 hex digits of SHA-256 of the canonical JSON. */
export function digest(message: Message | string, options?: { profiles?: Profiles }): string;

/** The UN line a receiver `me` sends for a line (message number n), or null when valid or unaddressable. */
export function reply(line: string, me: string, n: number, options?: { profiles?: Profiles }): string | null;

/** Check a readback against its handoff, tier by tier (spec 5.1). */
export function checkRb(ho: Message | string, rb: Message | string, options?: {
  profiles?: Profiles;
  /** The sender's own criteria, "len:120w+tone:plain" or a list. */
  expectAcc?: string | string[] | null;
  /** The sender's record of execution values the HO leaves to the receiver. */
  record?: Record<string, unknown> | null;
}): ReadbackReport;

/** Compose the readback of a handoff by code (spec 5.3). */
export function makeRb(ho: Message | string, n: number, options?: {
  profiles?: Profiles;
  acc?: string | string[] | null;
  do?: string | null;
  not?: string | string[] | null;
  asm?: string | string[] | null;
  eta?: string | null;
  /** The receiver's resolved execution values. */
  values?: Record<string, unknown> | null;
  /** Carry h= (default true). */
  digest?: boolean;
}): Message;

/** Check a done report against the plan (spec 5.3). */
export function checkDn(ho: Message | string, dn: Message | string, options?: {
  rb?: Message | string | null;
  profiles?: Profiles;
  record?: Record<string, unknown> | null;
}): Report;

/** Check a handoff against the approval record before it is sent (spec 5.3); relay mode with relayAdds. */
export function checkHo(line: Message | string, record: Record<string, unknown>, options?: {
  profiles?: Profiles;
  /** Relay mode: the slots (and "tail") the relay's role adds to the handoff it received. */
  relayAdds?: string[] | null;
}): Report;

/** Rebuild the threads of a conversation and report what did not close right (spec 5.4). */
export function checkThread(lines: (string | Message)[], options?: {
  /** YYYYMMDDTHHMMZ or a Date; default the clock. */
  now?: string | Date | null;
  profiles?: Profiles;
}): ThreadReport;

/** Criteria text or list as constraints. */
export function parseCriteria(criteria: string | string[]): { key: string; value: string }[];

/** A profile document from a bundled name, a path or an object, checked against the core. */
export function loadProfile(source: ProfileSource): ProfileDocument;

/** A receiver holding these profiles. */
export function receiver(profiles?: ProfileSource[]): Receiver;
