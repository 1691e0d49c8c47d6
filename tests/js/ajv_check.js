// Compile JSON Schemas (2020-12) with ajv in strict mode and report every error and warning.
// Usage: node ajv_check.js SCHEMA.json... -> {"<file>": {"compiled": bool, "errors": [...], "warnings": [...]}}
// With --validate SCHEMA DATA.json: validate each item of the JSON array in DATA against SCHEMA -> [bool, ...]
"use strict";
const fs = require("fs");
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats").default;

function makeAjv(warnings) {
  const logger = {
    log: () => {},
    warn: (...args) => warnings.push(args.map(String).join(" ")),
    error: (...args) => warnings.push(args.map(String).join(" ")),
  };
  const ajv = new Ajv2020({ strict: true, allErrors: true, logger });
  addFormats(ajv);
  return ajv;
}

const args = process.argv.slice(2);
if (args[0] === "--validate") {
  const warnings = [];
  const validate = makeAjv(warnings).compile(JSON.parse(fs.readFileSync(args[1], "utf8")));
  const items = JSON.parse(fs.readFileSync(args[2], "utf8"));
  process.stdout.write(JSON.stringify(items.map((item) => validate(item))) + "\n");
} else {
  const report = {};
  for (const file of args) {
    const warnings = [];
    const entry = { compiled: false, errors: [], warnings };
    try {
      makeAjv(warnings).compile(JSON.parse(fs.readFileSync(file, "utf8")));
      entry.compiled = true;
    } catch (err) {
      entry.errors.push(String(err && err.message ? err.message : err));
    }
    report[file] = entry;
  }
  process.stdout.write(JSON.stringify(report, null, 1) + "\n");
}
