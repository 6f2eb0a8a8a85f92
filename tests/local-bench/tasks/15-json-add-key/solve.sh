#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
python3 - <<'EOF'
import json
cfg = json.load(open("settings.json"))
cfg["server"]["timeout"] = 30
json.dump(cfg, open("settings.json", "w"), indent=2)
EOF
