#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
python3 -B - "$ANSWER" <<'EOF'
import re, sys
a = open(sys.argv[1]).read().lower()
words = {"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7"}
toks = re.findall(r"(?<![\w.])(\d+|zero|one|two|three|four|five|six|seven)(?!\w|\.\d)", a)
toks = [words.get(t, t) for t in toks]
if toks and toks[0] == "4":
    sys.exit(0)
print("answer does not say 4 test functions (first number given: %s)" % (toks[0] if toks else "none")); sys.exit(1)
EOF
