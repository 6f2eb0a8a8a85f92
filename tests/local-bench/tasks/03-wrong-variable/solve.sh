#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
python3 - <<'EOF'
src = open("stats.py").read()
src = src.replace("            best = nums[0]\n", "            best = n\n")
open("stats.py", "w").write(src)
EOF
