#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
node -e '
const fs = require("fs");
let p;
try { p = JSON.parse(fs.readFileSync("package.json", "utf8")); } catch (e) { console.log("package.json is not valid JSON: " + e.message); process.exit(1); }
if (p.version !== "1.5.0") { console.log("version is " + JSON.stringify(p.version) + ", expected \"1.5.0\""); process.exit(1); }
const want = {name: "left-trim", version: "1.5.0", description: "Trim whitespace from the left of a string", main: "index.js",
  scripts: {test: "node test.js"}, dependencies: {lodash: "^4.17.21"}, license: "MIT"};
const sortKeys = (o) => JSON.stringify(o, Object.keys(o).sort());
if (JSON.stringify(p.scripts) !== JSON.stringify(want.scripts) || JSON.stringify(p.dependencies) !== JSON.stringify(want.dependencies)) { console.log("scripts or dependencies were changed"); process.exit(1); }
for (const k of Object.keys(want)) { if (JSON.stringify(p[k]) !== JSON.stringify(want[k])) { console.log("key " + k + " was changed"); process.exit(1); } }
if (Object.keys(p).length !== Object.keys(want).length) { console.log("package.json has added or removed keys"); process.exit(1); }
'
