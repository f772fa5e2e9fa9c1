// Brings the schema up to date: every migration not yet applied, in version order, in one
// transaction under an advisory lock, so that instances starting together on an empty database
// take turns (the later ones find everything applied) and a failed migration leaves nothing half done.
import type { Pool } from 'pg';
import { MIGRATIONS, type Migration } from './migrations.js';
import { inTransaction } from './transaction.js';

// Any constant shared by every instance of this service; "petstore" as ASCII.
export const MIGRATION_LOCK = 0x7065_7473_746f_7265n;

/** The versions applied by this call (empty when the schema was current). */
export function migrate(pool: Pool, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  return inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK.toString()]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
    const applied = new Set(rows.map((row) => row.version));
    const pending = [...migrations]
      .sort((a, b) => a.version - b.version)
      .filter((migration) => !applied.has(migration.version));
    for (const migration of pending) {
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
    }
    await client.query('COMMIT');
    return pending.map((migration) => migration.version);
  });
}
