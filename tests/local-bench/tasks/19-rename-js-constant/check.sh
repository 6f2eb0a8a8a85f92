#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
if grep -rnw --include='*.js' MAX_ITEMS . >/dev/null; then echo "old name MAX_ITEMS still used in: $(grep -rlw --include='*.js' MAX_ITEMS . | tr '\n' ' ')"; exit 1; fi
out=$(node main.js 2>&1) || { echo "node main.js failed"; exit 1; }
[ "$(printf '%s' "$out" | sed 's/[[:space:]]*$//')" = "2 items (max 3), prices in EUR" ] || { echo "node main.js output changed: $out"; exit 1; }
node -e '
const c = require(process.cwd() + "/config.js");
if (c.MAX_CART_ITEMS !== 3 || c.CURRENCY !== "EUR") { console.log("config.js does not export MAX_CART_ITEMS = 3 and CURRENCY"); process.exit(1); }
const { addItem } = require(process.cwd() + "/cart.js");
let threw = false; try { addItem([1, 2, 3], 4); } catch (e) { threw = true; }
if (!threw) { console.log("addItem no longer enforces the limit"); process.exit(1); }
' || exit 1
