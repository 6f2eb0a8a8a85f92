#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
[ -f count.sh ] || { echo "count.sh does not exist"; exit 1; }
out=$(bash count.sh data.txt 2>/dev/null | tr -d '[:space:]')
[ "$out" = "5" ] || { echo "bash count.sh data.txt printed '$out', expected 5"; exit 1; }
tmp=$(mktemp); printf 'a\nb\nc\n' > "$tmp"
out=$(bash count.sh "$tmp" 2>/dev/null | tr -d '[:space:]'); rm -f "$tmp"
[ "$out" = "3" ] || { echo "count.sh on a 3-line file printed '$out', expected 3"; exit 1; }
