// Copy the data files the port reads (the core vocabulary, the bundled
// profiles, the comparison data) from the repository's profiles/ into
// data/profiles/, so that the npm package carries them; `--clean` removes
// the copy again. Run by `npm pack` (prepack / postpack): the files are
// never edited here, only copied as they are.

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PORT = path.resolve(HERE, "..");
const SOURCE = path.resolve(PORT, "..", "..", "..", "profiles");
const TARGET = path.join(PORT, "data", "profiles");

if (process.argv.includes("--clean")) {
  fs.rmSync(path.join(PORT, "data"), { recursive: true, force: true });
} else {
  if (!fs.existsSync(path.join(SOURCE, "rw1.json"))) {
    process.stderr.write(`bundle-data: no profiles/rw1.json at ${SOURCE}\n`);
    process.exit(1);
  }
  fs.rmSync(TARGET, { recursive: true, force: true });
  fs.mkdirSync(TARGET, { recursive: true });
  for (const name of fs.readdirSync(SOURCE).sort()) {
    if (name.endsWith(".json") && !name.endsWith(".schema.json")) fs.copyFileSync(path.join(SOURCE, name), path.join(TARGET, name));
  }
}
