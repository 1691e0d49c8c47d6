// A program written against the JavaScript port's declarations (index.d.ts):
// `tsc` must accept it under --strict, and must reject misuse marked below.

import {
  parse, toLine, toJSON, digest, makeRb, checkRb, checkHo, checkDn, checkThread, check, reply, fromJSON,
  receiver, RW1Error, BUNDLED_PROFILES,
  type Message, type Finding, type ReadbackReport, type ThreadReport, type Report, type HandoffState,
} from "../../../examples/ports/js/index.js";

const held = receiver(["pay"]);
const ho: Message = parse("RW1 HO a-1 from=a to=b item=doc:x ask=DRAFT rb=acc acc=len:120w", { profiles: held });
const line: string = toLine(ho);
const canonical: string = toJSON(ho);
const h: string = digest(line, { profiles: [...BUNDLED_PROFILES] });
const rb: Message = makeRb(ho, 2, { acc: "len:120w", digest: true, values: { amt: "1.00" } });
const report: ReadbackReport = checkRb(ho, rb, { expectAcc: ["len:120w"], record: { amt: "1.00" } });
const tier4: "passed" | "failed" | "not checked" | "not asked" = report.tiers[4];
const first: Finding | undefined = report.findings[0];
const severity: "fail" | "note" | undefined = first?.severity;
const ho2: Report = checkHo(line, { item: "doc:x", ask: "DRAFT" }, { relayAdds: ["tail"] });
const dn: Report = checkDn(ho, "RW1 DN b-3 re=a-1 from=b to=a item=doc:x out=OK", { rb });
const thread: ThreadReport = checkThread([line], { now: "20261001T0000Z" });
const states: HandoffState["state"][] = thread.ledger.handoffs.map((s) => s.state);
const checked = check(line);
const refusal: Finding | null = checked.refusal;
const un: string | null = reply(line, "b", 4);
const again: Message = fromJSON(JSON.parse(canonical));
try {
  parse("RW1 HO a-1 from=a to=b item=x ask=PAYY");
} catch (err) {
  if (err instanceof RW1Error) {
    const why: string = err.why;
    const token: string = err.token;
    void [why, token];
  }
}

// @ts-expect-error: a line number is not a line
parse(42);
// @ts-expect-error: the readback's number is a number
makeRb(ho, "2");
// @ts-expect-error: a report's verdict is a boolean
const wrong: string = report.passed;

void [h, tier4, severity, ho2, dn, states, refusal, un, again, wrong];
