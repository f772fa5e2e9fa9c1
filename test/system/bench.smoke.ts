// The benchmark script is only checked for running: a tiny, short run. Its figures are never
// asserted here (no wall-clock assertions in tests); README.md holds the latest full run.
// Not part of npm test's own run (servers under valgrind): npm run test:all runs it, and
// `npm test -- dist-test/test/system/bench.smoke.js` alone.
import { spawn } from 'node:child_process';
import t, { type Test } from 'tap';
import { whyNoPostgresBinaries } from 'throwaway-postgres';
import { hasValgrind, VALGRIND_REQUIRED } from '../helpers/valgrind.js';

/**
 * Runs `npm run bench` in a process group of its own and gives its standard output. Its standard
 * error (one progress line per measurement) goes to this test's, so that a CI log shows how far it
 * got. If this test ends first (its time limit), the whole group gets SIGTERM: the benchmark removes
 * its PostgreSQL cluster and kills its servers, which would otherwise outlive it under valgrind.
 */
function runBench(t: Test, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn('npm', ['run', '-s', 'bench', '--', ...args], {
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // The group has already exited.
    }
  };
  process.once('exit', killGroup);
  t.teardown(killGroup);
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) =>
      code === 0 ? resolve(stdout) : reject(new Error(`npm run bench exited with ${code ?? signal}`)),
    );
  });
}

// --instructions runs both servers under valgrind.
if (!hasValgrind && !VALGRIND_REQUIRED)
  console.error(
    '# SKIPPED npm run bench -- --instructions: no valgrind (install it with "apt-get install -y valgrind")',
  );
const countInstructions = hasValgrind || VALGRIND_REQUIRED;
// The PostgreSQL table needs Debian's server binaries; .ci/run installs them and sets this.
const postgresMissing = process.env['REQUIRE_POSTGRES_TEST'] === '1' ? undefined : whyNoPostgresBinaries();
if (postgresMissing !== undefined) console.error(`# SKIPPED the benchmark's PostgreSQL table: ${postgresMissing}`);
// Under valgrind each server takes about 20 s to start, and with --instructions seven of them run
// (five on the in-memory store, two on PostgreSQL); each counts one workload (get, which also has
// the baseline sending getPet's headers), since every counted workload costs each server its
// warm-up under valgrind: all six took nine minutes on two cores, one takes about two. Each step of
// the benchmark gives up on a stuck process by itself (STEP_LIMIT_MS in scripts/bench/options.ts); this
// limit is only the outer bound.
const LIMIT_MS = 2_400_000;
t.setTimeout(LIMIT_MS);

// The one workload counted under valgrind; the others are measured by CPU time only in this run.
const COUNTED = 'get random id';

t.test('npm run bench runs end to end on a tiny store and prints its tables', { timeout: LIMIT_MS }, async (t) => {
  const options = [
    '--sizes',
    '100',
    '--rounds',
    '1',
    '--comparison-rounds',
    '1',
    '--duration',
    '0.3',
    '--connections',
    '2',
    '--startup-rounds',
    '1',
  ];
  const instructions = countInstructions
    ? [
        '--instructions',
        '--instruction-requests',
        '20',
        '--instruction-rounds',
        '1',
        '--instruction-workloads',
        COUNTED,
      ]
    : [];
  // The script is run, not measured for coverage: its figures are what matters, and those come from full runs.
  const env = { ...process.env, npm_config_loglevel: 'error', _TAPJS_PROCESSINFO_COVERAGE_: '0' };
  // With PostgreSQL, three runs side by side, each about one core, whose tables together are one
  // full run's: the in-memory store's (every workload named, which leaves its fair share to the
  // third), PostgreSQL's, and the fair-share scenario with its PostgreSQL list 20. One after the
  // other they took 150-190 s.
  const runs =
    postgresMissing === undefined
      ? [
          [...options, ...instructions, '--stores', 'memory', '--workloads', 'list,page,get,create,update'],
          [...options, ...instructions, '--stores', 'postgres'],
          [...options, '--fairness'],
        ]
      : [[...options, ...instructions]];
  const stdout = (await Promise.all(runs.map((args) => runBench(t, args, env)))).join('\n');
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  t.match(stdout, /^\| pets \| workload \| req\/s service \|/m, 'the markdown table');
  for (const workload of [
    'list 20',
    'list 100, 1% status',
    'page of 100 from the middle',
    'get random id',
    'create',
    'update',
  ]) {
    t.match(
      stdout,
      new RegExp(`^\\| 100 \\| ${escape(workload)} \\|( [\\d.,]+ \\|){10}$`, 'm'),
      `a row for ${workload}, logs on beside off`,
    );
    // Only get is also counted against the baseline sending getPet's deprecation headers.
    const reference = `${workload === 'get random id' ? '( [\\d.,]+ \\|){2}' : ' – \\| – \\|'}( [\\d.,]+ \\|){4}`;
    if (countInstructions && workload === COUNTED) {
      t.match(
        stdout,
        new RegExp(`^\\| 100 \\| ${escape(workload)} \\|( [\\d.,]+ \\|){3}${reference}$`, 'm'),
        `an instruction count for ${workload}, logs and metrics on beside off`,
      );
    } else if (countInstructions) {
      t.notMatch(
        stdout,
        new RegExp(`^\\| 100 \\| ${escape(workload)} \\|( [\\d.,]+ \\|){3}${reference}$`, 'm'),
        `no instruction count for ${workload}: not asked for`,
      );
    }
    t.match(
      stdout,
      new RegExp(`^\\| ${escape(workload)} \\|( [\\d.,]+ \\|){5}$`, 'm'),
      `a row for ${workload}: metrics and tracing on beside off`,
    );
  }
  t.match(
    stdout,
    /^\| workload \| CPU µs\/req metrics off \| CPU µs\/req metrics on \| metrics on ÷ off \|/m,
    'the metrics and tracing table',
  );
  t.match(
    stdout,
    /^\| workload \| hand-written \| hand-written, `logger: true` \| as shipped, `npm start` \| `node dist\/server\.js` \| as shipped, in the bench \| logs off \| all optional parts off \|$/m,
    'the table against the hand-written app',
  );
  const workloads = ['list 20', 'list 100, 1% status', 'get random id', 'create'];
  for (const workload of workloads) {
    t.match(
      stdout,
      new RegExp(`^\\| ${escape(workload)} \\|( [\\d.,]+ \\([\\d.,]+–[\\d.,]+\\) \\|){7}$`, 'm'),
      `a comparison row for ${workload}: seven medians with their spread`,
    );
  }
  for (const goal of ['floor: all optional parts off ÷ hand-written', 'request logs: logs on ÷ off'])
    t.match(
      stdout,
      new RegExp(`^\\| ${escape(goal)} \\| [\\d.]+ \\|( [\\d.]+ \\((met|missed)\\) \\|){4}$`, 'm'),
      `the goal line "${goal}": a ratio per workload, met or missed`,
    );
  t.match(
    stdout,
    /Page of 100 from the middle \(after a cursor\), service CPU per request at 100 pets ÷ at 100: [\d.]+/,
    'the flat-page line',
  );
  t.match(stdout, /Resident memory per stored pet/, 'the memory line');
  t.match(
    stdout,
    /^\| round \| calm p99 alone ms \| calm p99 flooded ms \| calm req\/s alone \| calm req\/s flooded \| paced p99 alone ms \| paced p99 flooded ms \|/m,
    'the fair-share table',
  );
  t.match(
    stdout,
    /^Calm p99 flooded ÷ alone: \*\*[\d.]+\*\* as fast as one connection goes, \*\*[\d.]+\*\* paced \(goal: at most 3 for both\); calm answers a second flooded ÷ alone: \*\*[\d.]+\*\*; calm requests failed: \*\*\d+\*\*; a rejection's CPU ÷ a served list 20: \*\*[\d.]+\*\*\.$/m,
    'its ratios',
  );
  t.match(
    stdout,
    postgresMissing === undefined
      ? /^A rejection's CPU ÷ the floor: \*\*[\d.]+\*\*; ÷ a list 20 served from PostgreSQL: \*\*[\d.]+\*\* \(the service's CPU\), \*\*[\d.]+\*\* \(the service's and the database's\)\.$/m
      : /^A rejection's CPU ÷ the floor: \*\*[\d.]+\*\*; ÷ a list 20 served from PostgreSQL: not measured/m,
    'a rejection against the floor and against a list 20 on PostgreSQL',
  );
  t.match(stdout, /Start-up, spawn to first 200 .*: service \d[\d,]* ms, baseline \d[\d,]* ms/, 'the start-up line');
  if (countInstructions)
    t.match(stdout, /Instructions per request, counted by valgrind's callgrind/, 'the instructions table');
  if (postgresMissing === undefined) {
    t.match(
      stdout,
      /^\| pets \| workload \| req\/s service \| req\/s baseline \| ratio \| p99 ms service \| p99 ms baseline \| CPU µs\/req service \| CPU µs\/req baseline \| CPU ratio \| statements\/req service \|/m,
      'the PostgreSQL table',
    );
    for (const workload of [
      'list 20',
      'list 100, 1% status',
      'page of 100 from the middle',
      'get random id',
      'create',
      'update',
    ]) {
      t.match(
        stdout,
        new RegExp(`^\\| 100 \\| ${escape(workload)} \\|( [\\d.,]+ \\|){12}$`, 'm'),
        `a PostgreSQL row for ${workload}, with statements and database CPU per request`,
      );
      if (countInstructions && workload === COUNTED)
        t.match(
          stdout,
          new RegExp(`^\\| 100 \\| ${escape(workload)} \\|( [\\d.,]+ \\|){3}$`, 'm'),
          `a PostgreSQL instruction count for ${workload}`,
        );
    }
    t.match(
      stdout,
      /^\| commit \| instances \| clients \| creates\/s before \| creates\/s after \|/m,
      'the create throughput table',
    );
    const cells = stdout.match(/^\| (local disk|\+1 ms) \| [12] \| (1|16|64) \|( [\d.,]+ \|){9}$/gm) ?? [];
    t.equal(
      cells.length,
      12,
      'a row for each commit latency, number of instances and of clients, before and after',
      // A row that does not match says why (a cell that is not a number) in the failure itself.
      { rows: stdout.match(/^\| (local disk|\+1 ms) \|.*$/gm) ?? [] },
    );
    t.match(
      stdout,
      /^\| clients \| creates\/s with events \| creates\/s without \| throughput cost \|/m,
      'the change feed table',
    );
    // The throughput cost is a percentage, with a thousands separator once it passes 999: in a run
    // this short, on a busy machine, one side can make many times the creates of the other. The
    // rows are printed when this fails (one CI run matched one row of two).
    t.equal(
      (stdout.match(/^\| (16|64) \| [\d,]+ \| [\d,]+ \| -?[\d.,]+% \|/gm) ?? []).length,
      2,
      'what events cost creates, at 16 and 64 clients',
      { rows: stdout.match(/^\| (16|64) \|.*$/gm) ?? [] },
    );
    t.match(
      stdout,
      /^\| another instance \| \d+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \|$/m,
      'how soon a follower on another instance sees a change',
    );
    t.match(
      stdout,
      /^\| order \(place, then complete\) \| [\d,]+ \|( [\d.,]+ \|){5}$/m,
      'what an order costs on PostgreSQL, beside a create',
    );
    t.match(stdout, /^- An order request costs [\d.]+× a create in CPU/m, 'and the ratio');
    t.equal(
      (stdout.match(/^\| (local disk|\+1 ms) \| (update|remove|create)(, keyed)? \|( [\d.,]+ \|){5}$/gm) ?? []).length,
      10,
      'keyed changes beside unkeyed ones, on three instances, with and without the added commit latency',
    );
    t.match(stdout, /^- Keyed updates and removals at least half the throughput of unkeyed updates/m, 'and the goal');
  }
});

t.test(
  'npm run bench -- profile counts two servers by function and gives their difference',
  { skip: countInstructions ? false : 'no valgrind', timeout: LIMIT_MS },
  async (t) => {
    const args = ['--workload', 'get random id', '--servers', 'hand-written,bare', '--requests', '20', '--top', '5'];
    // Through the bench's entry, as npm run bench -- profile runs it.
    const child = spawn(process.execPath, ['dist-test/scripts/bench.js', 'profile', ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    const code = await new Promise((resolve) => child.once('close', resolve));
    t.equal(code, 0, 'it exits 0');
    for (const server of ['hand-written', 'bare'])
      t.match(stdout, new RegExp(`^\\| ${server} \\|( [\\d,]+ \\|){3}$`, 'm'), `the totals of ${server}`);
    t.match(stdout, /^\| function \| hand-written \| bare \| difference \|$/m, 'the table of differences');
    const rows = stdout.split('\n').filter((line) => /^\| `.+` \|( -?[\d,]+ \|){3}$/.test(line));
    t.equal(rows.length, 5, 'as many functions as --top asks for');
  },
);
