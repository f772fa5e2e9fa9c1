// Where pets are kept: in memory unless DATABASE_URL names a PostgreSQL database, which then holds
// them for every instance that names it (the schema migrated, the pool observed and traced).
import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import type { Config, DatabaseConfig } from '../config.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { createMemoryPetStore } from '../store/memory-pet-store.js';
import type { PetStore } from '../store/pet-store.js';
import type { KeyAdoption } from '../store/postgres/key-records.js';
import { poolConfigOf, replicaOptionsOf } from '../store/postgres/pool-config.js';
import { startPostgresStore } from '../store/postgres/start.js';
import { composeInstruments } from '../store/postgres/statement-instrument.js';
import type { Tracing } from '../tracing/tracing.js';

export type ServiceStore = PetStore & { migrated?: Promise<void>; instances?: () => number };

export interface StoreParts {
  metrics: ServiceMetrics | undefined;
  tracing: Tracing | undefined;
  /** The keys accepted now, as the digests and client scopes their older key records move between. */
  keyAdoptions: () => readonly KeyAdoption[];
}

export function serviceStore(
  config: Config,
  log: FastifyBaseLogger,
  { metrics, tracing, keyAdoptions }: StoreParts,
): ServiceStore {
  const { database, idempotencyRetentionMs: retentionMs } = config;
  if (database === undefined) {
    log.info('pets are kept in memory (DATABASE_URL is not set)');
    return createMemoryPetStore({ retentionMs });
  }
  log.info(`pets are kept in PostgreSQL at ${where(database.url)}`);
  const { poolMax, writeBatchMax, readUrls, readMaxLagMs } = database as DatabaseConfig;
  if (readUrls.length > 0)
    log.info(`reads may go to the replicas at ${readUrls.map(where).join(', ')} (at most ${readMaxLagMs} ms behind)`);
  const store = startPostgresStore(poolConfigOf(database), {
    log,
    retentionMs,
    maxWriteBatch: writeBatchMax,
    keyAdoptions,
    replicas: replicaOptionsOf(database as DatabaseConfig, metrics?.reads),
    ...(metrics === undefined ? {} : { observePool: (pool: pg.Pool) => metrics.observePool(pool, poolMax) }),
    // test/system/tracing.test.ts traces its statements in-process.
    /* c8 ignore next -- no server process in the tests traces and uses PostgreSQL at once */
    instrument: composeInstruments([metrics?.statementInstrument, tracing?.statementInstrument]),
  });
  if (readUrls.length > 0) metrics?.reads.observeReplicas(store.replicas);
  return store;
}

/** Host, port and database of a connection string: never its user or password. */
function where(url: string): string {
  const { hostname, port, pathname } = new URL(url);
  /* c8 ignore next -- a URL on PostgreSQL's default port; the tests' clusters listen on free ports */
  return `${hostname}${port === '' ? '' : `:${port}`}${pathname}`;
}
