#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
[ -f temp.js ] || { echo "temp.js is missing"; exit 1; }
tmp=$(mktemp -d)
cp temp.js "$tmp/"
cat > "$tmp/test.js" <<'JSEOF'
const assert = require("assert");
const { toCelsius, toFahrenheit } = require("./temp");

assert.strictEqual(toCelsius(212), 100);
assert.strictEqual(toCelsius(32), 0);
assert.strictEqual(toCelsius(-40), -40);
assert.strictEqual(toFahrenheit(100), 212);
assert.strictEqual(toFahrenheit(0), 32);
console.log("all tests passed");
JSEOF
out=$(cd "$tmp" && node test.js 2>&1); rc=$?
rm -rf "$tmp"
[ $rc -eq 0 ] || { echo "node test.js (original tests) fails: $(printf '%s\n' "$out" | grep -m1 -E '^[A-Za-z]*Error' )"; exit 1; }
node -e 'const t = require(process.cwd() + "/temp.js"); if (Math.abs(t.toCelsius(50) - 10) > 1e-9) { console.log("toCelsius(50) should be 10"); process.exit(1); }' || exit 1
