// npm run dev as a maintainer uses it, in a copy of the project: the service comes up with a key kept
// in .api-key; a spec edit (a new optional query parameter) is served after the rebuild; a handler
// that does not compile is reported while the last good build keeps serving, and the fix is served;
// a spec that does not parse is reported the same way; the key survives restarts of the watcher.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { PROJECT_ROOT } from '../../src/project-root.js';
import { freePort } from '../../scripts/postgres/throwaway-cluster.js';

const DEV = fileURLToPath(new URL('../../scripts/dev.js', import.meta.url));
// Each step waits for a rebuild: generate (~2 s) and tsc (~6 s) on 2 cores, more under coverage.
const STEP_MS = 120_000;
t.setTimeout(600_000);

function copyProject(): string {
  const copy = mkdtempSync(join(tmpdir(), 'petstore-dev-'));
  for (const entry of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'openapi.yaml', 'src', 'generated', 'scripts']) {
    cpSync(join(PROJECT_ROOT, entry), join(copy, entry), { recursive: true });
  }
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(copy, 'node_modules'));
  return copy;
}

interface Dev {
  child: ChildProcess;
  /** Resolves once `pattern` has appeared `times` times in what the watcher printed. */
  printed(pattern: RegExp, times?: number): Promise<void>;
  /** How many times `pattern` has appeared so far. */
  count(pattern: RegExp): number;
  /** The pid of the service the watcher started last. */
  servicePid(): number;
  exited: Promise<number | null>;
}

function startDev(cwd: string, port: number): Dev {
  const child = spawn(process.execPath, [DEV], { cwd, env: { ...process.env, PORT: String(port), METRICS_PORT: 'off', LOG_LEVEL: 'warn' } });
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
  const servicePid = () => Number([...output.matchAll(/serving the new build \(pid (\d+)\)/g)].at(-1)![1]);
  const printed = (pattern: RegExp, times = 1) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm run dev did not print ${pattern} ${times} times within ${STEP_MS} ms:\n${output}`)), STEP_MS);
      const check = () => {
        if (count(pattern) < times) return;
        clearTimeout(timer);
        waiting.delete(check);
        resolve();
      };
      waiting.add(check);
      check();
    });
  return { child, printed, count, servicePid, exited };
}

/** The status of GET `path` once the service answers at all (it restarts between steps). */
async function statusOf(port: number, path: string, key: string): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    try {
      return (await fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${key}` } })).status;
    } catch (error) {
      if (attempt === 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

const SERVING = /dev: serving the new build/;
/** Runs `change`, then waits for the rebuild it causes to serve (counted, so a rebuild before it cannot pass). */
async function servedAfter(dev: Dev, change: () => void): Promise<void> {
  const before = dev.count(SERVING);
  change();
  await dev.printed(SERVING, before + 1);
}
const BUILD_FAILED = /dev: the build failed \(above\); the last good build keeps serving/;

t.test('npm run dev regenerates, type-checks and restarts on every change, and never dies on an error', async (t) => {
  const copy = copyProject();
  t.teardown(() => rmSync(copy, { recursive: true, force: true }));
  const port = await freePort();
  const dev = startDev(copy, port);
  t.teardown(() => dev.child.kill('SIGKILL'));

  await dev.printed(SERVING);
  const key = readFileSync(join(copy, '.api-key'), 'utf8').trim();
  t.equal(statSync(join(copy, '.api-key')).mode & 0o777, 0o600, 'the key is written once, readable by its owner only');
  t.equal(await statusOf(port, '/v1/pets', key), 200, 'the service serves with the key in .api-key');
  t.equal(await statusOf(port, '/v1/pets?sort=asc', key), 400, 'before the edit, an unknown query parameter is refused');

  // A new optional query parameter, as an editor saves it.
  const spec = readFileSync(join(copy, 'openapi.yaml'), 'utf8');
  const limitParameter = '      parameters:\n        - name: limit\n';
  t.ok(spec.includes(limitParameter), "listPets' parameters start with limit");
  const edited = spec.replace(limitParameter, `      parameters:\n        - name: sort\n          in: query\n          required: false\n          description: The order.\n          schema:\n            type: string\n            enum: [asc]\n        - name: limit\n`);
  await servedAfter(dev, () => writeFileSync(join(copy, 'openapi.yaml'), edited));
  t.equal(await statusOf(port, '/v1/pets?sort=asc', key), 200, 'the new parameter is served after the rebuild');
  t.equal(await statusOf(port, '/v1/pets?sort=desc', key), 400, 'and validated against its schema');
  t.match(readFileSync(join(copy, 'generated', 'openapi.d.ts'), 'utf8'), /sort\?: "asc"/, 'generated/ was regenerated from the edit');
  t.equal(readFileSync(join(copy, '.api-key'), 'utf8').trim(), key, 'the key is the same after the restart');

  // A handler that does not compile: reported, and the last good build keeps serving.
  const handler = join(copy, 'src', 'handlers', 'get-pet.ts');
  const source = readFileSync(handler, 'utf8');
  writeFileSync(handler, source.replace('return pet;', 'return { ...pet, name: 42 };'));
  await dev.printed(BUILD_FAILED);
  await dev.printed(/get-pet\.ts\(\d+,\d+\): error TS2322/);
  t.equal(await statusOf(port, '/v1/pets?sort=asc', key), 200, 'the last good build still serves');
  await servedAfter(dev, () => writeFileSync(handler, source));
  t.equal(await statusOf(port, '/v1/pets/1', key), 404, 'the fixed build serves');

  // A folder added and removed under src/ is watched, then let go, without an error.
  await servedAfter(dev, () => mkdirSync(join(copy, 'src', 'scratch')));
  await servedAfter(dev, () => rmdirSync(join(copy, 'src', 'scratch')));

  // A spec that does not parse: the parser's message, and the service goes on.
  writeFileSync(join(copy, 'openapi.yaml'), `${edited}  : not yaml: [\n`);
  await dev.printed(/generate: .*openapi\.yaml/);
  await dev.printed(/dev: openapi\.yaml did not generate \(above\); the last good build keeps serving/);
  t.equal(await statusOf(port, '/v1/pets?sort=asc', key), 200, 'the last good build still serves');
  // Two saves during one rebuild make one more rebuild after it, which serves the last of them.
  const before = dev.count(SERVING);
  writeFileSync(join(copy, 'openapi.yaml'), spec);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  writeFileSync(join(copy, 'openapi.yaml'), edited);
  await dev.printed(SERVING, before + 2);
  t.equal(await statusOf(port, '/v1/pets?sort=asc', key), 200, 'the last save is what is served');

  // The service dies under it: the watcher says so, and the next save starts it again.
  process.kill(dev.servicePid(), 'SIGKILL');
  await dev.printed(/dev: the service exited \(SIGKILL\); fix the cause and save a file to start it again/);
  await servedAfter(dev, () => writeFileSync(handler, source));
  t.equal(await statusOf(port, '/v1/pets', key), 200, 'a save starts it again');

  dev.child.kill('SIGINT');
  t.equal(await dev.exited, 0, 'Ctrl-C stops the watcher');
  await t.rejects(fetch(`http://127.0.0.1:${port}/health/live`), 'and the service with it');

  // Started again with its port taken: the service exits, the watcher says so and goes on.
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
  t.teardown(() => blocker.close());
  const again = startDev(copy, port);
  t.teardown(() => again.child.kill('SIGKILL'));
  await again.printed(/dev: the service exited \(1\); fix the cause and save a file to start it again/);
  t.equal(readFileSync(join(copy, '.api-key'), 'utf8').trim(), key, 'the key is kept across runs of the watcher');
  writeFileSync(handler, source.replace('return pet;', 'return { ...pet, name: 42 };'));
  await again.printed(/dev: the build failed \(above\); no service is running/);
  writeFileSync(join(copy, 'openapi.yaml'), `${edited}  : not yaml: [\n`);
  await again.printed(/dev: openapi\.yaml did not generate \(above\); no service is running/);
  again.child.kill('SIGTERM');
  t.equal(await again.exited, 0, 'SIGTERM stops the watcher too');
});
