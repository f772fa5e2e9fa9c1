// Runs src/server.ts as a real process, for tests of the entry point itself.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { stringify } from 'yaml';
import { unnamedClientOf, type ClientKey } from '../../src/auth/api-clients.js';
import { roleNamesOf } from '../../src/auth/roles.js';
import { loadSpec } from '../../src/openapi/openapi-spec.js';

// The compiled entry point beside this compiled helper (dist-test/, tsconfig.json).
const SERVER = fileURLToPath(new URL('../../src/server.js', import.meta.url));

export interface Running {
  child: ChildProcess;
  output: () => string;
  port: number;
  exited: Promise<number | null>;
}

/**
 * Starts the server with `env` over a clean environment (and `nodeArgs` for node), and resolves once
 * it listens; `entry` is another build's server (a copy of the project's `dist/server.js`).
 */
export function startServer(
  env: Record<string, string>,
  cwd = process.cwd(),
  nodeArgs: readonly string[] = [],
  entry = SERVER,
): Promise<Running> {
  const { child, output, exited } = spawnServer(env, cwd, nodeArgs, entry);
  return new Promise((resolve, reject) => {
    const onData = () => {
      const port = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output())?.[1];
      if (port !== undefined) resolve({ child, output, port: Number(port), exited });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    exited.then((code) => reject(new Error(`exited with ${code}: ${output()}`)));
  });
}

/**
 * A server started as startServer does, killed on the test's teardown, once `/health/ready` says 200
 * (with DATABASE_URL, the port opens once the schema is current; readiness also asks the database).
 */
export async function startReadyServer(t: Test, env: Record<string, string>): Promise<Running> {
  const server = await startServer(env);
  t.teardown(() => {
    server.child.kill('SIGKILL');
    return server.exited;
  });
  for (let tries = 0; tries < 100; tries++) {
    if (
      (await fetch(`http://127.0.0.1:${server.port}/health/ready`).then(
        (response) => response.status,
        () => 0,
      )) === 200
    )
      return server;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`instance never became ready: ${server.output()}`);
}

/** The server process as startServer starts it, without waiting for it to listen. */
export function spawnServer(
  env: Record<string, string>,
  cwd = process.cwd(),
  nodeArgs: readonly string[] = [],
  entry = SERVER,
): Omit<Running, 'port'> {
  // The compiled server as npm start runs it, with none of this test's flags; tap's process-info hook
  // follows it into the child all the same, and what the child runs counts towards the coverage.
  const child = spawn(process.execPath, [...nodeArgs, entry], {
    cwd,
    // Metrics off unless a test asks for them: test files run side by side, and would share a default port.
    // No drain unless a test asks for one: most tests stop the server and want it gone.
    env: { ...withoutServiceSettings(process.env), PORT: '0', METRICS_PORT: 'off', SHUTDOWN_DRAIN_MS: '0', ...env },
  });
  let output = '';
  const record = (chunk: Buffer) => void (output += chunk);
  child.stdout!.on('data', record);
  child.stderr!.on('data', record);
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { child, output: () => output, exited };
}

function withoutServiceSettings(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const {
    API_KEYS: _keys,
    API_KEYS_FILE: _file,
    HOST: _host,
    PORT: _port,
    LOG_LEVEL: _level,
    DATABASE_URL: _url,
    DATABASE_POOL_MAX: _max,
    DATABASE_TIMEOUT_MS: _timeout,
    IDEMPOTENCY_RETENTION_HOURS: _retention,
    METRICS_PORT: _metrics,
    SHUTDOWN_DRAIN_MS: _drain,
    ...rest
  } = env;
  return Object.fromEntries(Object.entries(rest).filter(([name]) => !name.startsWith('OTEL_')));
}

/** Every role openapi.yaml names, the operator's included. */
export const ALL_ROLES = roleNamesOf(loadSpec());

/**
 * The environment of a server whose keys are `entries` (API_KEYS_FILE, in a directory removed on the
 * test's teardown): API_KEYS gives a key only the spec's default roles. A bare key holds every role.
 */
export function keysFileEnv(t: Test, entries: readonly (string | ClientKey)[]): { API_KEYS_FILE: string } {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-keys-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'keys.yaml');
  const keys = entries.map((entry) =>
    typeof entry === 'string' ? { client: unnamedClientOf(entry), key: entry, roles: [...ALL_ROLES] } : entry,
  );
  writeFileSync(file, stringify({ keys }));
  return { API_KEYS_FILE: file };
}

/**
 * An instance on the PostgreSQL database `url` for races between instances (lost updates, orders):
 * its pool about the writers per instance, so that they meet on the rows, not on the pool; a wait
 * long enough for a busy machine; fair share off; info logs, since startServer waits for "Server
 * listening".
 */
export const startRacingInstance = (
  t: Test,
  url: string,
  keys: string | readonly (string | ClientKey)[] | { API_KEYS_FILE: string },
  env: Record<string, string> = {},
): Promise<Running> =>
  startReadyServer(t, {
    ...env,
    ...(typeof keys === 'string' || Array.isArray(keys)
      ? keysFileEnv(t, typeof keys === 'string' ? [keys] : (keys as (string | ClientKey)[]))
      : (keys as { API_KEYS_FILE: string })),
    DATABASE_URL: url,
    DATABASE_POOL_MAX: '8',
    DATABASE_TIMEOUT_MS: '10000',
    FAIR_SHARE: 'off',
    LOG_LEVEL: 'info',
  });
