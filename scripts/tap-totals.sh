#!/usr/bin/env bash
# Adds up the closing counts of tap logs (`# { total: N, pass: N, skip: N }`) into the line CI reads:
# "N passed, N failed, N skipped". Used by npm run test:all and .ci/run.
#   bash scripts/tap-totals.sh test-output/tap.log test-output/deploy.log …
count() { grep -a -E '^# \{ total: [0-9]+' "$1" | tail -1 | grep -oE "$2: [0-9]+" | grep -oE '[0-9]+' || echo 0; }
total=0 passed=0 skipped=0
for log in "$@"; do
  total=$((total + $(count "$log" total)))
  passed=$((passed + $(count "$log" pass)))
  skipped=$((skipped + $(count "$log" skip)))
done
echo "$passed passed, $((total - passed - skipped)) failed, $skipped skipped"
