#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
[ -f wordfreq.sh ] || { echo "wordfreq.sh is missing"; exit 1; }
t() { local got; got=$(bash wordfreq.sh "$1" 2>/dev/null | sed 's/[[:space:]]*$//'); [ "$got" = "$2" ] || { echo "wordfreq.sh $1 printed '$got', expected '$2'"; exit 1; }; }
[ "$(cat samples/a.txt 2>/dev/null)" = "$(printf 'The cat saw the dog\nand the dog ran')" ] || { echo "samples/a.txt was changed"; exit 1; }
t samples/a.txt "the 3"
t samples/b.txt "cat 2"
tmp=$(mktemp); printf 'x y z z\ny x z\n' > "$tmp"
t "$tmp" "z 3"; rm -f "$tmp"
