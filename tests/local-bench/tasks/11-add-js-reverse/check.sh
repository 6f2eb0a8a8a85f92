#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
node -e '
let m;
try { m = require(process.cwd() + "/strings.js"); } catch (e) { console.log("cannot load strings.js: " + e.message); process.exit(1); }
if (typeof m.reverse !== "function") { console.log("strings.js does not export reverse"); process.exit(1); }
for (const [s, want] of [["abc", "cba"], ["", ""], ["hello world", "dlrow olleh"], ["a", "a"]]) {
  if (m.reverse(s) !== want) { console.log("reverse(" + JSON.stringify(s) + ") returned " + JSON.stringify(m.reverse(s))); process.exit(1); }
}
if (typeof m.capitalize !== "function" || m.capitalize("abc") !== "Abc") { console.log("capitalize is missing or broken"); process.exit(1); }
if (typeof m.shout !== "function" || m.shout("hi") !== "HI!") { console.log("shout is missing or broken"); process.exit(1); }
'
