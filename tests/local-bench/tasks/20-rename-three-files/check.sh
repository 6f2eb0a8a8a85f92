#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
if grep -rnw --include='*.py' get_user . >/dev/null; then echo "old name get_user still used in: $(grep -rlw --include='*.py' get_user . | tr '\n' ' ')"; exit 1; fi
out=$(python3 -B cli.py 2>&1) || { echo "python3 cli.py failed: $(echo "$out" | tail -1)"; exit 1; }
want=$'1 alice admin True\n2 bob user True\n3 unknown user False'
[ "$(printf '%s' "$out" | sed 's/[[:space:]]*$//')" = "$want" ] || { echo "python3 cli.py output changed"; exit 1; }
python3 -B -c 'import sys; sys.path.insert(0, "."); import db; assert db.fetch_user(2)["name"] == "bob"; assert db.all_ids() == [1, 2]' 2>/dev/null || { echo "db.fetch_user is missing or broken"; exit 1; }
