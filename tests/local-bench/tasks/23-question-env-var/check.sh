#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
grep -q 'SHOP_DATABASE_URL' "$ANSWER" || { echo "answer does not contain SHOP_DATABASE_URL"; exit 1; }
