// The benchmark script is only checked for running: a tiny, short run. Its figures are never
// asserted here (no wall-clock assertions in tests); README.md holds the latest full run.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';

const run = promisify(execFile);

t.test('npm run bench runs end to end on a tiny store and prints its table', { timeout: 180_000 }, async (t) => {
  const { stdout } = await run('npm', ['run', '-s', 'bench', '--', '--sizes', '100', '--rounds', '1', '--duration', '0.3', '--connections', '2', '--startup-rounds', '1'], {
    // The script is run, not measured for coverage: its figures are what matters, and those come from full runs.
    env: { ...process.env, npm_config_loglevel: 'error', _TAPJS_PROCESSINFO_COVERAGE_: '0' },
  });
  t.match(stdout, /^\| pets \| workload \|/m, 'a markdown table');
  for (const workload of ['list 20', 'list 100, 1% status', 'get random id', 'create']) {
    t.match(stdout, new RegExp(`^\\| 100 \\| ${workload.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\|( [\\d.,]+ \\|){8}$`, 'm'), `a row for ${workload}`);
  }
  t.match(stdout, /Resident memory per stored pet/, 'the memory line');
  t.match(stdout, /Start-up, spawn to first 200 .*: service \d[\d,]* ms, baseline \d[\d,]* ms/, 'the start-up line');
});
