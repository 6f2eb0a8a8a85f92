#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
printf 'node_modules/\n*.log\n.env\n' > .gitignore
