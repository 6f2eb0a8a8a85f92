#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
grep -Eq '(^|[^0-9])8765([^0-9]|$)' "$ANSWER" || { echo "answer does not contain the port 8765"; exit 1; }
