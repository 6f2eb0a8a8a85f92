#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
sed -i 's/i > 1;/i >= 1;/' countdown.js
