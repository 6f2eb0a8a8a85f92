#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
python3 - <<'EOF'
src = open("config.toml").read()
src = src.replace("port = 7000\nworkers = 2\n", "port = 7000\nworkers = 4\nlog_level = \"info\"\n")
open("config.toml", "w").write(src)
EOF
