// Build a parser from an ABNF file with apg-js and say, for each input line, whether rule `line` accepts it.
// Usage: node abnf_accepts.js GRAMMAR.abnf LINES.json  -> JSON array of booleans on stdout
"use strict";
const fs = require("fs");
const { apgApi, apgLib } = require("apg-js");

const [grammarPath, linesPath] = process.argv.slice(2);
const api = new apgApi(fs.readFileSync(grammarPath, "utf8"));
api.generate();
if (api.errors.length) {
  process.stderr.write(api.errorsToAscii ? api.errorsToAscii() : JSON.stringify(api.errors));
  process.exit(2);
}
const grammar = api.toObject();
const parser = new apgLib.parser();
const lines = JSON.parse(fs.readFileSync(linesPath, "utf8"));
const out = lines.map((text) => {
  const chars = Array.from(text, (c) => c.codePointAt(0));
  return parser.parse(grammar, "line", chars).success;
});
process.stdout.write(JSON.stringify(out) + "\n");
