// The pool settings the service runs with, from its configuration (src/config.ts).
import type pg from 'pg';
import type { DatabaseConfig } from '../../config.js';

export function poolConfigOf(database: DatabaseConfig): pg.PoolConfig {
  return {
    connectionString: database.url,
    max: database.poolMax,
    // Every wait on the database is bounded, so that a request gets its 503 rather than hanging.
    connectionTimeoutMillis: database.timeoutMs,
    query_timeout: database.timeoutMs,
    statement_timeout: database.timeoutMs,
  };
}
