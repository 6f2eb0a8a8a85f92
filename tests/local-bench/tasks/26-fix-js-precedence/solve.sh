#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
sed -i 's|f - 32 \* 5 / 9|(f - 32) * 5 / 9|' temp.js
