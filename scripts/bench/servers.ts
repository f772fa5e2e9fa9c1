// The server processes the benchmark measures: the service and the plain fastify baseline
// (scripts/bench/*-server.ts) spawned on 127.0.0.1, killed whatever ends the run, a signal included.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { STEP_LIMIT_MS, type BenchOptions } from './options.js';
import { threadsCpuSeconds } from './process-cpu.js';
import { seedPet } from './seed-pets.js';

const BASELINE = 'dist-test/scripts/bench/baseline-server.js';
const SERVICE = 'dist-test/scripts/bench/service-server.js';
const HAND_WRITTEN = 'dist-test/scripts/bench/hand-written-server.js';
const SERVERS = {
  service: SERVICE,
  baseline: BASELINE,
  // The service logging every request as npm start does (LOG_LEVEL=info), into a file.
  serviceLogged: SERVICE,
  // Counted on the get workload only (with --instructions): the baseline sending getPet's three
  // deprecation headers, so the table shows what they cost bare fastify.
  baselineWithHeaders: BASELINE,
  // serviceLogged also recording and serving its Prometheus metrics: npm start's defaults.
  serviceMetrics: SERVICE,
  // serviceLogged also exporting a span per request over OTLP/HTTP (protobuf) to a receiver in this process.
  serviceTraced: SERVICE,
  // Node's HTTP server alone, sending a rejection's bytes: the floor under a rejection's cost.
  bare: 'dist-test/scripts/bench/bare-server.js',
  // What a user would write by hand (issue 49): fastify, JSON schemas, a Map of pets, logger off; and the same with
  // `logger: true`.
  handWritten: HAND_WRITTEN,
  handWrittenLogged: HAND_WRITTEN,
  // serviceMetrics as a user runs it: `npm start` (dist/server.js, its defaults), logs into a file
  // (startAsUsers).
  npmStart: 'npm start',
  // What npm start runs, started directly: `node dist/server.js`, to tell what npm itself costs.
  serverJs: 'dist/server.js',
  // serviceMetrics without its request log (LOG_LEVEL=warn): metrics and fair share on.
  serviceQuiet: SERVICE,
  // The service with every optional part off: no request log, no metrics, no fair share.
  serviceBare: SERVICE,
} as const;
export type ServerName = keyof typeof SERVERS;
/** The two servers every table row compares. */
export type Compared = 'service' | 'baseline';

export interface Server {
  child: ChildProcess;
  /** The process whose threads are measured: the server's node, under npm for npmStart. */
  pid: number;
  port: number;
  rss: number;
}

type StartMode = {
  measureMemory?: boolean;
  callgrindDir?: string;
  env?: Record<string, string>;
  /** Options for the server's node (bench:profile's perf map). */
  nodeFlags?: readonly string[];
};

/** The servers of a run and how to start and stop them; `atExit` cleanups run whatever ends the run. */
export function createServers({ selfCheck }: BenchOptions) {
  const API_KEY = randomBytes(24).toString('base64url');
  const AUTH = { authorization: `Bearer ${API_KEY}` };
  // --self-check: the baseline in place of the service, so that every ratio shows the noise floor.
  const pathOf = (name: ServerName) =>
    selfCheck && (name === 'service' || name === 'serviceLogged') ? BASELINE : SERVERS[name];
  const REQUEST_LOG_FILE = join(mkdtempSync(join(tmpdir(), 'bench-log-')), 'requests.log');

  // Servers are killed, and the PostgreSQL cluster removed, whatever ends the run (a signal included),
  // so that none outlives it.
  const children = new Set<ChildProcess>();
  const atExit = new Set<() => void>();
  process.on('exit', () => {
    for (const child of children) child.kill('SIGKILL');
    for (const cleanup of atExit) cleanup();
    rmSync(dirname(REQUEST_LOG_FILE), { recursive: true, force: true });
  });
  for (const [signal, number] of [
    ['SIGINT', 2],
    ['SIGTERM', 15],
    ['SIGHUP', 1],
  ] as const) {
    process.once(signal, () => {
      console.error(`bench: ${signal}, stopping`);
      process.exit(128 + number);
    });
  }

  /**
   * With `measureMemory`, the server collects garbage before it reports its RSS; such a server is not
   * loaded (see docs/performance.md). With `callgrindDir`, it runs under valgrind's callgrind, which counts nothing
   * until told to (instructionsPerRequest) and writes its counts there.
   */
  function start(
    name: ServerName,
    pets: number,
    { measureMemory = false, callgrindDir, env = {}, nodeFlags = [] }: StartMode = {},
  ): Promise<Server> {
    if (name === 'npmStart' || name === 'serverJs')
      return startAsUsers({ API_KEY, AUTH, logFile: REQUEST_LOG_FILE, children }, pets, name === 'npmStart');
    const node = [process.execPath, ...(measureMemory ? ['--expose-gc'] : []), ...nodeFlags, pathOf(name)];
    const callgrind = [
      '--tool=callgrind',
      '--instr-atstart=no',
      '--smc-check=all-non-file',
      `--callgrind-out-file=${callgrindDir}/${name}.%p`,
    ];
    const [command, ...args] = callgrindDir === undefined ? node : ['valgrind', ...callgrind, ...node];
    // Under callgrind a server runs some fifty times slower, and more while it re-instruments its code
    // when counting starts: a database wait could pass the service's 2 s limit (DATABASE_TIMEOUT_MS)
    // and be given 503, which is how a smoke run once failed. The limit's value does not change
    // the instructions a request runs, only whether valgrind's slowness trips it.
    const underValgrind = callgrindDir === undefined ? {} : { DATABASE_TIMEOUT_MS: '120000' };
    const child = spawn(command!, args, {
      env: {
        ...process.env,
        API_KEY,
        SEED_PETS: String(pets),
        ...(name === 'baselineWithHeaders' ? { DEPRECATION_HEADERS: '1' } : {}),
        ...(name === 'serviceLogged' || name === 'serviceMetrics' || name === 'serviceTraced'
          ? { REQUEST_LOG: REQUEST_LOG_FILE }
          : {}),
        ...(name === 'serviceMetrics' || name === 'serviceQuiet' ? { METRICS: '1' } : {}),
        ...(name === 'serviceBare' ? { FAIR_SHARE: 'off' } : {}),
        ...(name === 'handWrittenLogged' ? { HAND_WRITTEN_LOGGER: REQUEST_LOG_FILE } : {}),
        ...underValgrind,
        ...env,
      },
      stdio: ['ignore', 'pipe', callgrindDir === undefined ? 'inherit' : 'ignore'],
    });
    children.add(child);
    child.once('exit', () => children.delete(child));
    return new Promise((resolve, reject) => {
      let output = '';
      const exitedEarly = (code: number | null) => {
        clearTimeout(limit);
        reject(new Error(`${name} server exited with ${code} before it was ready`));
      };
      const limit = setTimeout(() => {
        child.off('exit', exitedEarly);
        child.kill('SIGKILL');
        reject(
          new Error(
            `${name} server${callgrindDir === undefined ? '' : ' (under valgrind)'} was not ready after ${STEP_LIMIT_MS / 1000} s`,
          ),
        );
      }, STEP_LIMIT_MS);
      child.once('exit', exitedEarly);
      child.once('error', (error) =>
        reject(
          new Error(`${command}: ${error.message}${command === 'valgrind' ? ' (apt-get install -y valgrind)' : ''}`),
        ),
      );
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        const line = output.split('\n').find((candidate) => candidate.startsWith('{'));
        if (line !== undefined && output.includes('\n')) {
          const { port, rss } = JSON.parse(line) as { port: number; rss: number };
          clearTimeout(limit);
          child.off('exit', exitedEarly);
          resolve({ child, pid: child.pid!, port, rss });
        }
      });
    });
  }

  /** Milliseconds from spawn to the first successful response. */
  async function startupTime(name: ServerName): Promise<number> {
    const started = performance.now();
    const server = await start(name, 0);
    for (;;) {
      const response = await fetch(`http://127.0.0.1:${server.port}/v1/pets`, {
        headers: AUTH,
        signal: AbortSignal.timeout(STEP_LIMIT_MS),
      }).catch(() => undefined);
      if (response?.status === 200) break;
      if (performance.now() - started > STEP_LIMIT_MS) {
        await stop(server);
        throw new Error(
          `${name} server: no 200 for GET /v1/pets within ${STEP_LIMIT_MS / 1000} s (last: ${response?.status ?? 'no answer'})`,
        );
      }
    }
    const elapsed = performance.now() - started;
    await stop(server);
    return elapsed;
  }

  return { API_KEY, AUTH, atExit, start, startupTime };
}

export type Servers = ReturnType<typeof createServers>;

/**
 * Takes what a traced service exports and responds as an OTLP/HTTP receiver does (200, an empty
 * response message), so that the export's cost stays in the service process, where it is measured.
 * Its endpoint, as OTEL_EXPORTER_OTLP_ENDPOINT takes it.
 */
export async function startOtlpSink(): Promise<{ endpoint: string; sink: HttpServer }> {
  const sink = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  return { endpoint: `http://127.0.0.1:${(sink.address() as AddressInfo).port}`, sink };
}

export async function stop(server: Server): Promise<void> {
  // A server that has already exited would never emit 'exit' again.
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  killGroup(server.child);
  await exited;
}

/**
 * `npm start` in the project, as the README runs it, with the bench's key, a free port, and its output (the request
 * log) into a file; the pets are created through the API, the same ones seedPets stores. npm stays the parent of the
 * server's node (`exec node dist/server.js`): both are killed as one process group.
 */
async function startAsUsers(
  {
    API_KEY,
    AUTH,
    logFile,
    children,
  }: { API_KEY: string; AUTH: Record<string, string>; logFile: string; children: Set<ChildProcess> },
  pets: number,
  throughNpm: boolean,
): Promise<Server> {
  const port = await freePort();
  const output = openSync(logFile, 'a');
  const [command, ...args] = throughNpm ? ['npm', 'start'] : [process.execPath, 'dist/server.js'];
  const child = spawn(command!, args, {
    env: { ...defaultsOnly(process.env), API_KEYS: API_KEY, PORT: String(port), METRICS_PORT: '0' },
    stdio: ['ignore', output, 'inherit'],
    detached: true,
  });
  closeSync(output);
  children.add(child);
  child.once('exit', () => children.delete(child));
  const started = performance.now();
  for (;;) {
    const response = await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => undefined);
    if (response?.status === 200) break;
    if (child.exitCode !== null || performance.now() - started > STEP_LIMIT_MS) {
      killGroup(child);
      throw new Error(`${args.join(' ')}: not ready within ${STEP_LIMIT_MS / 1000} s (see ${logFile})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await createPets(`http://127.0.0.1:${port}`, AUTH, pets);
  const [node] = throughNpm
    ? readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(' ')
    : [child.pid];
  return { child, pid: Number(node), port, rss: 0 };
}

/** The environment without the settings that would change what `npm start` runs: its defaults are measured. */
function defaultsOnly(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const settings = /^(DATABASE_|API_KEYS|WEBHOOKS_|OTEL_|LOG_LEVEL$|FAIR_SHARE$|METRICS_PORT$|HOST$|PORT$)/;
  return Object.fromEntries(Object.entries(env).filter(([name]) => !settings.test(name)));
}

/** Kills a server, and with it the process group it leads when it was started detached (npm and its node). */
function killGroup(child: ChildProcess): void {
  if (child.spawnargs[0] !== 'npm') child.kill('SIGKILL');
  else if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
}

/** A port free on 127.0.0.1 now, for a server that must be told its port. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** The pets seedPets stores (scripts/bench/seed-pets.ts), created one request at a time in the same order. */
async function createPets(base: string, auth: Record<string, string>, count: number): Promise<void> {
  for (let index = 0; index < count; index++) {
    const response = await fetch(`${base}/v1/pets`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(seedPet(index)),
    });
    if (response.status !== 201) throw new Error(`creating pet ${index + 1} answered ${response.status}`);
    await response.arrayBuffer();
  }
}

/** User plus system CPU time the server's threads have used, in seconds, to the nanosecond. */
export function cpuSeconds(pid: number): number {
  const seconds = threadsCpuSeconds(pid);
  if (seconds === undefined) throw new Error(`server ${pid} exited while measured`);
  return seconds;
}

/**
 * The state of each thread of process `pid` (R running, S sleeping, T stopped, …), to tell a stuck process from a slow
 * one.
 */
export function threadStates(pid: number): string {
  try {
    const counts = new Map<string, number>();
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      // The state is the field after the command name, which is in parentheses and may hold spaces.
      const state = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8').replace(/^.*\) /s, '')[0] ?? '?';
      counts.set(state, (counts.get(state) ?? 0) + 1);
    }
    return [...counts].map(([state, count]) => `${count} ${state}`).join(', ');
  } catch {
    return 'exited';
  }
}
