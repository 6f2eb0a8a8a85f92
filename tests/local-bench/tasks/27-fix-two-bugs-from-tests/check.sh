#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
[ -f inventory.py ] || { echo "inventory.py is missing"; exit 1; }
tmp=$(mktemp -d)
cp inventory.py "$tmp/"
cat > "$tmp/test_inventory.py" <<'PYEOF'
import unittest

from inventory import Inventory


class TestInventory(unittest.TestCase):
    def test_add_and_count(self):
        inv = Inventory()
        inv.add("apple", 3)
        inv.add("apple", 2)
        self.assertEqual(inv.count("apple"), 5)

    def test_missing_item_is_zero(self):
        self.assertEqual(Inventory().count("pear"), 0)

    def test_remove(self):
        inv = Inventory()
        inv.add("apple", 5)
        inv.remove("apple", 2)
        self.assertEqual(inv.count("apple"), 3)

    def test_remove_too_many(self):
        inv = Inventory()
        inv.add("apple", 1)
        with self.assertRaises(ValueError):
            inv.remove("apple", 2)
        self.assertEqual(inv.count("apple"), 1)


if __name__ == "__main__":
    unittest.main()
PYEOF
out=$(cd "$tmp" && python3 -B -m unittest test_inventory 2>&1); rc=$?
rm -rf "$tmp"
[ $rc -eq 0 ] || { echo "the original tests fail: $(printf '%s\n' "$out" | grep -E '^(FAIL|ERROR):' | head -1)"; exit 1; }
