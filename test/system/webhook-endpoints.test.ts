// Webhook endpoints run from the API, as deployed: three server processes over one PostgreSQL, with
// receivers on loopback (WEBHOOK_ALLOW_PRIVATE_URLS on). An endpoint made through one instance
// receives every event once per attempt from whichever instance delivers it, and nothing a second
// after it is removed; a backlog of refused events survives a change of URL, in order; a rotation
// signs under both secrets, then the new one alone; the attempt log; resends, and 410 past
// retention; the webhooks file's endpoints listed and never changed; private addresses refused by
// an instance without the switch.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import t, { type Test } from 'tap';
import { API_KEY } from '../helpers/build-app.js';
import { startTestDatabase, whyNoPostgres } from '../helpers/postgres.js';
import { keysFileEnv, startServer, type Running } from '../helpers/server-process.js';
import { until } from '../helpers/until.js';

const database = await startTestDatabase(t);
const skip = database === undefined ? (whyNoPostgres() ?? true) : false;
t.setTimeout(240_000);

const FILE_SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A receiver on loopback answering `status(n)` to its n-th delivery. */
async function receiver(t: Test, status: (n: number) => number = () => 204) {
  const received: Delivery[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const n = received.length;
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      response.writeHead(status(n)).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received };
}

const verifies = (secret: string, { headers, body }: Delivery) => {
  try {
    new Webhook(secret).verify(body, headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
};
const nameOf = ({ body }: Delivery) => (JSON.parse(body) as { pet?: { name: string } }).pet?.name;
const idOf = ({ headers }: Delivery) => String(headers['webhook-id']);

/** Calls an instance's API as the operator (every role). */
function api(server: Running) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`http://127.0.0.1:${server.port}/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${API_KEY}`,
        ...(body === undefined
          ? {}
          : { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, json: text === '' ? undefined : JSON.parse(text) };
  };
}

t.test('three instances over one PostgreSQL deliver to the endpoints of the API', { skip }, async (t) => {
  const url = await database!.freshSchema();
  const dir = t.testdir();
  const webhooksFile = join(dir, 'webhooks.yaml');
  writeFileSync(webhooksFile, `endpoints:\n  - id: ops\n    url: http://127.0.0.1:9/ops\n    secret: ${FILE_SECRET}\n`);
  const env = {
    ...keysFileEnv(t, [API_KEY]),
    DATABASE_URL: url,
    WEBHOOKS_FILE: webhooksFile,
    WEBHOOK_ALLOW_PRIVATE_URLS: 'on',
    // Retries a second apart: a refused event is tried again within one (equal jitter: half to all of it).
    WEBHOOK_RETRY_DELAYS: Array(20).fill('1').join(','),
    LOG_LEVEL: 'info',
    METRICS_PORT: 'off',
  };
  const instances: Running[] = [];
  for (let index = 0; index < 3; index++) instances.push(await startServer(env));
  // SIGINT: each closes at once and writes its coverage.
  t.teardown(async () => {
    for (const server of instances) server.child.kill('SIGINT');
    await Promise.all(instances.map((server) => server.exited));
  });
  const [a, b, c] = instances.map(api) as [ReturnType<typeof api>, ReturnType<typeof api>, ReturnType<typeof api>];
  let pets = 0;
  const addPets = async (count: number, prefix: string) => {
    for (let index = 0; index < count; index++)
      t.equal(
        (await [a, b, c][pets++ % 3]!('POST', '/pets', { name: `${prefix} ${index}`, categoryId: 1 })).status,
        201,
      );
  };

  await t.test(
    'made through one instance, delivered once per event by whichever; removed: nothing after 1 s',
    async (t) => {
      const { url: hooks, received } = await receiver(t);
      const created = await a('POST', '/webhook-endpoints', { url: hooks, description: 'everything' });
      t.equal(created.status, 201);
      const { id, secret } = created.json as { id: string; secret: string };
      await addPets(12, 'first');
      await until('12 deliveries', () => received.length >= 12, 20_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      t.equal(received.length, 12, 'once per event');
      t.equal(new Set(received.map(idOf)).size, 12, 'each event once');
      t.ok(
        received.every((delivery) => verifies(secret, delivery)),
        'each verified under its secret',
      );
      const read = await b('GET', `/webhook-endpoints/${id}`);
      const removed = await c('DELETE', `/webhook-endpoints/${id}`, undefined, {
        'if-match': String(read.headers.get('etag')),
      });
      t.equal(removed.status, 204);
      const at = Date.now();
      await addPets(6, 'after removal');
      await new Promise((resolve) => setTimeout(resolve, 2000));
      t.same(
        received.filter((delivery) => delivery.at > at + 1000).map(nameOf),
        [],
        'no delivery more than a second after the removal',
      );
      t.equal((await a('GET', `/webhook-endpoints/${id}`)).status, 404);
    },
  );

  await t.test('the backlog survives a change of url; the attempt log lists every attempt', async (t) => {
    const refusing = await receiver(t, () => 503);
    const { url: accepting, received } = await receiver(t);
    const { id } = (await b('POST', '/webhook-endpoints', { url: refusing.url, events: ['pet.created'] })).json as {
      id: string;
    };
    await addPets(20, 'refused');
    await until('the first event refused three times', () => refusing.received.length >= 3, 20_000);
    const changed = await c('PATCH', `/webhook-endpoints/${id}`, { url: accepting }, { 'if-match': '*' });
    t.equal(changed.status, 200);
    await until('the 20 at the new receiver', () => received.length >= 20, 30_000);
    await addPets(1, 'later');
    await until('and the later one', () => received.length >= 21, 10_000);
    t.same(
      received.map(nameOf),
      [...Array.from({ length: 20 }, (_, index) => `refused ${index}`), 'later 0'],
      'all 20 in order, none skipped, then the later one',
    );
    const first = idOf(received[0]!);
    const attempts = (await a('GET', `/webhook-endpoints/${id}/deliveries?eventId=${first}&limit=100`)).json as {
      status: number;
      result: string;
    }[];
    t.ok(attempts.length >= 4, `${attempts.length} attempts at the first event`);
    t.same(
      attempts.slice(0, -1).map(({ status, result }) => [status, result]),
      Array(attempts.length - 1).fill([503, 'failed']),
      'each refusal, with its status',
    );
    t.same(attempts.at(-1), { ...attempts.at(-1), status: 204, result: 'delivered' }, 'then the delivery');
    t.equal(refusing.received.filter((delivery) => idOf(delivery) === first).length, attempts.length - 1);
    t.match((await a('GET', `/webhook-endpoints/${id}`)).json, { skipped: 0, state: 'active' });

    // Resent: one event once more, with its webhook-id, and nothing else.
    const before = received.length;
    const resent = await b('POST', `/webhook-endpoints/${id}/resend`, { eventId: first });
    t.equal(resent.status, 202);
    await until('resent', () => received.length === before + 1, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    t.equal(received.length, before + 1, 'nothing else');
    t.equal(idOf(received.at(-1)!), first, 'the same webhook-id');
    t.equal(received.at(-1)!.body, received[0]!.body);

    // Past retention: the purge (as EVENTS_RETENTION_HOURS runs it) dropped it.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(
      `WITH gone AS (DELETE FROM pet_events WHERE seq <= $1 RETURNING seq)
       UPDATE pet_event_feed SET purged_through = (SELECT max(seq) FROM gone)`,
      [Number(first.split('-')[1])],
    );
    await client.end();
    const expired = await c('POST', `/webhook-endpoints/${id}/resend`, { eventId: first });
    t.equal(expired.status, 410);
    t.match(expired.json, { code: 'EVENT_EXPIRED' });
  });

  await t.test('rotation: both secrets during the overlap, the new one alone after it', async (t) => {
    const { url: hooks, received } = await receiver(t);
    const { id, secret: old } = (await c('POST', '/webhook-endpoints', { url: hooks })).json as {
      id: string;
      secret: string;
    };
    const rotated = await a('POST', `/webhook-endpoints/${id}/secret/rotate`, { oldSecretExpiresInSeconds: 4 });
    t.equal(rotated.status, 200);
    const { secret } = rotated.json as { secret: string };
    const expiresAt = Date.now() + 4000;
    await addPets(3, 'overlap');
    await until('3 during the overlap', () => received.length >= 3, 10_000);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now() + 200)));
    await addPets(3, 'after');
    await until('3 after it', () => received.length >= 6, 10_000);
    for (const delivery of received) {
      t.ok(verifies(secret, delivery), `${nameOf(delivery)}: verified under the new secret`);
      if (delivery.at < expiresAt - 500) t.ok(verifies(old, delivery), `${nameOf(delivery)}: and under the old one`);
      if (delivery.at > expiresAt + 100) t.notOk(verifies(old, delivery), `${nameOf(delivery)}: not under the old one`);
    }
  });

  await t.test("the file's endpoints: listed as file, never changed through the API", async (t) => {
    const listed = (await b('GET', '/webhook-endpoints')).json as { id: string; source: string }[];
    t.same(listed[0], { ...listed[0], id: 'ops', source: 'file' });
    t.ok(listed.slice(1).every(({ source }) => source === 'api'));
    t.equal((await a('PATCH', '/webhook-endpoints/ops', { disabled: true }, { 'if-match': '*' })).status, 409);
    t.equal((await a('DELETE', '/webhook-endpoints/ops', undefined, { 'if-match': '*' })).status, 409);
  });

  await t.test('an instance without WEBHOOK_ALLOW_PRIVATE_URLS refuses private addresses', async (t) => {
    const strict = await startServer({ ...env, WEBHOOK_ALLOW_PRIVATE_URLS: 'off' });
    instances.push(strict);
    const call = api(strict);
    for (const address of [
      'http://127.0.0.1:8080/h',
      'http://localhost/h',
      'http://10.0.0.1/h',
      'http://169.254.169.254/',
    ]) {
      const refused = await call('POST', '/webhook-endpoints', { url: address });
      t.equal(refused.status, 400, address);
      t.match(refused.json, { message: /may not point at loopback, private, link-local or metadata addresses/ });
    }
  });
});
