// The service as deployed on PostgreSQL: real server processes (src/server.ts) on one database.
// A 201 is on disk: a process killed with SIGKILL mid-load loses no served pet; several instances
// share one store; instances started together on an empty database all come up; the port opens only
// once the schema is current.
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { freePort } from 'throwaway-postgres';
import { API_KEY } from '../helpers/build-app.js';
import {
  holdMigrations,
  SECRET_PASSWORD,
  startTestDatabase,
  whyNoPostgres,
  withPassword,
} from '../helpers/postgres.js';
import { nextTarget } from 'openapi-contract-engine';
import { RETRY_AFTER_SECONDS } from '../../src/errors/api-errors.js';
import { spawnServer, startReadyServer, type Running } from '../helpers/server-process.js';

const database = await startTestDatabase(t);
const skip = database === undefined ? (whyNoPostgres() ?? true) : false;
// Server processes load the service through tsx: a few seconds each, more on a busy machine.
t.setTimeout(180_000);

const AUTH = { authorization: `Bearer ${API_KEY}` };

const instance = (t: Test, url: string): Promise<Running> =>
  startReadyServer(t, { API_KEYS: API_KEY, DATABASE_URL: url, LOG_LEVEL: 'info' });

const create = (port: number, index: number) =>
  fetch(`http://127.0.0.1:${port}/v1/pets`, {
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `pet ${index}`, categoryId: index, ...(index % 2 === 0 ? { status: 'sold' } : {}) }),
  }).then(
    async (response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> }),
    () => undefined,
  );

async function allPets(port: number): Promise<Record<string, unknown>[]> {
  const pets: Record<string, unknown>[] = [];
  for (let path: string | undefined = '/v1/pets?limit=100'; path !== undefined;) {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers: AUTH });
    pets.push(...((await response.json()) as Record<string, unknown>[]));
    path = nextTarget(response.headers.get('link'));
  }
  return pets;
}

t.test('every pet answered 201 survives a SIGKILL mid-load, unchanged', { skip }, async (t) => {
  const url = withPassword(await database!.freshSchema());
  const first = await instance(t, url);
  const responded: Record<string, unknown>[] = [];
  let sent = 0;
  // Eight clients create pets back to back; the process is killed while they do.
  const clients = Array.from({ length: 8 }, async () => {
    for (;;) {
      const result = await create(first.port, sent++);
      if (result === undefined) return;
      if (result.status === 201) responded.push(result.body);
    }
  });
  while (responded.length < 300) await new Promise((resolve) => setTimeout(resolve, 20));
  first.child.kill('SIGKILL');
  await Promise.all(clients);
  await first.exited;

  const second = await instance(t, url);
  const stored = new Map((await allPets(second.port)).map((pet) => [String(pet['id']), pet]));
  t.ok(responded.length >= 300, `${responded.length} creates answered 201 before the kill`);
  t.same(
    responded.filter((pet) => JSON.stringify(stored.get(String(pet['id']))) !== JSON.stringify(pet)),
    [],
    'every one of them is stored, as answered',
  );
  t.ok(
    stored.size >= responded.length,
    `${stored.size} pets stored (creates in flight at the kill may have been stored unanswered)`,
  );
  t.notMatch(first.output() + second.output(), API_KEY, 'no key in the logs');
  t.notMatch(first.output() + second.output(), SECRET_PASSWORD, 'no database password in the logs');
  t.match(
    first.output(),
    /pets are kept in PostgreSQL at 127\.0\.0\.1:\d+\/\w+"/,
    'the log names where, without credentials',
  );
});

t.test(
  'several instances on one database: distinct ids, and each reads what the others created',
  { skip },
  async (t) => {
    const url = await database!.freshSchema();
    // Started together on an empty schema: they take turns migrating, and all come up.
    const instances = await Promise.all([instance(t, url), instance(t, url), instance(t, url)]);
    const created = await Promise.all(
      Array.from({ length: 150 }, (_, index) => create(instances[index % 3]!.port, index)),
    );
    t.same(
      created.map((result) => result?.status),
      created.map(() => 201),
      'all 150 creates answered 201',
    );
    const ids = created.map((result) => String(result!.body['id']));
    t.equal(new Set(ids).size, 150, 'the ids are distinct across instances');
    for (const [index, server] of instances.entries()) {
      const listed = await allPets(server.port);
      t.same(
        listed.map((pet) => String(pet['id'])).sort(),
        [...ids].sort(),
        `instance ${index + 1} lists every pet, through its next links`,
      );
      const one = created[(index + 1) % 150]!.body;
      const read = await fetch(`http://127.0.0.1:${server.port}/v1/pets/${String(one['id'])}`, { headers: AUTH });
      t.same(await read.json(), one, `instance ${index + 1} reads a pet another instance created`);
    }
    // Each instance logs what it applied; lines reach the output in blocks (up to a second later), so wait for all
    // three.
    const appliedBy = (server: Running) => /"applied":\[([\d,]*)\]/.exec(server.output())?.[1];
    for (let tries = 0; tries < 50 && instances.some((server) => appliedBy(server) === undefined); tries++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const applied = instances.map(appliedBy);
    t.ok(
      applied.every((versions) => versions !== undefined),
      `each instance logged what it applied (${JSON.stringify(applied)})`,
    );
    t.equal(
      applied.filter((versions) => versions !== '').length,
      1,
      `exactly one instance applied the migrations (${JSON.stringify(applied)})`,
    );
  },
);

const createWithKey = (port: number, key: string, index: number) =>
  fetch(`http://127.0.0.1:${port}/v1/pets`, {
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/json', 'idempotency-key': `"${key}"` },
    body: JSON.stringify({ name: `pet ${index}`, categoryId: index }),
  }).then(
    async (response) => ({
      status: response.status,
      replayed: response.headers.get('idempotent-replayed'),
      body: (await response.json()) as Record<string, unknown>,
    }),
    () => undefined,
  );

t.test('concurrent retries with one Idempotency-Key through two instances create one pet', { skip }, async (t) => {
  const url = await database!.freshSchema();
  const instances = await Promise.all([instance(t, url), instance(t, url)]);
  for (const round of [1, 2, 3]) {
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, index) => createWithKey(instances[index % 2]!.port, `key-${round}`, round)),
    );
    t.same(
      responses.map((response) => response?.status),
      responses.map(() => 201),
      `round ${round}: all 30 answered 201`,
    );
    t.equal(
      responses.filter((response) => response!.replayed === null).length,
      1,
      `round ${round}: one created the pet`,
    );
    t.equal(
      responses.filter((response) => response!.replayed === 'true').length,
      29,
      `round ${round}: the other 29 replayed it`,
    );
    t.equal(
      new Set(responses.map((response) => JSON.stringify(response!.body))).size,
      1,
      `round ${round}: all with the same pet`,
    );
  }
  const pets = await allPets(instances[0]!.port);
  t.same(
    pets.map((pet) => pet['name']),
    ['pet 1', 'pet 2', 'pet 3'],
    'three keys, three pets',
  );
});

t.test('keyed creates killed mid-load and retried after the restart: no pet lost, none twice', { skip }, async (t) => {
  const url = await database!.freshSchema();
  const first = await instance(t, url);
  const responded = new Map<number, Record<string, unknown>>();
  let sent = 0;
  const clients = Array.from({ length: 8 }, async () => {
    for (;;) {
      const index = sent++;
      const result = await createWithKey(first.port, `crash-${index}`, index);
      if (result === undefined) return;
      if (result.status === 201) responded.set(index, result.body);
    }
  });
  while (responded.size < 300) await new Promise((resolve) => setTimeout(resolve, 20));
  first.child.kill('SIGKILL');
  await Promise.all(clients);
  await first.exited;
  const lost = Array.from({ length: sent }, (_, index) => index).filter((index) => !responded.has(index));
  t.ok(lost.length > 0, `${lost.length} of ${sent} requests lost their answer to the kill`);

  const second = await instance(t, url);
  let replayed = 0;
  let unavailable = 0;
  for (const index of lost) {
    // As a client retries: a 503 (the database slow to respond, as on a busy machine, where the
    // killed instance's transactions may still hold their keys) is tried again after its
    // Retry-After, a few times; any other response is final.
    let retry = await createWithKey(second.port, `crash-${index}`, index);
    for (let tries = 1; retry?.status === 503 && tries < 5; tries++) {
      unavailable += 1;
      await sleep(RETRY_AFTER_SECONDS * 1000);
      retry = await createWithKey(second.port, `crash-${index}`, index);
    }
    t.equal(retry?.status, 201, `request ${index} retried: 201`);
    if (retry?.replayed === 'true') replayed += 1;
    responded.set(index, retry!.body);
  }
  // A retry of a served request replays what was served.
  for (const index of [0, 1, 2, 150, 299]) {
    const retry = await createWithKey(second.port, `crash-${index}`, index);
    t.same(
      [retry?.replayed, retry?.body],
      ['true', responded.get(index)],
      `request ${index}, answered before the kill, replays`,
    );
  }
  const stored = await allPets(second.port);
  const names = stored.map((pet) => String(pet['name']));
  t.equal(new Set(names).size, names.length, `no pet stored twice (${stored.length} pets)`);
  t.equal(stored.length, sent, `one pet for each of the ${sent} keys`);
  const byId = new Map(stored.map((pet) => [String(pet['id']), pet]));
  t.same(
    [...responded.values()].filter((pet) => JSON.stringify(byId.get(String(pet['id']))) !== JSON.stringify(pet)),
    [],
    'every answer, before and after, is a stored pet, as answered',
  );
  t.comment(
    `${replayed} of the ${lost.length} lost answers were for pets stored before the kill: their retries replayed (${unavailable} retries answered 503 first)`,
  );
});

const RETRYING = 'cannot bring the database schema up to date yet';

async function untilOutput(server: Omit<Running, 'port'>, text: string) {
  for (let tries = 0; tries < 200 && !server.output().includes(text); tries++) await sleep(50);
  if (!server.output().includes(text)) throw new Error(`no "${text}" in: ${server.output()}`);
}

const refused = (port: number) =>
  fetch(`http://127.0.0.1:${port}/health/live`).then(
    () => false,
    () => true,
  );

// A proxy without active health checks (nginx, as deploy/ ships it) sends requests to any port that
// accepts connections: an instance listening before it can serve would respond to them 503 (issue 39).
t.test('the port opens only once the schema is current: the first request to it is served', { skip }, async (t) => {
  const url = await database!.freshSchema();
  const release = await holdMigrations(url);
  const port = await freePort();
  // A short time limit, so that the migration's wait for the lock fails and is retried within the test.
  const server = spawnServer({
    API_KEYS: API_KEY,
    DATABASE_URL: url,
    DATABASE_TIMEOUT_MS: '300',
    // Its old name: it still works, with a line in the log.
    DATABASE_CREATE_BATCH_MAX: '50',
    PORT: String(port),
    LOG_LEVEL: 'info',
  });
  t.teardown(() => {
    server.child.kill('SIGKILL');
    return server.exited;
  });
  await untilOutput(server, RETRYING);
  t.match(
    server.output(),
    /"level":40,.*"msg":"DATABASE_CREATE_BATCH_MAX is deprecated: rename it DATABASE_WRITE_BATCH_MAX/,
    'a renamed setting is logged once at start-up, at warn',
  );
  t.ok(
    await refused(port),
    'while the schema cannot be brought up to date, connections are refused (a proxy retries them elsewhere)',
  );
  t.notMatch(server.output(), /Server listening/, 'and the service says it does not listen yet');
  await release();
  await untilOutput(server, 'Server listening');
  const first = await fetch(`http://127.0.0.1:${port}/v1/pets`, { headers: AUTH });
  t.equal(first.status, 200, 'the first API request after the port opened is served');
  t.equal((await fetch(`http://127.0.0.1:${port}/health/ready`)).status, 200, 'and the instance is ready');
  const current = server.output().indexOf('the database schema is current');
  t.ok(
    current >= 0 && current < server.output().indexOf('Server listening'),
    'the schema is current before the port opens',
  );
  // Stopped as an operator would (not by the teardown's SIGKILL), so that what it ran is measured.
  server.child.kill('SIGINT');
  t.equal(await server.exited, 0, 'it exits 0 on SIGINT');
});

t.test('SIGTERM before the port opened: the instance exits at once, with no drain', { skip }, async (t) => {
  const url = await database!.freshSchema();
  const release = await holdMigrations(url);
  t.teardown(release);
  const port = await freePort();
  const server = spawnServer({
    API_KEYS: API_KEY,
    DATABASE_URL: url,
    DATABASE_TIMEOUT_MS: '300',
    PORT: String(port),
    SHUTDOWN_DRAIN_MS: '60000',
    LOG_LEVEL: 'info',
  });
  t.teardown(() => {
    server.child.kill('SIGKILL');
    return server.exited;
  });
  await untilOutput(server, RETRYING);
  // Checked while the instance lives: once it has exited, the port is free, and another test's
  // server may take it.
  t.ok(await refused(port), 'the port is not open while the schema cannot be brought up to date');
  server.child.kill('SIGTERM');
  const code = await Promise.race([server.exited, sleep(20_000).then(() => 'still running')]);
  t.equal(code, 0, 'exited 0 well within the 60 s drain it was given');
  t.notMatch(server.output(), /Server listening|draining/, 'it neither listened nor drained');
});
