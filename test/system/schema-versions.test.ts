// A database made at any earlier schema version (test/fixtures/schemas/, each a pg_dump of a
// database the release of that version migrated) migrates forward with no manual step and ends with
// the same schema dump as a new one. A process test (test:all): it restores, migrates and dumps a
// database per version, side by side.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { postgresBinDir } from 'throwaway-postgres';
import { PROJECT_ROOT } from '../../src/project-root.js';
import { MIGRATIONS } from '../../src/store/postgres/migrate.js';
import { databaseMaker, migrateDatabase, startTestDatabase } from '../helpers/postgres.js';

const FIXTURES = join(PROJECT_ROOT, 'test', 'fixtures', 'schemas');
const fixtures = readdirSync(FIXTURES)
  .filter((file) => /^\d{3}\.sql$/.test(file))
  .sort();

const database = await startTestDatabase(t);
const skip = database === undefined ? 'no PostgreSQL' : false;

/** A database of its own on the test's cluster, dropped afterwards: its connection string. */
const newDatabase = databaseMaker(t, () => database!.url, 'schema');

const tool = (name: string) => join(postgresBinDir() ?? '', name);

const run = promisify(execFile);

/** The schema of the database at `url`, as pg_dump writes it, its version lines left out. */
async function schemaOf(url: string): Promise<string> {
  const { stdout } = await run(tool('pg_dump'), ['--schema-only', '--no-owner', '--no-privileges', '-d', url], {
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout
    .split('\n')
    .filter((line) => !/^-- Dumped (from|by)|^\\(un)?restrict /.test(line))
    .join('\n');
}

t.test('the fixtures are the released versions: each one up to the version before the newest', async (t) => {
  const versions = fixtures.map((file) => Number(file.slice(0, 3)));
  t.same(
    versions,
    versions.map((_version, index) => index + 1),
    'one for each version from 1, none missing',
  );
  t.ok(versions.length >= MIGRATIONS.length - 1, `${versions.length} of ${MIGRATIONS.length} versions`);
});

t.test('a database made at any earlier version migrates to the schema of a new one', { skip }, async (t) => {
  const fresh = await newDatabase();
  t.same(
    await migrateDatabase(fresh),
    MIGRATIONS.map(({ version }) => version),
  );
  const expected = await schemaOf(fresh);
  t.match(expected, /CREATE FUNCTION public\.lock_pet_writes\(\)/, "the new one's dump holds the functions");
  // Each version in a database of its own, side by side: restored, migrated, dumped.
  const upgraded = await Promise.all(
    fixtures.map(async (file) => {
      const url = await newDatabase();
      await run(tool('psql'), ['-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-f', join(FIXTURES, file)]);
      return { version: Number(file.slice(0, 3)), applied: await migrateDatabase(url), schema: await schemaOf(url) };
    }),
  );
  for (const { version, applied, schema } of upgraded) {
    t.same(
      applied,
      MIGRATIONS.filter((migration) => migration.version > version).map((migration) => migration.version),
      `version ${version}: the versions after it are applied`,
    );
    t.equal(schema, expected, `version ${version}: the same schema as a new database`);
  }
});
