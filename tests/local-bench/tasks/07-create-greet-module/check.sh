#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
[ -f greet.js ] || { echo "greet.js does not exist"; exit 1; }
node -e '
let m;
try { m = require(process.cwd() + "/greet.js"); } catch (e) { console.log("cannot load greet.js: " + e.message); process.exit(1); }
const g = typeof m === "function" ? m : m.greet;
if (typeof g !== "function") { console.log("greet.js does not export greet"); process.exit(1); }
for (const n of ["Ann", "World", "Bob Smith"]) {
  if (g(n) !== "Hello, " + n + "!") { console.log("greet(" + JSON.stringify(n) + ") returned " + JSON.stringify(g(n))); process.exit(1); }
}
' || exit 1
out=$(node main.js 2>&1) || { echo "node main.js failed: $out"; exit 1; }
[ "$(printf '%s' "$out" | sed 's/[[:space:]]*$//')" = "Hello, World!" ] || { echo "node main.js printed '$out', expected 'Hello, World!'"; exit 1; }
grep -q "greet" main.js || { echo "main.js does not use greet.js"; exit 1; }
