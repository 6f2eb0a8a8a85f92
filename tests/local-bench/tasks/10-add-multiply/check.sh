#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
python3 -B - <<'EOF'
import sys
sys.path.insert(0, ".")
try:
    import calc
except Exception as e:
    print("cannot import calc.py:", e); sys.exit(1)
if not hasattr(calc, "multiply"):
    print("calc.py has no multiply function"); sys.exit(1)
for a, b in [(2, 3), (0, 9), (-4, 5), (1.5, 2)]:
    if calc.multiply(a, b) != a * b:
        print(f"multiply({a}, {b}) returned {calc.multiply(a, b)}"); sys.exit(1)
if not hasattr(calc, "add") or calc.add(2, 3) != 5:
    print("add() is missing or broken"); sys.exit(1)
if not hasattr(calc, "subtract") or calc.subtract(5, 3) != 2:
    print("subtract() is missing or broken"); sys.exit(1)
EOF
