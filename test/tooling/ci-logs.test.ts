// What CI's log ends with, read from the tap logs: the totals line (scripts/tap-totals.sh) and what
// failed (scripts/tap-failures.mjs), on TAP that tap itself wrote.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';

const run = promisify(execFile);
const SCRIPT = join(process.cwd(), 'scripts', 'tap-failures.mjs');
const TOTALS = join(process.cwd(), 'scripts', 'tap-totals.sh');

/** The TAP that `node` writes for a test file (its exit status is a failure's, when one fails). */
async function tapOf(dir: string, file: string): Promise<string> {
  const result = await run(process.execPath, [join(dir, file)], { cwd: dir }).catch(
    (error: { stdout: string }) => error,
  );
  return result.stdout;
}

t.test('each failed assertion, where it sits and why; never the subtests that fail because of it', async (t) => {
  const dir = t.testdir({
    'failing.mjs': [
      "import t from 'tap';",
      "t.test('pets', async (t) => {",
      "  t.test('a page', async (t) => { t.ok(true, 'fine'); t.equal(1, 2, 'the page size'); });",
      "  t.test('another', async (t) => { t.match('abc', /x/, 'a pattern'); });",
      '});',
      "t.test('all fine', async (t) => { t.pass('yes'); });",
    ].join('\n'),
    'passing.mjs': "import t from 'tap';\nt.test('fine', async (t) => { t.pass('yes'); });\n",
  });
  writeFileSync(join(dir, 'failing.log'), await tapOf(dir, 'failing.mjs'));
  writeFileSync(join(dir, 'passing.log'), await tapOf(dir, 'passing.mjs'));

  const { stdout } = await run(process.execPath, [
    SCRIPT,
    join(dir, 'failing.log'),
    join(dir, 'passing.log'),
    join(dir, 'absent.log'),
  ]);
  const failures = stdout.split('\n').filter((line) => line.includes(': not ok'));
  t.equal(failures.length, 2, failures.length === 2 ? 'two failures' : stdout);
  t.match(stdout, /failing\.log: not ok - the page size\n {4}in pets > a page\n/);
  t.match(stdout, /the page size.*diff: \|.*-2\n.*\+1\n.*a pattern/s, "with tap's diagnostics");
  t.match(stdout, /failing\.log: not ok - a pattern\n {4}in pets > another\n/);
  t.notMatch(stdout, /passing\.log|absent\.log|in all fine/);
});

t.test('nothing failed: nothing printed', async (t) => {
  const dir = t.testdir({ 'passing.mjs': "import t from 'tap';\nt.test('fine', async (t) => { t.pass('yes'); });\n" });
  writeFileSync(join(dir, 'passing.log'), await tapOf(dir, 'passing.mjs'));
  t.equal((await run(process.execPath, [SCRIPT, join(dir, 'passing.log')])).stdout, '');
});

t.test(
  'the totals line adds up the logs, one holding a NUL byte (a generated request, printed) included',
  async (t) => {
    const dir = t.testdir({
      'failing.mjs':
        "import t from 'tap';\nt.test('a', async (t) => { t.pass('a request with \\u0000 in it'); t.equal(1, 2); });\n",
      'passing.mjs': "import t from 'tap';\nt.test('fine', async (t) => { t.pass('yes'); t.pass('again'); });\n",
    });
    writeFileSync(join(dir, 'failing.log'), `${await tapOf(dir, 'failing.mjs')}# { total: 2, pass: 1, fail: 1 }\n`);
    writeFileSync(join(dir, 'passing.log'), `${await tapOf(dir, 'passing.mjs')}# { total: 2, pass: 2 }\n`);
    t.match(readFileSync(join(dir, 'failing.log'), 'latin1'), '\0', 'the log holds the NUL');
    const { stdout } = await run('bash', [TOTALS, join(dir, 'failing.log'), join(dir, 'passing.log')]);
    t.equal(stdout, '3 passed, 1 failed, 0 skipped\n');
  },
);
