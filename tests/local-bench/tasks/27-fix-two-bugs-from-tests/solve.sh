#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
python3 - <<'EOF'
src = open("inventory.py").read()
src = src.replace("self.items[name] = qty\n", "self.items[name] = self.items.get(name, 0) + qty\n")
src = src.replace("        self.items[name] = self.items.get(name, 0) - qty\n",
    "        have = self.items.get(name, 0)\n        if qty > have:\n            raise ValueError(\"not enough \" + name)\n        self.items[name] = have - qty\n")
open("inventory.py", "w").write(src)
EOF
