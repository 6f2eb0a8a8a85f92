#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
echo "SHOP_DATABASE_URL" > "$ANSWER"
