// The pool settings the service runs with, from its configuration (src/config.ts's DatabaseConfig).
import type pg from 'pg';
import type { ReadMetrics, ReplicaOptions } from './replicas.js';

export interface PoolSettings {
  url: string;
  poolMax: number;
  /** Bounds every wait on the database: for a connection, and for a statement's response. */
  timeoutMs: number;
}

export function poolConfigOf(database: PoolSettings): pg.PoolConfig {
  return {
    connectionString: database.url,
    max: database.poolMax,
    // Every wait on the database is bounded, so that a request gets its 503 rather than hanging.
    connectionTimeoutMillis: database.timeoutMs,
    query_timeout: database.timeoutMs,
    statement_timeout: database.timeoutMs,
  };
}

/** The replicas of DATABASE_READ_URLS, each pool set as the primary's; undefined without any. */
export function replicaOptionsOf(
  database: PoolSettings & { readUrls: readonly string[]; readMaxLagMs: number },
  metrics?: ReadMetrics,
): ReplicaOptions | undefined {
  if (database.readUrls.length === 0) return undefined;
  return {
    pools: database.readUrls.map((url) => poolConfigOf({ ...database, url })),
    maxLagMs: database.readMaxLagMs,
    metrics,
  };
}
