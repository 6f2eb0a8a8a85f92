#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
python3 -B - <<'EOF'
import json, sys
try:
    cfg = json.load(open("config.json"))
except Exception as e:
    print("config.json is not valid JSON:", e); sys.exit(1)
want = {"name": "api-server", "host": "0.0.0.0", "port": 8080, "debug": False, "allowed_origins": ["http://localhost:5173"]}
if cfg.get("port") != 8080:
    print(f"port is {cfg.get('port')!r}, expected 8080 (a number)"); sys.exit(1)
if cfg != want:
    print("other keys in config.json were changed"); sys.exit(1)
EOF
