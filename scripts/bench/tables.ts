// The benchmark: the service against a plain fastify baseline (scripts/bench/), both as separate
// processes on 127.0.0.1, loaded in turn by autocannon over several rounds so that machine noise
// hits both alike. Prints a markdown report; --write-docs also writes it, with a short summary
// table, into docs/performance.md. Its parts are in scripts/bench/: options, servers, workloads,
// load, instructions (valgrind), the measurements of each store, statistics and the report.
//   npm run bench                       (full run, about 11 minutes on 2 cores; 25 with --instructions)
//   npm run bench -- --sizes 1000 --rounds 1 --duration 1
//   npm run bench -- --self-check        (baseline against baseline: the noise floor)
//   npm run bench -- --instructions      (also instructions per request, counted by valgrind: no noise)
import { createCounter } from './instructions.js';
import { createLoads } from './load.js';
import { createFairnessMeasurement } from './measure-fairness.js';
import { createMemoryMeasurements } from './measure-memory.js';
import { createComparison } from './measure-comparison.js';
import { createEventsMeasurements } from './measure-events.js';
import { changesReport } from './measure-changes.js';
import { orderCostsReport } from './measure-orders.js';
import { replicaReadsReport } from './measure-replicas.js';
import { createPostgresMeasurements } from './measure-postgres.js';
import { readOptions } from './options.js';
import { createPostgresReport } from './postgres-report.js';
import { createReport, writeBetweenMarkers } from './report.js';
import { createServers } from './servers.js';
import { workloadsFor } from './workloads.js';

const options = readOptions(process.argv.slice(2));
const servers = createServers(options);
const workloads = workloadsFor(options, servers.AUTH);
const loads = createLoads(options, servers.AUTH);
const counter = createCounter(options, servers, loads, workloads);
const { measureMemoryStore } = createMemoryMeasurements(options, { servers, loads, workloads, counter });
const events = createEventsMeasurements(options, servers);
const { measurePostgres } = createPostgresMeasurements(options, { servers, loads, workloads, counter }, events);
const { measureFairness, fairnessReport } = createFairnessMeasurement(options, servers);
const { measureComparison, comparisonReport } = createComparison(options, servers, loads, workloads);
const { report, shortTable } = createReport(options, counter.replaced);
const { postgresReport, shortPostgresTable } = createPostgresReport(options);

async function main() {
  const { sizes, rounds, duration, connections, stores, writeDocs } = options;
  console.error(
    `bench: sizes ${sizes.join(', ')}; ${rounds} rounds of ${duration} s per workload and server; ${connections} connections; stores: ${stores.join(', ')}`,
  );
  if (options.fairnessOnly) {
    console.log(fairnessReport(await measureFairness()));
    return;
  }
  if (options.comparisonOnly) {
    console.log(comparisonReport(await measureComparison()));
    return;
  }
  const memory = stores.includes('memory') ? await measureMemoryStore() : undefined;
  const postgres = stores.includes('postgres')
    ? await measurePostgres()
    : { rows: [], throughput: [], missing: 'not asked for (--stores)' };
  const eventsTable =
    'events' in postgres && postgres.events !== undefined
      ? events.eventsReport(postgres.events.cost, postgres.events.follower)
      : '';
  const ordersTable = 'orders' in postgres && postgres.orders !== undefined ? orderCostsReport(postgres.orders) : '';
  const changesTable = 'changes' in postgres && postgres.changes !== undefined ? changesReport(postgres.changes) : '';
  const replicasTable =
    'replicas' in postgres && postgres.replicas !== undefined ? replicaReadsReport(postgres.replicas) : '';
  const postgresTable = [
    postgresReport(postgres.rows, postgres.throughput, postgres.missing, postgres.replaced),
    ...(eventsTable === '' ? [] : [eventsTable]),
    ...(ordersTable === '' ? [] : [ordersTable]),
    ...(changesTable === '' ? [] : [changesTable]),
    ...(replicasTable === '' ? [] : [replicasTable]),
  ].join('\n\n');
  const memoryTable = memory === undefined ? undefined : report(memory);
  // Against a fastify app written by hand (issue 49), on the in-memory store's smallest size.
  const comparison = memory === undefined ? undefined : await measureComparison();
  const comparisonTable =
    comparison === undefined || comparison.rows.length === 0 ? undefined : comparisonReport(comparison);
  // One client flooding, another calm, on the in-memory store (with it: --stores memory).
  const fairness =
    stores.includes('memory') && options.workloads === undefined ? fairnessReport(await measureFairness()) : undefined;
  console.log(
    [
      ...(memoryTable === undefined ? [] : [memoryTable]),
      ...(comparisonTable === undefined ? [] : [comparisonTable]),
      ...(fairness === undefined ? [] : [fairness]),
      postgresTable,
    ].join('\n\n'),
  );
  // Each store's tables have their own markers, so that a run of one store updates only its own.
  if (writeDocs && memory !== undefined) {
    writeBetweenMarkers('docs/performance/latest-run.md', 'bench', memoryTable!);
    writeBetweenMarkers(
      'docs/performance.md',
      'bench-summary',
      shortTable(memory.rows, memory.instructionRows, memory.observability),
    );
    if (fairness !== undefined) writeBetweenMarkers('docs/performance/fair-share.md', 'bench-fairness', fairness);
    if (comparisonTable !== undefined)
      writeBetweenMarkers('docs/performance/hand-written.md', 'bench-hand-written', comparisonTable);
  }
  if (writeDocs && eventsTable !== '')
    writeBetweenMarkers('docs/performance/change-feed.md', 'bench-events', eventsTable);
  if (writeDocs && ordersTable !== '') writeBetweenMarkers('docs/performance/orders.md', 'bench-orders', ordersTable);
  if (writeDocs && replicasTable !== '')
    writeBetweenMarkers('docs/performance/replicas.md', 'bench-replicas', replicasTable);
  if (writeDocs && changesTable !== '')
    writeBetweenMarkers('docs/performance/changes-with-a-key.md', 'bench-changes', changesTable);
  if (writeDocs && postgres.rows.length > 0) {
    writeBetweenMarkers('docs/performance/latest-run.md', 'bench-postgres', postgresTable);
    writeBetweenMarkers('docs/performance.md', 'bench-postgres-summary', shortPostgresTable(postgres.rows));
  }
}

// Exits at once on failure: a server or a count still running (the other side of a Promise.all)
// would otherwise keep the process alive, idle, for ever; the exit handler kills them all.
await main().catch((error: Error) => {
  console.error(`bench: ${error.message}`);
  process.exit(1);
});
