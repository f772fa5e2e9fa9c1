// API_KEYS_FILE as operators use it, on the built server as a process: rotation by SIGHUP and by a
// change to the file under load (no request fails, same process), an unusable file at start and at
// reload, the keys' metrics, and `npm run key`'s output used as written.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { freePort } from 'throwaway-postgres';
import { PROJECT_ROOT } from '../../src/project-root.js';
import { spawnServer, startServer, type Running } from '../helpers/server-process.js';

const OLD = 'old-key-0123456789abcdefghijklmn';
const NEW = 'new-key-0123456789abcdefghijklmn';
const digest = (key: string) => createHash('sha256').update(key).digest('hex');
const keysFile = (...entries: string[]) => `keys:\n${entries.join('')}`;
const entry = (client: string, key: string, more = '') => `  - client: ${client}\n    sha256: ${digest(key)}\n${more}`;

t.setTimeout(180_000);

/** Ctrl-C, as a user stops it: the process exits on its own, and its coverage is written. */
async function stop(server: Pick<Running, 'child' | 'exited'>): Promise<void> {
  server.child.kill('SIGINT');
  await server.exited;
}

async function status(port: number, key: string, method = 'GET'): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}/v1/pets`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(method === 'POST' ? { body: '{"name":"Rex","categoryId":1}' } : {}),
  });
  await response.arrayBuffer();
  return response.status;
}

async function until(what: string, check: () => Promise<boolean>, limitMs: number): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > limitMs) throw new Error(`${what}: not within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return performance.now() - started;
}

t.test(
  'rotation under load: a new key added by SIGHUP, the old one removed by a file change; no request fails',
  async (t) => {
    const file = join(t.testdir(), 'keys.yaml');
    writeFileSync(file, keysFile(entry('app', OLD)));
    const server = await startServer({ API_KEYS_FILE: file, LOG_LEVEL: 'info' });
    t.teardown(() => stop(server));
    const pid = server.child.pid;
    t.equal(await status(server.port, NEW), 401, 'the new key is not yet valid');

    let key = OLD;
    let running = true;
    const responses = new Map<number, number>();
    const caller = async () => {
      while (running) {
        const response = await status(server.port, key);
        responses.set(response, (responses.get(response) ?? 0) + 1);
      }
    };
    const callers = Array.from({ length: 4 }, caller);
    // Each step waits for the callers to be served 40 more times, so that every step happens under
    // load however fast this machine reads the file (a slower one served 89 in all, once).
    const responded = () => [...responses.values()].reduce((sum, count) => sum + count, 0);
    const moreResponses = (count: number) => {
      const target = responded() + count;
      return until(`${count} more answers`, async () => responded() >= target, 30_000);
    };
    await moreResponses(40);

    // 1. The new key beside the old one, under the same client; SIGHUP.
    writeFileSync(file, keysFile(entry('app', OLD), entry('app', NEW)));
    server.child.kill('SIGHUP');
    await until('the new key works after SIGHUP', async () => (await status(server.port, NEW)) === 200, 5_000);
    // 2. The caller moves to it; what was in flight with the old key ends first.
    key = NEW;
    await moreResponses(40);
    // 3. The old key removed, with no signal: the file's change is enough.
    writeFileSync(file, keysFile(entry('app', NEW)));
    const tookMs = await until(
      'the old key refused after the file changed',
      async () => (await status(server.port, OLD)) === 401,
      5_000,
    );
    t.ok(tookMs < 5_000, `the change was read within 5 s (${Math.round(tookMs)} ms)`);
    await moreResponses(40);
    running = false;
    await Promise.all(callers);

    t.same(
      [...responses.keys()],
      [200],
      `every request of the callers was answered 200 (${[...responses.values()][0]} requests)`,
    );
    t.equal(server.child.exitCode, null, 'the same process serves on');
    t.equal(server.child.pid, pid);
    // The log is written in blocks (src/logging/log-destination.ts): its last lines may come a little later.
    await until('the last reload logged', async () => /read again: 1 keys in use/.test(server.output()), 5_000);
    t.match(server.output(), /API_KEYS_FILE .* read again: 2 keys in use/);
    t.match(server.output(), /API_KEYS_FILE .* read again: 1 keys in use/);
    t.notMatch(server.output(), OLD, 'keys never reach the log');
    t.notMatch(server.output(), NEW);
  },
);

t.test('an unusable file stops start-up with its line and reason, never the key', async (t) => {
  const file = join(t.testdir(), 'keys.yaml');
  writeFileSync(file, `keys:\n  - client: app\n    key: ${OLD}\n  - client: other\n    key: ${OLD}\n`);
  const server = spawnServer({ API_KEYS_FILE: file });
  t.equal(await server.exited, 1);
  t.match(
    server.output(),
    new RegExp(
      `petstore: cannot start: API_KEYS_FILE ${file} line 4: entry 2: the same key as an earlier entry \\(client app\\)`,
    ),
  );
  t.notMatch(server.output(), OLD);
  const missing = spawnServer({ API_KEYS_FILE: join(file, 'missing.yaml') });
  t.equal(await missing.exited, 1);
  t.match(missing.output(), /petstore: cannot start: API_KEYS_FILE .*missing\.yaml: cannot be read \(ENOTDIR\)/);
  const both = spawnServer({ API_KEYS_FILE: file, API_KEYS: OLD });
  t.equal(await both.exited, 1);
  t.match(both.output(), /API_KEYS and API_KEYS_FILE are both set/);
});

t.test('an unusable file at reload keeps the keys in use, says why, and shows in the metrics', async (t) => {
  const file = join(t.testdir(), 'keys.yaml');
  const soon = new Date(Date.now() + 3 * 24 * 3600 * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
  writeFileSync(file, keysFile(entry('app', OLD), entry('soon', NEW, `    expires: ${soon}\n`)));
  const metricsPort = await freePort();
  const server = await startServer({ API_KEYS_FILE: file, METRICS_PORT: String(metricsPort), LOG_LEVEL: 'info' });
  t.teardown(() => stop(server));
  const metrics = async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  t.match(
    await metrics(),
    /^petstore_api_keys_expiring\{client="soon"\} 1$/m,
    'the client whose key expires within 14 days, by name',
  );
  t.notMatch(await metrics(), /petstore_api_keys_expiring\{client="app"\}/);
  t.match(await metrics(), /^petstore_api_keys_file_unusable 0$/m);

  writeFileSync(file, keysFile(entry('app', OLD), '  - client: bad\n    sha256: nothex\n'));
  server.child.kill('SIGHUP');
  await until(
    'the reload failure logged',
    async () =>
      /line 5: entry 2: sha256 must be 64 lower-case hex digits; the keys in use are kept/.test(server.output()),
    5_000,
  );
  t.equal(await status(server.port, OLD), 200, 'the keys in use still serve');
  t.equal(await status(server.port, NEW), 200);
  t.match(await metrics(), /^petstore_api_keys_file_unusable 1$/m);
  t.match(await metrics(), /^petstore_api_keys_reloads_total\{result="failed"\} [1-9]/m);

  writeFileSync(file, keysFile(entry('app', OLD)));
  await until('the fixed file read', async () => (await status(server.port, NEW)) === 401, 5_000);
  t.match(await metrics(), /^petstore_api_keys_file_unusable 0$/m);
  t.match(await metrics(), /^petstore_api_keys_reloads_total\{result="ok"\} [1-9]/m);
  t.equal(server.child.exitCode, null);
});

t.test('SIGHUP with API_KEYS: nothing to reload, and the process goes on', async (t) => {
  const server = await startServer({ API_KEYS: OLD, LOG_LEVEL: 'info' });
  t.teardown(() => stop(server));
  server.child.kill('SIGHUP');
  await until(
    'the SIGHUP logged',
    async () => /nothing to reload: the keys come from API_KEYS/.test(server.output()),
    5_000,
  );
  t.equal(await status(server.port, OLD), 200);
});

t.test("npm run key's output, used as written: the key works with its roles, and the entry holds no key", async (t) => {
  const { stdout } = await promisify(execFile)(
    'npm',
    ['run', '-s', 'key', '--', '--client', 'reporting', '--roles', 'pets:read', '--expires', '2099-01-31'],
    { cwd: PROJECT_ROOT },
  );
  const key = /^ {2}([A-Za-z0-9_-]{43})$/m.exec(stdout)?.[1];
  t.ok(key, 'a key of 32 random bytes, base64url');
  const entryText = stdout.slice(stdout.indexOf('  - client:'));
  t.notMatch(entryText, key!, 'the entry does not hold the key');
  t.match(entryText, new RegExp(`sha256: ${digest(key!)}`));
  const file = join(t.testdir(), 'keys.yaml');
  writeFileSync(file, `keys:\n${entryText}`);
  const server = await startServer({ API_KEYS_FILE: file });
  t.teardown(() => stop(server));
  t.equal(await status(server.port, key!), 200, 'it lists');
  t.equal(await status(server.port, key!, 'POST'), 403, 'and lacks pets:write');
  const again = await promisify(execFile)('npm', ['run', '-s', 'key', '--', '--client', 'reporting'], {
    cwd: PROJECT_ROOT,
  });
  t.not(/^ {2}([A-Za-z0-9_-]{43})$/m.exec(again.stdout)?.[1], key, 'each run makes a new key');
});
