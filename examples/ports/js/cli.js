#!/usr/bin/env node
// rogerwilco-js: the command line of the JavaScript port.
//
//   rogerwilco-js validate [FILE]     every finding of every line (stdin without FILE)
//   rogerwilco-js digest LINE|FILE    h= of a handoff
//   rogerwilco-js make-rb --ho LINE --n N [--acc K:V+...] [--do T] [--not A+B] [--asm A+B] [--eta D] [--values FILE] [--no-digest]
//   rogerwilco-js check-rb --ho LINE --rb LINE [--expect-acc K:V+...] [--record FILE]
//   rogerwilco-js adapter             the conformance adapter (JSON lines on stdin/stdout)
//
// Profiles: --profile NAME|PATH (repeatable; default: the bundled pay, clin,
// pform) or --core-only. --format json prints JSON. Exit status: 0 when
// everything is valid or passed, 1 when a line is refused or a check fails,
// 2 for a usage error. No stack trace reaches the terminal.

import fs from "node:fs";
import * as api from "./index.js";
import { printable } from "./rw1.js";
import { serve } from "./protocol.js";

const USAGE = `usage: rogerwilco-js COMMAND [options]

commands:
  validate [FILE]      every finding of every line of FILE (or stdin), caret under the token
  digest LINE|FILE     h= for a handoff: SHA-256 of its canonical JSON, 12 hex
  make-rb --ho LINE --n N [--acc K:V+...] [--do TOKEN] [--not A+B] [--asm A+B]
          [--eta YYYYMMDD] [--values FILE] [--no-digest]
                       compose the readback of a handoff, by code
  check-rb --ho LINE --rb LINE [--expect-acc K:V+...] [--record FILE]
                       check a readback against its handoff, tier by tier
  adapter              the conformance adapter: JSON requests on stdin, responses on stdout

options for every command:
  --profile, -p NAME|PATH   a profile the receiver holds (repeatable; default: pay, clin, pform)
  --core-only               hold no profile: core vocabulary only
  --format, -f text|json    output format (default text)
`;

class UsageError extends Error {}

const FLAGS = new Set(["--core-only", "--no-digest", "--quiet", "-q", "--help", "-h"]);
const ALIASES = { "-p": "--profile", "-f": "--format", "-q": "--quiet", "-h": "--help" };

function parseArgs(argv) {
  const options = { profile: [], positional: [] };
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i];
    if (arg.startsWith("-") && arg !== "-") {
      let value = null;
      const eq = arg.indexOf("=");
      if (arg.startsWith("--") && eq > 0) {
        value = arg.slice(eq + 1);
        arg = arg.slice(0, eq);
      }
      arg = ALIASES[arg] || arg;
      const name = arg.replace(/^-+/, "").replace(/-/g, "_");
      if (FLAGS.has(arg)) {
        options[name] = true;
        continue;
      }
      if (value === null) {
        if (i + 1 >= argv.length) throw new UsageError(`${arg} needs a value`);
        value = argv[++i];
      }
      if (name === "profile") options.profile.push(value);
      else options[name] = value;
    } else {
      options.positional.push(arg);
    }
  }
  return options;
}

function profilesOf(options) {
  if (options.core_only) return [];
  return options.profile.length ? options.profile : [...api.BUNDLED_PROFILES];
}

function readText(file) {
  try {
    return fs.readFileSync(file === "-" ? 0 : file, "utf-8");
  } catch (exc) {
    throw new UsageError(`cannot read ${file}: ${exc.code || exc.message}`);
  }
}

function readJsonFile(file, what) {
  const text = readText(file);
  let value;
  try {
    value = JSON.parse(text);
  } catch (exc) {
    throw new UsageError(`${what} ${file} is not JSON: ${exc.message}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new UsageError(`${what} ${file} is not a JSON object`);
  return value;
}

// A LINE argument: the line itself, or - for the first line of stdin.
function lineArg(value, name) {
  if (value === undefined || value === null) throw new UsageError(`${name} is required`);
  if (value === "-") return readText("-").split(/\r?\n/)[0];
  return value;
}

const caret = (text, column, width) => `  ${printable(text)}\n  ${" ".repeat(Math.max(column - 1, 0))}${"^".repeat(Math.max(width, 1))}`;

function validate(options, out) {
  const file = options.positional[0] || "-";
  const name = file === "-" ? "<stdin>" : file;
  const receiver = api.receiver(profilesOf(options));
  const lines = readText(file).split("\n");
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  let valid = 0;
  let refused = 0;
  let notes = 0;
  lines.forEach((rawLine, index) => {
    const text = rawLine.endsWith("\r") ? rawLine.slice(0, -1) : rawLine;
    const result = api.check(text, { profiles: receiver });
    if (result.message !== null) valid += 1;
    else refused += 1;
    if (options.format === "json") {
      out.push(JSON.stringify({ file: name, line: index + 1, valid: result.message !== null, findings: result.findings.map(findingJson) }));
      return;
    }
    for (const f of result.findings) {
      if (f.severity === "note") {
        notes += 1;
        if (options.quiet) continue;
      }
      const column = f.column || 1;
      const label = f.severity === "fail" ? `fail ${f.why || "UNK"} [${f.kind}] ${printable(f.token || "")}` : `note [${f.kind}]`;
      out.push(`${name}:${index + 1}:${column}: ${label} ${printable(f.message)}`);
      const width = f.token && f.column ? Array.from(f.token).length : 1;
      out.push(caret(text, column, width));
    }
  });
  if (options.format !== "json") out.push(`${lines.length} lines, ${valid} valid, ${refused} refused, ${notes} notes`);
  return refused ? 1 : 0;
}

function findingJson(f) {
  const out = { severity: f.severity, kind: f.kind, tier: f.tier === undefined ? null : f.tier, key: f.key === undefined ? null : f.key, message: f.message };
  for (const name of ["token", "column", "why"]) if (f[name] !== undefined && f[name] !== null) out[name] = f[name];
  return out;
}

function digest(options, out) {
  const arg = options.positional[0];
  if (arg === undefined) throw new UsageError("digest needs a line or a file");
  const line = arg.startsWith("RW") || !fs.existsSync(arg) ? lineArg(arg, "LINE") : readText(arg).split(/\r?\n/)[0];
  out.push(api.digest(line, { profiles: profilesOf(options) }));
  return 0;
}

function tokens(value) {
  return value === undefined ? null : value;
}

function makeRb(options, out) {
  const ho = lineArg(options.ho, "--ho");
  if (options.n === undefined || !/^[0-9]+$/.test(options.n)) throw new UsageError("--n is a message number (0 or more)");
  const rb = api.makeRb(ho, Number(options.n), {
    profiles: profilesOf(options),
    acc: tokens(options.acc), do: tokens(options.do), not: tokens(options.not), asm: tokens(options.asm), eta: tokens(options.eta),
    values: options.values !== undefined ? readJsonFile(options.values, "--values") : null,
    digest: !options.no_digest,
  });
  out.push(options.format === "json" ? JSON.stringify(rb) : api.toLine(rb, { profiles: profilesOf(options) }));
  return 0;
}

function checkRb(options, out) {
  const report = api.checkRb(lineArg(options.ho, "--ho"), lineArg(options.rb, "--rb"), {
    profiles: profilesOf(options),
    expectAcc: tokens(options.expect_acc),
    record: options.record !== undefined ? readJsonFile(options.record, "--record") : null,
  });
  if (options.format === "json") {
    out.push(JSON.stringify({ passed: report.passed, tiers: report.tiers, findings: report.findings.map(findingJson) }));
  } else {
    for (const tier of [1, 2, 3, 4, 5]) out.push(`tier ${tier}: ${report.tiers[tier]}`);
    for (const f of report.findings) {
      out.push(`${f.severity} [${f.kind}]${f.tier ? ` tier ${f.tier}` : ""}${f.key ? ` ${f.key}` : ""}: ${printable(f.message)}`);
    }
    const unchecked = [4, 5].filter((t) => report.tiers[t] === "not checked");
    const verdict = report.passed ? `wilco${unchecked.length ? `, ${unchecked.map((t) => `tier ${t}`).join(", ")} not checked` : ""}` : "void: the readback does not pass";
    out.push(verdict);
  }
  return report.passed ? 0 : 1;
}

const COMMANDS = { validate, digest, "make-rb": makeRb, "check-rb": checkRb };

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command === "--version") {
    const pkg = JSON.parse(fs.readFileSync(new URL("./package.json", import.meta.url), "utf-8"));
    process.stdout.write(`rogerwilco-js ${pkg.version}\n`);
    return 0;
  }
  if (command === "adapter") {
    await serve();
    return 0;
  }
  if (!Object.prototype.hasOwnProperty.call(COMMANDS, command)) throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  const options = parseArgs(rest);
  if (options.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const out = [];
  const code = COMMANDS[command](options, out);
  if (out.length) process.stdout.write(out.join("\n") + "\n");
  return code;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (exc) => {
    if (exc instanceof UsageError) {
      process.stderr.write(`rogerwilco-js: ${exc.message}\n${USAGE}`);
      process.exitCode = 2;
    } else if (exc instanceof api.RW1Error) {
      const token = exc.token ? ` ${printable(exc.token)}` : "";
      process.stderr.write(`rogerwilco-js: ${exc.kind}${exc.why && exc.kind === "RefusedError" ? ` ${exc.why}` : ""}${token}: ${printable(exc.message)}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`rogerwilco-js: internal error: ${exc && exc.message}\n`);
      process.exitCode = 70;
    }
  },
);
