#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
sed -i 's/sort -n \\/sort -rn \\/' wordfreq.sh
