#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
grep -qi 'padLeft' "$ANSWER" || { echo "answer does not name padLeft"; exit 1; }
n=0; for f in slugify truncate titleCase; do grep -qi "$f" "$ANSWER" && n=$((n+1)); done
[ "$n" -lt 3 ] || { echo "answer lists every function instead of picking one"; exit 1; }
