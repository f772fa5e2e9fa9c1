// Where the PostgreSQL store's reads run (src/store/postgres/replicas.ts): reads by statement and
// target, reads a replica could not take and why, and each replica as the instance sees it. Counts
// are kept in maps and added at each scrape, as the deprecated calls are: a counter's inc hashes
// its labels every time, and a read is the commonest thing the service does.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ReadMetrics, ReplicaView, SkipReason } from '../store/postgres/replicas.js';

export interface ReplicaMetrics extends ReadMetrics {
  /** Reports the replicas `views` gives at each scrape. */
  observeReplicas(views: () => ReplicaView[]): void;
}

export function createReadMetrics(registry: Registry): ReplicaMetrics {
  const reads = new Map<string, number>();
  const skips = new Map<SkipReason, number>();
  new Counter({
    name: 'petstore_db_reads_total',
    help: 'Read statements of the PostgreSQL store, by statement and by where they ran (primary, replica).',
    labelNames: ['db_operation_name', 'target'],
    registers: [registry],
    collect() {
      for (const [key, count] of reads) {
        const [name, target] = key.split(' ') as [string, string];
        this.inc({ db_operation_name: name, target }, count);
      }
      reads.clear();
    },
  });
  new Counter({
    name: 'petstore_db_read_skips_total',
    help: 'Reads sent to the primary though replicas are configured, by why: behind (not replayed as far as the request had seen), lagging (beyond DATABASE_READ_MAX_LAG_MS), unreachable, diverged (promoted, or not following this primary).',
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      for (const [reason, count] of skips) this.inc({ reason }, count);
      skips.clear();
    },
  });
  return {
    read: (statement, target) => {
      const key = `${statement} ${target}`;
      reads.set(key, (reads.get(key) ?? 0) + 1);
    },
    skipped: (reason) => skips.set(reason, (skips.get(reason) ?? 0) + 1),
    observeReplicas(views) {
      new Gauge({
        name: 'petstore_db_replica_lag_seconds',
        help: 'How far each replica is behind the primary, as this instance measures it in the feed: how long ago the primary first had an event the replica has not replayed (to within 100 ms). +Inf until both were read.',
        labelNames: ['replica'],
        registers: [registry],
        collect() {
          for (const { name, lagMs } of views()) this.set({ replica: name }, lagMs / 1000);
        },
      });
      new Gauge({
        name: 'petstore_db_replica_usable',
        help: 'Whether each replica follows this primary and answers (1), or is unreachable or diverged (0).',
        labelNames: ['replica'],
        registers: [registry],
        collect() {
          for (const { name, state } of views()) this.set({ replica: name }, state === 'following' ? 1 : 0);
        },
      });
    },
  };
}
