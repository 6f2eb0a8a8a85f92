#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
[ -f calc.py ] || { echo "calc.py is missing"; exit 1; }
tmp=$(mktemp -d)
cp calc.py "$tmp/"
cat > "$tmp/test_calc.py" <<'PYEOF'
import unittest

from calc import add, divide, mean


class TestCalc(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 3), 5)

    def test_divide(self):
        self.assertEqual(divide(7, 2), 3.5)
        self.assertEqual(divide(9, 3), 3)

    def test_divide_by_zero(self):
        with self.assertRaises(ValueError):
            divide(1, 0)

    def test_mean(self):
        self.assertEqual(mean([1, 2, 3, 4]), 2.5)


if __name__ == "__main__":
    unittest.main()
PYEOF
out=$(cd "$tmp" && python3 -B -m unittest test_calc 2>&1); rc=$?
rm -rf "$tmp"
[ $rc -eq 0 ] || { echo "the original tests in test_calc.py fail: $(printf '%s\n' "$out" | grep -E '^(FAIL|ERROR):' | head -1)"; exit 1; }
