#!/usr/bin/env bash
# npm test: the loop a maintainer runs after each change. The build (the type check of src/, test/,
# scripts/ and generated/, into a clean dist-test/), then tap on every test file outside
# test/system/ and test/tooling/ but the PostgreSQL runs of the contract and property suites
# (test/contract/*-postgres.test.ts, which CI's npm test runs), without coverage, with the
# stale-generated/ check and the spec lint beside it (their output follows tap's; either failing
# fails npm test).
# Arguments go to tap, after an incremental build: `npm test -- dist-test/test/http/get-pet.test.js`
# runs that file alone, with the same checks (the walkthrough runs the suites an added operation
# touches so).
# NPM_TEST_COVERAGE=DIR (CI, .ci/run): the same run, the PostgreSQL contract and property files
# included, collects coverage, checked in test:all, which merges it with its own
# (scripts/test-all.sh), and moves it to DIR; no test file runs twice for it.
set -uo pipefail
cd "$(dirname "$0")/.."

# A whole run starts from a clean dist-test/: a test whose source is gone must not run compiled.
[ $# -gt 0 ] || rm -rf dist-test
npm run -s build || exit 1
checks=$(mktemp -d)
trap 'rm -rf "$checks"' EXIT
node dist-test/scripts/generate.js --check >"$checks/generate.log" 2>&1 &
generate=$!
node dist-test/scripts/lint/lint.js >"$checks/lint.log" 2>&1 &
lint=$!

# test/tooling/test-files.test.ts reads these two lists: a file they leave out runs in test:all.
# The workspaces' tests that start npm or a PostgreSQL cluster are process tests too: their batch
# runs in test:all (test/batches/batch.ts, WORKSPACE_PROCESS_TESTS).
excludes=(--exclude='dist-test/test/system/**' --exclude='dist-test/test/tooling/**' --exclude='dist-test/test/batches/workspace-processes.test.js')
# A maintainer's run leaves out the PostgreSQL runs of the contract and property suites too, a
# fifth of its CPU (docs/testing.md). CI's (NPM_TEST_COVERAGE) holds them: moved to test:all's tap
# run, beside the process tests, they made it 32 s longer, and CI's npm test only 18 s shorter.
quick_excludes=(--exclude='dist-test/test/contract/*-postgres.test.js')
[ -n "${NPM_TEST_COVERAGE:-}" ] || excludes+=("${quick_excludes[@]}")
# One file alone: no shared PostgreSQL cluster (2 of a file's 4 s in tap); a file that needs one
# starts its own (test/helpers/postgres.ts).
[ $# -ne 1 ] || export SHARED_TEST_DATABASE=off
if [ -z "${NPM_TEST_COVERAGE:-}" ]; then
  # tap measures its before script even with --disable-coverage, and fails on that coverage.
  _TAPJS_PROCESSINFO_COVERAGE_=0 node_modules/.bin/tap --disable-coverage "${excludes[@]}" "$@"
  status=$?
else
  node_modules/.bin/tap --allow-incomplete-coverage --coverage-report=text-summary "${excludes[@]}" "$@"
  status=$?
  echo "# npm test's coverage, kept in $NPM_TEST_COVERAGE for test:all's 100% gate"
  rm -rf "$NPM_TEST_COVERAGE"
  mkdir -p "$(dirname "$NPM_TEST_COVERAGE")"
  mv .tap/coverage "$NPM_TEST_COVERAGE" || status=1
fi

wait "$generate" || status=1
cat "$checks/generate.log"
wait "$lint" || status=1
cat "$checks/lint.log"
exit "$status"
