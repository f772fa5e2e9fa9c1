// Reads with and without a streaming replica (issue 67, docs/replicas.md): one service instance over
// the bench's PostgreSQL, once on the primary alone and once with DATABASE_READ_URLS naming a
// streaming replica of it, in the same rounds, under reads alone (so the replica is caught up and
// takes every read). Reads per second, and CPU per read of the service, of the primary cluster and
// of the replica cluster. Primary and replica share this machine's cores: the figures say where
// the reads go and what each server spends on them, not how much a machine of its own would add.
import { createLoads, type DatabaseSample } from './load.js';
import type { BenchOptions } from './options.js';
import type { BenchDatabase } from './postgres-database.js';
import { stop, type Servers } from './servers.js';
import { median, ratio, round } from './statistics.js';
import { GET_RANDOM_ID, LIST_20, type Workload } from './workloads.js';

const NAME = 'bench_replicas';
const PETS = 10_000;

export interface ReplicaSample extends DatabaseSample {
  /** CPU of the replica cluster per answered read (0 without it). */
  replicaCpuPerRequest: number;
}

export interface ReplicaCell {
  workload: string;
  primaryOnly: ReplicaSample;
  withReplica: ReplicaSample;
}

const READS: Workload[] = [GET_RANDOM_ID, LIST_20];

export async function measureReplicaReads(
  database: BenchDatabase,
  options: BenchOptions,
  { AUTH, start, atExit }: Pick<Servers, 'AUTH' | 'start' | 'atExit'>,
): Promise<ReplicaCell[]> {
  const { rounds, duration } = options;
  const { warmUp, loadWithDatabase } = createLoads(options, AUTH);
  const url = await database.prepare(NAME, PETS);
  const replica = await database.startReplica();
  const removeReplica = () => replica.destroy();
  atExit.add(removeReplica);
  const samples = READS.map(() => ({ primaryOnly: [] as ReplicaSample[], withReplica: [] as ReplicaSample[] }));
  try {
    for (let index = 0; index < rounds; index++) {
      const servers = {
        primaryOnly: await start('service', 0, { env: { DATABASE_URL: url } }),
        withReplica: await start('service', 0, {
          env: { DATABASE_URL: url, DATABASE_READ_URLS: replica.urlOf(NAME) },
        }),
      };
      // In turn, one first in even rounds and the other in odd ones, so that drift hits both alike.
      const order =
        index % 2 === 0 ? (['primaryOnly', 'withReplica'] as const) : (['withReplica', 'primaryOnly'] as const);
      for (const [position, workload] of READS.entries())
        for (const setup of order) {
          await warmUp(servers[setup], workload, PETS);
          const replicaBefore = replica.cpuSeconds();
          const sample = await loadWithDatabase(
            servers[setup],
            workload,
            { pets: PETS, seconds: duration },
            { database, name: NAME },
          );
          const replicaCpu = replica.cpuSeconds() - replicaBefore;
          const answered = sample.rps * duration;
          samples[position]![setup].push({ ...sample, replicaCpuPerRequest: replicaCpu / answered });
        }
      await stop(servers.primaryOnly);
      await stop(servers.withReplica);
    }
  } finally {
    atExit.delete(removeReplica);
    replica.destroy();
  }
  const of = (list: ReplicaSample[]): ReplicaSample => ({
    rps: median(list.map((sample) => sample.rps)),
    p99: median(list.map((sample) => sample.p99)),
    cpuPerRequest: median(list.map((sample) => sample.cpuPerRequest)),
    statementsPerRequest: median(list.map((sample) => sample.statementsPerRequest)),
    databaseCpuPerRequest: median(list.map((sample) => sample.databaseCpuPerRequest)),
    replicaCpuPerRequest: median(list.map((sample) => sample.replicaCpuPerRequest)),
  });
  const cells = READS.map((workload, position) => ({
    workload: workload.name,
    primaryOnly: of(samples[position]!.primaryOnly),
    withReplica: of(samples[position]!.withReplica),
  }));
  for (const { workload, primaryOnly, withReplica } of cells)
    console.error(
      `  PostgreSQL replica reads, ${workload}: primary CPU per read with a replica ÷ without ${ratio(withReplica.databaseCpuPerRequest, primaryOnly.databaseCpuPerRequest)}`,
    );
  return cells;
}

/** The table of reads with and without the replica. */
export function replicaReadsReport(cells: readonly ReplicaCell[]): string {
  const µs = (seconds: number) => round(seconds * 1e6, 1);
  const row = (workload: string, setup: string, sample: ReplicaSample) =>
    `| ${workload} | ${setup} | ${round(sample.rps)} | ${round(sample.p99, 1)} | ${µs(sample.cpuPerRequest)} | ${µs(sample.databaseCpuPerRequest)} | ${µs(sample.replicaCpuPerRequest)} | ${round(sample.statementsPerRequest, 2)} |`;
  return [
    `Reads with and without a streaming replica: one instance, ${round(PETS)} pets, reads without a Store-Position (a replica at most DATABASE_READ_MAX_LAG_MS behind takes them), the two setups in the same rounds (medians). Primary and replica run on the same cores as the service and the load.`,
    '',
    '| workload | setup | req/s | p99 ms | service CPU µs/read | primary CPU µs/read | replica CPU µs/read | primary statements/read |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...cells.flatMap(({ workload, primaryOnly, withReplica }) => [
      row(workload, 'primary only', primaryOnly),
      row(workload, 'with a replica', withReplica),
    ]),
    '',
    ...cells.map(
      ({ workload, primaryOnly, withReplica }) =>
        `- ${workload}: the primary's CPU per read with the replica is ${ratio(withReplica.databaseCpuPerRequest, primaryOnly.databaseCpuPerRequest)}× what it is without (what is left: each instance's look every 100 ms, and the checkpointer and WAL sender); reads per second ${ratio(withReplica.rps, primaryOnly.rps)}×.`,
    ),
  ].join('\n');
}
