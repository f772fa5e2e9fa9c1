// The benchmark's PostgreSQL tables: the service against a plain fastify app on the same SQL, what
// each request costs the database, and create throughput with batching off and on.
import { cpus } from 'node:os';
import { DEFAULT_WRITE_BATCH_MAX } from '../../src/store/postgres/batch-queue.js';
import { replacedNote } from './instructions.js';
import type { DatabaseRow, ThroughputCell } from './measure-postgres.js';
import { commandLine, WARM_UP_FACTOR, type BenchOptions } from './options.js';
import { comparedCells, tableRow } from './report.js';
import { ratio, round } from './statistics.js';

const POSTGRES_SETTINGS =
  'PostgreSQL defaults: fsync and synchronous_commit on, so a create is on disk before it is answered';

/** The PostgreSQL report of a run with these options. */
export function createPostgresReport(options: BenchOptions) {
  const { sizes, rounds, duration, instructionRequests, instructionRounds } = options;
  /** The PostgreSQL table: service against the baseline on the same SQL, and what each request costs the database. */
  function postgresReport(
    rows: DatabaseRow[],
    throughput: ThroughputCell[],
    missing: string | undefined,
    replaced = 0,
  ): string {
    if (rows.length === 0 && throughput.length === 0)
      return `PostgreSQL store: left out of this run (${missing ?? 'no rows'}).`;
    if (rows.length === 0) return throughputReport(throughput);
    const largest = Math.max(...sizes);
    const smallest = Math.min(...sizes);
    const rowOf = (pets: number, workload: string) =>
      rows.find((row) => row.pets === pets && row.workload.startsWith(workload));
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
              instructions === undefined
                ? []
                : [
                    `| ${round(pets)} | ${workload} | ${round(instructions.service)} | ${round(instructions.baseline)} | ${ratio(instructions.service, instructions.baseline)} |`,
                  ],
            ),
          ]),
      ...(throughput.length === 0 ? [] : ['', throughputReport(throughput)]),
    ].join('\n');
  }

  /**
   * Create throughput, batching off (each create a statement of its own, as before batching) against on, cell by cell.
   */
  function throughputReport(cells: ThroughputCell[]): string {
    const on = cells.filter((cell) => cell.batching === 'on');
    const off = (cell: ThroughputCell) =>
      cells.find(
        (other) =>
          other.batching === 'off' &&
          other.commitDelayMs === cell.commitDelayMs &&
          other.instances === cell.instances &&
          other.clients === cell.clients,
      )!;
    return [
      `Create throughput on PostgreSQL: clients each sending a create as soon as the last was answered, spread over 1 or 2 instances of the service on one database (empty at the start of each round), for ${duration} s after 1 s of warm-up; medians over ${rounds} rounds of fresh servers and databases. "Commit +1 ms": commit_delay = 1000 µs, commit_siblings = 0, so that every WAL flush waits 1 ms more (a networked disk, a synchronous standby). "Before" is DATABASE_WRITE_BATCH_MAX=1: every create a statement and a commit of its own, sent at once, as before batching; "after" batches up to ${DEFAULT_WRITE_BATCH_MAX}. DB CPU: every process of the cluster, per create.`,
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
      `Command: \`${commandLine(options)}\` (${cpus().length} cores, Node ${process.version}). PostgreSQL store, one instance on a local cluster (${POSTGRES_SETTINGS}):`,
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

  return { postgresReport, shortPostgresTable };
}
