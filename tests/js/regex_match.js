// Match values against patterns with JavaScript's RegExp, as a port would: the whole value, code points (u flag).
// Usage: node regex_match.js CASES.json, CASES = [{"pattern": "...", "values": ["..."]}] -> [[bool, ...], ...]
"use strict";
const fs = require("fs");
const cases = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const out = cases.map(({ pattern, values }) => {
  const re = new RegExp(`^(?:${pattern})$`, "u");
  return values.map((v) => re.test(v));
});
process.stdout.write(JSON.stringify(out) + "\n");
