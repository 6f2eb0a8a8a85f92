#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
sed -i 's/MAX_ITEMS/MAX_CART_ITEMS/g' config.js cart.js
