// The benchmark: the service against a plain fastify baseline (scripts/bench/), both as separate
// processes on 127.0.0.1, loaded in turn by autocannon over several rounds so that machine noise
// hits both alike. Prints a markdown report; --write-docs also writes it, with a short summary
// table, into docs/performance.md.
//   npm run bench                       (full run, about 11 minutes on 2 cores; 25 with --instructions)
//   npm run bench -- --sizes 1000 --rounds 1 --duration 1
//   npm run bench -- --self-check        (baseline against baseline: the noise floor)
//   npm run bench -- --instructions      (also instructions per request, counted by valgrind: no noise)
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import autocannon from 'autocannon';
import { encodeCursor } from '../src/pagination/cursor.js';
import { startBenchDatabase, type BenchDatabase } from './bench/postgres-database.js';
import { processCpu } from './bench/process-cpu.js';
import { whyNoPostgresBinaries } from './postgres/throwaway-cluster.js';
import { DEFAULT_CREATE_BATCH_MAX } from '../src/store/postgres/postgres-pet-store.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,100000,1000000' },
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '4' },
    connections: { type: 'string', default: '10' },
    'startup-rounds': { type: 'string', default: '5' },
    'write-docs': { type: 'boolean', default: false },
    // Runs the baseline against a second baseline in place of the service: the ratios then show the noise floor.
    'self-check': { type: 'boolean', default: false },
    // Also counts the instructions each server executes per request under valgrind (callgrind): this
    // many requests, after WARM_UP_FACTOR times as many to warm up, in this many fresh processes.
    instructions: { type: 'boolean', default: false },
    'instruction-requests': { type: 'string', default: '1000' },
    'instruction-rounds': { type: 'string', default: '3' },
    // With --instructions, count only the workloads whose name contains one of these (comma-separated):
    // every server under valgrind pays each counted workload's warm-up, so a smoke run counts one.
    'instruction-workloads': { type: 'string' },
    // Only the workloads whose name contains one of these (comma-separated): to see one change's cost quickly.
    workloads: { type: 'string' },
    // Which stores to measure: the in-memory store (every table) and PostgreSQL (its own table, on a
    // throwaway cluster from Debian's server binaries; left out, with the reason, when there are none).
    stores: { type: 'string', default: 'memory,postgres' },
  },
});
if (values['self-check'] && values['write-docs']) {
  console.error('bench: --self-check measures noise, not the service; it does not write docs/performance.md');
  process.exit(2);
}
const sizes = values.sizes.split(',').map(Number);
const rounds = Number(values.rounds);
const duration = Number(values.duration);
const connections = Number(values.connections);
const startupRounds = Number(values['startup-rounds']);
// autocannon checks whether a run is over on its sampling tick (a second by default), so no run
// lasted under a second: a smoke run's 140 loads and the instruction counts' warm-ups spent over
// three minutes waiting on it. Only the per-tick statistics, which nothing here reads, change.
const SAMPLE_INTERVAL_MS = 20;
const instructionRequests = Number(values['instruction-requests']);
const instructionRounds = Number(values['instruction-rounds']);
const stores = values.stores.split(',');
// Below ~16,000 requests V8 is still compiling the request path: counts after 2,000 were up to 4x the
// steady state, and most of it was the optimizing compiler's own work (docs/performance.md).
const WARM_UP_FACTOR = 16;
if (
  [...sizes, rounds, duration, connections, startupRounds, instructionRequests, instructionRounds].some((value) => !(value >= 0) || Number.isNaN(value)) ||
  rounds < 1 ||
  instructionRounds < 1 ||
  stores.length === 0 ||
  stores.some((store) => store !== 'memory' && store !== 'postgres')
) {
  console.error(
    'usage: npm run bench -- [--sizes 1000,100000] [--rounds 3] [--duration 3] [--connections 10] [--startup-rounds 5] [--instructions [--instruction-requests 1000] [--instruction-rounds 3] [--instruction-workloads get]] [--stores memory,postgres] [--self-check | --write-docs]',
  );
  process.exit(2);
}

const API_KEY = randomBytes(24).toString('base64url');
const AUTH = { authorization: `Bearer ${API_KEY}` };
const BASELINE = 'dist-bench/scripts/bench/baseline-server.js';
const SERVERS = {
  service: values['self-check'] ? BASELINE : 'dist-bench/scripts/bench/service-server.js',
  baseline: BASELINE,
  // The service logging every request as npm start does (LOG_LEVEL=info), into a file.
  serviceLogged: values['self-check'] ? BASELINE : 'dist-bench/scripts/bench/service-server.js',
  // Counted on the get workload only (with --instructions): the baseline sending getPet's three
  // deprecation headers, so the table shows what they cost bare fastify.
  baselineWithHeaders: BASELINE,
  // serviceLogged also recording and serving its Prometheus metrics: npm start's defaults.
  serviceMetrics: 'dist-bench/scripts/bench/service-server.js',
  // serviceLogged also exporting a span per request over OTLP/HTTP (protobuf) to a receiver in this process.
  serviceTraced: 'dist-bench/scripts/bench/service-server.js',
} as const;
type ServerName = keyof typeof SERVERS;
/** The two servers every table row compares. */
type Compared = 'service' | 'baseline';
const POSTGRES_SETTINGS = 'PostgreSQL defaults: fsync and synchronous_commit on, so a create is on disk before it is answered';
const REQUEST_LOG_FILE = join(mkdtempSync(join(tmpdir(), 'bench-log-')), 'requests.log');

interface Server {
  child: ChildProcess;
  pid: number;
  port: number;
  rss: number;
}

type StartMode = { measureMemory?: boolean; callgrindDir?: string; env?: Record<string, string> };

// Servers are killed, and the PostgreSQL cluster removed, whatever ends the run (a signal included),
// so that none outlives it.
const children = new Set<ChildProcess>();
const atExit = new Set<() => void>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  for (const cleanup of atExit) cleanup();
  rmSync(dirname(REQUEST_LOG_FILE), { recursive: true, force: true });
});
for (const [signal, number] of [['SIGINT', 2], ['SIGTERM', 15], ['SIGHUP', 1]] as const) {
  process.once(signal, () => {
    console.error(`bench: ${signal}, stopping`);
    process.exit(128 + number);
  });
}

// A step that waits on another process (a server starting, a request, callgrind_control) gives up
// after this long instead of waiting for ever: under valgrind a server takes ~20 s to start and a
// request well under one, so this is only reached by a process that is stuck.
const STEP_LIMIT_MS = 180_000;

/**
 * With `measureMemory`, the server collects garbage before it reports its RSS; such a server is not
 * loaded (see docs/performance.md). With `callgrindDir`, it runs under valgrind's callgrind, which counts nothing
 * until told to (instructionsPerRequest) and writes its counts there.
 */
function start(name: ServerName, pets: number, { measureMemory = false, callgrindDir, env = {} }: StartMode = {}): Promise<Server> {
  const node = [process.execPath, ...(measureMemory ? ['--expose-gc'] : []), SERVERS[name]];
  const callgrind = ['--tool=callgrind', '--instr-atstart=no', '--smc-check=all-non-file', `--callgrind-out-file=${callgrindDir}/${name}.%p`];
  const [command, ...args] = callgrindDir === undefined ? node : ['valgrind', ...callgrind, ...node];
  // Under callgrind a server runs some fifty times slower, and more while it re-instruments its code
  // when counting starts: a database wait could pass the service's 2 s limit (DATABASE_TIMEOUT_MS)
  // and be answered 503, which is how a smoke run once failed. The limit's value does not change
  // the instructions a request runs, only whether valgrind's slowness trips it.
  const underValgrind = callgrindDir === undefined ? {} : { DATABASE_TIMEOUT_MS: '120000' };
  const child = spawn(command!, args, {
    env: {
      ...process.env,
      API_KEY,
      SEED_PETS: String(pets),
      ...(name === 'baselineWithHeaders' ? { DEPRECATION_HEADERS: '1' } : {}),
      ...(name === 'serviceLogged' || name === 'serviceMetrics' || name === 'serviceTraced' ? { REQUEST_LOG: REQUEST_LOG_FILE } : {}),
      ...(name === 'serviceMetrics' ? { METRICS: '1' } : {}),
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
      reject(new Error(`${name} server${callgrindDir === undefined ? '' : ' (under valgrind)'} was not ready after ${STEP_LIMIT_MS / 1000} s`));
    }, STEP_LIMIT_MS);
    child.once('exit', exitedEarly);
    child.once('error', (error) => reject(new Error(`${command}: ${error.message}${command === 'valgrind' ? ' (apt-get install -y valgrind)' : ''}`)));
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

/**
 * Takes what a traced service exports and answers as an OTLP/HTTP receiver does (200, an empty
 * response message), so that the export's cost stays in the service process, where it is measured.
 * Its endpoint, as OTEL_EXPORTER_OTLP_ENDPOINT takes it.
 */
async function startOtlpSink(): Promise<{ endpoint: string; sink: HttpServer }> {
  const sink = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  return { endpoint: `http://127.0.0.1:${(sink.address() as AddressInfo).port}`, sink };
}

async function stop(server: Server): Promise<void> {
  // A server that has already exited would never emit 'exit' again.
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGKILL');
  await exited;
}

/** User plus system CPU time the server has used, in seconds. */
function cpuSeconds(pid: number): number {
  const cpu = processCpu(pid);
  if (cpu === undefined) throw new Error(`server ${pid} exited while measured`);
  return cpu.seconds;
}

/** Milliseconds from spawn to the first successful answer. */
async function startupTime(name: ServerName): Promise<number> {
  const started = performance.now();
  const server = await start(name, 0);
  for (;;) {
    const response = await fetch(`http://127.0.0.1:${server.port}/v1/pets`, { headers: AUTH, signal: AbortSignal.timeout(STEP_LIMIT_MS) }).catch(() => undefined);
    if (response?.status === 200) break;
    if (performance.now() - started > STEP_LIMIT_MS) {
      await stop(server);
      throw new Error(`${name} server: no 200 for GET /v1/pets within ${STEP_LIMIT_MS / 1000} s (last: ${response?.status ?? 'no answer'})`);
    }
  }
  const elapsed = performance.now() - started;
  await stop(server);
  return elapsed;
}

interface Workload {
  name: string;
  path: string | ((pets: number) => string);
  options: (pets: number) => Partial<autocannon.Options>;
}

const pathOf = (workload: Workload, pets: number) => (typeof workload.path === 'string' ? workload.path : workload.path(pets));

const WORKLOADS: Workload[] = [
  { name: 'list 20', path: '/v1/pets?limit=20', options: () => ({}) },
  { name: 'list 100, 1% status', path: '/v1/pets?limit=100&status=sold', options: () => ({}) },
  // The page a client reaches by following next links half-way through the store.
  {
    name: 'page of 100 from the middle',
    path: (pets) => `/v1/pets?limit=100&cursor=${encodeCursor({ after: Math.max(1, Math.floor(pets / 2)), status: undefined })}`,
    options: () => ({}),
  },
  {
    name: 'get random id',
    path: '/v1/pets/1',
    options: (pets) => ({
      requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: `/v1/pets/${1 + Math.floor(Math.random() * pets)}` }) }],
    }),
  },
  {
    name: 'create',
    path: '/v1/pets',
    options: () => ({
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Rex', categoryId: 3, status: 'available' }),
    }),
  },
  // Every request a new key (so every one creates a pet, as the first try of a create does): what
  // recording the key costs beside the create above.
  {
    name: 'create, Idempotency-Key',
    path: '/v1/pets',
    options: () => ({
      requests: [{
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Rex', categoryId: 3, status: 'available' }),
        setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'idempotency-key': `"${KEY_PREFIX}-${++keysSent}"` } }),
      }],
    }),
  },
];
// Unique across servers, rounds and runs on one database.
const KEY_PREFIX = `bench-${process.pid}-${Date.now()}`;
let keysSent = 0;

// The PostgreSQL store's create throughput at several concurrencies (measureCreateThroughput): not a
// workload of the tables above, but chosen the same way.
const CREATE_THROUGHPUT = 'create throughput';
const createThroughputWanted = values.workloads === undefined || values.workloads.split(',').some((part) => CREATE_THROUGHPUT.includes(part));
if (values.workloads !== undefined) {
  const wanted = values.workloads.split(',');
  WORKLOADS.splice(0, WORKLOADS.length, ...WORKLOADS.filter((workload) => wanted.some((part) => workload.name.includes(part))));
  if ((WORKLOADS.length === 0 && !createThroughputWanted) || values['write-docs']) {
    console.error('bench: --workloads must name at least one workload, and a partial run does not write docs/performance.md');
    process.exit(2);
  }
}
/** The workloads counted under valgrind with --instructions: all of them, or those --instruction-workloads names. */
const COUNTED = WORKLOADS.filter((workload) => values['instruction-workloads']?.split(',').some((part) => workload.name.includes(part)) ?? true);
if (values.instructions && COUNTED.length === 0) {
  console.error('bench: --instruction-workloads must name at least one of the workloads measured');
  process.exit(2);
}
const GET_WORKLOAD = COUNTED.find((workload) => workload.name === 'get random id');

interface Sample {
  rps: number;
  p99: number;
  cpuPerRequest: number;
}

/** One request as the workload sends it, so that a workload the server refuses fails with the reason. */
async function probe(server: Server, workload: Workload, pets: number): Promise<void> {
  const { method = 'GET', headers = AUTH, body } = workload.options(pets);
  const response = await fetch(`http://127.0.0.1:${server.port}${pathOf(workload, pets)}`, {
    method,
    headers: headers as Record<string, string>,
    ...(body === undefined ? {} : { body: String(body) }),
    signal: AbortSignal.timeout(STEP_LIMIT_MS),
  });
  if (!response.ok) throw new Error(`${workload.name}: ${method} ${pathOf(workload, pets)} answered ${response.status} ${await response.text()}`);
}

/** Fails the run `label` unless every answer was a 2xx, naming the other statuses with their counts ("503 ×2"). */
function requireAll2xx(label: string, result: autocannon.Result, { warmUp = false } = {}): void {
  // A warm-up may end before its first answer (a fresh server's first request can take longer than a
  // smoke run's short warm-up); anything but a 2xx still fails it.
  if (result.non2xx === 0 && result.errors === 0 && (result['2xx'] > 0 || warmUp)) return;
  const others = Object.entries(result.statusCodeStats ?? {}).filter(([status]) => !status.startsWith('2'));
  const statuses = others.length === 0 ? '' : ` (${others.map(([status, { count }]) => `${status} ×${count ?? '?'}`).join(', ')})`;
  throw new Error(`${label}: ${result.non2xx} non-2xx answers${statuses}, ${result.errors} errors, ${result['2xx']} 2xx`);
}

/** Loads the server with the workload; any answer but a 2xx fails the run, and so does a run past STEP_LIMIT_MS. */
async function fire(server: Server, workload: Workload, pets: number, limit: { duration: number } | { amount: number }, connectionCount = connections, warmUp = false) {
  const instance = autocannon({
    url: `http://127.0.0.1:${server.port}${pathOf(workload, pets)}`,
    connections: connectionCount,
    ...limit,
    sampleInt: SAMPLE_INTERVAL_MS,
    headers: AUTH,
    ...workload.options(pets),
  }) as unknown as autocannon.Instance & Promise<autocannon.Result>;
  let stuck = false;
  const watchdog = setTimeout(() => {
    stuck = true;
    instance.stop();
  }, STEP_LIMIT_MS + ('duration' in limit ? limit.duration * 1000 : 0));
  // autocannon's instance is a thenable (no finally): on failure the timer only ends the run early.
  const result = await instance;
  clearTimeout(watchdog);
  if (stuck) throw new Error(`${workload.name}: not done after ${STEP_LIMIT_MS / 1000} s (server threads: ${threadStates(server.pid)})`);
  requireAll2xx(workload.name, result, { warmUp });
  return result;
}

/** Up to a second of the workload before it is measured, its answers not counted. */
async function warmUp(server: Server, workload: Workload, pets: number): Promise<void> {
  await fire(server, workload, pets, { duration: Math.min(1, duration) }, connections, true);
}

/** Loads the server with the workload for `seconds`; `answered` is the 2xx count. */
async function load(server: Server, workload: Workload, pets: number, seconds: number): Promise<Sample & { answered: number }> {
  const cpuBefore = cpuSeconds(server.pid);
  const result = await fire(server, workload, pets, { duration: seconds });
  const cpu = cpuSeconds(server.pid) - cpuBefore;
  const answered = result['2xx'];
  return { rps: answered / (result.duration || seconds), p99: result.latency.p99, cpuPerRequest: cpu / answered, answered };
}

interface DatabaseSample extends Sample {
  /** Statements the database executed per answered request: its round trips, as pg sends one statement at a time. */
  statementsPerRequest: number;
  /** CPU time of the whole PostgreSQL cluster per answered request. */
  databaseCpuPerRequest: number;
}

/** load(), also counting what the server's requests cost the database `name` of `database`. */
async function loadWithDatabase(server: Server, workload: Workload, pets: number, seconds: number, database: BenchDatabase, name: string): Promise<DatabaseSample> {
  const statementsBefore = await database.statements(name);
  const databaseCpuBefore = database.cpuSeconds();
  const { answered, ...sample } = await load(server, workload, pets, seconds);
  const databaseCpu = database.cpuSeconds() - databaseCpuBefore;
  // The count is read after the CPU, so that reading it is not charged to the requests.
  const statements = (await database.statements(name)) - statementsBefore;
  return { ...sample, statementsPerRequest: statements / answered, databaseCpuPerRequest: databaseCpu / answered };
}

const execFileAsync = promisify(execFile);
async function callgrindControl(args: string[], server: Server): Promise<void> {
  try {
    await execFileAsync('callgrind_control', [...args, String(server.pid)], { timeout: STEP_LIMIT_MS, killSignal: 'SIGKILL' });
  } catch (error) {
    const { killed, message } = error as Error & { killed?: boolean };
    const what = killed === true ? `no answer in ${STEP_LIMIT_MS / 1000} s` : message.split('\n')[0];
    throw new Error(`callgrind_control ${args.join(' ')} ${server.pid}: ${what} (server threads: ${threadStates(server.pid)})`);
  }
}

/** The state of each thread of process `pid` (R running, S sleeping, T stopped, …), to tell a stuck process from a slow one. */
function threadStates(pid: number): string {
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

/** Processes counted under valgrind that failed a step and were replaced by fresh ones (countInstructionsOf). */
let replacedProcesses = 0;
const replacedNote = (count: number) => (count === 0 ? '' : `; ${count} process${count === 1 ? '' : 'es'} that failed a step under valgrind replaced by fresh ones`);
const COUNT_ATTEMPTS = 3;

/**
 * Instructions the server (all its threads, user space) executes per answered request: callgrind's
 * counts over `instructionRequests` requests on one connection, after WARM_UP_FACTOR times as many to
 * warm up. A process gives the same count whatever else the machine is doing; processes differ only
 * by which of V8's modes they settle in (see countInstructions).
 */
async function instructionsPerRequest(server: Server, name: ServerName, dir: string, workload: Workload, pets: number): Promise<number> {
  const run = async () => (await fire(server, workload, pets, { amount: instructionRequests }, 1))['2xx'];
  await probe(server, workload, pets);
  // The warm-up runs without instrumentation, about eight times faster.
  for (let index = 0; index < WARM_UP_FACTOR; index++) await run();
  await callgrindControl(['--instr=on'], server);
  await callgrindControl(['--zero'], server);
  const answered = await run();
  const before = dumpsOf(dir, name, server.pid);
  await callgrindControl(['--dump'], server);
  await callgrindControl(['--instr=off'], server);
  const dump = dumpsOf(dir, name, server.pid).find((file) => !before.includes(file));
  const instructions = dump === undefined ? undefined : /^summary: (\d+)/m.exec(readFileSync(join(dir, dump), 'utf8'))?.[1];
  if (instructions === undefined) throw new Error(`callgrind wrote no count for ${name} (${workload.name})`);
  return Number(instructions) / answered;
}

const dumpsOf = (dir: string, name: ServerName, pid: number) => readdirSync(dir).filter((file) => file.startsWith(`${name}.${pid}.`));

/**
 * A fresh process of server `name` under callgrind: its instructions per request for each workload.
 * Every step here has a limit, and a process that fails one (a request answered 503 once hung
 * whole runs: docs/performance.md) is replaced by a fresh one, up to COUNT_ATTEMPTS in all. Each
 * count comes from a fresh process anyway, so the replacement measures the same thing; the report
 * says how many were replaced.
 */
async function countInstructionsOf(dir: string, name: ServerName, pets: number, workloads: Workload[], env: Record<string, string> = {}): Promise<number[]> {
  for (let attempt = 1; ; attempt++) {
    let server: Server | undefined;
    try {
      server = await start(name, pets, { callgrindDir: dir, env });
      const counts: number[] = [];
      for (const workload of workloads) counts.push(await instructionsPerRequest(server, name, dir, workload, pets));
      return counts;
    } catch (error) {
      if (attempt === COUNT_ATTEMPTS) throw new Error(`${name} under valgrind, attempt ${attempt} of ${COUNT_ATTEMPTS}: ${(error as Error).message}`);
      replacedProcesses++;
      console.error(`bench: ${name} under valgrind: ${(error as Error).message}; counting again in a fresh process (attempt ${attempt + 1} of ${COUNT_ATTEMPTS})`);
    } finally {
      if (server !== undefined) await stop(server);
    }
  }
}

/**
 * Per size, `instructionRounds` rounds, each with a fresh pair of processes run side by side (valgrind
 * keeps each to one core). Each count is the lowest over the rounds: a process of either server may
 * settle, for its whole life, in a mode where one object literal in Node's process.nextTick is built
 * by a runtime call, ~30,000 instructions more per request (docs/performance.md).
 */
async function countInstructions(): Promise<InstructionRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-callgrind-'));
  const countAll = (name: ServerName, pets: number, workloads = COUNTED) => countInstructionsOf(dir, name, pets, workloads);
  try {
    const rows: InstructionRow[] = [];
    for (const pets of sizes) {
      const counts: Record<'service' | 'baseline' | 'serviceLogged' | 'serviceMetrics' | 'baselineWithHeaders', number[][]> = {
        service: [],
        baseline: [],
        serviceLogged: [],
        serviceMetrics: [],
        baselineWithHeaders: [],
      };
      for (let index = 0; index < instructionRounds; index++) {
        const [service, baseline, serviceLogged, serviceMetrics, withHeaders] = await Promise.all([
          countAll('service', pets),
          countAll('baseline', pets),
          countAll('serviceLogged', pets),
          countAll('serviceMetrics', pets),
          GET_WORKLOAD === undefined ? Promise.resolve([]) : countAll('baselineWithHeaders', pets, [GET_WORKLOAD]),
        ]);
        counts.service.push(service);
        counts.baseline.push(baseline);
        counts.serviceLogged.push(serviceLogged);
        counts.serviceMetrics.push(serviceMetrics);
        counts.baselineWithHeaders.push(withHeaders);
      }
      COUNTED.forEach((workload, position) => {
        const lowest = (name: keyof typeof counts, at = position) => Math.min(...counts[name].map((round) => round[at]!));
        const row = {
          pets,
          workload: workload.name,
          service: lowest('service'),
          baseline: lowest('baseline'),
          serviceLogged: lowest('serviceLogged'),
          serviceMetrics: lowest('serviceMetrics'),
          ...(workload === GET_WORKLOAD ? { baselineWithHeaders: lowest('baselineWithHeaders', 0) } : {}),
        };
        rows.push(row);
        console.error(
          `  ${round(pets)} pets, ${workload.name}: instructions/request ratio ${ratio(row.service, row.baseline)}, logs on ÷ off ${ratio(row.serviceLogged, row.service)}, ` +
            `metrics on ÷ off ${ratio(row.serviceMetrics, row.serviceLogged)}`,
        );
      });
    }
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Which server goes first in round `index`: they take turns, so drift in the machine hits both alike. */
const orderOf = (index: number) => (index % 2 === 0 ? (['service', 'baseline'] as const) : (['baseline', 'service'] as const));
/** The same for the three servers of the CPU table. */
const LOADED = ['service', 'baseline', 'serviceLogged'] as const;
type Loaded = (typeof LOADED)[number];
const loadOrderOf = (index: number): Loaded[] => LOADED.map((_, position) => LOADED[(position + index) % LOADED.length]!);

const median = (numbers: number[]) => {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const ratio = (service: number, baseline: number) => (service / baseline).toFixed(2);
/** The rounds of one server on one workload: req/s and p99 as medians, CPU per request as the lowest. */
const summary = (list: Sample[]): Sample => ({
  rps: median(list.map((sample) => sample.rps)),
  p99: median(list.map((sample) => sample.p99)),
  // The lowest, not the median: noise and the nextTick mode (countInstructions) only ever add CPU time.
  cpuPerRequest: Math.min(...list.map((sample) => sample.cpuPerRequest)),
});
const round = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

interface Row {
  pets: number;
  workload: string;
  service: Sample;
  baseline: Sample;
  serviceLogged: Sample;
}

interface DatabaseRow {
  pets: number;
  workload: string;
  service: DatabaseSample;
  baseline: DatabaseSample;
  /** With --instructions: instructions per request of each server process, the lowest over the rounds. */
  instructions?: Record<Compared, number>;
}

interface InstructionRow {
  pets: number;
  workload: string;
  service: number;
  baseline: number;
  serviceLogged: number;
  /** serviceLogged with metrics on. */
  serviceMetrics: number;
  /** The get workload only. */
  baselineWithHeaders?: number;
}

async function main() {
  console.error(`bench: sizes ${sizes.join(', ')}; ${rounds} rounds of ${duration} s per workload and server; ${connections} connections; stores: ${stores.join(', ')}`);
  const memory = stores.includes('memory') ? await measureMemoryStore() : undefined;
  const postgres = stores.includes('postgres') ? await measurePostgres() : { rows: [], throughput: [], missing: 'not asked for (--stores)' };
  const postgresTable = postgresReport(postgres.rows, postgres.throughput, postgres.missing, postgres.replaced);
  console.log([...(memory === undefined ? [] : [memory.table]), postgresTable].join('\n\n'));
  // Each store's tables have their own markers, so that a run of one store updates only its own.
  if (values['write-docs'] && memory !== undefined) {
    writeBetweenMarkers('docs/performance.md', 'bench', memory.table);
    writeBetweenMarkers('docs/performance.md', 'bench-summary', memory.shortTable);
  }
  if (values['write-docs'] && postgres.rows.length > 0) {
    writeBetweenMarkers('docs/performance.md', 'bench-postgres', postgresTable);
    writeBetweenMarkers('docs/performance.md', 'bench-postgres-summary', shortPostgresTable(postgres.rows));
  }
}

/** Every in-memory measurement: start-up, memory, load (logs off and on), and instructions when asked for. */
async function measureMemoryStore(): Promise<{ table: string; shortTable: string }> {
  const startup: Record<Compared, number[]> = { service: [], baseline: [] };
  for (let index = 0; index < startupRounds; index++) {
    for (const name of orderOf(index)) {
      startup[name].push(await startupTime(name));
    }
  }

  const rss: Record<Compared, Map<number, number>> = { service: new Map(), baseline: new Map() };
  for (const pets of [0, Math.max(...sizes)]) {
    for (const name of ['service', 'baseline'] as const) {
      const server = await start(name, pets, { measureMemory: true });
      rss[name].set(pets, server.rss);
      await stop(server);
    }
  }

  const rows: Row[] = [];
  for (const pets of sizes) {
    const samples = WORKLOADS.map((): Record<Loaded, Sample[]> => ({ service: [], baseline: [], serviceLogged: [] }));
    // A fresh pair of processes each round: two processes running the same code can differ by 10–30%
    // in CPU per request for their whole life (docs/performance.md), so one pair would decide a size alone.
    for (let index = 0; index < rounds; index++) {
      const servers = { service: await start('service', pets), baseline: await start('baseline', pets), serviceLogged: await start('serviceLogged', pets) };
      const order = loadOrderOf(index);
      for (const [position, workload] of WORKLOADS.entries()) {
        for (const name of order) {
          await probe(servers[name], workload, pets);
          await warmUp(servers[name], workload, pets);
        }
        for (const name of order) samples[position]![name].push(await load(servers[name], workload, pets, duration));
      }
      await stop(servers.service);
      await stop(servers.baseline);
      await stop(servers.serviceLogged);
    }
    for (const [position, workload] of WORKLOADS.entries()) {
      const [service, baseline, serviceLogged] = LOADED.map((name) => summary(samples[position]![name])) as [Sample, Sample, Sample];
      const row = { pets, workload: workload.name, service, baseline, serviceLogged };
      rows.push(row);
      console.error(
        `  ${round(pets)} pets, ${workload.name}: CPU/request ratio ${ratio(service.cpuPerRequest, baseline.cpuPerRequest)}, ` +
          `logs on ÷ off ${ratio(serviceLogged.cpuPerRequest, service.cpuPerRequest)}`,
      );
    }
  }

  const observability = await measureObservability(Math.min(...sizes));
  const instructionRows = values.instructions ? await countInstructions() : [];
  return { table: report(rows, startup, rss, instructionRows, observability), shortTable: shortTable(rows, instructionRows, observability) };
}

const OBSERVED = ['serviceLogged', 'serviceMetrics', 'serviceTraced'] as const;
type Observed = (typeof OBSERVED)[number];
interface ObservabilityRow {
  workload: string;
  /** The service logging as npm start does, with METRICS_PORT=off and no tracing; with metrics; and exporting spans. */
  cpu: Record<Observed, number>;
}

/**
 * What metrics and tracing cost: CPU per request of the service with metrics off, on (as npm start
 * runs by default), and exporting a span per request over OTLP; fresh processes each round, in turn.
 * All three log every request as npm start does: without a logger, Fastify adds no response
 * listeners, and the first thing to time requests would pay for them (~3,000 instructions).
 */
async function measureObservability(pets: number): Promise<{ pets: number; rows: ObservabilityRow[] }> {
  const { endpoint, sink } = await startOtlpSink();
  try {
    const samples = WORKLOADS.map((): Record<Observed, Sample[]> => ({ serviceLogged: [], serviceMetrics: [], serviceTraced: [] }));
    for (let index = 0; index < rounds; index++) {
      const servers = {
        serviceLogged: await start('serviceLogged', pets),
        serviceMetrics: await start('serviceMetrics', pets),
        serviceTraced: await start('serviceTraced', pets, { env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } }),
      };
      const order = OBSERVED.map((_, position) => OBSERVED[(position + index) % OBSERVED.length]!);
      for (const [position, workload] of WORKLOADS.entries()) {
        for (const name of order) {
          await probe(servers[name], workload, pets);
          await warmUp(servers[name], workload, pets);
        }
        for (const name of order) samples[position]![name].push(await load(servers[name], workload, pets, duration));
      }
      for (const server of Object.values(servers)) await stop(server);
    }
    const rows = WORKLOADS.map((workload, position) => {
      const cpu = Object.fromEntries(OBSERVED.map((name) => [name, summary(samples[position]![name]).cpuPerRequest])) as Record<Observed, number>;
      console.error(`  ${round(pets)} pets, ${workload.name}: metrics on ÷ off ${ratio(cpu.serviceMetrics, cpu.serviceLogged)}, tracing on ÷ off ${ratio(cpu.serviceTraced, cpu.serviceLogged)}`);
      return { workload: workload.name, cpu };
    });
    return { pets, rows };
  } finally {
    sink.close();
  }
}

/**
 * The PostgreSQL store, service against the baseline, each on its own database of one throwaway
 * cluster holding the same pets; fresh server processes each round, as for the in-memory store.
 */
async function measurePostgres(): Promise<{ rows: DatabaseRow[]; throughput: ThroughputCell[]; missing?: string; replaced?: number }> {
  const missing = whyNoPostgresBinaries();
  if (missing !== undefined) {
    console.error(`bench: PostgreSQL left out: ${missing}`);
    return { rows: [], throughput: [], missing };
  }
  const replacedBefore = replacedProcesses;
  const database = await startBenchDatabase();
  // pg_ctl runs the cluster as a daemon: without this, a run ended by a signal would leave it running.
  const removeCluster = () => database.destroy();
  atExit.add(removeCluster);
  try {
    const rows: DatabaseRow[] = [];
    for (const pets of WORKLOADS.length === 0 ? [] : sizes) {
      const names = { service: 'bench_service', baseline: 'bench_baseline' } as const;
      const env = { service: { DATABASE_URL: await database.prepare(names.service, pets) }, baseline: { DATABASE_URL: await database.prepare(names.baseline, pets) } };
      const samples = WORKLOADS.map((): Record<Compared, DatabaseSample[]> => ({ service: [], baseline: [] }));
      for (let index = 0; index < rounds; index++) {
        const servers = { service: await start('service', 0, { env: env.service }), baseline: await start('baseline', 0, { env: env.baseline }) };
        for (const [position, workload] of WORKLOADS.entries()) {
          for (const name of orderOf(index)) {
            await probe(servers[name], workload, pets);
            await warmUp(servers[name], workload, pets);
          }
          for (const name of orderOf(index)) samples[position]![name].push(await loadWithDatabase(servers[name], workload, pets, duration, database, names[name]));
        }
        await stop(servers.service);
        await stop(servers.baseline);
      }
      const databaseSummary = (list: DatabaseSample[]): DatabaseSample => ({
        ...summary(list),
        statementsPerRequest: Math.max(...list.map((sample) => sample.statementsPerRequest)),
        databaseCpuPerRequest: median(list.map((sample) => sample.databaseCpuPerRequest)),
      });
      // With --instructions, the two servers are also counted under callgrind, side by side.
      const counted: Record<Compared, number[][]> = { service: [], baseline: [] };
      for (let index = 0; values.instructions && index < instructionRounds; index++) {
        const dir = mkdtempSync(join(tmpdir(), 'bench-callgrind-'));
        try {
          const [service, baseline] = await Promise.all([
            countInstructionsOf(dir, 'service', pets, COUNTED, env.service),
            countInstructionsOf(dir, 'baseline', pets, COUNTED, env.baseline),
          ]);
          counted.service.push(service);
          counted.baseline.push(baseline);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
      for (const [position, workload] of WORKLOADS.entries()) {
        const at = COUNTED.indexOf(workload);
        const lowest = (name: Compared) => Math.min(...counted[name].map((counts) => counts[at]!));
        const row: DatabaseRow = {
          pets,
          workload: workload.name,
          service: databaseSummary(samples[position]!.service),
          baseline: databaseSummary(samples[position]!.baseline),
          ...(values.instructions && at !== -1 ? { instructions: { service: lowest('service'), baseline: lowest('baseline') } } : {}),
        };
        rows.push(row);
        console.error(
          `  PostgreSQL, ${round(pets)} pets, ${workload.name}: CPU/request ratio ${ratio(row.service.cpuPerRequest, row.baseline.cpuPerRequest)}, ` +
            `statements/request ${round(row.service.statementsPerRequest, 2)}` +
            (row.instructions === undefined ? '' : `, instructions/request ratio ${ratio(row.instructions.service, row.instructions.baseline)}`),
        );
      }
    }
    return { rows, throughput: createThroughputWanted ? await measureCreateThroughput(database) : [], replaced: replacedProcesses - replacedBefore };
  } finally {
    atExit.delete(removeCluster);
    await database.close();
  }
}

const THROUGHPUT_CLIENTS = [1, 16, 64];
const THROUGHPUT_INSTANCES = [1, 2];
const COMMIT_DELAYS_MS = [0, 1];

interface ThroughputCell {
  commitDelayMs: number;
  instances: number;
  clients: number;
  /** With DATABASE_CREATE_BATCH_MAX=1 (every create a statement of its own, as before batching), and with the default. */
  batching: 'off' | 'on';
  createsPerSecond: number;
  p50: number;
  p99: number;
  databaseCpuPerCreate: number;
}

/**
 * Creates per second through HTTP with 1, 16 and 64 clients, on 1 and 2 instances of the service
 * sharing one database, each client sending its next create when the last is answered. The
 * database's commits take PostgreSQL's own time (local disk), or 1 ms more: commit_delay = 1000 µs
 * with commit_siblings = 0 delays every WAL flush by 1 ms, as a networked disk or a synchronous
 * standby would. Latencies are exact (autocannon's own histogram keeps whole milliseconds).
 */
async function measureCreateThroughput(database: BenchDatabase): Promise<ThroughputCell[]> {
  const cells: ThroughputCell[] = [];
  const body = JSON.stringify({ name: 'Rex', categoryId: 3, status: 'available' });
  for (const commitDelayMs of COMMIT_DELAYS_MS) {
    for (const instances of THROUGHPUT_INSTANCES) {
      for (const batching of ['off', 'on'] as const) {
        const samples = THROUGHPUT_CLIENTS.map(() => [] as Omit<ThroughputCell, 'commitDelayMs' | 'instances' | 'clients' | 'batching'>[]);
        for (let index = 0; index < rounds; index++) {
          const url = await database.prepare('bench_creates', 0, { commit_delay: commitDelayMs * 1000, commit_siblings: 0 });
          const env = { DATABASE_URL: url, ...(batching === 'off' ? { DATABASE_CREATE_BATCH_MAX: '1' } : {}) };
          const servers = await Promise.all(Array.from({ length: instances }, () => start('service', 0, { env })));
          try {
            for (const [position, clients] of THROUGHPUT_CLIENTS.entries()) {
              await createLoad(servers, body, clients, Math.min(1, duration), true); // warm-up
              const databaseCpuBefore = database.cpuSeconds();
              const { creates, seconds, latencies } = await createLoad(servers, body, clients, duration);
              const databaseCpu = database.cpuSeconds() - databaseCpuBefore;
              latencies.sort((a, b) => a - b);
              const percentile = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!;
              samples[position]!.push({ createsPerSecond: creates / seconds, p50: percentile(0.5), p99: percentile(0.99), databaseCpuPerCreate: databaseCpu / creates });
            }
          } finally {
            for (const server of servers) await stop(server);
          }
        }
        for (const [position, clients] of THROUGHPUT_CLIENTS.entries()) {
          const of = (field: 'createsPerSecond' | 'p50' | 'p99' | 'databaseCpuPerCreate') => median(samples[position]!.map((sample) => sample[field]));
          const cell = { commitDelayMs, instances, clients, batching, createsPerSecond: of('createsPerSecond'), p50: of('p50'), p99: of('p99'), databaseCpuPerCreate: of('databaseCpuPerCreate') };
          cells.push(cell);
          console.error(
            `  PostgreSQL creates, commit +${commitDelayMs} ms, ${instances} instance(s), ${clients} client(s), batching ${batching}: ` +
              `${round(cell.createsPerSecond)}/s, p50 ${round(cell.p50, 2)} ms, p99 ${round(cell.p99, 2)} ms`,
          );
        }
      }
    }
  }
  return cells;
}

/** `clients` connections spread over the servers, each sending a create as soon as its last is answered. */
async function createLoad(servers: Server[], body: string, clients: number, seconds: number, warmUp = false) {
  const latencies: number[] = [];
  const instance = autocannon({
    // autocannon spreads the connections over several URLs in turn; its types admit only one.
    url: servers.map((server) => `http://127.0.0.1:${server.port}/v1/pets`) as unknown as string,
    connections: clients,
    duration: seconds,
    sampleInt: SAMPLE_INTERVAL_MS,
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/json' },
    body,
  }) as unknown as autocannon.Instance & Promise<autocannon.Result>;
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (statusCode === 201) latencies.push(responseTime);
  });
  const result = await instance;
  requireAll2xx('create throughput', result, { warmUp });
  return { creates: result['2xx'], seconds: result.duration || seconds, latencies };
}

/** The cells both load tables start with: size, workload, then req/s, p99 and CPU of the service against the baseline. */
function comparedCells(pets: number, workload: string, service: Sample, baseline: Sample): string[] {
  return [
    round(pets),
    workload,
    round(service.rps),
    round(baseline.rps),
    ratio(service.rps, baseline.rps),
    round(service.p99, 1),
    round(baseline.p99, 1),
    round(service.cpuPerRequest * 1e6, 1),
    round(baseline.cpuPerRequest * 1e6, 1),
    ratio(service.cpuPerRequest, baseline.cpuPerRequest),
  ];
}

const tableRow = (cells: string[]) => `| ${cells.join(' | ')} |`;

function report(
  rows: Row[],
  startup: Record<Compared, number[]>,
  rss: Record<Compared, Map<number, number>>,
  instructionRows: InstructionRow[],
  observability: { pets: number; rows: ObservabilityRow[] },
): string {
  const largest = Math.max(...sizes);
  const perPet = (name: Compared) => (rss[name].get(largest)! - rss[name].get(0)!) / largest;
  const cpuOf = (pets: number, workload: string) => rows.find((row) => row.pets === pets && row.workload.startsWith(workload))?.service.cpuPerRequest;
  const filtered = (pets: number) => cpuOf(pets, 'list 100')!;
  const middlePage = (pets: number) => cpuOf(pets, 'page of 100')!;
  // Only stores of 10,000 pets or more hold 100 pets of the 1% status; a smaller one answers fewer.
  const fullAnswer = sizes.filter((pets) => pets >= 10_000 && pets < largest);
  const flatFrom = fullAnswer.length > 0 ? Math.min(...fullAnswer) : Math.min(...sizes);
  const lines = [
    ...(values['self-check'] ? ['SELF-CHECK: both columns are the baseline app; every ratio shows the noise floor of this machine.', ''] : []),
    `Command: \`${commandLine()}\``,
    `Machine: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}. ${rounds} rounds, each with fresh server processes: req/s and p99 are medians over the rounds; CPU is the server process's user+system time (/proc/<pid>/stat) per answered request, the lowest over the rounds. "Logs on" is the service logging every request as \`npm start\` does (LOG_LEVEL=info, asynchronous destination, into a file); the other service columns have LOG_LEVEL off.`,
    '',
    '| pets | workload | req/s service | req/s baseline | ratio | p99 ms service | p99 ms baseline | CPU µs/req service | CPU µs/req baseline | CPU ratio | CPU µs/req logs on | logs on ÷ off |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(({ pets, workload, service, baseline, serviceLogged }) =>
      tableRow([
        ...comparedCells(pets, workload, service, baseline),
        round(serviceLogged.cpuPerRequest * 1e6, 1),
        ratio(serviceLogged.cpuPerRequest, service.cpuPerRequest),
      ]),
    ),
    '',
    ...(cpuOf(largest, 'list 100') === undefined
      ? []
      : [
          `- Filtered list (100 of the 1% "sold"), service CPU per request at ${round(largest)} pets ÷ at ${round(flatFrom)}: ${ratio(filtered(largest), filtered(flatFrom))}` +
            (Math.min(...sizes) < 10_000 ? ` (at ${round(Math.min(...sizes))} pets only ${round(Math.floor(Math.min(...sizes) / 100))} have the status, so that answer is shorter and not comparable)` : ''),
        ]),
    ...(cpuOf(largest, 'page of 100') === undefined
      ? []
      : [`- Page of 100 from the middle (after a cursor), service CPU per request at ${round(largest)} pets ÷ at ${round(Math.min(...sizes))}: ${ratio(middlePage(largest), middlePage(Math.min(...sizes)))}`]),
    `- Resident memory per stored pet at ${round(largest)} pets ((RSS full − RSS empty) ÷ pets, after a GC): service ${round(perPet('service'))} B, baseline ${round(perPet('baseline'))} B`,
    `- Start-up, spawn to first 200 (median of ${startupRounds}): service ${round(median(startup.service))} ms, baseline ${round(median(startup.baseline))} ms, ratio ${ratio(median(startup.service), median(startup.baseline))}`,
    '',
    `Metrics and tracing, at ${round(observability.pets)} pets: CPU per request of the service with METRICS_PORT=off and no tracing, with metrics on (recorded, and served on a port of their own, as \`npm start\` runs by default), and exporting a span per request over OTLP/HTTP (protobuf, to a receiver in the benchmark process); all three log every request as \`npm start\` does; the lowest over ${rounds} rounds of fresh processes.`,
    '',
    '| workload | CPU µs/req metrics off | CPU µs/req metrics on | metrics on ÷ off | CPU µs/req tracing on | tracing on ÷ off |',
    '|---|---:|---:|---:|---:|---:|',
    ...observability.rows.map(({ workload, cpu }) =>
      tableRow([
        workload,
        round(cpu.serviceLogged * 1e6, 1),
        round(cpu.serviceMetrics * 1e6, 1),
        ratio(cpu.serviceMetrics, cpu.serviceLogged),
        round(cpu.serviceTraced * 1e6, 1),
        ratio(cpu.serviceTraced, cpu.serviceLogged),
      ]),
    ),
    ...(instructionRows.length === 0
      ? []
      : [
          '',
          `Instructions per request, counted by valgrind's callgrind (all threads, user space; ${round(instructionRequests)} requests on one connection after ${round(WARM_UP_FACTOR * instructionRequests)} to warm up; the lowest over ${instructionRounds} fresh processes of each server${replacedNote(replacedProcesses)}):`,
          '',
          '| pets | workload | instructions/req service | instructions/req baseline | ratio | baseline sending getPet\'s 3 headers | ratio to that | instructions/req logs on | logs on ÷ off | instructions/req logs and metrics on | metrics on ÷ off |',
          '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
          ...instructionRows.map(({ pets, workload, service, baseline, serviceLogged, serviceMetrics, baselineWithHeaders: withHeaders }) =>
            `| ${round(pets)} | ${workload} | ${round(service)} | ${round(baseline)} | ${ratio(service, baseline)} | ` +
              (withHeaders === undefined ? '– | – |' : `${round(withHeaders)} | ${ratio(service, withHeaders)} |`) +
              ` ${round(serviceLogged)} | ${ratio(serviceLogged, service)} | ${round(serviceMetrics)} | ${ratio(serviceMetrics, serviceLogged)} |`,
          ),
        ]),
  ];
  return lines.join('\n');
}

/** The summary table (docs/performance.md, first section): per size and workload, what the service costs against plain fastify, and what logs cost. */
function shortTable(rows: Row[], instructionRows: InstructionRow[], observability: { pets: number; rows: ObservabilityRow[] }): string {
  const spread = (of: (cpu: Record<Observed, number>) => number) => {
    const ratios = observability.rows.map(({ cpu }) => of(cpu) / cpu.serviceLogged);
    return `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
  };
  const instructions = (pets: number, workload: string) => instructionRows.find((row) => row.pets === pets && row.workload === workload);
  const counted = instructionRows.length > 0;
  return [
    `Command: \`${commandLine()}\` (${cpus().length} cores, Node ${process.version}); the full report is in docs/performance.md.`,
    '',
    `| pets | workload | req/s | CPU µs/req | CPU ÷ plain fastify |${counted ? ' instructions ÷ plain fastify |' : ''} CPU logs on ÷ off |${counted ? ' instructions logs on ÷ off |' : ''}`,
    `|---:|---|---:|---:|---:|${counted ? '---:|' : ''}---:|${counted ? '---:|' : ''}`,
    ...rows.map(({ pets, workload, service, baseline, serviceLogged }) => {
      const counts = instructions(pets, workload);
      return (
        `| ${round(pets)} | ${workload} | ${round(service.rps)} | ${round(service.cpuPerRequest * 1e6, 1)} | ${ratio(service.cpuPerRequest, baseline.cpuPerRequest)} |` +
        (counted ? ` ${counts === undefined ? '–' : ratio(counts.service, counts.baseline)} |` : '') +
        ` ${ratio(serviceLogged.cpuPerRequest, service.cpuPerRequest)} |` +
        (counted ? ` ${counts === undefined ? '–' : ratio(counts.serviceLogged, counts.service)} |` : '')
      );
    }),
    '',
    `Metrics on ÷ METRICS_PORT=off (both logging as npm start does), CPU per request at ${round(observability.pets)} pets: ${spread((cpu) => cpu.serviceMetrics)} over the workloads; exporting a span per request over OTLP: ${spread((cpu) => cpu.serviceTraced)}.`,
  ].join('\n');
}

/** The PostgreSQL table: service against the baseline on the same SQL, and what each request costs the database. */
function postgresReport(rows: DatabaseRow[], throughput: ThroughputCell[], missing: string | undefined, replaced = 0): string {
  if (rows.length === 0 && throughput.length === 0) return `PostgreSQL store: left out of this run (${missing ?? 'no rows'}).`;
  if (rows.length === 0) return throughputReport(throughput);
  const largest = Math.max(...sizes);
  const smallest = Math.min(...sizes);
  const rowOf = (pets: number, workload: string) => rows.find((row) => row.pets === pets && row.workload.startsWith(workload));
  const flat = (workload: string) => {
    const [large, small] = [rowOf(largest, workload), rowOf(smallest, workload)];
    return large === undefined || small === undefined
      ? []
      : [
          `- ${workload} on PostgreSQL, at ${round(largest)} pets ÷ at ${round(smallest)}: database CPU per request ${ratio(large.service.databaseCpuPerRequest, small.service.databaseCpuPerRequest)}, ` +
            `service req/s ${ratio(large.service.rps, small.service.rps)}`,
        ];
  };
  return [
    `PostgreSQL store: each server on a database of its own in one throwaway local cluster (${POSTGRES_SETTINGS}), pool of 10 connections, the same pets as above. The baseline is the same plain fastify app on the same store module: the same driver (pg) and the same SQL. "Statements/req" is counted by pg_stat_statements (the highest over the rounds); pg sends one statement per round trip, so it is the round trips per request. "DB CPU" is the user+system time of every process of the cluster per answered request (median over the rounds).`,
    '',
    '| pets | workload | req/s service | req/s baseline | ratio | p99 ms service | p99 ms baseline | CPU µs/req service | CPU µs/req baseline | CPU ratio | statements/req service | statements/req baseline | DB CPU µs/req service | DB CPU µs/req baseline |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(({ pets, workload, service, baseline }) =>
      tableRow([
        ...comparedCells(pets, workload, service, baseline),
        round(service.statementsPerRequest, 2),
        round(baseline.statementsPerRequest, 2),
        round(service.databaseCpuPerRequest * 1e6, 1),
        round(baseline.databaseCpuPerRequest * 1e6, 1),
      ]),
    ),
    '',
    ...flat('list 100, 1% status'),
    ...flat('page of 100 from the middle'),
    ...(!rows.some((row) => row.instructions !== undefined)
      ? []
      : [
          '',
          `Instructions per request of each server process on PostgreSQL, counted as for the in-memory store (${round(instructionRequests)} requests after ${round(WARM_UP_FACTOR * instructionRequests)}, the lowest over ${instructionRounds} fresh processes${replacedNote(replaced)}):`,
          '',
          '| pets | workload | instructions/req service | instructions/req baseline | ratio |',
          '|---:|---|---:|---:|---:|',
          ...rows.flatMap(({ pets, workload, instructions }) =>
            instructions === undefined ? [] : [`| ${round(pets)} | ${workload} | ${round(instructions.service)} | ${round(instructions.baseline)} | ${ratio(instructions.service, instructions.baseline)} |`],
          ),
        ]),
    ...(throughput.length === 0 ? [] : ['', throughputReport(throughput)]),
  ].join('\n');
}

/** Create throughput, batching off (each create a statement of its own, as before batching) against on, cell by cell. */
function throughputReport(cells: ThroughputCell[]): string {
  const on = cells.filter((cell) => cell.batching === 'on');
  const off = (cell: ThroughputCell) => cells.find((other) => other.batching === 'off' && other.commitDelayMs === cell.commitDelayMs && other.instances === cell.instances && other.clients === cell.clients)!;
  return [
    `Create throughput on PostgreSQL: clients each sending a create as soon as the last was answered, spread over 1 or 2 instances of the service on one database (empty at the start of each round), for ${duration} s after 1 s of warm-up; medians over ${rounds} rounds of fresh servers and databases. "Commit +1 ms": commit_delay = 1000 µs, commit_siblings = 0, so that every WAL flush waits 1 ms more (a networked disk, a synchronous standby). "Before" is DATABASE_CREATE_BATCH_MAX=1: every create a statement and a commit of its own, sent at once, as before batching; "after" batches up to ${DEFAULT_CREATE_BATCH_MAX}. DB CPU: every process of the cluster, per create.`,
    '',
    '| commit | instances | clients | creates/s before | creates/s after | after ÷ before | p50 ms before | p50 ms after | p99 ms before | p99 ms after | DB CPU µs/create before | DB CPU µs/create after |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...on.map((cell) => {
      const before = off(cell);
      return tableRow([
        cell.commitDelayMs === 0 ? 'local disk' : `+${cell.commitDelayMs} ms`,
        String(cell.instances),
        String(cell.clients),
        round(before.createsPerSecond),
        round(cell.createsPerSecond),
        ratio(cell.createsPerSecond, before.createsPerSecond),
        round(before.p50, 2),
        round(cell.p50, 2),
        round(before.p99, 2),
        round(cell.p99, 2),
        round(before.databaseCpuPerCreate * 1e6, 1),
        round(cell.databaseCpuPerCreate * 1e6, 1),
      ]);
    }),
  ].join('\n');
}

/** The summary PostgreSQL table (docs/performance.md, first section). */
function shortPostgresTable(rows: DatabaseRow[]): string {
  const counted = rows.some((row) => row.instructions !== undefined);
  return [
    `Command: \`${commandLine()}\` (${cpus().length} cores, Node ${process.version}). PostgreSQL store, one instance on a local cluster (${POSTGRES_SETTINGS}):`,
    '',
    `| pets | workload | req/s | p99 ms | CPU µs/req | CPU ÷ plain fastify, same SQL |${counted ? ' instructions ÷ plain fastify |' : ''} round trips/req | DB CPU µs/req |`,
    `|---:|---|---:|---:|---:|---:|${counted ? '---:|' : ''}---:|---:|`,
    ...rows.map(
      ({ pets, workload, service, baseline, instructions }) =>
        `| ${round(pets)} | ${workload} | ${round(service.rps)} | ${round(service.p99, 1)} | ${round(service.cpuPerRequest * 1e6, 1)} | ` +
        `${ratio(service.cpuPerRequest, baseline.cpuPerRequest)} |${counted ? ` ${instructions === undefined ? '–' : ratio(instructions.service, instructions.baseline)} |` : ''} ` +
        `${round(service.statementsPerRequest, 2)} | ${round(service.databaseCpuPerRequest * 1e6, 1)} |`,
    ),
  ].join('\n');
}

/** The command that reproduces this run, every setting written out. */
function commandLine(): string {
  return (
    `npm run bench -- --sizes ${sizes.join(',')} --rounds ${rounds} --duration ${duration} --connections ${connections}` +
    `${values.stores === 'memory,postgres' ? '' : ` --stores ${values.stores}`}` +
    `${values.instructions ? ` --instructions --instruction-requests ${instructionRequests} --instruction-rounds ${instructionRounds}${values['instruction-workloads'] === undefined ? '' : ` --instruction-workloads '${values['instruction-workloads']}'`}` : ''}${values['self-check'] ? ' --self-check' : ''}`
  );
}

function writeBetweenMarkers(file: string, marker: 'bench' | 'bench-postgres' | 'bench-summary' | 'bench-postgres-summary', text: string) {
  const content = readFileSync(file, 'utf8');
  const start = `<!-- ${marker}:start -->`;
  const end = `<!-- ${marker}:end -->`;
  if (!content.includes(start) || !content.includes(end)) throw new Error(`${file} has no ${start} … ${end} section`);
  writeFileSync(file, `${content.slice(0, content.indexOf(start) + start.length)}\n${text}\n${content.slice(content.indexOf(end))}`);
  console.error(`bench: ${file} updated (${marker})`);
}

// Exits at once on failure: a server or a count still running (the other side of a Promise.all)
// would otherwise keep the process alive, idle, for ever; the exit handler kills them all.
await main().catch((error: Error) => {
  console.error(`bench: ${error.message}`);
  process.exit(1);
});
