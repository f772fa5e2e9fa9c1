#!/usr/bin/env bash
# npm run test:all: what CI runs after npm test (.ci/run). npm test is the quick loop; this adds what
# it leaves out: the lint (every rule, the type-aware ones too), the tools' tests (test/tooling/),
# the tests that start the service as processes, Prometheus, the OTLP receiver, Chromium, all the
# property cases and the 100% coverage gate (one tap run of every test file; with NPM_TEST_COVERAGE,
# of the files npm test left out, the gate on both runs' coverage), then the README's walkthrough of
# adding an operation in a copy of the project; then, side by side, the benchmark's smoke test
# (valgrind), nginx in front of three instances (then, with SUITES_NODE_BIN, the HTTP and store
# suites on another Node), a short soak on each store, the contract runner against the running
# service (in memory, and two instances on one PostgreSQL), the compatibility gate with more cases
# and the instruction gate. Every step runs even when one before it failed; the exit status is the
# first failure's. Logs and JUnit reports go to test-output/.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p test-output

# step NAME COMMAND...: runs it, its output also in test-output/NAME.log, and records its status and
# time in test-output/steps/ (a file per step, so that steps run side by side record theirs too).
rm -rf test-output/steps
mkdir -p test-output/steps
step() {
  local name=$1
  shift
  local started=$SECONDS
  echo "== $name"
  "$@" 2>&1 | tee "test-output/$name.log"
  local status=${PIPESTATUS[0]}
  printf '%d %d\n' "$status" $((SECONDS - started)) >"test-output/steps/$name"
  return 0
}
total_started=$SECONDS

# npm test (which .ci/run runs first) has type-checked, checked generated/ and linted the spec; the
# build here only compiles what changed since (nothing, after npm test), and the code's form is
# checked once, every ESLint rule (the type-aware ones too) and Prettier.
step build bash -c 'npm run -s build && npm run -s lint -- code'
# After npm test with NPM_TEST_COVERAGE (as .ci/run runs it, on the same Node), the files it ran
# are not run again: this run holds what it leaves out (test/tooling/test-files.test.ts reads this
# list), and the 100% gate is checked on both runs' coverage together. Without it, every test
# file, as tap's own list has them.
after_npm_test=('dist-test/test/system/**/*.test.js' 'dist-test/test/tooling/**/*.test.js' 'dist-test/test/batches/workspace-processes.test.js')
# The HTTP and store suites, which every supported Node passes (SUITES_NODE_BIN, below).
http_and_store=(dist-test/test/batches/http-1-of-2.test.js dist-test/test/batches/http-2-of-2.test.js dist-test/test/batches/store-1-of-2.test.js dist-test/test/batches/store-2-of-2.test.js)
# Not passed on: the npm test that the walkthrough runs in its copy keeps no coverage.
npm_test_coverage=${NPM_TEST_COVERAGE:-}
unset NPM_TEST_COVERAGE
if [ -n "$npm_test_coverage" ]; then
  tap_after_npm_test() {
    [ -d "$npm_test_coverage" ] || {
      echo "NPM_TEST_COVERAGE=$npm_test_coverage: no coverage there; run npm test with it first"
      return 1
    }
    npx tap --allow-incomplete-coverage --coverage-report=text-summary "${after_npm_test[@]}"
    local status=$?
    cp "$npm_test_coverage"/*.json .tap/coverage/ || return 1
    echo "# coverage of this run and npm test's, together:"
    # The whole table only when it is short of 100%, to name the lines.
    npx tap report text-summary || {
      npx tap report text
      return 1
    }
    return "$status"
  }
  step tap tap_after_npm_test
else
  step tap env PROPERTY_CASES=full npx tap
fi
# The README's "Changing the API" in a copy of the project, whose npm test of the suites that read
# the spec's operations it runs: a step of its own, since that is a second four-job tap run, which
# beside the first would starve its timings. WALKTHROUGH_NODE_BIN, a folder holding another Node's
# node and npm, runs it on that Node: CI's Node 26, whose run of the HTTP and store suites this
# then is (with one operation added to the spec).
walkthrough_path=$PATH
[ -z "${WALKTHROUGH_NODE_BIN:-}" ] || walkthrough_path="$WALKTHROUGH_NODE_BIN:$PATH"
step walkthrough env PATH="$walkthrough_path" _TAPJS_PROCESSINFO_COVERAGE_=0 npx tap --disable-coverage dist-test/test/system/changing-the-api.smoke.js

# The contract runner against the built service as npm start runs it (in memory), then against two
# instances sharing one throwaway PostgreSQL database, requests going to each in turn.
key=$(node -e 'console.log(require("node:crypto").randomBytes(24).toString("base64url"))')
# A second key with pets:read alone: the runner checks the 403 of every operation it lacks a role for.
limited=$(node -e 'console.log(require("node:crypto").randomBytes(24).toString("base64url"))')
# A third, of another client with the default (a customer's) roles: none of the run's orders may be
# reached or listed with it. The run's own key names every role the spec names, the operator's too.
other=$(node -e 'console.log(require("node:crypto").randomBytes(24).toString("base64url"))')
every_role=$(node --input-type=module -e 'const { roleNamesOf } = await import("./dist/auth/roles.js");
const { loadServedSpec } = await import("./dist/openapi/openapi-spec.js");
console.log(roleNamesOf(loadServedSpec()).join(", "))')
keys_file=$(mktemp)
printf 'keys:\n  - client: contract\n    key: %s\n    roles: [%s]\n  - client: contract-reader\n    key: %s\n    roles: [pets:read]\n  - client: contract-other\n    key: %s\n' \
  "$key" "$every_role" "$limited" "$other" >"$keys_file"
# One webhook endpoint, so that the runner reaches setWebhookPosition; its address (the discard
# port on loopback) refuses every delivery, which the service retries on its schedule.
webhooks_file=$(mktemp)
printf 'endpoints:\n  - id: contract\n    url: http://127.0.0.1:9/hooks\n    secret: whsec_%s\n' \
  "$(node -e 'console.log(require("node:crypto").randomBytes(32).toString("base64"))')" >"$webhooks_file"
pids=()
stop_all() {
  for pid in "${pids[@]}"; do kill -INT "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  pids=()
}
# serve PORT [ENV...]: the built service on 127.0.0.1:PORT, waited for until /health/ready says 200.
serve() {
  local port=$1
  shift
  env "$@" API_KEYS_FILE="$keys_file" WEBHOOKS_FILE="$webhooks_file" PORT="$port" METRICS_PORT=off LOG_LEVEL=warn node dist/server.js >>test-output/services.log 2>&1 &
  pids+=($!)
  for _ in $(seq 1 120); do
    [ "$(node -e 'fetch(process.argv[1]).then((r) => console.log(r.status), () => console.log(0))' "http://127.0.0.1:$port/health/ready")" = 200 ] && return 0
    sleep 0.5
  done
  echo "the service on port $port did not get ready:"
  tail -20 test-output/services.log
  return 1
}
# Each runs in the subshell of its step's pipeline, so it stops what it started itself.
contract_memory() {
  trap stop_all EXIT
  serve 3100 || return 1
  CONTRACT_API_KEY="$key" CONTRACT_LIMITED_API_KEY="$limited" CONTRACT_OTHER_API_KEY="$other" npm run -s contract -- --url http://127.0.0.1:3100/v1 --seed 1 --cases 600 --report junit=test-output/contract-memory.xml
}
contract_postgres() {
  trap stop_all EXIT
  local db_log=test-output/contract-database.log
  # node itself, not npm, so that the SIGINT of stop_all reaches the process that removes the cluster.
  node --conditions=source --import tsx scripts/database.ts >"$db_log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 60); do
    grep -q 'DATABASE_URL=' "$db_log" && break
    sleep 1
  done
  local url
  url=$(grep -o 'postgres://[^ ]*' "$db_log" | head -1)
  [ -n "$url" ] || { echo "no throwaway PostgreSQL:"; cat "$db_log"; return 1; }
  serve 3101 DATABASE_URL="$url" && serve 3102 DATABASE_URL="$url" || return 1
  CONTRACT_API_KEY="$key" CONTRACT_LIMITED_API_KEY="$limited" CONTRACT_OTHER_API_KEY="$other" npm run -s contract -- --url http://127.0.0.1:3101/v1 --url http://127.0.0.1:3102/v1 --seed 1 --cases 600 --report junit=test-output/contract-postgres.xml
}
# The steps that mostly wait (on drains, on a request rate, on a database) run side by side: nginx
# and its instances in one lane; the soaks, then the contract runs and compat, in the other. Each
# has ports and a PostgreSQL cluster of its own. One after the other they took 155 s of which the
# machine was mostly idle; side by side their wall time is the longest lane's. Beside them, the
# benchmark's smoke test (about one core, 150-220 s; it checks that every table comes out, not the
# figures): after the walkthrough it took 208 s of its own, the lanes 90 s more (issue 49).
names=(build tap walkthrough bench-smoke deploy soak-memory soak-postgres contract-memory contract-postgres compat instruction-gate)
[ -z "${SUITES_NODE_BIN:-}" ] || names+=(node-suites)
# Without coverage (tap's before script would be measured all the same: the variable turns that off).
# SHARED_TEST_DATABASE=off: it uses no shared cluster, and the deployment test's tap run beside it
# has the project's one (test/setup/shared-cluster.ts).
step bench-smoke env _TAPJS_PROCESSINFO_COVERAGE_=0 SHARED_TEST_DATABASE=off npx tap --disable-coverage dist-test/test/system/bench.smoke.js >/dev/null &
bench=$!
# SUITES_NODE_BIN, a folder holding another Node (CI: the machine's 20): the HTTP and store suites
# on it too, without coverage (the gate's is this Node's). In the deployment test's lane, after it:
# each tap run here has the project's shared cluster (test/setup/shared-cluster.ts), which a second
# run beside it would race for; the other runs of this phase use none (SHARED_TEST_DATABASE=off).
deploy_lane() {
  step deploy env _TAPJS_PROCESSINFO_COVERAGE_=0 npx tap --disable-coverage dist-test/test/system/nginx-rolling-restart.smoke.js
  [ -z "${SUITES_NODE_BIN:-}" ] ||
    step node-suites env PATH="$SUITES_NODE_BIN:$PATH" _TAPJS_PROCESSINFO_COVERAGE_=0 npx tap --disable-coverage "${http_and_store[@]}"
}
deploy_lane >/dev/null &
lane=$!
step soak-memory node dist-test/scripts/bench.js soak --minutes 0.5 --store memory --check >/dev/null &
soak=$!
step soak-postgres node dist-test/scripts/bench.js soak --minutes 0.5 --store postgres --check >/dev/null
wait "$soak"
step contract-memory contract_memory
step contract-postgres contract_postgres
step compat npm run -s compat -- --seed 1 --cases 5000 --report junit=test-output/compat.xml
# Instructions per request of the service as shipped against the hand-written app, per workload,
# within scripts/bench/instruction-bounds.json (issue 58): valgrind, so the same on a busy machine;
# then, from that count, that the gate fails on a deliberate regression (a dearer header). Last in
# this lane: started with the rest of this phase, on two cores already busy, it took as long as the
# whole phase and passed its own time limit (450 s a gate run).
step instruction-gate env _TAPJS_PROCESSINFO_COVERAGE_=0 SHARED_TEST_DATABASE=off npx tap --disable-coverage dist-test/test/system/instruction-gate.smoke.js
wait "$lane"
wait "$bench"
# Their logs, one after the other (side by side they went only to test-output/).
logged=(bench-smoke deploy soak-memory soak-postgres)
[ -z "${SUITES_NODE_BIN:-}" ] || logged+=(node-suites)
for name in "${logged[@]}"; do
  echo "== $name (test-output/$name.log)"
  cat "test-output/$name.log"
done

failed=0
lines=()
for name in "${names[@]}"; do
  read -r status seconds <"test-output/steps/$name" || { status=1 seconds=0; }
  lines+=("$(printf '%-22s exit %d in %4d s' "$name" "$status" "$seconds")")
  [ "$status" -eq 0 ] || [ "$failed" -ne 0 ] || failed=$status
done
echo
echo "npm run test:all, $((SECONDS - total_started)) s on $(node --version):"
printf '  %s\n' "${lines[@]}"
[ -z "${WALKTHROUGH_NODE_BIN:-}" ] || echo "  (the walkthrough, its npm test included, on $("$WALKTHROUGH_NODE_BIN/node" --version))"
[ -z "${SUITES_NODE_BIN:-}" ] || echo "  (node-suites on $("$SUITES_NODE_BIN/node" --version))"
# A failed step that is not a tap run has no place in tap-failures' list below: its last lines,
# so that a CI log read from its end says what failed (the whole log is above, or in test-output/).
for name in build soak-memory soak-postgres contract-memory contract-postgres compat; do
  read -r status _ 2>/dev/null <"test-output/steps/$name" || continue
  [ "$status" -ne 0 ] || continue
  echo "== $name failed; its last lines (test-output/$name.log):"
  tail -15 "test-output/$name.log"
done
# The tap runs' counts, added up: the line CI reads.
logs=(test-output/tap.log test-output/bench-smoke.log test-output/deploy.log test-output/walkthrough.log test-output/instruction-gate.log)
[ -z "${SUITES_NODE_BIN:-}" ] || logs+=(test-output/node-suites.log)
bash scripts/tap-totals.sh "${logs[@]}"
node scripts/tap-failures.mjs "${logs[@]}"
exit "$failed"
