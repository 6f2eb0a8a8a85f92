#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
python3 -B - <<'EOF'
import configparser, sys
cp = configparser.ConfigParser()
try:
    cp.read_string(open("app.ini").read())
except Exception as e:
    print("app.ini cannot be parsed:", e); sys.exit(1)
got = {s: dict(cp[s]) for s in cp.sections()}
want = {"app": {"name": "inventory", "port": "8000", "debug": "false"},
        "database": {"host": "db.internal", "port": "5433", "user": "inventory", "name": "inventory_db"},
        "cache": {"host": "localhost", "port": "6379"}}
if got.get("database", {}).get("host") != "db.internal":
    print("database host is not db.internal"); sys.exit(1)
if got.get("database", {}).get("port") != "5433":
    print("database port is not 5433"); sys.exit(1)
if got != want:
    print("app.ini has other changes (sections app/cache or other keys changed)"); sys.exit(1)
EOF
