#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
cat >> text.py <<'EOF'


def is_palindrome(s):
    cleaned = [c.lower() for c in s if c.isalnum()]
    return cleaned == cleaned[::-1]
EOF
