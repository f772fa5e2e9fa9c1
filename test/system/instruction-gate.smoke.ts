// The instruction gate (scripts/bench/instruction-gate.ts), as CI runs it: every workload of the
// service as shipped within the project's bounds; then the same gate fails on a deliberate
// regression: the service with a dearer header on every response (test/helpers/dearer-header.mjs,
// loaded by --service-env NODE_OPTIONS) goes past a bound the same service meets without it, and
// the gate names the workload and both figures. One step of `npm run test:all`, not a file of the
// tap run: beside three other test files its servers under valgrind took 377 s. The first run is
// the gate itself, so the regression's bound comes from its count, not from a second one.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { PROJECT_ROOT } from '../../src/project-root.js';
import { hasValgrind, VALGRIND_REQUIRED } from '../helpers/valgrind.js';

const skip = !hasValgrind && !VALGRIND_REQUIRED ? 'no valgrind (install it with "apt-get install -y valgrind")' : false;
// Two servers under valgrind, side by side: every workload, then one (about 35 s on two cores).
const LIMIT_MS = 900_000;
t.setTimeout(LIMIT_MS);

const GATE = join(PROJECT_ROOT, 'dist-test/scripts/bench/instruction-gate.js');
const DEARER = join(PROJECT_ROOT, 'test/helpers/dearer-header.mjs');

/** The gate's exit status and output. */
async function gate(...args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [GATE, ...args], {
      cwd: PROJECT_ROOT,
      timeout: LIMIT_MS / 2,
      env: { ...process.env, _TAPJS_PROCESSINFO_COVERAGE_: '0' },
    });
    return { status: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { status: code, stdout, stderr };
  }
}

t.test(
  'the gate holds on every workload, and a dearer header fails it, naming the workload and both figures',
  { skip },
  async (t) => {
    const plain = await gate();
    t.comment(plain.stdout.trim());
    t.equal(plain.status, 0, "the service as it is passes the project's bound on every workload", {
      stdout: plain.stdout,
      stderr: plain.stderr,
    });
    for (const workload of ['list 20', 'list 100, 1% status', 'get random id', 'create'])
      t.match(
        plain.stdout,
        new RegExp(`^\\| ${workload} \\| [\\d,]+ \\| [\\d,]+ \\| [\\d.]+ \\|`, 'm'),
        `${workload} counted`,
      );
    const row = /^\| get random id \| ([\d,]+) \| ([\d,]+) \| ([\d.]+) \|/m.exec(plain.stdout);
    t.ok(row, 'and is counted', { stdout: plain.stdout });
    // A bound 5% above what the service costs now, as the bounds file sets them: the regression below
    // costs more than that, and so must fail, whatever margin the project's own file leaves.
    const bounds = join(t.testdir(), 'bounds.json');
    const major = process.versions.node.split('.')[0]!;
    writeFileSync(
      bounds,
      JSON.stringify({ [major]: { 'get random id': Number((Number(row![3]) * 1.05).toFixed(3)) } }),
    );
    // Not counted again: the regression is far over the bound, and a recount would only cost time.
    const dearer = await gate(
      '--workloads',
      'get',
      '--bounds',
      bounds,
      '--recounts',
      '0',
      '--service-env',
      `NODE_OPTIONS=--import=${DEARER}`,
    );
    t.equal(dearer.status, 1, 'the gate fails', { stdout: dearer.stdout, stderr: dearer.stderr });
    t.match(
      dearer.stderr,
      /instruction gate: get random id: as shipped [\d,]+ instructions per request, hand-written [\d,]+: [\d.]+×, above its bound [\d.]+× for Node \d+/,
      'naming the workload and both figures',
    );
  },
);
