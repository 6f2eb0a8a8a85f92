#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
python3 - <<'EOF'
src = open("app.ini").read()
src = src.replace("[database]\nhost = localhost\nport = 5432", "[database]\nhost = db.internal\nport = 5433")
open("app.ini", "w").write(src)
EOF
