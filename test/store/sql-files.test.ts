// The PostgreSQL store's SQL (src/store/postgres/sql/), checked by PostgreSQL itself: every named
// statement prepares against the migrated schema, a changed function reaches a database at its next
// migrate, and every file keeps the form the others have. That a database made at any earlier
// schema version ends with the schema of a new one is test/system/schema-versions.test.ts (test:all:
// it restores and dumps a database per version).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import t from 'tap';
import { migrate } from '../../src/store/postgres/migrate.js';
import { migrationsIn, namedStatements, SQL_DIR, statementsOf } from '../../src/store/postgres/sql-files.js';
import { databaseMaker, migrateDatabase, startTestDatabase } from '../helpers/postgres.js';

const database = await startTestDatabase(t);
const skip = database === undefined ? 'no PostgreSQL' : false;

/** A database of its own on the test's cluster, dropped afterwards: its connection string. */
const newDatabase = databaseMaker(t, () => database!.url, 'schema');

t.test('a changed function reaches a database at the newest version at its next migrate', { skip }, async (t) => {
  const url = await newDatabase();
  await migrateDatabase(url);
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  t.teardown(() => pool.end());
  await pool.query("CREATE OR REPLACE FUNCTION lock_pet_writes() RETURNS void LANGUAGE sql AS 'SELECT'");
  t.same(await migrate(pool), [], 'no version to apply');
  const { rows } = await pool.query("SELECT prosrc FROM pg_proc WHERE proname = 'lock_pet_writes'");
  t.match(rows[0].prosrc, /pg_advisory_xact_lock/, 'the function is as its file has it again');
});

const statementFiles = readdirSync(join(SQL_DIR, 'statements')).filter((file) => file.endsWith('.sql'));

t.test('every named statement prepares against the migrated schema', { skip }, async (t) => {
  const url = await newDatabase();
  await migrateDatabase(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  t.teardown(() => client.end());
  let prepared = 0;
  for (const file of statementFiles) {
    const statements = namedStatements(readFileSync(join(SQL_DIR, 'statements', file), 'utf8'), file);
    for (const [name, text] of Object.entries(statements)) {
      // Statements PREPARE cannot take (CREATE TABLE …) ran in the migrate above.
      if (!/^(SELECT|WITH|INSERT|UPDATE|DELETE|VALUES)\b/.test(text)) continue;
      // PREPARE plans a statement without running it: a syntax error, a missing column or function, fails.
      await client.query(`PREPARE checked AS ${text}`).then(
        () => prepared++,
        (error: Error) => t.fail(`${file} ${name}: ${error.message}`),
      );
      await client.query('DEALLOCATE ALL');
    }
  }
  t.ok(prepared > 25, `${prepared} statements prepared`);
});

t.test('the SQL files keep one form: 120 columns, spaces, no trailing blanks, a newline at the end', async (t) => {
  const files = ['migrations', 'functions', 'statements'].flatMap((folder) =>
    readdirSync(join(SQL_DIR, folder))
      .filter((file) => file.endsWith('.sql'))
      .map((file) => join(folder, file)),
  );
  t.ok(files.length > 15, `${files.length} files`);
  const problems: string[] = [];
  for (const file of files) {
    const text = readFileSync(join(SQL_DIR, file), 'utf8');
    if (!text.endsWith('\n') || text.endsWith('\n\n')) problems.push(`${file}: not one newline at the end`);
    text.split('\n').forEach((line, index) => {
      if (line.length > 120) problems.push(`${file}:${index + 1}: ${line.length} columns`);
      if (/\t/.test(line)) problems.push(`${file}:${index + 1}: a tab`);
      if (/ $/.test(line)) problems.push(`${file}:${index + 1}: trailing blanks`);
    });
  }
  t.same(problems, []);
});

t.test('a file of statements names each block once, and each block has a statement', async (t) => {
  t.same(Object.keys(namedStatements('-- the file\n\n-- name: a\n-- why\nSELECT 1;\n\n-- name: b\nSELECT\n  2;\n')), [
    'a',
    'b',
  ]);
  t.equal(
    namedStatements('-- name: a\n-- why\nSELECT 1;\n')['a'],
    'SELECT 1',
    'its opening comment and semicolon left out',
  );
  t.throws(() => namedStatements('-- name: a\nSELECT 1;\n-- name: a\nSELECT 2;\n', 'f.sql'), {
    message: 'f.sql: a is named twice',
  });
  t.throws(() => namedStatements('-- name: a\n-- nothing\n', 'f.sql'), { message: 'f.sql: a has no statement' });
});

t.test('migrations are named NNN-name.sql and numbered from 1 without a gap', async (t) => {
  const dir = t.testdir({ '001-create-things.sql': 'CREATE TABLE things ();\n', '002-more_things.sql': 'SELECT 1;\n' });
  t.same(
    migrationsIn(dir).map(({ version, name }) => ({ version, name })),
    [
      { version: 1, name: 'create things' },
      { version: 2, name: 'more_things' },
    ],
  );
  t.throws(() => migrationsIn(t.testdir({ '001-a.sql': '', '003-c.sql': '' })), {
    message: '003-c.sql: version 2 was expected here',
  });
  t.throws(() => migrationsIn(t.testdir({ '1-a.sql': '' })), { message: '1-a.sql: a migration is named NNN-name.sql' });
});

t.test("a module's statements are every block of its file, each by its name", async (t) => {
  t.same(Object.keys(statementsOf('instances', { beat: 'beat', leave: 'leave' })), ['beat', 'leave']);
  t.throws(() => statementsOf('instances', { beat: 'beat' }), { message: 'statements/instances.sql: leave not used' });
  t.throws(() => statementsOf('instances', { beat: 'beat', leave: 'leave', gone: 'gone' }), {
    message: 'statements/instances.sql has no statement named gone',
  });
});
