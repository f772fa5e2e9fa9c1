#!/usr/bin/env bash
# npm run lint: the code's form (ESLint, every rule, the type-aware ones too, and Prettier) and the
# spec's (scripts/lint/lint.ts: the lifecycle markers, Spectral and Redocly), each reporting all it
# finds. `npm run lint -- spec [file]`: the spec's alone, of openapi.yaml or another file;
# `npm run lint -- code`: the code's alone (test:all, after npm test has linted the spec).
set -uo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
[ $# -eq 0 ] || shift
code() {
  ESLINT_TYPED=1 node_modules/.bin/eslint . &
  local eslint=$!
  node_modules/.bin/prettier --check --cache --log-level warn .
  local prettier=$?
  wait "$eslint" && [ "$prettier" -eq 0 ]
}
spec() { node_modules/.bin/tsx --conditions=source scripts/lint/lint.ts "$@"; }
case $what in
  code) code ;;
  spec) spec "$@" ;;
  all)
    code
    status=$?
    spec || status=1
    exit "$status"
    ;;
  *)
    echo "usage: npm run lint [-- code | spec [file]]"
    exit 2
    ;;
esac
