#!/usr/bin/env bash
# Print the most frequent word in file $1 and its count, e.g. "the 3".
tr -s '[:space:]' '\n' < "$1" \
  | tr '[:upper:]' '[:lower:]' \
  | sort \
  | uniq -c \
  | sort -n \
  | head -n 1 \
  | awk '{print $2, $1}'
