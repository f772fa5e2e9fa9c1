// Loads one server with one workload through autocannon and measures what it cost: responds per
// second, p99 latency, and the server's CPU per served request (and the database's, on PostgreSQL).
import autocannon from 'autocannon';
import type { BenchDatabase } from './postgres-database.js';
import { SAMPLE_INTERVAL_MS, STEP_LIMIT_MS, type BenchOptions } from './options.js';
import { cpuSeconds, threadStates, type Server } from './servers.js';
import { pathOf, type Workload } from './workloads.js';

export interface Sample {
  rps: number;
  p99: number;
  cpuPerRequest: number;
}

export interface DatabaseSample extends Sample {
  /** Statements the database executed per served request: its round trips, as pg sends one statement at a time. */
  statementsPerRequest: number;
  /** CPU time of the whole PostgreSQL cluster per served request. */
  databaseCpuPerRequest: number;
}

/** Fails the run `label` unless every response was a 2xx, naming the other statuses with their counts ("503 ×2"). */
export function requireAll2xx(label: string, result: autocannon.Result, { warmUp = false } = {}): void {
  // A warm-up may end before its first response (a fresh server's first request can take longer than a
  // smoke run's short warm-up); anything but a 2xx still fails it.
  if (result.non2xx === 0 && result.errors === 0 && (result['2xx'] > 0 || warmUp)) return;
  const others = Object.entries(result.statusCodeStats ?? {}).filter(([status]) => !status.startsWith('2'));
  const statuses =
    others.length === 0 ? '' : ` (${others.map(([status, { count }]) => `${status} ×${count ?? '?'}`).join(', ')})`;
  throw new Error(
    `${label}: ${result.non2xx} non-2xx answers${statuses}, ${result.errors} errors, ${result['2xx']} 2xx`,
  );
}

/**
 * `clients` connections spread over the servers in turn, each sending its next request (`request`:
 * autocannon's method, headers, body or requests, its path under each server's address) as soon as
 * its last is served, for `seconds`; any response but a 2xx fails the run `label`. `onResponse` is
 * told each response's status and latency in ms.
 */
export async function spreadLoad(
  servers: readonly Server[],
  request: Partial<autocannon.Options> & { path?: string },
  {
    clients,
    seconds,
    label,
    warmUp = false,
    onResponse,
  }: {
    clients: number;
    seconds: number;
    label: string;
    warmUp?: boolean;
    onResponse?: (status: number, ms: number) => void;
  },
): Promise<autocannon.Result> {
  const { path = '', ...options } = request;
  const instance = autocannon({
    // autocannon spreads the connections over several URLs in turn; its types admit only one.
    url: servers.map((server) => `http://127.0.0.1:${server.port}${path}`) as unknown as string,
    connections: clients,
    duration: seconds,
    sampleInt: SAMPLE_INTERVAL_MS,
    ...options,
  }) as unknown as autocannon.Instance & Promise<autocannon.Result>;
  if (onResponse !== undefined)
    (instance as autocannon.Instance).on(
      'response',
      (_client: unknown, statusCode: number, _bytes: number, responseTime: number) =>
        onResponse(statusCode, responseTime),
    );
  const result = await instance;
  requireAll2xx(label, result, { warmUp });
  return result;
}

/**
 * `clients` connections spread over the servers, each sending a create of `body` as soon as its last
 * is served, for `seconds`: the creates served, the time, and each one's latency in ms (exact:
 * autocannon's own histogram keeps whole milliseconds).
 */
export async function createLoad(
  AUTH: Record<string, string>,
  servers: readonly Server[],
  body: string,
  {
    clients,
    seconds,
    label = 'create throughput',
    warmUp = false,
  }: { clients: number; seconds: number; label?: string; warmUp?: boolean },
) {
  const latencies: number[] = [];
  const request = {
    path: '/v1/pets',
    method: 'POST' as const,
    headers: { ...AUTH, 'content-type': 'application/json' },
    body,
  };
  const result = await spreadLoad(servers, request, {
    clients,
    seconds,
    label,
    warmUp,
    onResponse: (status, ms) => {
      if (status === 201) latencies.push(ms);
    },
  });
  return { creates: result['2xx'], seconds: result.duration || seconds, latencies };
}

/** The loads of a run, with its connections and duration, each request carrying `AUTH`. */
export function createLoads({ connections, duration }: BenchOptions, AUTH: Record<string, string>) {
  /** One request as the workload sends it, so that a workload the server refuses fails with the reason. */
  async function probe(server: Server, workload: Workload, pets: number): Promise<void> {
    const { method = 'GET', headers = AUTH, body } = workload.options(pets);
    const response = await fetch(`http://127.0.0.1:${server.port}${pathOf(workload, pets)}`, {
      method,
      headers: headers as Record<string, string>,
      ...(body === undefined ? {} : { body: String(body) }),
      signal: AbortSignal.timeout(STEP_LIMIT_MS),
    });
    if (!response.ok)
      throw new Error(
        `${workload.name}: ${method} ${pathOf(workload, pets)} answered ${response.status} ${await response.text()}`,
      );
  }

  /** Loads the server with the workload; any response but a 2xx fails the run, and so does a run past STEP_LIMIT_MS. */
  async function fire(
    server: Server,
    workload: Workload,
    pets: number,
    {
      connections: connectionCount = connections,
      warmUp = false,
      ...limit
    }: ({ duration: number } | { amount: number }) & { connections?: number; warmUp?: boolean },
  ) {
    const instance = autocannon({
      url: `http://127.0.0.1:${server.port}${pathOf(workload, pets)}`,
      connections: connectionCount,
      ...limit,
      sampleInt: SAMPLE_INTERVAL_MS,
      headers: AUTH,
      ...workload.options(pets),
    }) as unknown as autocannon.Instance & Promise<autocannon.Result>;
    let stuck = false;
    const watchdog = setTimeout(
      () => {
        stuck = true;
        instance.stop();
      },
      STEP_LIMIT_MS + ('duration' in limit ? limit.duration * 1000 : 0),
    );
    // autocannon's instance is a thenable (no finally): on failure the timer only ends the run early.
    const result = await instance;
    clearTimeout(watchdog);
    if (stuck)
      throw new Error(
        `${workload.name}: not done after ${STEP_LIMIT_MS / 1000} s (server threads: ${threadStates(server.pid)})`,
      );
    requireAll2xx(workload.name, result, { warmUp });
    return result;
  }

  /** Up to a second of the workload before it is measured, its responses not counted. */
  async function warmUp(server: Server, workload: Workload, pets: number): Promise<void> {
    await fire(server, workload, pets, { duration: Math.min(1, duration), warmUp: true });
  }

  /** Loads the server with the workload for `seconds`; `served` is the 2xx count. */
  async function load(
    server: Server,
    workload: Workload,
    pets: number,
    seconds: number,
  ): Promise<Sample & { responded: number }> {
    const cpuBefore = cpuSeconds(server.pid);
    const result = await fire(server, workload, pets, { duration: seconds });
    const cpu = cpuSeconds(server.pid) - cpuBefore;
    const responded = result['2xx'];
    return {
      rps: responded / (result.duration || seconds),
      p99: result.latency.p99,
      cpuPerRequest: cpu / responded,
      responded,
    };
  }

  /** load(), also counting what the server's requests cost the database `name` of `database`. */
  async function loadWithDatabase(
    server: Server,
    workload: Workload,
    { pets, seconds }: { pets: number; seconds: number },
    { database, name }: { database: BenchDatabase; name: string },
  ): Promise<DatabaseSample> {
    const statementsBefore = await database.statements(name);
    const databaseCpuBefore = database.cpuSeconds();
    const { responded, ...sample } = await load(server, workload, pets, seconds);
    const databaseCpu = database.cpuSeconds() - databaseCpuBefore;
    // The count is read after the CPU, so that reading it is not charged to the requests.
    const statements = (await database.statements(name)) - statementsBefore;
    return { ...sample, statementsPerRequest: statements / responded, databaseCpuPerRequest: databaseCpu / responded };
  }

  return { probe, fire, warmUp, load, loadWithDatabase };
}

export type Loads = ReturnType<typeof createLoads>;
