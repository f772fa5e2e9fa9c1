// A copy of the project to change, and npm run dev (scripts/dev.ts) driven in it, for test/system/.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { PROJECT_ROOT } from '../../src/project-root.js';

// The compiled watcher beside this compiled helper (dist-test/).
const DEV = fileURLToPath(new URL('../../scripts/dev.js', import.meta.url));
// Each step waits for a rebuild: generate (~2 s) and tsc (~1 s) on 2 cores, more under coverage.
const STEP_MS = 120_000;

/**
 * A copy of what npm run dev reads (and of `more` entries), with the project's node_modules linked in; removed on
 * teardown.
 */
/** Where each workspace of package.json lives, by its package name. */
const WORKSPACES: Record<string, string> = Object.fromEntries(
  (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces.map(
    (folder) => [
      (JSON.parse(readFileSync(join(PROJECT_ROOT, folder, 'package.json'), 'utf8')) as { name: string }).name,
      folder,
    ],
  ),
);

export function copyProject(t: Test, more: readonly string[] = []): string {
  const copy = mkdtempSync(join(tmpdir(), 'petstore-dev-'));
  for (const entry of [
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'tsconfig.build.json',
    'openapi.yaml',
    'src',
    'generated',
    'scripts',
    ...more,
  ]) {
    cpSync(join(PROJECT_ROOT, entry), join(copy, entry), { recursive: true });
  }
  // The installed packages are the project's, linked one by one, but for the workspaces (the
  // client, the contract engine), which are the copy's own: a change to the spec reaches them.
  const modules = join(copy, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(join(PROJECT_ROOT, 'node_modules'))) {
    const workspace = WORKSPACES[name];
    symlinkSync(
      workspace === undefined ? join(PROJECT_ROOT, 'node_modules', name) : join(copy, workspace),
      join(modules, name),
    );
  }
  t.teardown(() => rmSync(copy, { recursive: true, force: true }));
  return copy;
}

export interface Dev {
  child: ChildProcess;
  /** Resolves once `pattern` has appeared `times` times in what the watcher printed. */
  printed(pattern: RegExp, times?: number): Promise<void>;
  /** How many times `pattern` has appeared so far. */
  count(pattern: RegExp): number;
  /** The pid of the service the watcher started last, if it started one. */
  servicePid(): number | undefined;
  /** Stops the watcher (Ctrl-C), and then its service should it outlive it. */
  stop(): Promise<void>;
  exited: Promise<number | null>;
}

/** npm run dev (the compiled scripts/dev.ts) in `cwd`, serving on `port`; stopped on teardown. */
export function startDev(t: Test, cwd: string, port: number): Dev {
  const child = spawn(process.execPath, [DEV], {
    cwd,
    env: { ...process.env, PORT: String(port), METRICS_PORT: 'off', LOG_LEVEL: 'warn' },
  });
  let output = '';
  const waiting = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    for (const check of waiting) check();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const count = (pattern: RegExp) => (output.match(new RegExp(pattern.source, 'g')) ?? []).length;
  const servicePid = () => {
    const pid = [...output.matchAll(/serving the new build \(pid (\d+)\)/g)].at(-1)?.[1];
    return pid === undefined ? undefined : Number(pid);
  };
  // A service that outlived its watcher would hold this test's pipes open, and the test with them.
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGINT');
    const code = await Promise.race([
      exited,
      new Promise((resolve) => setTimeout(() => resolve('still running'), 5_000)),
    ]);
    if (code === 0) return;
    child.kill('SIGKILL');
    const pid = servicePid();
    try {
      if (pid !== undefined) process.kill(pid, 'SIGKILL');
    } catch {
      // It had exited after all.
    }
    child.stdout!.destroy();
    child.stderr!.destroy();
  };
  const printed = (pattern: RegExp, times = 1) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`npm run dev did not print ${pattern} ${times} times within ${STEP_MS} ms:\n${output}`)),
        STEP_MS,
      );
      const check = () => {
        if (count(pattern) < times) return;
        clearTimeout(timer);
        waiting.delete(check);
        resolve();
      };
      waiting.add(check);
      check();
    });
  t.teardown(stop);
  return { child, printed, count, servicePid, stop, exited };
}

/** The status of GET `path` once the service responds at all (it restarts between steps). */
export async function statusOf(port: number, path: string, key: string): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    try {
      return (await fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${key}` } })).status;
    } catch (error) {
      if (attempt === 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export const SERVING = /dev: serving the new build/;
/** Runs `change`, then waits for the rebuild it causes to serve (counted, so a rebuild before it cannot pass). */
export async function servedAfter(dev: Dev, change: () => void): Promise<void> {
  const before = dev.count(SERVING);
  change();
  await dev.printed(SERVING, before + 1);
}
export const BUILD_FAILED = /dev: the build failed \(above\); the last good build keeps serving/;

/** openapi.yaml with a new optional query parameter on listPets, `sort` (`asc` only). */
export function withSortParameter(spec: string): string {
  const limitParameter = '      parameters:\n        - name: limit\n';
  if (!spec.includes(limitParameter))
    throw new Error("listPets' parameters no longer start with limit: adjust this edit");
  return spec.replace(
    limitParameter,
    `      parameters:\n        - name: sort\n          in: query\n          required: false\n          description: The order.\n          schema:\n            type: string\n            enum: [asc]\n        - name: limit\n`,
  );
}
