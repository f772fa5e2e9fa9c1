// The fair-share scenario (src/limits/fair-share.ts), on the in-memory service logging as npm start
// does: a calm client reads pages of 20 one request at a time, alone and then while another client,
// with its own key, floods the service from 64 connections in a process of its own (autocannon's
// command). Reported as ratios from one run: the calm client's p99 under the flood ÷ alone (goal:
// at most 3), its responses a second under the flood ÷ alone, and what a refused request costs the
// service (CPU per response, a client whose quota refuses everything) ÷ a served `list 20`; and, to
// judge that, the same rejection's bytes sent by Node's HTTP server alone (the floor) and a `list 20`
// served from PostgreSQL, as deployed (the service's CPU and the database's).
import { randomBytes } from 'node:crypto';
import { Agent, get } from 'node:http';
import autocannon from 'autocannon';
import { flood, type FloodCounts } from './flood.js';
import { whyNoPostgresBinaries } from 'throwaway-postgres';
import type { BenchOptions } from './options.js';
import { startBenchDatabase, type BenchDatabase } from './postgres-database.js';
import { cpuSeconds, stop, type Server, type Servers } from './servers.js';
import { median, round } from './statistics.js';

const FLOOD_CONNECTIONS = 64;
const PAGE = '/v1/pets?limit=20';
/** The paced calm client: a request due every 5 ms, 200 a second. */
const PACED_EVERY_MS = 5;

export interface FairnessRound {
  calmAlone: { p99: number; rps: number };
  calmFlooded: { p99: number; rps: number; failed: number };
  /** The paced calm client (200 a second, timed from when each request was due). */
  pacedAlone: { p99: number; rps: number };
  pacedFlooded: { p99: number; rps: number; failed: number };
  flood: FloodCounts;
  refusedCpu: number;
  servedCpu: number;
  /** The rejection's bytes from Node's HTTP server alone. */
  floorCpu: number;
  /** A served list 20 on PostgreSQL: the service's CPU and the database's, per response (absent without PostgreSQL). */
  postgres?: { serviceCpu: number; databaseCpu: number };
}

export interface FairnessResult {
  rounds: FairnessRound[];
  p99Ratio: number;
  /** The paced calm client's p99 flooded ÷ alone. */
  pacedP99Ratio: number;
  rpsRatio: number;
  refusalCost: number;
  /** A rejection ÷ the floor. */
  overFloor: number;
  /** A rejection ÷ a served list 20 on PostgreSQL: the service's CPU alone, and with the database's. */
  postgresCost?: { service: number; withDatabase: number };
  /** Why PostgreSQL was left out, when it was. */
  postgresMissing?: string;
  calmFailed: number;
}

// The three clients' keys, made once per process: the calm client, the flood, and one limited by a quota.
const keys = { CALM_KEY: key(), FLOOD_KEY: key(), LIMITED_KEY: key() };
const auth = (name: keyof typeof keys) => ({ authorization: `Bearer ${keys[name]}` });

export function createFairnessMeasurement({ duration, rounds, stores }: BenchOptions, { start, atExit }: Servers) {
  /**
   * CPU per response of a served list 20 and of a rejection, on a server that sends rejections at once (no
   * REJECTION_DELAY_MS); then of that rejection's bytes from Node's HTTP server alone.
   */
  async function refusalCost(): Promise<{ servedCpu: number; refusedCpu: number; floorCpu: number }> {
    const server = await start('serviceLogged', 1000, { env: { FAIRNESS: '1', REJECTION_DELAY_MS: '0', ...keys } });
    let rejection: Awaited<ReturnType<typeof rejectionOf>>;
    let servedCpu: number;
    let refusedCpu: number;
    try {
      await cpuPerResponse(server, 'CALM_KEY', 1);
      servedCpu = (await cpuPerResponse(server, 'CALM_KEY', duration)).server;
      refusedCpu = (await cpuPerResponse(server, 'LIMITED_KEY', duration)).server;
      rejection = await rejectionOf(server);
    } finally {
      await stop(server);
    }
    if (rejection.status !== 429) throw new Error(`the limited client was answered ${rejection.status}, not 429`);
    const bare = await start('bare', 0, { env: { REFUSAL: JSON.stringify(rejection) } });
    try {
      await cpuPerResponse(bare, 'LIMITED_KEY', 1);
      return { servedCpu, refusedCpu, floorCpu: (await cpuPerResponse(bare, 'LIMITED_KEY', duration)).server };
    } finally {
      await stop(bare);
    }
  }

  /** A served list 20 on PostgreSQL (1,000 pets), as deployed: the service's CPU and the database's per response. */
  async function servedOnPostgres(database: BenchDatabase): Promise<{ serviceCpu: number; databaseCpu: number }> {
    const url = await database.prepare('bench_fairness', 1000);
    const server = await start('serviceLogged', 0, { env: { FAIRNESS: '1', DATABASE_URL: url, ...keys } });
    try {
      await cpuPerResponse(server, 'CALM_KEY', 1);
      const { server: serviceCpu, database: databaseCpu } = await cpuPerResponse(
        server,
        'CALM_KEY',
        duration,
        database,
      );
      return { serviceCpu, databaseCpu };
    } finally {
      await stop(server);
    }
  }

  async function oneRound(database?: BenchDatabase): Promise<FairnessRound> {
    const server = await start('serviceLogged', 1000, { env: { FAIRNESS: '1', ...keys } });
    let flooded: Pick<FairnessRound, 'calmAlone' | 'calmFlooded' | 'pacedAlone' | 'pacedFlooded' | 'flood'>;
    try {
      await calm(server, 1);
      const calmAlone = await calm(server, duration);
      const pacedAlone = await calm(server, duration, PACED_EVERY_MS);
      // The flood starts first and ends last, so that both calm clients are measured inside it.
      const flooding = flood(
        `http://127.0.0.1:${server.port}${PAGE}`,
        auth('FLOOD_KEY').authorization,
        2 * Math.ceil(duration) + 2,
        FLOOD_CONNECTIONS,
      );
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const calmFlooded = await calm(server, duration);
      const pacedFlooded = await calm(server, duration, PACED_EVERY_MS);
      flooded = { calmAlone, calmFlooded, pacedAlone, pacedFlooded, flood: await flooding };
    } finally {
      await stop(server);
    }
    return {
      ...flooded,
      ...(await refusalCost()),
      ...(database === undefined ? {} : { postgres: await servedOnPostgres(database) }),
    };
  }

  async function measureFairness(): Promise<FairnessResult> {
    const postgresMissing = stores.includes('postgres') ? whyNoPostgresBinaries() : 'not asked for (--stores)';
    const database = postgresMissing === undefined ? await startBenchDatabase() : undefined;
    const removeCluster = () => database?.destroy();
    atExit.add(removeCluster);
    const done: FairnessRound[] = [];
    try {
      for (let index = 0; index < Math.min(rounds, 3); index++) done.push(await oneRound(database));
    } finally {
      await database?.close();
      atExit.delete(removeCluster);
    }
    const postgresCost = (field: 'service' | 'withDatabase') =>
      median(
        done.map(
          ({ refusedCpu, postgres }) =>
            refusedCpu / (field === 'service' ? postgres!.serviceCpu : postgres!.serviceCpu + postgres!.databaseCpu),
        ),
      );
    return {
      rounds: done,
      p99Ratio: median(done.map((one) => one.calmFlooded.p99 / one.calmAlone.p99)),
      pacedP99Ratio: median(done.map((one) => one.pacedFlooded.p99 / one.pacedAlone.p99)),
      rpsRatio: median(done.map((one) => one.calmFlooded.rps / one.calmAlone.rps)),
      refusalCost: median(done.map((one) => one.refusedCpu / one.servedCpu)),
      overFloor: median(done.map((one) => one.refusedCpu / one.floorCpu)),
      ...(database === undefined
        ? { postgresMissing: postgresMissing! }
        : { postgresCost: { service: postgresCost('service'), withDatabase: postgresCost('withDatabase') } }),
      calmFailed: done.reduce((sum, one) => sum + one.calmFlooded.failed + one.pacedFlooded.failed, 0),
    };
  }

  return { measureFairness, fairnessReport: (result: FairnessResult) => fairnessReport(result, duration) };
}

function key(): string {
  return randomBytes(24).toString('base64url');
}

/** The scenario's table (markdown), each round a row, and the ratios. */
function fairnessReport(result: FairnessResult, duration: number): string {
  const rows = result.rounds.map((one, index) =>
    [
      index + 1,
      round(one.calmAlone.p99, 2),
      round(one.calmFlooded.p99, 2),
      round(one.calmAlone.rps),
      round(one.calmFlooded.rps),
      round(one.pacedAlone.p99, 2),
      round(one.pacedFlooded.p99, 2),
      one.calmFlooded.failed + one.pacedFlooded.failed,
      round(one.flood.responded),
      round(one.flood.refused),
      round(one.servedCpu * 1e6, 1),
      round(one.refusedCpu * 1e6, 1),
      round(one.floorCpu * 1e6, 1),
      one.postgres === undefined ? '–' : round(one.postgres.serviceCpu * 1e6, 1),
      one.postgres === undefined ? '–' : round(one.postgres.databaseCpu * 1e6, 1),
    ].join(' | '),
  );
  const { postgresCost } = result;
  return [
    `Fair share: two calm clients, each on one connection (\`GET ${PAGE}\`, 1,000 pets, request logs into a file): one calling as fast as its connection goes, one paced (a request due every ${PACED_EVERY_MS} ms, timed from when it was due, so that waiting behind the flood counts). Each alone for ${duration} s, then each for ${duration} s inside a flood of the same reads from another key (${FLOOD_CONNECTIONS} connections, autocannon in a process of its own); then, on a server that sends rejections at once (the service waits REJECTION_DELAY_MS first), CPU per answer from 10 connections of a served \`list 20\` and of a client whose quota refuses every request; the same rejection's bytes from Node's HTTP server alone (the floor: \`http.createServer\`, \`writeHead\`, \`end\`); and a \`list 20\` served from PostgreSQL (1,000 pets, the service's CPU and the database's). ${result.rounds.length} rounds, fresh processes; the ratios are medians.`,
    '',
    '| round | calm p99 alone ms | calm p99 flooded ms | calm req/s alone | calm req/s flooded | paced p99 alone ms | paced p99 flooded ms | calm failed (both) | flood 2xx | flood 429 | CPU µs served list 20 | CPU µs refused | CPU µs floor (Node alone) | CPU µs list 20 on PostgreSQL, service | and database |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((row) => `| ${row} |`),
    '',
    `Calm p99 flooded ÷ alone: **${result.p99Ratio.toFixed(2)}** as fast as one connection goes, **${result.pacedP99Ratio.toFixed(2)}** paced (goal: at most 3 for both); calm answers a second flooded ÷ alone: **${result.rpsRatio.toFixed(2)}**; calm requests failed: **${result.calmFailed}**; a rejection's CPU ÷ a served list 20: **${result.refusalCost.toFixed(2)}**.`,
    '',
    `A rejection's CPU ÷ the floor: **${result.overFloor.toFixed(2)}**; ÷ a list 20 served from PostgreSQL: ${
      postgresCost === undefined
        ? `not measured (PostgreSQL: ${result.postgresMissing})`
        : `**${postgresCost.service.toFixed(2)}** (the service's CPU), **${postgresCost.withDatabase.toFixed(2)}** (the service's and the database's)`
    }.`,
  ].join('\n');
}

/**
 * The calm client, on one kept-alive connection, each request timed to the microsecond (autocannon's
 * latencies are whole milliseconds). Paced (`everyMs`): a request falls due every `everyMs` and is
 * timed from when it was due, so that waiting behind the flood, or behind its own previous request,
 * counts. Unpaced: one request at a time, as fast as the connection goes.
 */
async function calm(server: Server, seconds: number, everyMs?: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  let failed = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  try {
    for (let index = 0; ; index++) {
      const due = everyMs === undefined ? performance.now() : started + index * everyMs;
      if (due >= until) break;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const status = await new Promise<number>((resolve, reject) => {
        get({ host: '127.0.0.1', port: server.port, path: PAGE, headers: auth('CALM_KEY'), agent }, (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode!));
        }).on('error', reject);
      });
      latencies.push(performance.now() - due);
      if (status !== 200) failed += 1;
    }
  } finally {
    agent.destroy();
  }
  latencies.sort((a, b) => a - b);
  return { p99: latencies[Math.floor(latencies.length * 0.99)]!, rps: (latencies.length - failed) / seconds, failed };
}

/** CPU per response while `name`'s requests are loaded from 10 connections: the server's, and a database's if given. */
async function cpuPerResponse(
  server: Server,
  name: keyof typeof keys,
  seconds: number,
  database?: BenchDatabase,
): Promise<{ server: number; database: number }> {
  const before = { server: cpuSeconds(server.pid), database: database?.cpuSeconds() ?? 0 };
  const result = await autocannon({
    url: `http://127.0.0.1:${server.port}${PAGE}`,
    connections: 10,
    duration: seconds,
    headers: auth(name),
  });
  const responses = result['2xx'] + result.non2xx;
  return {
    server: (cpuSeconds(server.pid) - before.server) / responses,
    database: ((database?.cpuSeconds() ?? 0) - before.database) / responses,
  };
}

/** One rejection as the service sends it: its status, the headers it chose (not Node's own) and its body. */
async function rejectionOf(server: Server): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const response = await fetch(`http://127.0.0.1:${server.port}${PAGE}`, { headers: auth('LIMITED_KEY') });
  const nodes = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
  const headers = Object.fromEntries([...response.headers].filter(([name]) => !nodes.has(name)));
  return { status: response.status, headers, body: await response.text() };
}
