// The PostgreSQL store when its database misbehaves, against the real cluster stopped and started
// under it: responds are 503 within the time limit, never a hang or a 500, and service comes back by
// itself. Needs a cluster of its own (not TEST_DATABASE_URL), since it stops the server.
import { Writable } from 'node:stream';
import pg from 'pg';
import pino from 'pino';
import t from 'tap';
import type { FastifyBaseLogger } from 'fastify';
import { startPostgresStore } from '../../src/store/postgres/start.js';
import { AUTH, buildTestApp, postPet } from '../helpers/build-app.js';
import { checkContract } from '../helpers/contract.js';
import { SECRET_PASSWORD, startTestDatabase, whyNoPostgres, withPassword } from '../helpers/postgres.js';

const TIMEOUT_MS = 500;
const database = await startTestDatabase(t, { ownCluster: true });
const cluster = database?.cluster;
const skip =
  cluster === undefined ? (whyNoPostgres() ?? 'TEST_DATABASE_URL is a database these tests must not stop') : false;

function capturedLog() {
  const lines: string[] = [];
  const log = pino(
    { level: 'info' },
    new Writable({ write: (chunk, _encoding, done) => void (lines.push(String(chunk)), done()) }),
  );
  return { log: log as FastifyBaseLogger, text: () => lines.join('') };
}

const config = (connectionString: string) => ({
  connectionString,
  connectionTimeoutMillis: TIMEOUT_MS,
  query_timeout: TIMEOUT_MS,
  statement_timeout: TIMEOUT_MS,
});

const patchPet = (petId: string, headers: Record<string, string>) => ({
  method: 'PATCH' as const,
  url: `/v1/pets/${petId}`,
  headers: { ...AUTH, 'content-type': 'application/merge-patch+json', ...headers },
  payload: '{"status":"sold"}',
});

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
}

t.test('started before its database: 503 and not ready, then serving once the database is up', { skip }, async (t) => {
  const url = withPassword(await database!.freshSchema());
  cluster!.stop();
  t.teardown(() => cluster!.start());
  const { log, text } = capturedLog();
  const store = startPostgresStore(config(url), { log, firstRetryMs: 50, maxRetryMs: 200 });
  t.teardown(() => store.close());
  const { app } = await buildTestApp(t, { store });
  const refused = await app.inject(postPet({ name: 'Rex', categoryId: 1 }));
  t.equal(refused.statusCode, 503);
  t.equal(checkContract(t, refused, 'createPet').code, 'SERVICE_UNAVAILABLE');
  const keyed = await app.inject(postPet({ name: 'Rex', categoryId: 1 }, { 'idempotency-key': 'early' }));
  t.equal(checkContract(t, keyed, 'createPet').code, 'SERVICE_UNAVAILABLE', 'a keyed create too');
  const read = await app.inject({ method: 'GET', url: '/v1/pets/1', headers: AUTH });
  t.equal(checkContract(t, read, 'getPet').code, 'SERVICE_UNAVAILABLE', 'and a read');
  const change = await app.inject(patchPet('1', { 'if-match': '*' }));
  t.equal(checkContract(t, change, 'updatePet').code, 'SERVICE_UNAVAILABLE', 'a change');
  const removal = await app.inject({ method: 'DELETE', url: '/v1/pets/1', headers: { ...AUTH, 'if-match': '*' } });
  t.equal(checkContract(t, removal, 'deletePet').code, 'SERVICE_UNAVAILABLE', 'a removal');
  const feed = await app.inject({ method: 'GET', url: '/v1/pet-events', headers: AUTH });
  t.equal(checkContract(t, feed, 'listPetEvents').code, 'SERVICE_UNAVAILABLE', 'the feed');
  await t.rejects(store.purgeEvents(1000), { code: 'SERVICE_UNAVAILABLE' }, 'the retention purge');
  for (const [what, call] of [
    ['claim', () => store.deliveries.claim('https://a.example/h', 'one', 1000)],
    [
      'record',
      () =>
        store.deliveries.record(
          'https://a.example/h',
          'one',
          { position: 0, attempt: 0, dueAt: 0, stoppedEntry: '', generation: 0, skipped: 0 },
          1000,
        ),
    ],
    ['release', () => store.deliveries.release('https://a.example/h', 'one')],
    ['read', () => store.deliveries.read(['https://a.example/h'])],
    ['set the position', () => store.deliveries.setPosition('https://a.example/h', 0)],
  ] as [string, () => Promise<unknown>][]) {
    await t.rejects(call(), { code: 'SERVICE_UNAVAILABLE' }, `the webhooks' ${what}`);
  }
  t.equal((await app.inject({ method: 'GET', url: '/health/ready' })).statusCode, 503, 'not ready');
  t.equal((await app.inject({ method: 'GET', url: '/health/live' })).statusCode, 200, 'but alive');
  cluster!.start();
  await store.migrated;
  t.equal(
    (await app.inject({ method: 'GET', url: '/health/ready' })).statusCode,
    200,
    'ready once the schema is current',
  );
  t.equal((await app.inject(postPet({ name: 'Rex', categoryId: 1 }))).statusCode, 201, 'and serving');
  t.match(text(), /cannot bring the database schema up to date yet; retrying/, 'the wait is logged');
  t.notMatch(text(), SECRET_PASSWORD, 'the password never reaches the log');
});

t.test(
  'the database stopped mid-run: 503 within the time limit, then normal again without a restart',
  { skip },
  async (t) => {
    const { log, text } = capturedLog();
    const store = startPostgresStore(config(withPassword(await database!.freshSchema())), { log });
    t.teardown(() => store.close());
    await store.migrated;
    const { app } = await buildTestApp(t, { store });
    t.equal((await app.inject(postPet({ name: 'Rex', categoryId: 1 }))).statusCode, 201);
    const before = (await app.inject({ method: 'GET', url: '/v1/pet-events', headers: AUTH })).json() as {
      id: string;
    }[];

    cluster!.stop('immediate');
    t.teardown(() => cluster!.start());
    const requests = [
      postPet({ name: 'Tom', categoryId: 2 }),
      { method: 'GET' as const, url: '/v1/pets', headers: AUTH },
      { method: 'GET' as const, url: '/v1/pets/1', headers: AUTH },
      patchPet('1', { 'if-match': '*' }),
      patchPet('1', { 'if-match': '*', 'idempotency-key': 'down' }),
      {
        method: 'DELETE' as const,
        url: '/v1/pets/1',
        headers: { ...AUTH, 'if-match': '*', 'idempotency-key': 'down' },
      },
    ];
    const operationOf: Record<string, string> = { POST: 'createPet', PATCH: 'updatePet', DELETE: 'deletePet' };
    for (const request of requests) {
      const [response, ms] = await timed(() => app.inject(request));
      const operationId = operationOf[request.method as string] ?? (request.url === '/v1/pets' ? 'listPets' : 'getPet');
      t.equal(response.statusCode, 503, `${operationId}: 503`);
      t.equal(checkContract(t, response, operationId).code, 'SERVICE_UNAVAILABLE');
      t.equal(response.headers['retry-after'], '2');
      t.ok(ms < TIMEOUT_MS + 1000, `${operationId}: answered in ${Math.round(ms)} ms (limit ${TIMEOUT_MS} ms)`);
    }
    t.equal(
      (await app.inject({ method: 'GET', url: '/health/ready' })).statusCode,
      503,
      'not ready while the database is down',
    );

    cluster!.start();
    let status = 0;
    const [, ms] = await timed(async () => {
      for (let tries = 0; tries < 50 && status !== 200; tries++) {
        status = (await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH })).statusCode;
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });
    t.equal(status, 200, `serving again ${Math.round(ms)} ms after the database came back`);
    const listed = await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH });
    t.same(
      JSON.parse(listed.body).map((pet: { name: string }) => pet.name),
      ['Rex'],
      'what was stored is still there; nothing was stored while down',
    );
    // The feed across the restart: the cursor of before reads on, and nothing was recorded while down.
    t.equal((await app.inject(postPet({ name: 'Kit', categoryId: 3 }))).statusCode, 201);
    const after = (
      await app.inject({ method: 'GET', url: `/v1/pet-events?after=${before.at(-1)!.id}`, headers: AUTH })
    ).json() as { type: string; pet: { name: string } }[];
    t.same(
      after.map(({ type, pet }) => `${type} ${pet.name}`),
      ['pet.created Kit'],
      'the feed goes on from the cursor of before the restart, with the change after it only',
    );
    t.notMatch(text(), SECRET_PASSWORD, 'the password never reaches the log');
  },
);

t.test(
  'an idle connection the server ends (pg_terminate_backend) is logged, never fatal, and replaced',
  { skip },
  async (t) => {
    const { log, text } = capturedLog();
    const store = startPostgresStore(config(await database!.freshSchema()), { log });
    t.teardown(() => store.close());
    await store.migrated;
    const { app } = await buildTestApp(t, { store });
    t.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH })).statusCode, 200);
    const admin = new pg.Client({ connectionString: database!.url });
    await admin.connect();
    t.teardown(() => admin.end());
    const { rowCount } = await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    // Each ended connection of the pool's is told apart, and logged, on its own.
    const losses = () => text().split('a database connection was lost').length - 1;
    for (let tries = 0; tries < 100 && losses() < (rowCount ?? 0); tries++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    t.match(
      text(),
      /"reason":"terminating connection due to administrator command".*"msg":"a database connection was lost; the pool will open another"/,
    );
    t.equal(
      (await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH })).statusCode,
      200,
      'served on a new connection',
    );
  },
);

t.test(
  'a keyed change whose connection is ended mid-transaction: 503, nothing changed or recorded, the connection not reused',
  { skip },
  async (t) => {
    const { log, text } = capturedLog();
    const url = await database!.freshSchema();
    const store = startPostgresStore({ ...config(url), query_timeout: 10_000, statement_timeout: 10_000 }, { log });
    t.teardown(() => store.close());
    await store.migrated;
    const { app } = await buildTestApp(t, { store });
    const created = await app.inject(postPet({ name: 'Rex', categoryId: 1 }));
    t.equal(created.statusCode, 201);
    const tag = created.headers['etag'] as string;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    t.teardown(() => admin.end());
    // The row held, so the keyed change waits inside its transaction: then its connection is ended.
    await admin.query('BEGIN');
    await admin.query('SELECT FROM pets WHERE id = 1 FOR UPDATE');
    const pending = app.inject(patchPet('1', { 'if-match': tag, 'idempotency-key': 'cut' }));
    let ended = 0;
    for (let tries = 0; tries < 500 && ended === 0; tries++) {
      const { rowCount } = await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'",
      );
      ended = rowCount ?? 0;
      if (ended === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    t.equal(ended, 1, 'the waiting change was ended');
    const response = await pending;
    t.equal(response.statusCode, 503);
    t.equal(checkContract(t, response, 'updatePet').code, 'SERVICE_UNAVAILABLE');
    await admin.query('ROLLBACK');
    const retried = await app.inject(patchPet('1', { 'if-match': tag, 'idempotency-key': 'cut' }));
    t.equal(retried.statusCode, 200, 'the retry changes the pet: the first one recorded nothing');
    t.notOk(retried.headers['idempotent-replayed'], 'not a replay');
    t.equal(
      (await app.inject({ method: 'GET', url: '/v1/pet-events?limit=10', headers: AUTH })).json().length,
      2,
      'one change: its creation and one update in the feed',
    );
    t.notMatch(text(), /uncaught|fatal/i, 'never fatal');
  },
);

t.test('the started store purges expired keys on its timer, and says how many', { skip }, async (t) => {
  const { log, text } = capturedLog();
  const store = startPostgresStore(config(await database!.freshSchema()), { log, retentionMs: 1, purgeEveryMs: 50 });
  t.teardown(() => store.close());
  await store.migrated;
  await store.createOnce({ name: 'Rex', categoryId: 1 }, { scope: 'ab'.repeat(32), key: 'once' });
  for (let tries = 0; tries < 100 && !text().includes('purged expired idempotency keys'); tries++)
    await new Promise((resolve) => setTimeout(resolve, 20));
  t.match(text(), /"purged":1,.*"msg":"purged expired idempotency keys"/);
});

t.test('closing while waiting for the database stops waiting', { skip }, async (t) => {
  const url = await database!.freshSchema();
  cluster!.stop();
  t.teardown(() => cluster!.start());
  const { log } = capturedLog();
  const store = startPostgresStore(config(url), { log, firstRetryMs: 10_000, maxRetryMs: 10_000 });
  await new Promise((resolve) => setTimeout(resolve, 200));
  const [, ms] = await timed(() => store.close());
  t.ok(ms < 2000, `closed in ${Math.round(ms)} ms, not after the 10 s retry delay`);
  await t.rejects(
    store.list({ limit: 1 }),
    { code: 'SERVICE_UNAVAILABLE' },
    'a closed store that never reached its database answers 503',
  );
});
