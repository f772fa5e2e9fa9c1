// scripts/tap-failures.mjs, which ends CI's log with what failed: on TAP that tap itself wrote.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';

const run = promisify(execFile);
const SCRIPT = join(process.cwd(), 'scripts', 'tap-failures.mjs');

/** The TAP that `node` writes for a test file (its exit status is a failure's, when one fails). */
async function tapOf(dir: string, file: string): Promise<string> {
  const result = await run(process.execPath, [join(dir, file)], { cwd: dir }).catch((error: { stdout: string }) => error);
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

  const { stdout } = await run(process.execPath, [SCRIPT, join(dir, 'failing.log'), join(dir, 'passing.log'), join(dir, 'absent.log')]);
  const failures = stdout.split('\n').filter((line) => line.includes(': not ok'));
  t.equal(failures.length, 2, stdout);
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
