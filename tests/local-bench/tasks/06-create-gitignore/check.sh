#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
[ -f .gitignore ] || { echo ".gitignore does not exist"; exit 1; }
python3 -B - <<'EOF'
import sys
lines = [l.strip() for l in open(".gitignore") if l.strip() and not l.strip().startswith("#")]
norm = {l.lstrip("/").rstrip("/") for l in lines}
for want, accept in [("node_modules", {"node_modules", "node_modules/**", "**/node_modules"}),
                     ("*.log", {"*.log", "**/*.log"}),
                     (".env", {".env", "**/.env"})]:
    if not (norm & accept):
        print(f".gitignore does not ignore {want}"); sys.exit(1)
EOF
