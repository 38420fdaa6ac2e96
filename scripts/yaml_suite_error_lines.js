// Reads case folders (one name per line on standard input) under the folder given as
// the first argument, parses each `in.yaml` with the `yaml` package (eemeli/yaml,
// which passes the whole YAML test suite) and prints one JSON object: for each case,
// the 1-based line of the first error it reports, or null when it reports none.
// Used by scripts/extract_yaml_test_suite.py; needs `yaml` on NODE_PATH.
"use strict";
const fs = require("fs");
const YAML = require("yaml");

const root = process.argv[2];
const names = fs.readFileSync(0, "utf8").split("\n").filter(Boolean);
const out = {};
for (const name of names) {
  const source = fs.readFileSync(`${root}/${name}/in.yaml`, "utf8");
  const lineCounter = new YAML.LineCounter();
  const docs = YAML.parseAllDocuments(source, { lineCounter, version: "1.2" });
  let first = null;
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    for (const error of doc.errors) {
      if (first === null || error.pos[0] < first) first = error.pos[0];
    }
  }
  out[name] = first === null ? null : lineCounter.linePos(first).line;
}
process.stdout.write(JSON.stringify(out) + "\n");
