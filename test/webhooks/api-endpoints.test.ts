// Webhook endpoints an operator runs from the API, on the in-memory store, delivered to for real
// (a receiver on loopback, WEBHOOK_ALLOW_PRIVATE_URLS on): the secret shown once; signatures under
// every live secret of a rotation, then the new one alone; the backlog kept through a change of
// URL; the attempt log and resends; a removed or disabled endpoint left alone; the file's endpoints
// listed and never changed.
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import t, { type Test } from 'tap';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { createMemoryPetStore } from '../../src/store/memory-pet-store.js';
import type { PetStore } from '../../src/store/pet-store.js';
import { deliveredEndpoints } from '../../src/webhooks/api-endpoints.js';
import { AUTH, buildTestApp, JSON_TYPE, postPet, TEST_ENDPOINT } from '../helpers/build-app.js';
import { checkContract } from '../helpers/contract.js';
import { until } from '../helpers/until.js';
import { deliver, receiver } from '../helpers/webhook-receiver.js';

const silent = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;

interface Created {
  id: string;
  secret: string;
  etag: string;
}

/**
 * The app and deliveries of one instance, on a store of its own; `told: false` leaves the deliveries
 * to find a change by their poll (as another instance does), every `pollMs`.
 */
async function instance(
  t: Test,
  options: { retryDelaysMs?: number[]; memory?: PetStore; told?: boolean; pollMs?: number } = {},
) {
  const memory = options.memory ?? createMemoryPetStore();
  const source = deliveredEndpoints({
    file: undefined,
    store: memory.webhookEndpoints,
    log: silent,
    guarded: false,
    ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
  });
  t.teardown(() => source.close());
  const { store } = deliver(t, memory, source, { retryDelaysMs: options.retryDelaysMs ?? [50, 50] });
  const { app } = await buildTestApp(t, {
    store,
    webhookApi: {
      allowPrivateUrls: true,
      ...(options.told === false ? {} : { onChange: () => void source.refresh() }),
    },
  });
  const create = async (body: Record<string, unknown>): Promise<Created> => {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/webhook-endpoints',
      headers: { ...AUTH, ...JSON_TYPE },
      payload: body,
    });
    t.equal(response.statusCode, 201, response.body);
    checkContract(t, response, 'createWebhookEndpoint');
    const { id, secret } = response.json() as { id: string; secret: string };
    return { id, secret, etag: String(response.headers.etag) };
  };
  return { app, store, memory, create };
}

const patch = (app: FastifyInstance, id: string, body: Record<string, unknown>, ifMatch: string | null = '*') =>
  app.inject({
    method: 'PATCH',
    url: `/v1/webhook-endpoints/${id}`,
    headers: {
      ...AUTH,
      'content-type': 'application/merge-patch+json',
      ...(ifMatch === null ? {} : { 'if-match': ifMatch }),
    },
    payload: body,
  });

const verifies = (secret: string, { headers, body }: { headers: Record<string, unknown>; body: string }) => {
  try {
    new Webhook(secret).verify(body, headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
};

const petName = (body: string) => (JSON.parse(body) as { pet?: { name: string } }).pet?.name;

t.test('an endpoint of the API: its secret shown once, its deliveries signed with it, listed as api', async (t) => {
  const { url, received } = await receiver(t);
  const { app, create } = await instance(t);
  const created = await create({ url, events: ['pet.created'], description: 'the shop' });
  t.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/, 'a Standard Webhooks secret');
  const read = await app.inject({ method: 'GET', url: `/v1/webhook-endpoints/${created.id}`, headers: AUTH });
  t.equal(read.statusCode, 200);
  checkContract(t, read, 'getWebhookEndpoint');
  t.equal(read.headers.etag, created.etag, 'the ETag of the endpoint as created');
  t.notOk(read.body.includes(created.secret.slice(6, 20)), 'no read holds the secret');
  t.match(read.json(), {
    id: created.id,
    source: 'api',
    url: url.split('?')[0],
    events: ['pet.created'],
    description: 'the shop',
    disabled: false,
    state: 'active',
    skipped: 0,
  });
  await app.inject(postPet({ name: 'Rex', categoryId: 1 }));
  await until('delivered', () => received.length === 1);
  t.ok(verifies(created.secret, received[0]!), 'verified under its secret with standardwebhooks');
  const listed = await app.inject({ method: 'GET', url: '/v1/webhook-endpoints', headers: AUTH });
  checkContract(t, listed, 'listWebhookEndpoints');
  t.same(
    (listed.json() as { id: string; source: string }[]).map(({ id, source }) => [id, source]),
    [
      [TEST_ENDPOINT, 'file'],
      [created.id, 'api'],
    ],
    "the file's endpoints first, then the API's",
  );
});

t.test('an event right after the 201 reaches the endpoint, however late an instance takes it on', async (t) => {
  const { url, received } = await receiver(t);
  const { app, create } = await instance(t, { told: false, pollMs: 1000 });
  await create({ url });
  await app.inject(postPet({ name: 'at once', categoryId: 1 }));
  await until('delivered once the endpoint is read', () => received.length === 1, 5000);
  t.equal(petName(received[0]!.body), 'at once');
});

t.test('rotation: signed under both secrets during the overlap, under the new one alone after it', async (t) => {
  const { url, received } = await receiver(t);
  const { app, create } = await instance(t);
  const { id, secret: old } = await create({ url });
  const rotate = async (seconds: number) => {
    const response = await app.inject({
      method: 'POST',
      url: `/v1/webhook-endpoints/${id}/secret/rotate`,
      headers: { ...AUTH, ...JSON_TYPE },
      payload: { oldSecretExpiresInSeconds: seconds },
    });
    t.equal(response.statusCode, 200);
    checkContract(t, response, 'rotateWebhookSecret');
    return (response.json() as { secret: string }).secret;
  };
  const fresh = await rotate(2);
  t.not(fresh, old);
  await app.inject(postPet({ name: 'during', categoryId: 1 }));
  await until('the delivery during the overlap', () => received.length === 1);
  const during = received[0]!;
  t.equal(String(during.headers['webhook-signature']).split(' ').length, 2, 'one v1 signature per live secret');
  t.ok(verifies(fresh, during) && verifies(old, during), 'verified under either secret');
  await new Promise((resolve) => setTimeout(resolve, 2100));
  await app.inject(postPet({ name: 'after', categoryId: 1 }));
  await until('the delivery after the overlap', () => received.length === 2);
  const after = received[1]!;
  t.equal(String(after.headers['webhook-signature']).split(' ').length, 1, 'one signature');
  t.ok(verifies(fresh, after), 'verified under the new secret');
  t.notOk(verifies(old, after), 'not under the old one');

  // Rotated again at once: the secret in use until now is dropped (0 s), so only the newest signs.
  const newest = await rotate(0);
  await app.inject(postPet({ name: 'newest', categoryId: 1 }));
  await until('the delivery after a rotation without overlap', () => received.length === 3);
  t.ok(verifies(newest, received[2]!) && !verifies(fresh, received[2]!), 'the newest secret alone');
});

t.test('a change of url keeps the backlog: the refused events go to the new receiver, in order', async (t) => {
  const refusing = await receiver(t, () => 503);
  const { url, received } = await receiver(t);
  const { app, create } = await instance(t, { retryDelaysMs: Array(20).fill(100) });
  const { id } = await create({ url: refusing.url });
  for (let index = 0; index < 20; index++) await app.inject(postPet({ name: `pet ${index}`, categoryId: 1 }));
  await until('the first event refused twice', () => refusing.received.length >= 2);
  const changed = await patch(app, id, { url });
  t.equal(changed.statusCode, 200);
  checkContract(t, changed, 'updateWebhookEndpoint');
  await until('the 20 events at the new receiver', () => received.length >= 20);
  await app.inject(postPet({ name: 'later', categoryId: 1 }));
  await until('and the later one', () => received.length >= 21);
  t.same(
    received.map(({ body }) => petName(body)),
    [...Array.from({ length: 20 }, (_, index) => `pet ${index}`), 'later'],
    'all 20 in order, none skipped, then the later one',
  );
  const read = await app.inject({ method: 'GET', url: `/v1/webhook-endpoints/${id}`, headers: AUTH });
  t.match(read.json(), { skipped: 0, state: 'active' });
});

t.test('the attempt log lists every attempt; a resend sends one event once more, same webhook-id', async (t) => {
  const { url, received } = await receiver(t, (n) => (n < 2 ? 503 : 204));
  const { app, create } = await instance(t);
  const { id } = await create({ url });
  await app.inject(postPet({ name: 'one', categoryId: 1 }));
  await app.inject(postPet({ name: 'two', categoryId: 1 }));
  await until('both delivered', () => received.length === 4);
  const attempts = async (query = '') => {
    const response = await app.inject({
      method: 'GET',
      url: `/v1/webhook-endpoints/${id}/deliveries${query}`,
      headers: AUTH,
    });
    t.equal(response.statusCode, 200, response.body);
    checkContract(t, response, 'listWebhookDeliveries');
    return response;
  };
  // An attempt is logged once its answer is in: just after the receiver saw it.
  const logged = async () =>
    (
      await app.inject({ method: 'GET', url: `/v1/webhook-endpoints/${id}/deliveries`, headers: AUTH })
    ).json() as unknown[];
  await until('all four logged', async () => (await logged()).length === 4);
  const all = (await attempts()).json() as { eventId: string; status: number; result: string; resend?: true }[];
  const [first, second] = [received[0]!, received[3]!].map(({ headers }) => String(headers['webhook-id']));
  t.same(
    all.map(({ eventId, status, result }) => [eventId, status, result]),
    [
      [first, 503, 'failed'],
      [first, 503, 'failed'],
      [first, 204, 'delivered'],
      [second, 204, 'delivered'],
    ],
    'every attempt, in order, with its status',
  );
  const paged = await attempts('?limit=3');
  t.equal((paged.json() as unknown[]).length, 3);
  const next = /^<([^>]+)>; rel="next"$/.exec(String(paged.headers.link))![1]!;
  t.same((await attempts(next.replace(`/v1/webhook-endpoints/${id}/deliveries`, ''))).json(), [all[3]], 'page 2');
  t.same(((await attempts(`?eventId=${first}`)).json() as unknown[]).length, 3, 'the attempts at one event');
  const filtered = await attempts(`?eventId=${first}&limit=2`);
  const onward = /^<([^>]+)>; rel="next"$/.exec(String(filtered.headers.link))![1]!;
  t.match(onward, `?limit=2&eventId=${first}&cursor=`, 'the next page keeps the filter');
  t.same(
    (await attempts(onward.replace(`/v1/webhook-endpoints/${id}/deliveries`, ''))).json(),
    [all[2]],
    'and ends it',
  );
  const broken = await app.inject({
    method: 'GET',
    url: `/v1/webhook-endpoints/${id}/deliveries?eventId=${second}&${next.split('?')[1]!.replace(/limit=3&/, '')}`,
    headers: AUTH,
  });
  t.equal(broken.statusCode, 400, 'a cursor of another eventId');

  const resend = await app.inject({
    method: 'POST',
    url: `/v1/webhook-endpoints/${id}/resend`,
    headers: { ...AUTH, ...JSON_TYPE },
    payload: { eventId: first },
  });
  t.equal(resend.statusCode, 202);
  checkContract(t, resend, 'resendWebhookEvent');
  await until('resent', () => received.length === 5);
  await until('and logged', async () => (await logged()).length === 5);
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.equal(received.length, 5, 'nothing else sent');
  t.equal(received[4]!.headers['webhook-id'], first, 'the same webhook-id');
  t.equal(received[4]!.body, received[2]!.body, 'the same event');
  const last = ((await attempts()).json() as { resend?: boolean }[]).at(-1)!;
  t.match(last, { eventId: first, result: 'delivered', resend: true });
});

t.test('resends: 410 past retention or of another store, 400 for no event, 404 for no endpoint', async (t) => {
  const { app, create, store } = await instance(t);
  const { id } = await create({ url: 'http://127.0.0.1:9/nothing' });
  await app.inject(postPet({ name: 'old', categoryId: 1 }));
  const [event] = (await store.listEvents(undefined, 1)).events;
  const epoch = store.epoch();
  await new Promise((resolve) => setTimeout(resolve, 5));
  await store.purgeEvents(0);
  const send = (endpointId: string, eventId: string) =>
    app.inject({
      method: 'POST',
      url: `/v1/webhook-endpoints/${endpointId}/resend`,
      headers: { ...AUTH, ...JSON_TYPE },
      payload: { eventId },
    });
  const expired = await send(id, `${epoch}-${event!.seq}`);
  t.equal(expired.statusCode, 410);
  checkContract(t, expired, 'resendWebhookEvent');
  t.match(expired.json(), { code: 'EVENT_EXPIRED', message: /is older than the events kept/ });
  t.match((await send(id, 'ffffffff-1')).json(), { code: 'EVENT_EXPIRED', message: /store was replaced/ });
  t.match((await send(id, `${epoch}-99`)).json(), { status: 400, message: /names no event of this feed/ });
  t.match((await send(id, `${epoch}-99999999999999999999`)).json(), { status: 400 });
  t.match((await send('ep_none', `${epoch}-1`)).json(), { code: 'WEBHOOK_ENDPOINT_NOT_FOUND' });
});

t.test('a removed endpoint gets nothing more; a disabled one waits, and resumes where it stood', async (t) => {
  const { url, received } = await receiver(t);
  const { app, create } = await instance(t);
  const removed = await create({ url });
  const kept = await receiver(t);
  const { id } = await create({ url: kept.url });
  await app.inject(postPet({ name: 'one', categoryId: 1 }));
  await until('both delivered', () => received.length === 1 && kept.received.length === 1);

  const stale = await app.inject({
    method: 'DELETE',
    url: `/v1/webhook-endpoints/${removed.id}`,
    headers: { ...AUTH, 'if-match': '"1-00000000"' },
  });
  t.equal(stale.statusCode, 412, 'a stale tag');
  t.equal(stale.headers.etag, removed.etag, 'the 412 carries the current tag');
  const deleted = await app.inject({
    method: 'DELETE',
    url: `/v1/webhook-endpoints/${removed.id}`,
    headers: { ...AUTH, 'if-match': removed.etag },
  });
  t.equal(deleted.statusCode, 204);
  const disabled = await patch(app, id, { disabled: true });
  t.match(disabled.json(), { disabled: true });
  await app.inject(postPet({ name: 'two', categoryId: 1 }));
  await new Promise((resolve) => setTimeout(resolve, 1000));
  t.equal(received.length, 1, 'the removed endpoint got nothing within a second');
  t.equal(kept.received.length, 1, 'the disabled endpoint got nothing');
  const gone = await app.inject({ method: 'GET', url: `/v1/webhook-endpoints/${removed.id}`, headers: AUTH });
  t.equal(gone.statusCode, 404);
  await patch(app, id, { disabled: false, description: null });
  await until('the disabled endpoint resumes', () => kept.received.length === 2);
  t.equal(petName(kept.received[1]!.body), 'two', 'with the event made while it was disabled');
});

t.test('If-Match on an endpoint: required, compared strongly, * for any version', async (t) => {
  const { app, create } = await instance(t);
  const { id, etag } = await create({ url: 'http://127.0.0.1:9/nothing' });
  const missing = await patch(app, id, { description: 'x' }, null);
  t.equal(missing.statusCode, 428);
  checkContract(t, missing, 'updateWebhookEndpoint');
  t.equal((await patch(app, id, { description: 'x' }, `W/${etag}`)).statusCode, 412, 'a weak tag never matches');
  const changed = await patch(app, id, { description: 'x', events: ['pet.deleted', 'pet.created'] }, etag);
  t.equal(changed.statusCode, 200);
  t.match(changed.json(), { description: 'x', events: ['pet.deleted', 'pet.created'] }, 'in the order given');
  t.not(changed.headers.etag, etag, 'a new tag');
  t.equal((await patch(app, id, { description: 'y' }, etag)).statusCode, 412, 'the old tag is stale');
  t.equal((await patch(app, id, { description: 'y' }, `"x", ${String(changed.headers.etag)}`)).statusCode, 200);
  t.equal((await patch(app, 'ep_none', {})).statusCode, 404);
  const removed = await app.inject({
    method: 'DELETE',
    url: `/v1/webhook-endpoints/${id}`,
    headers: AUTH,
  });
  t.equal(removed.statusCode, 428, 'a delete without If-Match');
});

t.test("the webhooks file's endpoints are read through the API, never changed", async (t) => {
  const { app } = await instance(t);
  const read = await app.inject({ method: 'GET', url: `/v1/webhook-endpoints/${TEST_ENDPOINT}`, headers: AUTH });
  t.equal(read.statusCode, 200);
  t.match(read.json(), { id: TEST_ENDPOINT, source: 'file', disabled: false });
  for (const [method, url, payload, type] of [
    ['PATCH', `/v1/webhook-endpoints/${TEST_ENDPOINT}`, { disabled: true }, 'application/merge-patch+json'],
    ['DELETE', `/v1/webhook-endpoints/${TEST_ENDPOINT}`, undefined, undefined],
    ['POST', `/v1/webhook-endpoints/${TEST_ENDPOINT}/secret/rotate`, {}, 'application/json'],
  ] as const) {
    const response = await app.inject({
      method,
      url,
      headers: {
        ...AUTH,
        'if-match': String(read.headers.etag),
        ...(type === undefined ? {} : { 'content-type': type }),
      },
      ...(payload === undefined ? {} : { payload }),
    });
    t.equal(response.statusCode, 409, `${method} ${url}`);
    t.match(response.json(), { code: 'ENDPOINT_MANAGED_BY_FILE', message: /WEBHOOKS_FILE/ });
  }
});

t.test('a change that meets another made meanwhile: 412 with the tag it made, or 404 once it is gone', async (t) => {
  const memory = createMemoryPetStore();
  const endpoints = memory.webhookEndpoints;
  // Another instance's change lands between this one's read and its write.
  let meddle: ((id: string) => Promise<void>) | undefined;
  const racing = {
    ...memory,
    webhookEndpoints: {
      ...endpoints,
      replace: async (...args: Parameters<typeof endpoints.replace>) => {
        await meddle?.(args[0]);
        return endpoints.replace(...args);
      },
      remove: async (...args: Parameters<typeof endpoints.remove>) => {
        await meddle?.(args[0]);
        return endpoints.remove(...args);
      },
    },
  };
  const { app } = await buildTestApp(t, { store: racing, webhookApi: { allowPrivateUrls: true } });
  const created = await app.inject({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    headers: { ...AUTH, ...JSON_TYPE },
    payload: { url: 'http://127.0.0.1:9/h' },
  });
  const { id } = created.json() as { id: string };
  const bump = async (target: string) => {
    meddle = undefined;
    const stored = (await endpoints.get(target))!;
    await endpoints.replace(target, stored.version, { ...stored, description: 'meanwhile' });
  };
  meddle = bump;
  const updated = await patch(app, id, { description: 'mine' });
  t.equal(updated.statusCode, 412);
  t.match(updated.headers.etag, /^"2-[0-9a-f]{8}"$/, 'the tag of the change made meanwhile');
  meddle = bump;
  const deleted = await app.inject({
    method: 'DELETE',
    url: `/v1/webhook-endpoints/${id}`,
    headers: { ...AUTH, 'if-match': '*' },
  });
  t.equal(deleted.statusCode, 412);
  const gone = async (target: string) => {
    meddle = undefined;
    await endpoints.remove(target, (await endpoints.get(target))!.version);
  };
  const again = (
    await app.inject({
      method: 'POST',
      url: '/v1/webhook-endpoints',
      headers: { ...AUTH, ...JSON_TYPE },
      payload: { url: 'http://127.0.0.1:9/h' },
    })
  ).json() as { id: string };
  meddle = gone;
  t.equal((await patch(app, again.id, { description: 'mine' })).statusCode, 404);
  const third = (
    await app.inject({
      method: 'POST',
      url: '/v1/webhook-endpoints',
      headers: { ...AUTH, ...JSON_TYPE },
      payload: { url: 'http://127.0.0.1:9/h' },
    })
  ).json() as { id: string };
  meddle = gone;
  const removed = await app.inject({
    method: 'DELETE',
    url: `/v1/webhook-endpoints/${third.id}`,
    headers: { ...AUTH, 'if-match': '*' },
  });
  t.equal(removed.statusCode, 404);
  const port = await app.inject({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    headers: { ...AUTH, ...JSON_TYPE },
    payload: { url: 'http://hooks.example:99999/h' },
  });
  t.match(port.json(), { status: 400, message: 'body.url is not a URL; send an http:// or https:// URL' });
});
