#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
echo "8765" > "$ANSWER"
