#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
sed -i 's/"version": "1.4.2"/"version": "1.5.0"/' package.json
