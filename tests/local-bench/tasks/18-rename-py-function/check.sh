#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
if grep -rwn --include='*.py' calc_total . >/dev/null; then echo "old name calc_total still used in: $(grep -rlw --include='*.py' calc_total . | tr '\n' ' ')"; exit 1; fi
out=$(python3 -B main.py 2>&1) || { echo "python3 main.py failed: $(echo "$out" | tail -1)"; exit 1; }
printf '%s\n' "$out" | grep -q "subtotal: 20.0" || { echo "main.py output changed: $out"; exit 1; }
printf '%s\n' "$out" | grep -q "total: 24.0" || { echo "main.py output changed: $out"; exit 1; }
python3 -B -c 'import sys; sys.path.insert(0, "."); import util; assert util.compute_total([1, 2]) == 3; assert util.with_tax(10) == 12.0' 2>/dev/null || { echo "util.compute_total or util.with_tax is missing or broken"; exit 1; }
