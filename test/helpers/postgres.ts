// A real PostgreSQL for the tests, never an imitation: TEST_DATABASE_URL when it is given, else the
// throwaway cluster that tap started for the whole run (test/setup/database-up.ts, before any test
// file; test/setup/database-down.ts removes it after the last), else one started here from Debian's
// server binaries (scripts/postgres/), removed on teardown. Each store gets a schema of its own, so
// test files share a cluster but never data; a file that stops its server asks for its own.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import pg from 'pg';
import type { Test } from 'tap';
import { migrate, MIGRATION_LOCK } from '../../src/store/postgres/migrate.js';
import {
  createPostgresPetStore,
  type PostgresPetStore,
  type PostgresStoreOptions,
} from '../../src/store/postgres/postgres-pet-store.js';
import { startThrowawayCluster, whyNoPostgresBinaries, type Cluster, inSchema } from 'throwaway-postgres';
import { SHARED_CLUSTER_FILE, type SharedCluster } from '../setup/shared-cluster.js';

export type { Cluster };
export { inSchema };

// .ci/run sets this: there the PostgreSQL tests must run, never skip.
const REQUIRED = process.env['REQUIRE_POSTGRES_TEST'] === '1';

export interface TestDatabase {
  /** Connection string of the database itself. */
  url: string;
  /** A connection string whose search_path is a new, empty schema, with these server settings. */
  freshSchema(settings?: Record<string, string>): Promise<string>;
  /** A migrated store in a fresh schema, closed on the test's teardown. */
  createStore(t: Test, settings?: Record<string, string>): Promise<PostgresPetStore>;
  /** A migrated store on this connection string (another instance on a schema), closed on teardown. */
  openStore(t: Test, url: string, options?: PostgresStoreOptions): Promise<PostgresPetStore>;
  /** The cluster started for these tests, when there is one (not with TEST_DATABASE_URL). */
  cluster?: Cluster;
}

/** Why the PostgreSQL tests cannot run here, or undefined when they can. */
export function whyNoPostgres(): string | undefined {
  if (process.env['TEST_DATABASE_URL'] !== undefined) return undefined;
  const missing = whyNoPostgresBinaries();
  return missing === undefined ? undefined : `${missing.slice(0, -1)}, or set TEST_DATABASE_URL)`;
}

/**
 * A database of this test file's own on the run's shared cluster, dropped on teardown: advisory
 * locks and pg_stat_activity are per database, so files running side by side never meet.
 */
async function databaseOnSharedCluster(t: Test): Promise<string | undefined> {
  if (!existsSync(SHARED_CLUSTER_FILE)) return undefined;
  const { url } = JSON.parse(readFileSync(SHARED_CLUSTER_FILE, 'utf8')) as SharedCluster;
  const { url: own, drop } = await createDatabase(url, 'test');
  t.teardown(drop);
  return own;
}

/**
 * A new database named `prefix`_<random> on the cluster of `url`: its connection string, and how to
 * drop it (with FORCE, whatever is still connected).
 */
export async function createDatabase(url: string, prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const run = async (sql: string) => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(sql);
    } finally {
      await admin.end();
    }
  };
  await run(`CREATE DATABASE ${name}`);
  const own = new URL(url);
  own.pathname = `/${name}`;
  return { url: own.toString(), drop: () => run(`DROP DATABASE ${name} WITH (FORCE)`) };
}

/**
 * A maker of new databases on the cluster of `url`, each dropped on the test's teardown, side by
 * side (one at a time, the drops took longer than the tests that made them).
 */
export function databaseMaker(t: Test, url: () => string, prefix: string): () => Promise<string> {
  const drops: (() => Promise<void>)[] = [];
  t.teardown(() => Promise.all(drops.map((drop) => drop())));
  return async () => {
    const made = await createDatabase(url(), prefix);
    drops.push(made.drop);
    return made.url;
  };
}

/** Migrates the database at `url` with a pool of its own: the versions it applied. */
export async function migrateDatabase(url: string): Promise<number[]> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    return await migrate(pool);
  } finally {
    await pool.end();
  }
}

/**
 * Starts (or connects to) the database for one test file; undefined, with the reason printed, when
 * it cannot. `ownCluster`: a cluster for this file alone, which it may stop and start.
 */
export async function startTestDatabase(t: Test, { ownCluster = false } = {}): Promise<TestDatabase | undefined> {
  const missing = whyNoPostgres();
  if (missing !== undefined) {
    if (REQUIRED)
      throw new Error(`the PostgreSQL tests are required here (REQUIRE_POSTGRES_TEST=1) but there is ${missing}`);
    console.error(`# SKIPPED the PostgreSQL tests: ${missing}`);
    return undefined;
  }
  const given = process.env['TEST_DATABASE_URL'];
  const shared = given === undefined && !ownCluster ? await databaseOnSharedCluster(t) : undefined;
  const cluster = given === undefined && shared === undefined ? await startThrowawayCluster() : undefined;
  if (cluster !== undefined) t.teardown(() => cluster.destroy());
  const url = given ?? shared ?? cluster!.url;
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  // Fault tests stop the server under it: its idle connections then fail, which is expected here.
  admin.on('error', () => undefined);
  const schemas: string[] = [];
  t.teardown(async () => {
    // With a database of the caller's, what the tests made is dropped; a throwaway cluster goes whole.
    if (given !== undefined) for (const schema of schemas) await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  });
  const freshSchema = async (settings: Record<string, string> = {}) => {
    const schema = `test_${randomBytes(6).toString('hex')}`;
    await admin.query(`CREATE SCHEMA ${schema}`);
    schemas.push(schema);
    return inSchema(url, schema, settings);
  };
  const openStore = async (t: Test, url: string, options?: PostgresStoreOptions) => {
    const store = createPostgresPetStore({ connectionString: url }, options);
    t.teardown(() => store.close());
    await migrate(store.pool);
    await store.readEpoch();
    return store;
  };
  return {
    url,
    freshSchema,
    openStore,
    createStore: async (t, settings = {}) => openStore(t, await freshSchema(settings)),
    ...(cluster === undefined ? {} : { cluster }),
  };
}

/** The connection string with a password, which trust authentication ignores: to show it never reaches a log. */
export const SECRET_PASSWORD = 's3cret-password';
export function withPassword(url: string): string {
  const withSecret = new URL(url);
  withSecret.password = SECRET_PASSWORD;
  return withSecret.toString();
}

/**
 * A session holding the migration lock, as an instance migrating a long change would; the returned function releases
 * it.
 */
export async function holdMigrations(url: string): Promise<() => Promise<void>> {
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  await holder.query('BEGIN');
  await holder.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK.toString()]);
  return async () => {
    await holder.query('COMMIT');
    await holder.end();
  };
}
