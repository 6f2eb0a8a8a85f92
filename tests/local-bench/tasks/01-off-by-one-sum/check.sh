#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
python3 -B - <<'EOF'
import sys
sys.path.insert(0, ".")
try:
    import mathutil
except Exception as e:
    print("cannot import mathutil.py:", e); sys.exit(1)
for n, want in [(0, 0), (1, 1), (3, 6), (10, 55)]:
    got = mathutil.sum_to(n)
    if got != want:
        print(f"sum_to({n}) returned {got}, expected {want}"); sys.exit(1)
if not hasattr(mathutil, "square") or mathutil.square(4) != 16:
    print("square() is missing or broken"); sys.exit(1)
EOF
