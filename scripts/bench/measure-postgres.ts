// The PostgreSQL store's measurements: each workload, service against the baseline on the same SQL,
// with the database's statements and CPU per request, and the create throughput matrix.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { whyNoPostgresBinaries } from 'throwaway-postgres';
import { createLoad, type DatabaseSample } from './load.js';
import { orderOf, type BenchParts } from './measure-memory.js';
import type { BenchOptions } from './options.js';
import { startBenchDatabase, type BenchDatabase } from './postgres-database.js';
import { median, ratio, round, summary } from './statistics.js';
import { stop, type Compared, type Servers } from './servers.js';
import type { Workloads } from './workloads.js';
import type { createEventsMeasurements, EventsCostCell, FollowerLatency } from './measure-events.js';
import { measureOrderCosts, type OrderCosts } from './measure-orders.js';
import { measureReplicaReads, type ReplicaCell } from './measure-replicas.js';
import { measureChanges, type ChangeCell } from './measure-changes.js';

type FeedMeasurements = Pick<
  ReturnType<typeof createEventsMeasurements>,
  'measureEventsCost' | 'measureFollowerLatency'
>;

export interface DatabaseRow {
  pets: number;
  workload: string;
  service: DatabaseSample;
  baseline: DatabaseSample;
  /** With --instructions: instructions per request of each server process, the lowest over the rounds. */
  instructions?: Record<Compared, number>;
}

const THROUGHPUT_CLIENTS = [1, 16, 64];
const THROUGHPUT_INSTANCES = [1, 2];
const COMMIT_DELAYS_MS = [0, 1];

export interface ThroughputCell {
  commitDelayMs: number;
  instances: number;
  clients: number;
  /**
   * With DATABASE_WRITE_BATCH_MAX=1 (every create a statement of its own, as before batching), and with the default.
   */
  batching: 'off' | 'on';
  createsPerSecond: number;
  p50: number;
  p99: number;
  databaseCpuPerCreate: number;
}

export function createPostgresMeasurements(
  options: BenchOptions,
  { servers, loads, workloads, counter }: BenchParts,
  feed: FeedMeasurements,
) {
  const { AUTH, atExit, start } = servers;
  const { probe, warmUp, loadWithDatabase } = loads;
  const { WORKLOADS, COUNTED, createThroughputWanted } = workloads;
  const { countInstructionsOf, replaced } = counter;
  const { sizes, rounds, duration, instructions, instructionRounds } = options;
  /**
   * The PostgreSQL store, service against the baseline, each on its own database of one throwaway
   * cluster holding the same pets; fresh server processes each round, as for the in-memory store.
   */
  async function measurePostgres(): Promise<{
    rows: DatabaseRow[];
    throughput: ThroughputCell[];
    events?: { cost: EventsCostCell[]; follower: FollowerLatency[] };
    orders?: OrderCosts;
    changes?: ChangeCell[];
    replicas?: ReplicaCell[];
    missing?: string;
    replaced?: number;
  }> {
    const missing = whyNoPostgresBinaries();
    if (missing !== undefined) {
      console.error(`bench: PostgreSQL left out: ${missing}`);
      return { rows: [], throughput: [], missing };
    }
    const replacedBefore = replaced();
    const database = await startBenchDatabase();
    // pg_ctl runs the cluster as a daemon: without this, a run ended by a signal would leave it running.
    const removeCluster = () => database.destroy();
    atExit.add(removeCluster);
    try {
      const rows: DatabaseRow[] = [];
      for (const pets of WORKLOADS.length === 0 ? [] : sizes) {
        const names = { service: 'bench_service', baseline: 'bench_baseline' } as const;
        const env = {
          service: { DATABASE_URL: await database.prepare(names.service, pets) },
          baseline: { DATABASE_URL: await database.prepare(names.baseline, pets) },
        };
        const samples = WORKLOADS.map((): Record<Compared, DatabaseSample[]> => ({ service: [], baseline: [] }));
        for (let index = 0; index < rounds; index++) {
          const servers = {
            service: await start('service', 0, { env: env.service }),
            baseline: await start('baseline', 0, { env: env.baseline }),
          };
          for (const [position, workload] of WORKLOADS.entries()) {
            for (const name of orderOf(index)) {
              await probe(servers[name], workload, pets);
              await warmUp(servers[name], workload, pets);
            }
            for (const name of orderOf(index))
              samples[position]![name].push(
                await loadWithDatabase(
                  servers[name],
                  workload,
                  { pets, seconds: duration },
                  { database, name: names[name] },
                ),
              );
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
        for (let index = 0; instructions && index < instructionRounds; index++) {
          const dir = mkdtempSync(join(tmpdir(), 'bench-callgrind-'));
          try {
            const [service, baseline] = await Promise.all([
              countInstructionsOf(dir, 'service', COUNTED, { pets, env: env.service }),
              countInstructionsOf(dir, 'baseline', COUNTED, { pets, env: env.baseline }),
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
            ...(instructions && at !== -1
              ? { instructions: { service: lowest('service'), baseline: lowest('baseline') } }
              : {}),
          };
          rows.push(row);
          console.error(
            `  PostgreSQL, ${round(pets)} pets, ${workload.name}: CPU/request ratio ${ratio(row.service.cpuPerRequest, row.baseline.cpuPerRequest)}, ` +
              `statements/request ${round(row.service.statementsPerRequest, 2)}` +
              (row.instructions === undefined
                ? ''
                : `, instructions/request ratio ${ratio(row.instructions.service, row.instructions.baseline)}`),
          );
        }
      }
      const throughput = createThroughputWanted
        ? await measureCreateThroughput(database, { rounds, duration }, { AUTH, start })
        : [];
      return {
        rows,
        throughput,
        ...(await measureBeside(database, options, { servers, feed }, workloads)),
        replaced: replaced() - replacedBefore,
      };
    } finally {
      atExit.delete(removeCluster);
      await database.close();
    }
  }

  return { measurePostgres };
}

/**
 * The measurements asked for beside the workloads' table: the change feed's, orders', keyed
 * changes' and reads on a replica.
 */
async function measureBeside(
  database: BenchDatabase,
  options: BenchOptions,
  { servers, feed }: { servers: Pick<Servers, 'AUTH' | 'start' | 'atExit'>; feed: FeedMeasurements },
  {
    eventsWanted,
    ordersWanted,
    changesWanted,
    replicasWanted,
  }: Pick<Workloads, 'eventsWanted' | 'ordersWanted' | 'changesWanted' | 'replicasWanted'>,
) {
  const events = eventsWanted
    ? { cost: await feed.measureEventsCost(database), follower: await feed.measureFollowerLatency(database) }
    : undefined;
  const orders = ordersWanted ? await measureOrderCosts(database, options, servers) : undefined;
  const changes = changesWanted ? await measureChanges(database, options, servers) : undefined;
  const replicas = replicasWanted ? await measureReplicaReads(database, options, servers) : undefined;
  return {
    ...(events === undefined ? {} : { events }),
    ...(orders === undefined ? {} : { orders }),
    ...(changes === undefined ? {} : { changes }),
    ...(replicas === undefined ? {} : { replicas }),
  };
}

/**
 * Creates per second through HTTP with 1, 16 and 64 clients, on 1 and 2 instances of the service
 * sharing one database, each client sending its next create when the last is served. The
 * database's commits take PostgreSQL's own time (local disk), or 1 ms more: commit_delay = 1000 µs
 * with commit_siblings = 0 delays every WAL flush by 1 ms, as a networked disk or a synchronous
 * standby would. Latencies are exact (autocannon's own histogram keeps whole milliseconds).
 */
async function measureCreateThroughput(
  database: BenchDatabase,
  { rounds, duration }: Pick<BenchOptions, 'rounds' | 'duration'>,
  { AUTH, start }: Pick<Servers, 'AUTH' | 'start'>,
): Promise<ThroughputCell[]> {
  const cells: ThroughputCell[] = [];
  const body = JSON.stringify({ name: 'Rex', categoryId: 3, status: 'available' });
  for (const commitDelayMs of COMMIT_DELAYS_MS) {
    for (const instances of THROUGHPUT_INSTANCES) {
      for (const batching of ['off', 'on'] as const) {
        const samples = THROUGHPUT_CLIENTS.map(
          () => [] as Omit<ThroughputCell, 'commitDelayMs' | 'instances' | 'clients' | 'batching'>[],
        );
        for (let index = 0; index < rounds; index++) {
          const url = await database.prepare('bench_creates', 0, {
            commit_delay: commitDelayMs * 1000,
            commit_siblings: 0,
          });
          const env = { DATABASE_URL: url, ...(batching === 'off' ? { DATABASE_WRITE_BATCH_MAX: '1' } : {}) };
          const servers = await Promise.all(Array.from({ length: instances }, () => start('service', 0, { env })));
          try {
            for (const [position, clients] of THROUGHPUT_CLIENTS.entries()) {
              await createLoad(AUTH, servers, body, { clients, seconds: Math.min(1, duration), warmUp: true });
              const databaseCpuBefore = database.cpuSeconds();
              // At least a second: a shorter window can end before a busy machine responds to any
              // create (64 clients, commits 1 ms apart), as the smoke test's 0.3 s once did.
              const { creates, seconds, latencies } = await createLoad(AUTH, servers, body, {
                clients,
                seconds: Math.max(1, duration),
              });
              const databaseCpu = database.cpuSeconds() - databaseCpuBefore;
              latencies.sort((a, b) => a - b);
              const percentile = (p: number) =>
                latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!;
              samples[position]!.push({
                createsPerSecond: creates / seconds,
                p50: percentile(0.5),
                p99: percentile(0.99),
                databaseCpuPerCreate: databaseCpu / creates,
              });
            }
          } finally {
            for (const server of servers) await stop(server);
          }
        }
        for (const [position, clients] of THROUGHPUT_CLIENTS.entries()) {
          const of = (field: 'createsPerSecond' | 'p50' | 'p99' | 'databaseCpuPerCreate') =>
            median(samples[position]!.map((sample) => sample[field]));
          const cell = {
            commitDelayMs,
            instances,
            clients,
            batching,
            createsPerSecond: of('createsPerSecond'),
            p50: of('p50'),
            p99: of('p99'),
            databaseCpuPerCreate: of('databaseCpuPerCreate'),
          };
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
