#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
cat >> mathlib.py <<'EOF'


def factorial(n):
    result = 1
    for i in range(2, n + 1):
        result *= i
    return result
EOF
python3 - <<'EOF'
src = open("test_mathlib.py").read()
src = src.replace("from mathlib import gcd, is_even", "from mathlib import factorial, gcd, is_even")
src = src.replace("        self.assertFalse(is_even(7))\n",
    "        self.assertFalse(is_even(7))\n\n    def test_factorial(self):\n        self.assertEqual(factorial(0), 1)\n        self.assertEqual(factorial(5), 120)\n")
assert "test_factorial" in src
open("test_mathlib.py", "w").write(src)
EOF
PYTHONDONTWRITEBYTECODE=1 python3 -m unittest test_mathlib
