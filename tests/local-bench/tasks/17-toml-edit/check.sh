#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
python3 -B - <<'EOF'
import sys
try:
    import tomllib
except ImportError:
    print("checker needs python 3.11+ (tomllib)"); sys.exit(2)
try:
    cfg = tomllib.load(open("config.toml", "rb"))
except Exception as e:
    print("config.toml is not valid TOML:", e); sys.exit(1)
srv = cfg.get("server", {})
if srv.get("workers") != 4:
    print(f"server.workers is {srv.get('workers')!r}, expected 4"); sys.exit(1)
if srv.get("log_level") != "info":
    print(f"server.log_level is {srv.get('log_level')!r}, expected 'info'"); sys.exit(1)
want = {"title": "worker service",
        "server": {"host": "0.0.0.0", "port": 7000, "workers": 4, "log_level": "info"},
        "queue": {"url": "redis://localhost:6379/0", "workers": 8, "retries": 3}}
if cfg != want:
    print("config.toml has other changes (e.g. queue.workers or other keys changed)"); sys.exit(1)
EOF
