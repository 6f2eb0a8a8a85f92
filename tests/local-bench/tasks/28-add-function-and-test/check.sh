#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
python3 -B - <<'EOF'
import sys
sys.path.insert(0, ".")
try:
    import mathlib
except Exception as e:
    print("cannot import mathlib.py:", e); sys.exit(1)
if not hasattr(mathlib, "factorial"):
    print("mathlib.py has no factorial function"); sys.exit(1)
for n, want in [(0, 1), (1, 1), (5, 120), (10, 3628800)]:
    if mathlib.factorial(n) != want:
        print(f"factorial({n}) returned {mathlib.factorial(n)}, expected {want}"); sys.exit(1)
if mathlib.gcd(12, 18) != 6 or mathlib.is_even(3):
    print("gcd() or is_even() is broken"); sys.exit(1)
EOF
[ $? -eq 0 ] || exit 1
grep -q 'factorial' test_mathlib.py || { echo "test_mathlib.py has no test for factorial"; exit 1; }
grep -q 'def test_gcd' test_mathlib.py && grep -q 'def test_is_even' test_mathlib.py || { echo "existing tests were removed from test_mathlib.py"; exit 1; }
out=$(python3 -B -m unittest test_mathlib 2>&1); rc=$?
[ $rc -eq 0 ] || { echo "python3 -m unittest test_mathlib fails"; exit 1; }
n=$(printf '%s\n' "$out" | sed -n 's/^Ran \([0-9]*\) test.*/\1/p')
[ "${n:-0}" -ge 3 ] || { echo "expected at least 3 tests to run, got ${n:-0}"; exit 1; }
