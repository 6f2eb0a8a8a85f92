#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
[ -f hello.py ] || { echo "hello.py does not exist"; exit 1; }
out=$(python3 -B hello.py 2>&1) || { echo "python3 hello.py failed: $out"; exit 1; }
[ "$(printf '%s' "$out" | sed 's/[[:space:]]*$//')" = "Hello, World!" ] || { echo "hello.py printed '$out' instead of 'Hello, World!'"; exit 1; }
