#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
python3 -B - <<'EOF'
import sys
sys.path.insert(0, ".")
try:
    import stats
except Exception as e:
    print("cannot import stats.py:", e); sys.exit(1)
for nums, want in [([3, 9, 2], 9), ([1], 1), ([-5, -2, -9], -2), ([4, 4, 7, 1], 7)]:
    got = stats.largest(nums)
    if got != want:
        print(f"largest({nums}) returned {got}, expected {want}"); sys.exit(1)
if not hasattr(stats, "smallest") or stats.smallest([3, 1, 2]) != 1:
    print("smallest() is missing or broken"); sys.exit(1)
EOF
