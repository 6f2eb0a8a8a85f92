#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
node -e '
let m;
try { m = require(process.cwd() + "/countdown.js"); } catch (e) { console.log("cannot load countdown.js: " + e.message); process.exit(1); }
const eq = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const cases = [[3, [3, 2, 1]], [1, [1]], [0, []], [5, [5, 4, 3, 2, 1]]];
for (const [n, want] of cases) {
  const got = m.countdown(n);
  if (!eq(got, want)) { console.log("countdown(" + n + ") returned " + JSON.stringify(got) + ", expected " + JSON.stringify(want)); process.exit(1); }
}
if (typeof m.countup !== "function" || !eq(m.countup(3), [1, 2, 3])) { console.log("countup is missing or broken"); process.exit(1); }
'
