#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
python3 -B - <<'EOF'
import json, sys
try:
    cfg = json.load(open("settings.json"))
except Exception as e:
    print("settings.json is not valid JSON:", e); sys.exit(1)
want = {"server": {"host": "127.0.0.1", "port": 9000, "timeout": 30},
        "logging": {"level": "warn", "file": "app.log"}, "features": ["search", "export"]}
srv = cfg.get("server") if isinstance(cfg, dict) else None
if not isinstance(srv, dict) or srv.get("timeout") != 30 or isinstance(srv.get("timeout"), bool):
    print("server.timeout is not the number 30"); sys.exit(1)
if cfg != want:
    print("settings.json has other changes besides server.timeout"); sys.exit(1)
EOF
