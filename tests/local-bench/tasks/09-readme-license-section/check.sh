#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
python3 -B - <<'EOF'
import re, sys
src = open("README.md").read()
for must in ["# tinyqueue", "A minimal priority queue for Python.", "## Install", "pip install tinyqueue", "## Usage", "q.push(3)"]:
    if must not in src:
        print(f"README.md lost existing content: {must!r}"); sys.exit(1)
m = re.search(r"^#{1,3}\s*Licen[sc]e\b.*$", src, re.M | re.I)
if not m:
    print("README.md has no License heading"); sys.exit(1)
if m.start() < src.index("## Usage"):
    print("License section is not at the end"); sys.exit(1)
if "mit" not in src[m.end():].lower():
    print("License section does not mention MIT"); sys.exit(1)
EOF
