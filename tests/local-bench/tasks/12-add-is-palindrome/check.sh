#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
python3 -B - <<'EOF'
import sys
sys.path.insert(0, ".")
try:
    import text
except Exception as e:
    print("cannot import text.py:", e); sys.exit(1)
if not hasattr(text, "is_palindrome"):
    print("text.py has no is_palindrome function"); sys.exit(1)
cases = [("racecar", True), ("A man, a plan, a canal: Panama", True), ("Was it a car or a cat I saw?", True),
         ("hello", False), ("ab", False), ("", True), ("No lemon, no melon", True), ("abca", False)]
for s, want in cases:
    got = text.is_palindrome(s)
    if bool(got) != want or not isinstance(got, bool):
        print(f"is_palindrome({s!r}) returned {got!r}, expected {want}"); sys.exit(1)
if text.word_count("a b  c") != 3 or text.normalize("  A   B ") != "a b":
    print("word_count() or normalize() is broken"); sys.exit(1)
EOF
