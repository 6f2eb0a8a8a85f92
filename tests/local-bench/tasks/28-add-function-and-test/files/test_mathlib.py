import unittest

from mathlib import gcd, is_even


class TestMathlib(unittest.TestCase):
    def test_gcd(self):
        self.assertEqual(gcd(12, 18), 6)

    def test_is_even(self):
        self.assertTrue(is_even(4))
        self.assertFalse(is_even(7))


if __name__ == "__main__":
    unittest.main()
