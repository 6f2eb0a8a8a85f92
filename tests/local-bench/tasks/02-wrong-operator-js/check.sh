#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
node -e '
let m;
try { m = require(process.cwd() + "/age.js"); } catch (e) { console.log("cannot load age.js: " + e.message); process.exit(1); }
const cases = [[18, true], [17, false], [30, true], [0, false]];
for (const [a, want] of cases) {
  if (m.isAdult(a) !== want) { console.log("isAdult(" + a + ") returned " + m.isAdult(a) + ", expected " + want); process.exit(1); }
}
if (typeof m.isSenior !== "function" || m.isSenior(65) !== true || m.isSenior(64) !== false) { console.log("isSenior is missing or broken"); process.exit(1); }
'
