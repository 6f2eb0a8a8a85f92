#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
sed -i 's/get_user/fetch_user/g' db.py api.py cli.py
