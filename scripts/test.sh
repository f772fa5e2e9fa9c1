#!/usr/bin/env bash
# npm test: the loop a maintainer runs after each change. A clean dist-test/, the build (the type
# check of src/, test/, scripts/ and generated/), then at once the stale-generated/ check and the
# spec lint, then tap on every test file outside test/system/ and test/tooling/, without coverage.
# Arguments go to tap: `npm test -- dist-test/test/http/get-pet.test.js` runs that file alone after
# the same checks (the walkthrough runs the suites an added operation touches so).
# NPM_TEST_COVERAGE=DIR (CI, .ci/run): the same run collects coverage, checked in test:all, which
# merges it with its own (scripts/test-all.sh), and moves it to DIR; no test file runs twice for it.
set -uo pipefail
cd "$(dirname "$0")/.."

rm -rf dist-test
npm run -s build || exit 1
node dist-test/scripts/generate.js --check &
generate=$!
node dist-test/scripts/lint/lint.js
lint=$?
wait "$generate" || exit 1
[ "$lint" -eq 0 ] || exit 1

# test/tooling/test-files.test.ts reads these two: a file they leave out runs in test:all alone.
excludes=(--exclude='dist-test/test/system/**' --exclude='dist-test/test/tooling/**')
if [ -z "${NPM_TEST_COVERAGE:-}" ]; then
  _TAPJS_PROCESSINFO_COVERAGE_=0 exec node_modules/.bin/tap --disable-coverage "${excludes[@]}" "$@"
fi
node_modules/.bin/tap --allow-incomplete-coverage --coverage-report=text-summary "${excludes[@]}" "$@"
status=$?
rm -rf "$NPM_TEST_COVERAGE"
mkdir -p "$(dirname "$NPM_TEST_COVERAGE")"
mv .tap/coverage "$NPM_TEST_COVERAGE" || status=1
exit "$status"
