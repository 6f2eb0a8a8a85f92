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
