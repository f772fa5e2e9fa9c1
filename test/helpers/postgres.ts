// A real PostgreSQL for the tests, never an imitation: TEST_DATABASE_URL when it is given, else a
// throwaway cluster started here from Debian's server binaries (scripts/postgres/), stopped and
// removed on teardown. Each store gets a schema of its own, so tests share a cluster but never data.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Test } from 'tap';
import { migrate } from '../../src/store/postgres/migrate.js';
import { createPostgresPetStore, type PostgresPetStore, type PostgresStoreOptions } from '../../src/store/postgres/postgres-pet-store.js';
import { startThrowawayCluster, whyNoPostgresBinaries, type Cluster } from '../../scripts/postgres/throwaway-cluster.js';

export type { Cluster };

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

/** Starts (or connects to) the database for one test file; undefined, with the reason printed, when it cannot. */
export async function startTestDatabase(t: Test): Promise<TestDatabase | undefined> {
  const missing = whyNoPostgres();
  if (missing !== undefined) {
    if (REQUIRED) throw new Error(`the PostgreSQL tests are required here (REQUIRE_POSTGRES_TEST=1) but there is ${missing}`);
    console.error(`# SKIPPED the PostgreSQL tests: ${missing}`);
    return undefined;
  }
  const given = process.env['TEST_DATABASE_URL'];
  const cluster = given === undefined ? await startThrowawayCluster() : undefined;
  if (cluster !== undefined) t.teardown(() => cluster.destroy());
  const url = given ?? cluster!.url;
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

/** The connection string whose connections use `schema` (search_path) and these server settings. */
export function inSchema(url: string, schema: string, settings: Record<string, string> = {}): string {
  const withOptions = new URL(url);
  const options = Object.entries({ search_path: schema, ...settings }).map(([name, value]) => `-c ${name}=${value}`);
  withOptions.searchParams.set('options', options.join(' '));
  return withOptions.toString();
}

/** The connection string with a password, which trust authentication ignores: to show it never reaches a log. */
export const SECRET_PASSWORD = 's3cret-password';
export function withPassword(url: string): string {
  const withSecret = new URL(url);
  withSecret.password = SECRET_PASSWORD;
  return withSecret.toString();
}
