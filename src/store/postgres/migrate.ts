// Brings the schema up to date: every migration not yet applied (sql/migrations/), in version
// order, then every function and trigger as it runs now (sql/functions/, CREATE OR REPLACE), in one
// transaction under an advisory lock, so that instances starting together on an empty database
// take turns (the later ones find everything applied) and a failed migration leaves nothing half
// done. A shipped migration never changes: the next version goes in a new file. A function changes
// in its file, and every database has the change at its next migrate, whatever version it was at.
import type { Pool } from 'pg';
import { functionsIn, migrationsIn, statementsOf, type Migration } from './sql-files.js';
import { inTransaction } from './transaction.js';

export type { Migration } from './sql-files.js';

export const MIGRATIONS: readonly Migration[] = migrationsIn();
export const FUNCTIONS: readonly string[] = functionsIn();
const SQL = statementsOf('schema', {
  lock: 'lock-schema',
  createTable: 'create-schema-migrations',
  applied: 'applied-versions',
  record: 'record-version',
});

// Any constant shared by every instance of this service; "petstore" as ASCII.
export const MIGRATION_LOCK = 0x7065_7473_746f_7265n;

/**
 * The versions applied by this call (empty when the schema was current). `functions`: none to
 * leave a database at an earlier version, as a test makes one.
 */
export function migrate(
  pool: Pool,
  migrations: readonly Migration[] = MIGRATIONS,
  functions: readonly string[] = FUNCTIONS,
): Promise<number[]> {
  return inTransaction(pool, async (client) => {
    await client.query(SQL.lock.text, [MIGRATION_LOCK.toString()]);
    await client.query(SQL.createTable.text);
    const { rows } = await client.query<{ version: number }>(SQL.applied.text);
    const applied = new Set(rows.map((row) => row.version));
    const pending = [...migrations]
      .sort((a, b) => a.version - b.version)
      .filter((migration) => !applied.has(migration.version));
    for (const migration of pending) {
      await client.query(migration.sql);
      await client.query(SQL.record.text, [migration.version, migration.name]);
    }
    for (const sql of functions) await client.query(sql);
    await client.query('COMMIT');
    return pending.map((migration) => migration.version);
  });
}
