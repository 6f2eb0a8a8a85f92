#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
printf '\n\ndef multiply(a, b):\n    return a * b\n' >> calc.py
