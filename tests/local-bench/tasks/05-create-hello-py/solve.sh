#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
echo 'print("Hello, World!")' > hello.py
