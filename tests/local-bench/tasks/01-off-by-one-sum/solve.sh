#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
sed -i 's/range(n)/range(n + 1)/' mathutil.py
