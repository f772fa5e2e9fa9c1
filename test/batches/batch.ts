// Batches: test files that run one after the other in one process. Most files of test/http/,
// test/modules/, test/client/ and test/store/ do a few hundred milliseconds of work behind about a
// second of CPU to start (tap, its process-info hook, the service's modules and their first
// compile), so .taprc leaves those folders out of its own list and the files here bring them in,
// named for what they run: `http-1-of-2.test.ts` runs the first, third, fifth… file of test/http/
// in name order. Each file still runs alone too (`npx tap dist-test/test/http/get-pet.test.js`).
// This folder sorts first, so tap starts its batches, among the longest processes of a run, before
// the single files.
import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { PROJECT_ROOT } from '../../src/project-root.js';

/**
 * The workspaces' own tests, as their builds place them: the `modules` batch runs them, a few
 * small files whose processes cost more to start than their tests take.
 */
export const WORKSPACE_TESTS = [
  'src/contract/dist/test',
  'src/client/dist/src/client/test',
  'scripts/postgres/dist/test',
];

/**
 * The workspaces' tests that start processes of their own (npm pack and an install; a PostgreSQL
 * cluster), about a tenth of npm test's CPU: the `workspace-processes` batch runs them, in test:all
 * beside test/system/ (scripts/test.sh leaves it out; scripts/test-all.sh runs it after CI's npm test).
 */
export const WORKSPACE_PROCESS_TESTS = [
  'src/contract/dist/test/package.test.js',
  'scripts/postgres/dist/test/throwaway-cluster.test.js',
];

const NAME = /^(?<folder>[a-z-]+?)(?:-(?<part>\d+)-of-(?<parts>\d+))?\.test\.js$/;

/** The test files (absolute paths) that the batch at `entry` runs. */
export function filesOf(entry: string): string[] {
  const match = NAME.exec(basename(entry));
  if (match === null)
    throw new Error(`${basename(entry)} is not named <folder>.test.js or <folder>-<part>-of-<parts>.test.js`);
  const { folder, part = '1', parts = '1' } = match.groups!;
  if (folder === 'workspace-processes') return WORKSPACE_PROCESS_TESTS.map((file) => join(PROJECT_ROOT, file));
  // The workspaces' module tests share the modules batch: a process of their own cost more to
  // start than their tests take.
  const dirs = [
    join(dirname(entry), '..', folder!),
    ...(folder === 'modules' ? WORKSPACE_TESTS.map((dir) => join(PROJECT_ROOT, dir)) : []),
  ];
  const files = dirs.flatMap((dir) =>
    readdirSync(dir)
      .filter((name) => name.endsWith('.test.js'))
      .sort()
      .map((name) => join(dir, name)),
  );
  const inProcess = files.filter((file) => !WORKSPACE_PROCESS_TESTS.some((test) => file === join(PROJECT_ROOT, test)));
  return inProcess.filter((_name, index) => index % Number(parts) === Number(part) - 1);
}

/**
 * Imports the test files that the batch at `entry` runs, all of them before any of their tests
 * starts: a module loading meanwhile would hold the event loop for the timings a test measures.
 */
export function runBatch(entry: string): void {
  t.before(async () => {
    for (const file of filesOf(entry)) await import(pathToFileURL(file).href);
  });
}
