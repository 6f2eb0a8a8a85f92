#!/usr/bin/env bash
# Usage: bash test.sh   (prints PASS or FAIL lines, exits non-zero on failure)
fail=0
check() {
  local got
  got=$(bash wordfreq.sh "$1")
  if [ "$got" = "$2" ]; then echo "PASS $1"; else echo "FAIL $1: got '$got'"; fail=1; fi
}
check samples/a.txt "the 3"
check samples/b.txt "cat 2"
exit $fail
