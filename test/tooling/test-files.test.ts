// Every test file runs once, in npm test (test/system/ and test/tooling/ aside, and in a
// maintainer's run the PostgreSQL contract and property files) and in test:all: either alone, from
// tap's own list (.taprc and the command's --exclude), or in a batch of test/batches/ with others
// of its folder. A new folder is in tap's list unless .taprc leaves it out; a file left out and in
// no batch, or run twice, fails here.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from 'tap';
import { PROJECT_ROOT } from '../../src/project-root.js';
import { filesOf, WORKSPACE_PROCESS_TESTS, WORKSPACE_TESTS } from '../batches/batch.js';

const TESTS = join(PROJECT_ROOT, 'dist-test', 'test');
const BATCHES = join(TESTS, 'batches');
const PACKAGE_TESTS = WORKSPACE_TESTS.map((dir) => join(PROJECT_ROOT, dir));

function testFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.js'))
    .map((name) => join(dir, name));
}

/** What one tap run with these arguments runs: its files, each batch's files in its place. */
function runBy(args: string[]): string[] {
  const listed = execFileSync(process.execPath, [join(PROJECT_ROOT, 'node_modules', '.bin', 'tap'), 'list', ...args], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => join(PROJECT_ROOT, line));
  return listed.flatMap((file) => (file.startsWith(BATCHES + '/') ? filesOf(file) : [file]));
}

const name = (file: string) => relative(TESTS, file);
/** What npm test leaves to test:all: test/system/, test/tooling/ and the workspaces' process tests. */
const PROCESS_FILES = new Set(WORKSPACE_PROCESS_TESTS.map((file) => join(PROJECT_ROOT, file)));
const PROCESS_TESTS = new Set([...PROCESS_FILES].map(name));
const inNpmTest = (file: string) => !/^(system|tooling)\//.test(file) && !PROCESS_TESTS.has(file);
const all = [...testFiles(TESTS), ...PACKAGE_TESTS.flatMap(testFiles)].filter(
  (file) => !file.startsWith(BATCHES + '/'),
);

t.test('test:all runs every test file once', async (t) => {
  const run = runBy([]).map(name);
  t.same([...run].sort(), all.map(name).sort());
  t.ok(
    run.some((file) => file.startsWith('http/')) && run.some((file) => file.startsWith('system/')),
    'the run has files of test/http/ and test/system/',
  );
  t.ok(
    PACKAGE_TESTS.every((dir) => run.some((file) => file.startsWith(name(dir) + '/'))),
    "the run has each workspace's own tests",
  );
});

/**
 * A bash array of a script in scripts/, as bash gives its words: split at spaces, quotes removed
 * (its entries hold neither spaces nor quotes of their own).
 */
function bashArray(script: string, name: string): string[] {
  const text = readFileSync(join(PROJECT_ROOT, 'scripts', script), 'utf8');
  const list = new RegExp(`^${name}=\\((.*)\\)$`, 'm').exec(text)?.[1];
  if (list === undefined) throw new Error(`scripts/${script} has no ${name}=(…) list`);
  return list.split(' ').map((entry) => entry.replaceAll("'", ''));
}

/** npm test's --exclude arguments (scripts/test.sh): a maintainer's, or CI's (NPM_TEST_COVERAGE). */
const npmTestExcludes = (run: 'maintainer' | 'CI') =>
  run === 'CI'
    ? bashArray('test.sh', 'excludes')
    : [...bashArray('test.sh', 'excludes'), ...bashArray('test.sh', 'quick_excludes')];

t.test(
  "a maintainer's npm test runs every file outside test/system/ and test/tooling/ once, but the PostgreSQL contract and properties",
  async (t) => {
    const excludes = npmTestExcludes('maintainer');
    t.same(excludes.length, 4, `npm test's --exclude arguments: ${excludes.join(' ')}`);
    const run = runBy(excludes).map(name);
    t.same(
      [...run].sort(),
      all
        .map(name)
        .filter((file) => inNpmTest(file) && !/^contract\/.*-postgres\.test\.js$/.test(file))
        .sort(),
    );
  },
);

t.test("CI's npm test runs every file outside test/system/ and test/tooling/ once", async (t) => {
  const run = runBy(npmTestExcludes('CI')).map(name);
  t.same([...run].sort(), all.map(name).filter(inNpmTest).sort());
});

/** A bash array of scripts/test-all.sh, as tap arguments. */
const testAllList = (name: string) => bashArray('test-all.sh', name);

t.test("CI: npm test, then test:all's run after it, hold every test file once", async (t) => {
  const after = runBy(testAllList('after_npm_test')).map(name);
  const npmTest = runBy(npmTestExcludes('CI')).map(name);
  t.same([...npmTest, ...after].sort(), all.map(name).sort());
});

t.test('the HTTP and store suites that CI runs on another Node are all of test/http/ and test/store/', async (t) => {
  const suites = runBy(testAllList('http_and_store')).map(name);
  t.same(
    suites.sort(),
    all
      .map(name)
      .filter((file) => /^(http|store)\//.test(file))
      .sort(),
  );
});

t.test('a batch runs its share of its folder: every other file in name order for 1-of-2', async (t) => {
  const http = testFiles(join(TESTS, 'http')).sort();
  t.same(
    filesOf(join(BATCHES, 'http-1-of-2.test.js')),
    http.filter((_file, index) => index % 2 === 0),
  );
  t.same(
    filesOf(join(BATCHES, 'http-2-of-2.test.js')),
    http.filter((_file, index) => index % 2 === 1),
  );
  t.same(
    filesOf(join(BATCHES, 'modules.test.js')),
    [
      ...testFiles(join(TESTS, 'modules')).sort(),
      ...PACKAGE_TESTS.flatMap((dir) =>
        testFiles(dir)
          .filter((file) => !PROCESS_FILES.has(file))
          .sort(),
      ),
    ],
    "the modules batch runs test/modules/ and the workspaces' tests that start no process",
  );
  t.throws(
    () => filesOf(join(BATCHES, 'http_1.test.js')),
    /http_1\.test\.js is not named <folder>\.test\.js or <folder>-<part>-of-<parts>\.test\.js/,
  );
});
