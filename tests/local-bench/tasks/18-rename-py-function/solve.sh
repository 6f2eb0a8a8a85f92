#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
sed -i 's/calc_total/compute_total/g' util.py main.py
