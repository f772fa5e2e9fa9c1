// The webhooks as an operator runs them, through the API: listWebhookEndpoints shows where each
// endpoint stands (an endpoint stalled on an event it refuses, with its last status), and
// setWebhookPosition skips that event, or moves back to resend. The deliveries run for real against
// a receiver on loopback, with the in-memory store.
import pino from 'pino';
import t, { type Test } from 'tap';
import type { FastifyBaseLogger } from 'fastify';
import { createEventSignal } from '../../src/events/event-signal.js';
import { createMemoryPetStore } from '../../src/store/memory-pet-store.js';
import { startDeliveries } from '../../src/webhooks/deliveries.js';
import { webhooksFileEndpoints } from '../../src/webhooks/webhooks-file.js';
import { buildApp } from '../../src/app.js';
import { allRoles, API_KEY, AUTH, buildTestApp, JSON_TYPE, NO_ROLE_API_KEY, postPet } from '../helpers/build-app.js';
import { checkContract } from '../helpers/contract.js';
import { until } from '../helpers/until.js';
import { fixedEndpoints, receiver, SECRET } from '../helpers/webhook-receiver.js';

const nameOf = (body: string) => (JSON.parse(body) as { pet?: { name: string } }).pet?.name ?? '';

/** A receiver that refuses every delivery of the pet named `refused` (503), and takes the rest. */
async function refusingReceiver(t: Test, refused: () => string | undefined) {
  const { url, received } = await receiver(t, (_, body) => (nameOf(body) === refused() ? 503 : 204));
  return { url, names: () => received.map(({ body }) => nameOf(body)) };
}

const fixed = (text: string) => fixedEndpoints(webhooksFileEndpoints(text, 'test'));

interface Listed {
  id: string;
  url: string;
  events: string[];
  state: string;
  after: string;
  nextAttemptAt?: string;
  lastAttempt?: { at: string; event: string; status?: number; error?: string };
}

t.test('an endpoint stalled on a refused event is listed so; a position set skips it, or resends', async (t) => {
  let refused: string | undefined = 'stuck';
  const { url, names } = await refusingReceiver(t, () => refused);
  const webhooks = fixed(
    `endpoints:\n  - id: shop\n    url: ${url}\n    secret: ${SECRET}\n  - url: https://b.example/h?k=secret-token\n    secret: ${SECRET}\n    events: [pet.deleted]\n`,
  );
  const store = createMemoryPetStore();
  const events = createEventSignal();
  const { app } = await buildTestApp(t, { store, events, webhooks });
  const deliveries = startDeliveries({
    store,
    endpoints: fixed(`endpoints:\n  - id: shop\n    url: ${url}\n    secret: ${SECRET}\n`),
    signal: events,
    log: pino({ level: 'silent' }) as unknown as FastifyBaseLogger,
    retryDelaysMs: [60_000, 60_000, 60_000],
    timeoutMs: 1000,
  });
  t.teardown(() => deliveries.close());
  const list = async () => {
    const response = await app.inject({ method: 'GET', url: '/v1/webhook-endpoints', headers: AUTH });
    t.equal(response.statusCode, 200);
    return checkContract(t, response, 'listWebhookEndpoints') as Listed[];
  };
  await until('the endpoint is taken on', async () => (await store.deliveries.read(['shop'])).size === 1);

  const first = (await app.inject(postPet({ name: 'fine', categoryId: 1 }))).statusCode;
  t.equal(first, 201);
  await app.inject(postPet({ name: 'stuck', categoryId: 2 }));
  await app.inject(postPet({ name: 'after', categoryId: 3 }));
  await until('the refused event is retried later', async () => (await list())[0]!.state === 'retrying');
  const feed = (await app.inject({ method: 'GET', url: '/v1/pet-events', headers: AUTH })).json() as { id: string }[];
  const [shop, other] = await list();
  t.match(shop, {
    id: 'shop',
    url: url.replace('?token=abc', ''),
    events: ['pet.created', 'pet.updated', 'pet.deleted'],
    state: 'retrying',
    after: feed[0]!.id,
    lastAttempt: { event: feed[1]!.id, status: 503, error: 'responded with 503' },
  });
  t.ok(Date.parse(shop!.nextAttemptAt!) > Date.parse(shop!.lastAttempt!.at), 'its next attempt, after the last');
  t.match(other, { id: /^u[0-9a-f]{16}$/, url: 'https://b.example/h', events: ['pet.deleted'], state: 'active' });
  t.notMatch(JSON.stringify(await list()), /secret-token|whsec_|token=abc/, 'no secret, no query');
  t.same(names().slice(0, 2), ['fine', 'stuck']);
  t.notOk(names().includes('after'), 'stalled: the event after it waits');
  const beforeSkip = names().length;

  // Skip the refused event: deliveries move on at once.
  const skip = await app.inject({
    method: 'POST',
    url: '/v1/webhook-endpoints/shop/position',
    headers: { ...AUTH, ...JSON_TYPE },
    payload: JSON.stringify({ after: feed[1]!.id }),
  });
  t.equal(skip.statusCode, 200);
  t.match(checkContract(t, skip, 'setWebhookPosition'), { id: 'shop', state: 'active', after: feed[1]!.id });
  await until('the event after it is delivered', () => names().includes('after'));
  await until('and recorded', async () => (await list())[0]!.after === feed[2]!.id);
  t.same(names().slice(beforeSkip), ['after'], 'the refused event skipped, the next one delivered');
  const beforeBack = names().length;

  // Back to the start: everything is sent again, the once-refused event too now that it is taken.
  refused = undefined;
  const back = await app.inject({
    method: 'POST',
    url: '/v1/webhook-endpoints/shop/position',
    headers: { ...AUTH, ...JSON_TYPE },
    payload: JSON.stringify({ after: feed[0]!.id.replace(/-\d+$/, '-0') }),
  });
  t.equal(back.statusCode, 200);
  await until('resent', () => names().length === beforeBack + 3);
  t.same(names().slice(beforeBack), ['fine', 'stuck', 'after'], 'setting the position back resends');
  await until(
    'caught up',
    async () => (await list())[0]!.state === 'active' && (await list())[0]!.after === feed[2]!.id,
  );
});

t.test('setWebhookPosition refuses what names no place in the feed, and needs webhooks:manage', async (t) => {
  const store = createMemoryPetStore({ maxEvents: 2 });
  const webhooks = fixed(`endpoints:\n  - id: shop\n    url: https://a.example/h\n    secret: ${SECRET}\n`);
  const { app } = await buildTestApp(t, { store, webhooks });
  for (let index = 0; index < 4; index++) await app.inject(postPet({ name: `p${index}`, categoryId: index }));
  const kept = (await app.inject({ method: 'GET', url: '/v1/pet-events', headers: AUTH })).json() as { id: string }[];
  const epoch = kept[0]!.id.split('-')[0]!;
  const set = (id: string, after: unknown, key = AUTH) =>
    app.inject({
      method: 'POST',
      url: `/v1/webhook-endpoints/${id}/position`,
      headers: { ...key, ...JSON_TYPE },
      payload: JSON.stringify({ after }),
    });
  const cases: [string, unknown, number, string, RegExp][] = [
    ['nobody', kept[0]!.id, 404, 'WEBHOOK_ENDPOINT_NOT_FOUND', /No webhook endpoint has id nobody/],
    ['shop', `${epoch}-1`, 410, 'CURSOR_EXPIRED', /older than the events kept \(from [0-9a-f]{8}-2 on\)/],
    ['shop', `0000abcd-3`, 410, 'CURSOR_EXPIRED', /no longer keeps/],
    ['shop', `${epoch}-99`, 400, 'VALIDATION_FAILED', /names no event of this feed/],
    ['shop', 'soon', 400, 'VALIDATION_FAILED', /body\/after|body\.after/],
    [
      'shop',
      `${epoch}-99999999999999999`,
      400,
      'VALIDATION_FAILED',
      /body\.after is not an event id this service issued/,
    ],
  ];
  for (const [id, after, status, code, message] of cases) {
    const response = await set(id, after);
    t.equal(response.statusCode, status, `${id} ${String(after)}`);
    t.match(checkContract(t, response, 'setWebhookPosition'), { code, message });
  }
  t.equal((await set('shop', `${epoch}-2`)).statusCode, 200, 'the horizon: everything kept is sent again');
  t.equal((await set('shop', kept[1]!.id)).statusCode, 200, 'an event kept');
  const skipAll = await set('shop', undefined);
  t.equal(skipAll.statusCode, 200);
  t.match(
    checkContract(t, skipAll, 'setWebhookPosition'),
    { after: kept[1]!.id },
    'no after: from the newest event on',
  );
  const noRole = { authorization: `Bearer ${NO_ROLE_API_KEY}` };
  t.equal((await set('shop', kept[1]!.id, noRole)).statusCode, 403);
  t.equal((await app.inject({ method: 'GET', url: '/v1/webhook-endpoints', headers: noRole })).statusCode, 403);

  const none = await buildApp({ apiKeys: [allRoles(API_KEY)] });
  t.teardown(() => none.close());
  const empty = await none.inject({ method: 'GET', url: '/v1/webhook-endpoints', headers: AUTH });
  t.same(checkContract(t, empty, 'listWebhookEndpoints'), [], 'no webhooks file: none');
  t.equal(
    (
      await none.inject({
        method: 'POST',
        url: '/v1/webhook-endpoints/shop/position',
        headers: { ...AUTH, ...JSON_TYPE },
        payload: '{"after":"00000000-0"}',
      })
    ).statusCode,
    404,
  );
});

t.test('a stopped endpoint is listed stopped, and a position set resumes it', async (t) => {
  const store = createMemoryPetStore();
  const webhooks = fixed(`endpoints:\n  - id: shop\n    url: https://a.example/h\n    secret: ${SECRET}\n`);
  const [endpoint] = webhooks.current();
  const { app } = await buildTestApp(t, { store, webhooks });
  const state = (await store.deliveries.claim(endpoint!.key, 'an instance', 60_000))!;
  const at = Date.parse('2026-11-28T10:00:00.000Z');
  const gone = {
    ...state,
    stoppedEntry: endpoint!.digest,
    lastAttempt: { at, event: 0, status: 410, error: 'responded with 410' },
  };
  t.ok(await store.deliveries.record(endpoint!.key, 'an instance', gone, 60_000));
  const listed = await app.inject({ method: 'GET', url: '/v1/webhook-endpoints', headers: AUTH });
  t.match(checkContract(t, listed, 'listWebhookEndpoints'), [
    {
      id: 'shop',
      state: 'stopped',
      lastAttempt: { at: '2026-11-28T10:00:00.000Z', status: 410, error: 'responded with 410' },
    },
  ]);
  t.notOk((listed.json() as Listed[])[0]!.nextAttemptAt, 'no next attempt while stopped');
  const resumed = await app.inject({
    method: 'POST',
    url: '/v1/webhook-endpoints/shop/position',
    headers: { ...AUTH, ...JSON_TYPE },
    payload: '{}',
  });
  t.match(checkContract(t, resumed, 'setWebhookPosition'), { state: 'active' });
  const withNo2xx = {
    ...state,
    attempt: 1,
    dueAt: at + 5000,
    generation: 1,
    lastAttempt: { at, event: 0, error: 'not reached (ECONNREFUSED)' },
  };
  t.ok(await store.deliveries.record(endpoint!.key, 'an instance', withNo2xx, 60_000));
  const retrying = await app.inject({ method: 'GET', url: '/v1/webhook-endpoints', headers: AUTH });
  const [shown] = checkContract(t, retrying, 'listWebhookEndpoints') as Listed[];
  t.match(shown, { state: 'retrying', nextAttemptAt: '2026-11-28T10:00:05.000Z' });
  t.notOk('status' in shown!.lastAttempt!, 'no status when the endpoint did not answer');
});
