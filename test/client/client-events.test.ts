// The client's side of the change feed: followPetEvents against the real service on 127.0.0.1
// (long polls, resuming, outages ridden out, an expired cursor), and verifyDelivery held to what
// the `standardwebhooks` package signs and refuses.
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import t, { type Test } from 'tap';
import {
  createClient,
  followPetEvents,
  PetstoreError,
  verifyDelivery,
  WebhookVerificationError,
  type PetEvent,
} from 'petstore-client';
import { API_KEY, buildTestApp } from '../helpers/build-app.js';

async function serve(t: Test, fetch?: typeof globalThis.fetch, maxRetries?: number) {
  const { app } = await buildTestApp(t);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`;
  return createClient({
    baseUrl,
    apiKey: API_KEY,
    timeoutMs: 2000,
    ...(fetch === undefined ? {} : { fetch }),
    ...(maxRetries === undefined ? {} : { maxRetries }),
  });
}

/** The first `count` events the follower yields. */
async function take(events: AsyncGenerator<PetEvent>, count: number): Promise<PetEvent[]> {
  const taken: PetEvent[] = [];
  for await (const event of events) {
    taken.push(event);
    if (taken.length === count) break;
  }
  return taken;
}

t.test('a follower reads every event in order, waits for new ones, and resumes after a saved id', async (t) => {
  const client = await serve(t);
  const rex = await client.createPet({ name: 'Rex', categoryId: 9007199254740993n });
  await client.createPet({ name: 'Tom', categoryId: 2 });
  const first = await take(followPetEvents(client, { limit: 1 }), 2);
  t.same(
    first.map(({ type, petId, version }) => [type, petId, version]),
    [
      ['pet.created', rex.id, 1n],
      ['pet.created', rex.id + 1n, 1n],
    ],
    'int64 fields as bigint',
  );
  t.equal((first[0]!.pet as { categoryId: bigint }).categoryId, 9007199254740993n, 'exactly');

  // Resumed after the second: it waits (long poll) until the next change, then yields it.
  const began = performance.now();
  const next = take(followPetEvents(client, { after: first[1]!.id, wait: 5 }), 1);
  setTimeout(() => void client.deletePet(rex.id, { ifMatch: '*' }), 200);
  const [removed] = await next;
  t.same([removed!.type, removed!.petId, removed!.version], ['pet.deleted', rex.id, 2n]);
  t.ok(performance.now() - began < 3000, 'as the change came, not after wait');
});

t.test("a long poll longer than the client's timeout is not cut short", async (t) => {
  const client = await serve(t);
  const began = performance.now();
  const next = take(followPetEvents(client, { wait: 3 }), 1);
  setTimeout(() => void client.createPet({ name: 'late', categoryId: 1 }), 2500);
  const [late] = await next;
  t.equal(late!.type, 'pet.created');
  t.ok(performance.now() - began >= 2400, 'it waited past the 2 s timeout');
});

t.test('an outage is ridden out from the last event yielded; an expired cursor ends the follower', async (t) => {
  let failing = 0;
  // Outages of both kinds: no connection, and a 503 (the client retries neither itself here).
  const unavailable = () =>
    new Response('{"code":"SERVICE_UNAVAILABLE","message":"away","status":503}', {
      status: 503,
      headers: { 'content-type': 'application/json', 'retry-after': '0' },
    });
  const flaky: typeof fetch = (input, init) =>
    failing-- > 0
      ? failing % 2 === 0
        ? Promise.resolve(unavailable())
        : Promise.reject(new TypeError('fetch failed'))
      : globalThis.fetch(input, init);
  const client = await serve(t, flaky, 0);
  for (let index = 0; index < 3; index++) await client.createPet({ name: `pet ${index}`, categoryId: index });
  const retries: number[] = [];
  const follower = followPetEvents(client, { limit: 1, onRetry: (_error, delayMs) => retries.push(delayMs) });
  const seen: PetEvent[] = [];
  for await (const event of follower) {
    seen.push(event);
    if (seen.length === 1) failing = 4; // the next four requests
    if (seen.length === 3) break;
  }
  t.same(
    seen.map(({ petId }) => petId),
    [1n, 2n, 3n],
    'none skipped, none twice',
  );
  t.equal(retries.length, 4, 'each failed request was reported, and tried again');

  const expired = take(followPetEvents(client, { after: '00000000-1' }), 1);
  await t.rejects(expired, { name: 'PetstoreError', status: 410, code: 'CURSOR_EXPIRED' });
  await t.rejects(take(followPetEvents(client, { after: 'nonsense' }), 1), PetstoreError, 'a 400 at once');
});

t.test('verifyDelivery accepts what standardwebhooks signs, and refuses what it refuses', async (t) => {
  const secret = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
  const body =
    '{"id":"0a1b2c3d-7","type":"pet.created","petId":7,"version":1,"occurredAt":"2026-11-27T10:00:00.000Z","pet":{"id":7,"name":"Rex","categoryId":9223372036854775807}}';
  const sender = new Webhook(secret);
  const signedAt = (at: Date, text = body) => ({
    'webhook-id': '0a1b2c3d-7',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': sender.sign('0a1b2c3d-7', at, text),
  });
  const headers = signedAt(new Date());
  t.doesNotThrow(() => sender.verify(body, headers), 'standardwebhooks accepts it');
  const event = await verifyDelivery(secret, body, headers);
  t.same(event, {
    id: '0a1b2c3d-7',
    type: 'pet.created',
    petId: 7n,
    version: 1n,
    occurredAt: '2026-11-27T10:00:00.000Z',
    pet: { id: 7n, name: 'Rex', categoryId: 9223372036854775807n },
  });
  t.same(await verifyDelivery(secret, body, new Headers(headers)), event, 'from a Headers object');
  await t.rejects(
    verifyDelivery(
      secret,
      body,
      new Headers({ 'webhook-id': headers['webhook-id'], 'webhook-timestamp': headers['webhook-timestamp'] }),
    ),
    WebhookVerificationError,
    'a Headers object without a signature',
  );
  t.same(
    await verifyDelivery(secret, body, { ...headers, 'webhook-signature': [headers['webhook-signature']] }),
    event,
    'a header as Node gives a repeated one',
  );
  const rotating = {
    ...headers,
    'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')} ${headers['webhook-signature']}`,
  };
  t.doesNotThrow(() => sender.verify(body, rotating));
  t.same(await verifyDelivery(secret, body, rotating), event, 'one of several signatures (a secret being rotated)');

  const rejections: [string, string, Record<string, string>][] = [
    [
      'another secret',
      body,
      {
        ...headers,
        'webhook-signature': new Webhook(`whsec_${Buffer.alloc(32, 4).toString('base64')}`).sign(
          '0a1b2c3d-7',
          new Date(),
          body,
        ),
      },
    ],
    ['a changed body', body.replace('Rex', 'Rox'), headers],
    ['another id', body, { ...headers, 'webhook-id': '0a1b2c3d-8' }],
    ['too old', body, signedAt(new Date(Date.now() - 400_000))],
    ['from the future', body, signedAt(new Date(Date.now() + 400_000))],
    ['no signature', body, { 'webhook-id': headers['webhook-id'], 'webhook-timestamp': headers['webhook-timestamp'] }],
    ['another version', body, { ...headers, 'webhook-signature': headers['webhook-signature'].replace('v1,', 'v2,') }],
  ];
  for (const [what, text, sent] of rejections) {
    t.throws(() => sender.verify(text, sent), `${what}: standardwebhooks refuses it`);
    await t.rejects(
      verifyDelivery(secret, text, sent),
      WebhookVerificationError,
      `${what}: and so does verifyDelivery`,
    );
  }
  t.same(
    await verifyDelivery(secret, body, signedAt(new Date(Date.now() - 400_000)), { toleranceS: 600 }),
    event,
    'a tolerance of its own',
  );
});
