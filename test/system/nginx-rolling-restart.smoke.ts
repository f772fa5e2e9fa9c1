// The deployment the project ships, proved end to end: Debian's nginx with deploy/nginx/petstore.conf
// in front of three instances (the built service, node dist/server.js) on one throwaway PostgreSQL.
// Twelve clients send a steady mix of list, get and keyed create while each instance in turn gets
// SIGTERM (it drains, then closes) and is replaced on its port, the first replacement behind a
// migration held past nginx's fail_timeout: no request may fail at its first attempt, and no pet
// may be lost or made twice. Then one instance is SIGKILLed under load: the
// failures are reported, and clients that retry their keyed creates lose nothing. Meanwhile a
// second nginx, with its own retries turned off (proxy_next_upstream off), takes creates sent
// through the project's client (src/client/): its retries alone must keep every call from failing.
// It takes a minute or two, so it runs in .ci/run, not in npm test's own run; alone:
// `npm test -- dist-test/test/system/nginx-rolling-restart.smoke.js`.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { DEFAULT_DRAIN_MS } from '../../src/config.js';
import { PROJECT_ROOT } from '../../src/project-root.js';
import { freePort } from 'throwaway-postgres';
import { createClient, responseOf } from 'petstore-client';
import { startNginx, statusOf, until, whyNoNginx } from '../helpers/nginx.js';
import { holdMigrations, startTestDatabase } from '../helpers/postgres.js';

const CLIENTS = 12;
/** Longer than the shipped nginx's fail_timeout (5 s). */
const MIGRATION_HELD_MS = 7_000;
const KEY = randomBytes(24).toString('base64url');
const AUTH = { authorization: `Bearer ${KEY}` };

t.setTimeout(600_000);

const noNginx = whyNoNginx();
if (noNginx !== undefined) {
  t.comment(`SKIPPED: ${noNginx}`);
  t.end();
} else if (!existsSync(join(PROJECT_ROOT, 'dist', 'server.js'))) {
  throw new Error(
    'no dist/server.js: run npm run build first (npm test -- dist-test/test/system/nginx-rolling-restart.smoke.js does)',
  );
}

interface Instance {
  port: number;
  child: ChildProcess;
  exited: Promise<number | null>;
}

/** The built service on `port`, as an operator runs it; resolves once it is ready. */
async function startInstance(dir: string, port: number, databaseUrl: string): Promise<Instance> {
  const log = openSync(join(dir, `instance-${port}.log`), 'a');
  const child = spawn(process.execPath, [join(PROJECT_ROOT, 'dist', 'server.js')], {
    env: {
      PATH: process.env['PATH'],
      API_KEYS: `load:${KEY}`,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      METRICS_PORT: 'off',
      SHUTDOWN_DRAIN_MS: String(DEFAULT_DRAIN_MS),
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  await until(`instance on ${port}`, async () => (await statusOf(`http://127.0.0.1:${port}/health/ready`)) === 200);
  return { port, child, exited };
}

interface Counts {
  requests: number;
  /** Requests whose first attempt got no response, or not the response a healthy service gives. */
  failedFirstAttempts: string[];
}

/**
 * Clients sending list, get and keyed create until stopped. A keyed create that fails is sent
 * again with its key until it gets its 201, as a client should; every acknowledged pet is kept.
 */
function startLoad(base: string) {
  let running = true;
  let counts: Counts = { requests: 0, failedFirstAttempts: [] };
  const acknowledged = new Map<string, { id: string; key: string }>();
  const ids: string[] = [];
  let sequence = 0;

  const attempt = async (method: string, path: string, headers: Record<string, string> = {}, body?: string) => {
    try {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { ...AUTH, ...headers },
        ...(body === undefined ? {} : { body }),
      });
      return { status: response.status, text: await response.text() };
    } catch (error) {
      return { status: 0, text: String((error as Error).cause ?? error) };
    }
  };

  const client = async (number: number) => {
    while (running) {
      const pick = (sequence++ * 7 + number) % 10;
      counts.requests += 1;
      if (pick < 4 || (pick < 7 && ids.length === 0)) {
        const { status, text } = await attempt('GET', '/v1/pets?limit=5');
        if (status !== 200) counts.failedFirstAttempts.push(`GET /v1/pets: ${status} ${text.slice(0, 200)}`);
      } else if (pick < 7) {
        const id = ids[Math.floor(Math.random() * ids.length)]!;
        const { status, text } = await attempt('GET', `/v1/pets/${id}`);
        if (status !== 200) counts.failedFirstAttempts.push(`GET /v1/pets/${id}: ${status} ${text.slice(0, 200)}`);
      } else {
        const name = `load-${number}-${sequence}-${randomBytes(4).toString('hex')}`;
        const key = `key-${name}`;
        const body = JSON.stringify({ name, categoryId: number });
        let response = await attempt(
          'POST',
          '/v1/pets',
          { 'content-type': 'application/json', 'idempotency-key': `"${key}"` },
          body,
        );
        if (response.status !== 201)
          counts.failedFirstAttempts.push(`POST /v1/pets (${key}): ${response.status} ${response.text.slice(0, 200)}`);
        for (let retry = 0; response.status !== 201 && retry < 100; retry++) {
          await sleep(100);
          response = await attempt(
            'POST',
            '/v1/pets',
            { 'content-type': 'application/json', 'idempotency-key': `"${key}"` },
            body,
          );
        }
        if (response.status !== 201)
          throw new Error(`a keyed create never succeeded: ${response.status} ${response.text}`);
        const { id } = JSON.parse(response.text.replace(/"id":(\d+)/, '"id":"$1"')) as { id: string };
        acknowledged.set(name, { id, key });
        ids.push(id);
      }
    }
  };

  const clients = Array.from({ length: CLIENTS }, (_, number) => client(number));
  return {
    /** The counts since the last call, and a fresh start. */
    take(): Counts {
      const taken = counts;
      counts = { requests: 0, failedFirstAttempts: [] };
      return taken;
    },
    async stop() {
      running = false;
      await Promise.all(clients);
    },
    acknowledged,
  };
}

/**
 * Clients creating pets through the project's client, until stopped: each call is the client's
 * createPet, with its own key, timeout and retries; a call that rejects is a failure at the caller.
 */
function startClientLoad(base: string, clients: number) {
  let running = true;
  let counts = { calls: 0, retried: 0, failures: [] as string[] };
  const acknowledged = new Map<string, { id: string }>();
  const client = createClient({ baseUrl: `${base}/v1`, apiKey: KEY });
  const loop = async (number: number) => {
    for (let sequence = 0; running; sequence++) {
      const name = `client-${number}-${sequence}-${randomBytes(4).toString('hex')}`;
      counts.calls += 1;
      try {
        const pet = await client.createPet({ name, categoryId: number });
        acknowledged.set(name, { id: String(pet.id) });
        if (responseOf(pet)!.attempts > 1) counts.retried += 1;
      } catch (error) {
        counts.failures.push(`${name}: ${(error as Error).message}`);
      }
    }
  };
  const loops = Array.from({ length: clients }, (_, number) => loop(number));
  return {
    take() {
      const taken = counts;
      counts = { calls: 0, retried: 0, failures: [] };
      return taken;
    },
    async stop() {
      running = false;
      await Promise.all(loops);
    },
    acknowledged,
  };
}

/** Every pet, read page by page from an instance directly. */
async function allPets(port: number): Promise<{ id: string; name: string }[]> {
  const pets: { id: string; name: string }[] = [];
  let path: string | undefined = '/v1/pets?limit=100';
  while (path !== undefined) {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers: AUTH });
    const text = await response.text();
    pets.push(...(JSON.parse(text.replace(/"id":(\d+)/g, '"id":"$1"')) as { id: string; name: string }[]));
    path = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
  }
  return pets;
}

function lostAndDoubled(pets: { id: string; name: string }[], acknowledged: Map<string, { id: string }>) {
  const byName = new Map<string, string[]>();
  for (const pet of pets) byName.set(pet.name, [...(byName.get(pet.name) ?? []), pet.id]);
  const lost = [...acknowledged]
    .filter(([name, { id }]) => !(byName.get(name) ?? []).includes(id))
    .map(([name]) => name);
  const doubled = [...byName].filter(([, found]) => found.length > 1).map(([name]) => name);
  return { lost, doubled };
}

function nginxRetries(dir: string) {
  const access = readFileSync(join(dir, 'logs', 'access.log'), 'utf8')
    .split('\n')
    .filter(Boolean);
  const errors = readFileSync(join(dir, 'logs', 'error.log'), 'utf8')
    .split('\n')
    .filter(Boolean);
  return {
    requests: access.length,
    retried: access.filter((line) => /upstream=\S+, /.test(line)).length,
    resets: errors.filter((line) => line.includes('reset by peer')).length,
    refused: errors.filter((line) => line.includes('Connection refused')).length,
  };
}

t.test('nginx in front of three instances: a rolling restart under load, then a SIGKILL', async (t) => {
  const database = await startTestDatabase(t);
  if (database === undefined) return;
  const databaseUrl = await database.freshSchema();
  const dir = t.testdir();
  const ports = [await freePort(), await freePort(), await freePort()];
  const instances = await Promise.all(ports.map((port) => startInstance(dir, port, databaseUrl)));
  t.teardown(() => {
    for (const instance of instances) instance.child.kill('SIGKILL');
  });
  const listen = await freePort();
  await startNginx(t, dir, { listen, upstreams: ports });
  const bare = join(dir, 'without-retries');
  const bareListen = await freePort();
  await startNginx(t, bare, { listen: bareListen, upstreams: ports, retries: false });

  const load = startLoad(`http://127.0.0.1:${listen}`);
  const clientLoad = startClientLoad(`http://127.0.0.1:${bareListen}`, 4);
  await sleep(2_000);
  load.take();
  clientLoad.take();

  // Each instance in turn: SIGTERM, wait until it has exited, start its replacement on its port.
  // The first replacement finds the migration lock held for longer than nginx leaves a refused
  // instance out (fail_timeout=5s), as behind a long migration or a slow database: nginx then tries
  // its port while it cannot serve yet, so the port must not be open (it was, and given 503).
  const started = Date.now();
  for (const [index, instance] of instances.entries()) {
    instance.child.kill('SIGTERM');
    const code = await instance.exited;
    // Its log (warnings and errors) tells why, when it does not exit 0.
    t.equal(code, 0, `instance ${index + 1} drained and exited`, {
      ...(code === 0 ? {} : { log: readFileSync(join(dir, `instance-${instance.port}.log`), 'utf8').slice(-4000) }),
    });
    const release = index === 0 ? await holdMigrations(databaseUrl) : undefined;
    const replacement = startInstance(dir, instance.port, databaseUrl);
    if (release !== undefined) {
      await sleep(MIGRATION_HELD_MS);
      await release();
    }
    instances[index] = await replacement;
  }
  await sleep(1_000);
  const rolling = load.take();
  const rollingSeconds = (Date.now() - started) / 1000;
  t.comment(
    `rolling restart of 3 instances (drain ${DEFAULT_DRAIN_MS} ms each, the first replacement's migration held ${MIGRATION_HELD_MS} ms): ${rolling.requests} requests in ${rollingSeconds.toFixed(0)} s, ${rolling.failedFirstAttempts.length} failed at the first attempt`,
  );
  t.same(rolling.failedFirstAttempts, [], 'no request failed at its first attempt');
  const afterRolling = nginxRetries(dir);
  t.comment(
    `nginx: ${afterRolling.retried} requests retried on another instance (${afterRolling.refused} connections refused, ${afterRolling.resets} reset)`,
  );
  const clientRolling = clientLoad.take();
  const bareRolling = nginxRetries(bare);
  t.comment(
    `through nginx without retries, the client: ${clientRolling.calls} creates, ${clientRolling.retried} of them retried by the client, ` +
      `${clientRolling.failures.length} failed at the caller (nginx: ${bareRolling.refused} connections refused, ${bareRolling.resets} reset, none retried: ${bareRolling.retried})`,
  );
  t.same(clientRolling.failures, [], 'no create through the client failed at the caller');
  t.equal(bareRolling.retried, 0, 'that nginx retried nothing itself');

  // One instance killed outright under load, then brought back.
  const victim = instances[1]!;
  victim.child.kill('SIGKILL');
  await victim.exited;
  await sleep(3_000);
  instances[1] = await startInstance(dir, victim.port, databaseUrl);
  await sleep(2_000);
  const killed = load.take();
  t.comment(
    `SIGKILL of one instance: ${killed.requests} requests, ${killed.failedFirstAttempts.length} failed at the first attempt${killed.failedFirstAttempts.length > 0 ? `: ${killed.failedFirstAttempts.slice(0, 5).join('; ')}` : ''}`,
  );
  const afterKill = nginxRetries(dir);
  t.comment(
    `nginx since: ${afterKill.retried - afterRolling.retried} requests retried (${afterKill.refused - afterRolling.refused} refused, ${afterKill.resets - afterRolling.resets} reset)`,
  );

  const clientKilled = clientLoad.take();
  t.comment(
    `SIGKILL, through the client: ${clientKilled.calls} creates, ${clientKilled.retried} retried, ${clientKilled.failures.length} failed at the caller${clientKilled.failures.length > 0 ? `: ${clientKilled.failures.slice(0, 3).join('; ')}` : ''}`,
  );

  await load.stop();
  await clientLoad.stop();
  const everyPet = await allPets(instances[0]!.port);
  const clientPets = everyPet.filter((pet) => pet.name.startsWith('client-'));
  const client = lostAndDoubled(clientPets, clientLoad.acknowledged);
  t.comment(
    `${clientLoad.acknowledged.size} creates through the client acknowledged; ${clientPets.length} of their pets stored`,
  );
  t.same(client.lost, [], 'no pet the client was told about is lost');
  t.same(client.doubled, [], 'none is stored twice');
  t.equal(
    clientPets.length,
    clientLoad.acknowledged.size,
    'every pet stored through that nginx is one the client was told about',
  );
  const pets = everyPet.filter((pet) => !pet.name.startsWith('client-'));
  const { lost, doubled } = lostAndDoubled(pets, load.acknowledged);
  t.comment(`${load.acknowledged.size} keyed creates acknowledged; ${pets.length} pets stored`);
  const forced = readdirSync(dir).filter(
    (file) => file.startsWith('instance-') && readFileSync(join(dir, file), 'utf8').includes('connections still open'),
  );
  t.same(
    forced,
    [],
    'every instance saw its connections end on their own after its drain: nginx closed its idle ones first',
  );
  t.same(lost, [], 'no acknowledged pet lost');
  t.same(doubled, [], 'no keyed create made twice');
  t.equal(pets.length, load.acknowledged.size, 'every stored pet is one a client was told about');

  // What nginx responds itself reads as the service's responses do.
  const base = `http://127.0.0.1:${listen}`;
  const tooLarge = await fetch(`${base}/v1/pets`, {
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'x'.repeat(17_000), categoryId: 1 }),
  });
  t.equal(tooLarge.status, 413);
  t.equal(tooLarge.headers.get('content-type'), 'application/json; charset=utf-8');
  t.same(
    await tooLarge.json(),
    { code: 'PAYLOAD_TOO_LARGE', message: 'The body is larger than 16384 bytes.', status: 413 },
    "the body limit, in the service's words",
  );
  for (const instance of instances) {
    instance.child.kill('SIGINT');
    await instance.exited;
  }
  const none = await fetch(`${base}/v1/pets`, { headers: AUTH });
  t.equal(none.status, 503, 'no instance answers: 503, not a 502 the API does not document');
  t.equal(none.headers.get('retry-after'), '2');
  t.equal(none.headers.get('cache-control'), 'no-store');
  t.same(await none.json(), {
    code: 'SERVICE_UNAVAILABLE',
    message: 'The pet store is unavailable for a moment; retry after 2 seconds.',
    status: 503,
  });
});
