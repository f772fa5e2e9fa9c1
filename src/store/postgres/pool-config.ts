// The pool settings the service runs with, from its configuration (src/config.ts's DatabaseConfig).
import type pg from 'pg';

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
