import t, { type Test } from 'tap';
import { Writable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import pino from 'pino';
import { startPostgresStore } from '../../src/store/postgres/start.js';
import type { Statement } from '../../src/store/postgres/statement.js';
import { migrate } from '../../src/store/postgres/migrate.js';
import { MIGRATIONS } from '../../src/store/postgres/migrate.js';
import {
  STATEMENTS,
  createPostgresPetStore,
  type PostgresPetStore,
} from '../../src/store/postgres/postgres-pet-store.js';
import type { ChangeKey } from '../../src/store/pet-store.js';
import type { PetId } from '../../src/types/api.js';
import { INT64_MAX, INT64_MIN } from '../../src/validation/int64.js';
import {
  changeConformance,
  eventConformance,
  idempotencyConformance,
  petStoreConformance,
} from '../helpers/pet-store-conformance.js';
import { startTestDatabase, whyNoPostgres } from '../helpers/postgres.js';
import { orderConformance } from '../helpers/order-store-conformance.js';
import { positionConformance } from '../helpers/position-conformance.js';
import { webhookConformance } from '../helpers/webhook-conformance.js';

const database = await startTestDatabase(t);
const skip = database === undefined ? (whyNoPostgres() ?? true) : false;

t.test('the shared PetStore conformance suite', { skip }, async (t) => {
  petStoreConformance(t, (t) => database!.createStore(t));
});

t.test('the shared idempotency conformance suite', { skip }, async (t) => {
  idempotencyConformance(t, (t) => database!.createStore(t));
});

t.test('the shared change conformance suite', { skip }, async (t) => {
  changeConformance(t, (t) => database!.createStore(t));
});

t.test('the shared event conformance suite', { skip }, async (t) => {
  eventConformance(t, (t) => database!.createStore(t));
});

t.test('the shared position conformance suite', { skip }, async (t) => {
  positionConformance(t, (t) => database!.createStore(t));
  webhookConformance(t, (t) => database!.createStore(t));
});

t.test('the shared order conformance suite', { skip }, async (t) => {
  // The database's clock decides: time passes for real.
  orderConformance(t, async (t) => ({
    store: await database!.createStore(t),
    pass: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  }));
});

t.test('int64 values round-trip digit for digit, never through a double', { skip }, async (t) => {
  const store = await database!.createStore(t);
  for (const categoryId of [
    INT64_MIN,
    INT64_MIN + 1n,
    -(2n ** 53n) - 1n,
    -(2 ** 53) + 1,
    0,
    2 ** 53 - 1,
    2n ** 53n,
    2n ** 53n + 1n,
    INT64_MAX - 1n,
    INT64_MAX,
  ]) {
    const created = await store.create({ name: 'n', categoryId });
    t.equal(
      typeof created.categoryId === 'bigint' ? created.categoryId : BigInt(created.categoryId),
      BigInt(categoryId),
      `${categoryId} as created`,
    );
    t.same((await store.get(created.id))?.pet, created, `${categoryId} as read`);
    t.equal(
      typeof created.categoryId,
      Number.isSafeInteger(Number(categoryId)) && BigInt(Number(categoryId)) === BigInt(categoryId)
        ? 'number'
        : 'bigint',
      `${categoryId}: number when a double holds it exactly`,
    );
  }
});

t.test('migrations: instances starting at once on an empty database apply each version once', { skip }, async (t) => {
  const url = await database!.freshSchema();
  const pools = Array.from({ length: 3 }, () => new pg.Pool({ connectionString: url, max: 1 }));
  t.teardown(() => Promise.all(pools.map((pool) => pool.end())));
  const applied = await Promise.all(pools.map((pool) => migrate(pool)));
  t.same(
    applied.flat().sort((a, b) => a - b),
    MIGRATIONS.map((migration) => migration.version),
    'every version applied, by exactly one of them',
  );
  t.same(await migrate(pools[0]!), [], 'a later start finds the schema current');
  const { rows } = await pools[0]!.query('SELECT version, name FROM schema_migrations ORDER BY version');
  t.same(
    rows,
    MIGRATIONS.map(({ version, name }) => ({ version, name })),
  );
});

t.test(
  'migration 4 rewrites no row and keeps 1.0.0 instances working, while they serve and after',
  { skip },
  async (t) => {
    const url = await database!.freshSchema();
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    t.teardown(() => pool.end());
    // As a 1.0.0 database is: its tables, none of today's functions.
    await migrate(
      pool,
      MIGRATIONS.filter((migration) => migration.version < 4),
      [],
    );
    // What a 1.0.0 instance sends: it names its columns, and knows of no version.
    const insert =
      "INSERT INTO pets (name, category_id, status) VALUES ($1, $2, 'sold') RETURNING id, name, category_id, status";
    const read = 'SELECT id, name, category_id, status FROM pets WHERE id = $1';
    for (let index = 0; index < 1000; index++) await pool.query(insert, [`old ${index}`, index]);
    const fileOf = async () =>
      (await pool.query("SELECT relfilenode FROM pg_class WHERE oid = 'pets'::regclass")).rows[0].relfilenode as number;
    const before = await fileOf();
    // The old instance keeps inserting while the migration runs.
    let serving = true;
    const old = (async () => {
      let sent = 0;
      for (; serving; sent++) await pool.query(insert, [`during ${sent}`, sent]);
      return sent;
    })();
    t.same(
      await migrate(pool),
      MIGRATIONS.filter((migration) => migration.version >= 4).map((migration) => migration.version),
    );
    serving = false;
    t.ok((await old) > 0, 'the old instance inserted while the migration ran');
    t.equal(await fileOf(), before, 'the same table file: no row was rewritten');
    const { rows } = await pool.query(insert, ['after', 1]);
    t.same((await pool.query(read, [rows[0].id])).rows, rows, "a 1.0.0 instance's insert and read, after it");
    const store = createPostgresPetStore({ connectionString: url });
    t.teardown(() => store.close());
    const id = Number(rows[0].id);
    t.same(
      await store.get(id),
      { pet: { id, name: 'after', categoryId: 1, status: 'sold' }, version: 1 },
      'its pets are at version 1',
    );
    t.equal((await store.update(id, { status: 'pending' }, [1])).kind, 'changed', 'and change like any other');
  },
);

t.test('a failing migration leaves nothing behind', { skip }, async (t) => {
  const url = await database!.freshSchema();
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  t.teardown(() => pool.end());
  const broken = [
    ...MIGRATIONS,
    { version: 99, name: 'broken', sql: 'CREATE TABLE later (x int); SELECT * FROM no_such_table' },
  ];
  await t.rejects(migrate(pool, broken), /no_such_table/);
  const { rows } = await pool.query(
    'SELECT count(*)::int AS tables FROM pg_tables WHERE schemaname = current_schema()',
  );
  t.same(rows, [{ tables: 0 }], 'not even the first migration or the bookkeeping table');
  t.same(
    await migrate(pool),
    MIGRATIONS.map((migration) => migration.version),
    'the good ones apply later',
  );
});

t.test(
  'a migration whose connection is lost reports that loss, and the pool opens a new connection',
  { skip },
  async (t) => {
    const url = await database!.freshSchema();
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    pool.on('error', () => undefined);
    t.teardown(() => pool.end());
    const lost = [...MIGRATIONS, { version: 99, name: 'lost', sql: 'SELECT pg_terminate_backend(pg_backend_pid())' }];
    await t.rejects(migrate(pool, lost), /terminat/, 'the loss itself, not the failed ROLLBACK after it, and no crash');
    t.same(
      await migrate(pool),
      MIGRATIONS.map((migration) => migration.version),
      'nothing was applied, and the next run works on a new connection',
    );
  },
);

t.test('creates commit in id order: no page passes an id whose create has yet to commit', { skip }, async (t) => {
  const store = await database!.createStore(t);
  // A create held open in its transaction: it has taken its id and not committed yet, as a slow
  // create on another instance would be.
  const held = await store.pool.connect();
  t.teardown(() => held.release());
  await held.query('BEGIN');
  const first = (await held.query(STATEMENTS.create.text, ['held', 1, null])).rows[0];
  let settled = false;
  const second = store.create({ name: 'later', categoryId: 2 }).finally(() => {
    settled = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.notOk(settled, 'a second create waits for the one before it to commit');
  // Had it taken its id before waiting, two waiting creates could commit out of order.
  const { rows: sequence } = await store.pool.query('SELECT last_value FROM pets_id_seq');
  t.equal(String(sequence[0].last_value), String(first.id), 'and has not taken its id yet');
  t.same(
    (await store.list({ limit: 10 })).pets,
    [],
    'meanwhile a page shows neither, so its cursor cannot pass the held id',
  );
  await held.query('COMMIT');
  const later = await second;
  t.ok(BigInt(later.id) > BigInt(first.id), `then it commits, with the next id (${first.id}, then ${later.id})`);
  t.same(
    (await store.list({ limit: 10 })).pets.map((pet) => pet.name),
    ['held', 'later'],
    'a page then shows both, in id order',
  );
});

/** Each scan of an EXPLAIN (FORMAT JSON) plan: "<type> on <index or table>", and with ANALYZE the rows it read. */
function scansOf(node: any): { type: string; scan: string; read: number }[] {
  const type: string = node['Node Type'];
  const own = /Scan$/.test(type)
    ? [
        {
          type,
          scan: `${type} on ${node['Index Name'] ?? node['Relation Name'] ?? node['CTE Name'] ?? node['Alias']}`,
          read:
            (node['Actual Rows'] ?? 0) +
            (node['Rows Removed by Filter'] ?? 0) +
            (node['Rows Removed by Index Recheck'] ?? 0),
        },
      ]
    : [];
  return [...own, ...(node.Plans ?? []).flatMap(scansOf)];
}

// A named statement runs, after five executions, a generic plan that its connection keeps until the
// tables' statistics change. On a new database, planned while a table is empty, a join of a batch
// against that table was a sequential scan: every batch then read the whole table, more of it each
// time, until autovacuum's next ANALYZE. Planned the same way, these find their rows by index.
t.test(
  'on a new database, the batched writes look up keys and pets by index, whatever plan is cached',
  { skip },
  async (t) => {
    const store = await database!.createStore(t);
    const client = await store.pool.connect();
    t.teardown(() => client.release());
    await client.query('SET plan_cache_mode = force_generic_plan');
    for (const [statement, table] of [
      [STATEMENTS.createPetsOnce, 'idempotency_keys'],
      [STATEMENTS.updatePets, 'pets'],
    ] as const) {
      await client.query(`PREPARE batch AS ${statement.text}`);
      const { rows: parameters } = await client.query(
        "SELECT cardinality(parameter_types) AS count FROM pg_prepared_statements WHERE name = 'batch'",
      );
      // The values do not matter to a generic plan; nulls of each parameter's type stand for them.
      const nulls = Array.from({ length: parameters[0].count }, () => 'NULL').join(', ');
      const { rows } = await client.query(`EXPLAIN (FORMAT JSON) EXECUTE batch(${nulls})`);
      await client.query('DEALLOCATE batch');
      const scans = scansOf(rows[0]['QUERY PLAN'][0].Plan).map(({ scan }) => scan);
      t.notOk(
        scans.includes(`Seq Scan on ${table}`),
        `${statement.name}: no sequential scan of ${table} (${scans.join(', ')})`,
      );
      t.ok(
        scans.some((scan) => scan.includes(`${table}_pkey`)),
        `${statement.name}: ${table} is read through its primary key`,
      );
    }
  },
);

t.test('a page reads about as many rows as it returns, wherever it starts: no scan', { skip }, async (t) => {
  const store = await database!.createStore(t);
  // 1% of the pets are "sold", as in the benchmark: the case where walking the primary key and
  // filtering would read a hundred rows for each one returned.
  await store.pool.query(
    "INSERT INTO pets (name, category_id, status) SELECT 'p' || n, n, CASE WHEN n % 100 = 0 THEN 'sold' ELSE (ARRAY['available','pending'])[1 + n % 2] END FROM generate_series(1, 50000) AS n",
  );
  await store.pool.query('ANALYZE pets');
  const client = await store.pool.connect();
  t.teardown(() => client.release());
  const cases: [Statement, (string | number)[]][] = [
    [STATEMENTS.list, [0, 101]],
    [STATEMENTS.list, [25_000, 101]],
    [STATEMENTS.listByStatus, ['sold', 0, 101]],
    [STATEMENTS.listByStatus, ['sold', 25_000, 101]],
    [STATEMENTS.listByStatus, ['available', 25_000, 101]],
  ];
  for (const [statement, values] of cases) {
    // A named statement is prepared and soon runs a generic plan, blind to its values; an unnamed
    // one is planned with its values every time.
    for (const mode of statement.prepared === false
      ? ['force_custom_plan']
      : ['force_custom_plan', 'force_generic_plan']) {
      await client.query(`SET plan_cache_mode = ${mode}`);
      await client.query(`PREPARE page AS ${statement.text}`);
      const { rows } = await client.query(
        `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE page(${values.map((value) => `'${value}'`).join(', ')})`,
      );
      await client.query('DEALLOCATE page');
      // A bitmap's index scan finds the rows its heap scan then reads: counted once, there.
      const found = scansOf(rows[0]['QUERY PLAN'][0].Plan).filter(({ type }) => type !== 'Bitmap Index Scan');
      const scans = found.map(({ scan }) => scan);
      const read = found.reduce((sum, { read }) => sum + read, 0);
      const name = `${statement.name ?? 'list by status'} (${values.join(', ')}), ${mode}`;
      // The feed's one row (pet_event_feed, for the page's Pet-Events-Position) is read as it is.
      t.notOk(scans.includes('Seq Scan on pets'), `${name}: no sequential scan of pets (${scans.join(', ')})`);
      // The "available" half of the pets may be read through the primary key, one row in two kept.
      t.ok(read <= 3 * 101, `${name}: ${read} rows read for a page of up to 101`);
    }
  }
});

t.test(
  'a keyed create waits for one with the same key under way: a replay if it commits, a creation if it rolls back',
  { skip },
  async (t) => {
    const store = await database!.createStore(t);
    const scope = 'ab'.repeat(32);
    const held = await store.pool.connect();
    t.teardown(() => held.release());
    for (const outcome of ['COMMIT', 'ROLLBACK'] as const) {
      const key = `held-${outcome}`;
      await held.query('BEGIN');
      const first = (await held.query(STATEMENTS.createOnce.text, ['first', 1, null, `\\x${scope}`, key])).rows[0];
      let settled = false;
      const retry = store.createOnce({ name: 'first', categoryId: 1 }, { scope, key }).finally(() => {
        settled = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      t.notOk(settled, `${outcome}: the retry waits while the first is under way (no "in progress" answer)`);
      await held.query(outcome);
      const result = await retry;
      if (outcome === 'COMMIT')
        t.same([result.replayed, String(result.pet.id)], [true, String(first.id)], 'committed: the retry replays it');
      else
        t.same(
          [result.replayed, result.pet.name],
          [false, 'first'],
          'rolled back: nothing was recorded, and the retry creates the pet',
        );
    }
    t.equal((await store.list({ limit: 10 })).pets.length, 2, 'two keys, two pets: none stuck, none doubled');
  },
);

t.test('expired idempotency keys are purged, in batches, and a purged key creates anew', { skip }, async (t) => {
  const store = await database!.createStore(t);
  const scope = 'cd'.repeat(32);
  const old = await store.createOnce({ name: 'old', categoryId: 1 }, { scope, key: 'old' });
  const recent = await store.createOnce({ name: 'recent', categoryId: 2 }, { scope, key: 'recent' });
  await store.pool.query(
    "UPDATE idempotency_keys SET created_at = now() - interval '24 hours 1 second' WHERE key = 'old'",
  );
  // More expired records than one batch holds.
  await store.pool.query(
    "INSERT INTO idempotency_keys (scope, key, pet_id, name, category_id, created_at) SELECT '\\x00', 'k' || n, n, 'n', 0, now() - interval '2 days' FROM generate_series(1, 25000) AS n",
  );
  t.equal(await store.purgeExpiredKeys(), 25_001, 'every record older than 24 hours');
  t.equal(await store.purgeExpiredKeys(), 0, 'and nothing more');
  t.same(
    await store.createOnce({ name: 'recent', categoryId: 2 }, { scope, key: 'recent' }),
    { pet: recent.pet, replayed: true },
    'a recent key is kept',
  );
  const anew = await store.createOnce({ name: 'old', categoryId: 1 }, { scope, key: 'old' });
  t.equal(anew.replayed, false, 'a purged key creates a new pet');
  t.not(String(anew.pet.id), String(old.pet.id));
});

t.test(
  "records made under a key's digest (before 1.5.0) move to its client's scope, and retries find them",
  { skip },
  async (t) => {
    const store = await database!.createStore(t);
    const [digest, other, client] = ['a1', 'b2', 'c3'].map((pair) => pair.repeat(32)) as [string, string, string];
    const first = await store.createOnce({ name: 'Rex', categoryId: 1 }, { scope: digest, key: 'create-1' });
    const kept = await store.createOnce({ name: 'Tom', categoryId: 1 }, { scope: other, key: 'create-1' });
    const pet = await store.create({ name: 'Kit', categoryId: 1, status: 'available' });
    const change: ChangeKey = { scope: digest, key: 'change-1', operation: 'updatePet', request: 'rename' };
    await store.update(pet.id, { name: 'Kitty' }, '*', change);
    const place = { scope: digest, key: 'place-1', operation: 'placeOrder', request: `place ${pet.id}` };
    const placed = await store.orders.place(pet.id, 900, { client: 'shop', maxHolds: 5, key: place });
    // A record the client's scope holds already stays: the key is taken there.
    await store.createOnce({ name: 'Max', categoryId: 1 }, { scope: client, key: 'taken' });
    await store.createOnce({ name: 'Max', categoryId: 2 }, { scope: digest, key: 'taken' });

    t.equal(await store.adoptKeyRecords([{ digest, scope: client }]), 3, 'the create, the change and the order');
    t.equal(await store.adoptKeyRecords([{ digest, scope: client }]), 0, 'once');
    t.same(await store.createOnce({ name: 'Rex', categoryId: 1 }, { scope: client, key: 'create-1' }), {
      pet: first.pet,
      replayed: true,
    });
    t.equal((await store.update(pet.id, { name: 'Kitty' }, '*', { ...change, scope: client })).kind, 'replayed');
    t.match(await store.orders.place(pet.id, 900, { client: 'shop', maxHolds: 5, key: { ...place, scope: client } }), {
      kind: 'replayed',
      order: (placed as { order: unknown }).order,
    });
    t.same(
      await store.createOnce({ name: 'Tom', categoryId: 1 }, { scope: other, key: 'create-1' }),
      { pet: kept.pet, replayed: true },
      "another key's records stay where they are",
    );
  },
);

t.test('an instance moves the records of its keys before it serves, and says how many', { skip }, async (t) => {
  const url = await database!.freshSchema();
  const [digest, client] = ['d4', 'e5'].map((pair) => pair.repeat(32)) as [string, string];
  // A record as version 1.4 made it, under the key's digest.
  const before = createPostgresPetStore({ connectionString: url });
  await migrate(before.pool);
  const first = await before.createOnce({ name: 'Rex', categoryId: 1 }, { scope: digest, key: 'k' });
  await before.close();
  const lines: string[] = [];
  const log = pino(
    { level: 'info' },
    new Writable({ write: (chunk, _e, done) => void (lines.push(String(chunk)), done()) }),
  );
  const store = startPostgresStore(
    { connectionString: url },
    {
      log: log as FastifyBaseLogger,
      keyAdoptions: () => [{ digest, scope: client }],
    },
  );
  t.teardown(() => store.close());
  await store.migrated;
  t.match(lines.join(''), /"adopted":1,.*"msg":"moved Idempotency-Key records to their clients' scopes"/);
  t.same(await store.createOnce({ name: 'Rex', categoryId: 1 }, { scope: client, key: 'k' }), {
    pet: first.pet,
    replayed: true,
  });
});

t.test('an order placed before orders had owners is seen and moved by staff alone', { skip }, async (t) => {
  const store = await database!.createStore(t);
  const pet = await store.create({ name: 'Rex', categoryId: 1, status: 'available' });
  const placed = await store.orders.place(pet.id, 900, { client: 'shop', maxHolds: 5 });
  const { id } = (placed as { order: { id: number } }).order;
  // As version 1.4 left it: no owner recorded.
  await store.pool.query('UPDATE orders SET placed_by = NULL WHERE id = $1', [id]);
  const shop = { client: 'shop', everyOrder: false };
  const staff = { client: 'staff', everyOrder: true };
  t.equal(await store.orders.get(id, shop), null, 'no customer sees it');
  t.same((await store.orders.list({ viewer: shop, limit: 10 })).orders, []);
  t.same(await store.orders.cancel(id, shop), { kind: 'missing' });
  const seen = await store.orders.get(id, staff);
  t.match(seen, { id, status: 'placed' });
  t.notOk(seen !== null && 'placedBy' in seen, 'no placedBy');
  t.match(await store.orders.cancel(id, staff), {
    kind: 'done',
    order: { status: 'cancelled', cancelReason: 'store' },
  });
});

t.test("the retention period is the store's option", { skip }, async (t) => {
  const url = await database!.freshSchema();
  const store = createPostgresPetStore({ connectionString: url }, { retentionMs: 60_000 });
  t.teardown(() => store.close());
  await migrate(store.pool);
  await store.createOnce({ name: 'a', categoryId: 1 }, { scope: 'ef'.repeat(32), key: 'k' });
  await store.pool.query("UPDATE idempotency_keys SET created_at = now() - interval '59 seconds'");
  t.equal(await store.purgeExpiredKeys(), 0, 'kept within the minute');
  await store.pool.query("UPDATE idempotency_keys SET created_at = now() - interval '61 seconds'");
  t.equal(await store.purgeExpiredKeys(), 1, 'purged after it');
});

/**
 * Holds the id-order lock in a transaction of its own (as a batch of another instance would while it
 * commits), so that the store's first create waits and those after it gather into one batch.
 */
async function holdIdOrder(t: Test, store: PostgresPetStore) {
  const held = await store.pool.connect();
  t.teardown(() => held.release());
  await held.query('BEGIN');
  await held.query(STATEMENTS.createPets.text, [['held'], [0], [null]]);
  // The backends waiting for the lock (the store's statements), but those in `gone`: a backend just
  // terminated may still be listed for a moment.
  const waiting = async (count: number, gone: readonly number[] = []) => {
    for (let tries = 0; tries < 200; tries++) {
      const { rows } = await store.pool.query(
        "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = 'advisory' AND datname = current_database() AND NOT pid = ANY ($1::int[])",
        [gone],
      );
      if (rows.length === count) return rows.map((row) => row.pid as number);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no ${count} statement(s) waiting for the id-order lock`);
  };
  return { release: (outcome: 'COMMIT' | 'ROLLBACK' = 'COMMIT') => held.query(outcome), waiting };
}

/** How many pets each transaction wrote, in id order: the batches, as the database saw them. */
async function petsPerTransaction(store: PostgresPetStore): Promise<number[]> {
  const { rows } = await store.pool.query(
    "SELECT count(*)::int AS pets FROM pets WHERE name <> 'held' GROUP BY xmin ORDER BY min(id)",
  );
  return rows.map((row) => row.pets);
}

t.test(
  'creates that arrive while a batch commits are written together: one statement, one transaction, at most maxWriteBatch',
  { skip },
  async (t) => {
    const store = await database!.openStore(t, await database!.freshSchema(), { maxWriteBatch: 3 });
    const lock = await holdIdOrder(t, store);
    const first = store.create({ name: 'first', categoryId: 1 });
    await lock.waiting(1);
    const rest = Array.from({ length: 7 }, (_, index) => store.create({ name: `pet ${index}`, categoryId: index }));
    await lock.release();
    const created = [await first, ...(await Promise.all(rest))];
    t.same(
      created.map((pet) => pet.name),
      ['first', ...Array.from({ length: 7 }, (_, index) => `pet ${index}`)],
      'each create answered with its own pet',
    );
    t.same(
      await petsPerTransaction(store),
      [1, 3, 3, 1],
      'the lone first create, then the seven that waited, three at the most per commit',
    );
    const ids = created.map((pet) => BigInt(pet.id));
    t.equal(new Set(ids).size, 8, 'distinct ids');
    t.same(
      (await store.list({ limit: 20 })).pets.filter((pet) => pet.name !== 'held'),
      [...created].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1)),
      'every pet stored as answered',
    );
  },
);

t.test(
  'a batch with a key twice makes one pet, the later ones replays; a key recorded before is replayed',
  { skip },
  async (t) => {
    const store = await database!.createStore(t);
    const scope = 'ab'.repeat(32);
    const recorded = await store.createOnce({ name: 'recorded', categoryId: 1 }, { scope, key: 'before' });
    const lock = await holdIdOrder(t, store);
    const first = store.create({ name: 'first', categoryId: 1 });
    await lock.waiting(1);
    const keyed = [
      store.createOnce({ name: 'twice', categoryId: 2 }, { scope, key: 'twice' }),
      store.createOnce({ name: 'twice', categoryId: 2 }, { scope, key: 'twice' }),
      store.createOnce({ name: 'other body', categoryId: 3 }, { scope, key: 'twice' }),
      store.createOnce({ name: 'changed', categoryId: 4 }, { scope, key: 'before' }),
      store.createOnce({ name: 'twice', categoryId: 2 }, { scope: 'cd'.repeat(32), key: 'twice' }),
    ];
    const unkeyed = store.create({ name: 'no key', categoryId: 5 });
    await lock.release();
    await first;
    const [once, again, otherBody, before, otherScope] = await Promise.all(keyed);
    t.equal((await unkeyed).name, 'no key', 'a create without a key rides in the same batch');
    t.same([once!.replayed, once!.pet.name], [false, 'twice'], 'the first with the key creates');
    t.same(again, { pet: once!.pet, replayed: true }, 'the second in the same batch replays it');
    t.same(otherBody, { pet: once!.pet, replayed: true }, 'so does one with another body (the handler answers it 422)');
    t.same(before, { pet: recorded.pet, replayed: true }, 'a key recorded before the batch: its pet, nothing created');
    t.same(
      [otherScope!.replayed, otherScope!.pet.name],
      [false, 'twice'],
      'the same key of another API key is another key',
    );
    t.not(String(otherScope!.pet.id), String(once!.pet.id));
    t.same(
      await petsPerTransaction(store),
      [1, 1, 3],
      'the recorded pet, the lone create, then one commit for the batch: 3 new pets of 6 creates',
    );
    const { rows } = await store.pool.query('SELECT count(*)::int AS keys FROM idempotency_keys');
    t.same(rows, [{ keys: 3 }], 'three keys recorded, each once');
  },
);

t.test(
  'a batch whose connection dies mid-statement: every create in it gets 503, and nothing of it is stored',
  { skip },
  async (t) => {
    const store = await database!.createStore(t);
    const scope = 'ef'.repeat(32);
    // Each outcome is taken as soon as it settles: the creates of a batch fail together, before the
    // test gets to each of them.
    const outcome = (create: Promise<unknown>) =>
      create.then(
        () => 'stored',
        (error: { code?: string }) => error.code ?? String(error),
      );
    const lock = await holdIdOrder(t, store);
    const first = outcome(store.create({ name: 'first', categoryId: 1 }));
    const [firstBackend] = await lock.waiting(1);
    const batch = [
      store.create({ name: 'a', categoryId: 1 }),
      store.createOnce({ name: 'b', categoryId: 2 }, { scope, key: 'b' }),
      store.create({ name: 'c', categoryId: 3 }),
    ].map(outcome);
    await store.pool.query('SELECT pg_terminate_backend($1)', [firstBackend]);
    t.equal(await first, 'SERVICE_UNAVAILABLE', 'the lone create whose statement was cut: 503');
    const [batchBackend] = await lock.waiting(1, [firstBackend!]);
    await store.pool.query('SELECT pg_terminate_backend($1)', [batchBackend]);
    t.same(
      await Promise.all(batch),
      ['SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE'],
      'every create of the batch: 503',
    );
    await lock.release('ROLLBACK');
    t.same((await store.list({ limit: 10 })).pets, [], 'no pet stored');
    const { rows } = await store.pool.query('SELECT count(*)::int AS keys FROM idempotency_keys');
    t.same(rows, [{ keys: 0 }], 'no key recorded');
    const retried = await store.createOnce({ name: 'b', categoryId: 2 }, { scope, key: 'b' });
    t.same(
      [retried.replayed, retried.pet.name],
      [false, 'b'],
      'a retry with the key creates the pet, once the database answers again',
    );
  },
);

t.test(
  'batches of changes from two instances, keyed or not, naming the same pets in opposite orders, never deadlock',
  { skip },
  async (t) => {
    const url = await database!.freshSchema();
    const first = createPostgresPetStore({ connectionString: url });
    const second = createPostgresPetStore({ connectionString: url });
    t.teardown(() => Promise.all([first.close(), second.close()]));
    await migrate(first.pool);
    const pets = await Promise.all(
      Array.from({ length: 20 }, (_, index) => first.create({ name: `p${index}`, categoryId: index })),
    );
    const forward = pets.map((pet) => pet.id);
    const backward = [...forward].reverse();
    for (let round = 0; round < 10; round++) {
      // Every other change keyed: its batch is change-pets, which records keys, the others update-pets.
      const keyOf = (id: PetId, who: string): ChangeKey | undefined =>
        Number(id) % 2 === 0
          ? undefined
          : { scope: 'ab'.repeat(32), operation: 'updatePet', key: `${who} ${round} ${id}`, request: `${id}` };
      const outcomes = await Promise.all([
        ...forward.map((id) => first.update(id, { name: `first ${round}` }, '*', keyOf(id, 'first'))),
        ...backward.map((id) => second.update(id, { name: `second ${round}` }, '*', keyOf(id, 'second'))),
      ]);
      t.ok(
        outcomes.every((outcome) => outcome.kind === 'changed'),
        `round ${round}: all 40 changed`,
      );
    }
    const versions = await Promise.all(forward.map(async (id) => (await first.get(id))!.version));
    t.ok(
      versions.every((version) => version === 21),
      'every change counted: two a round for ten rounds, on version 1',
    );
  },
);
