// The typed client behind a proxy that misbehaves, in front of the real service on 127.0.0.1: it
// waits out a 503's Retry-After and resends with the same key; a create whose response is lost is
// retried and stored once; a hung attempt times out and is retried; a 4xx is never retried; the
// retries stop at maxRetries; a caller's abort stops everything.
import { createServer, request as forward, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { createClient, PetstoreConnectionError, responseOf } from 'petstore-client';
import { keyTableOf } from '../../src/auth/key-table.js';
import { rolesOf } from '../../src/auth/roles.js';
import { allRoles, API_KEY, buildTestApp } from '../helpers/build-app.js';
import { specCopy } from '../helpers/spec.js';

type Misbehaviour = 'forward' | 'drop-answer' | 'hang' | { status: number; retryAfter?: string };

interface Proxy {
  url: string;
  /** What the proxy does with each next request; 'forward' once these run out. */
  plan: Misbehaviour[];
  seen: { method: string; path: string; key: string | undefined }[];
}

async function proxied(t: Test): Promise<{ proxy: Proxy; servicePets: () => Promise<unknown[]> }> {
  const { app } = await buildTestApp(t);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const servicePort = (app.server.address() as AddressInfo).port;
  const proxy: Proxy = { url: '', plan: [], seen: [] };
  const hung: ServerResponse[] = [];
  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const key = incoming.headers['idempotency-key'];
    proxy.seen.push({ method: incoming.method!, path: incoming.url!, key: typeof key === 'string' ? key : undefined });
    const step = proxy.plan.shift() ?? 'forward';
    if (step === 'hang') {
      incoming.resume();
      hung.push(outgoing);
      return;
    }
    if (typeof step === 'object') {
      incoming.resume();
      const body = JSON.stringify({ code: 'SERVICE_UNAVAILABLE', message: 'The proxy says so.', status: step.status });
      outgoing
        .writeHead(step.status, {
          'content-type': 'application/json',
          ...(step.retryAfter === undefined ? {} : { 'retry-after': step.retryAfter }),
        })
        .end(body);
      return;
    }
    const upstream = forward(
      { host: '127.0.0.1', port: servicePort, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (response) => {
        if (step === 'drop-answer') {
          // The service has served (the pet is stored); the client never hears of it.
          response.resume();
          response.on('end', () => incoming.socket.destroy());
          return;
        }
        outgoing.writeHead(response.statusCode!, response.headers);
        response.pipe(outgoing);
      },
    );
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const response of hung) response.socket?.destroy();
    server.closeAllConnections();
    server.close();
  });
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const servicePets = async () =>
    JSON.parse(
      (await app.inject({ method: 'GET', url: '/v1/pets?limit=100', headers: { authorization: `Bearer ${API_KEY}` } }))
        .body,
    ) as unknown[];
  return { proxy, servicePets };
}

const creates = (proxy: Proxy) => proxy.seen.filter((request) => request.method === 'POST');

t.test('503 with Retry-After: 1: the client waits about a second and sends the same request, same key', async (t) => {
  const { proxy, servicePets } = await proxied(t);
  const client = createClient({ baseUrl: proxy.url, apiKey: API_KEY });
  proxy.plan.push({ status: 503, retryAfter: '1' });
  const started = performance.now();
  const pet = await client.createPet({ name: 'Rex', categoryId: 9007199254740993n });
  const waited = performance.now() - started;
  t.ok(waited >= 950 && waited < 5_000, `waited ${Math.round(waited)} ms`);
  t.equal(creates(proxy).length, 2, 'two attempts');
  t.match(creates(proxy)[0]!.key, /^"[0-9a-f-]{36}"$/, "a UUID, in the header's quoted form");
  t.equal(creates(proxy)[1]!.key, creates(proxy)[0]!.key, 'the retry sends the same key');
  t.equal(responseOf(pet)!.attempts, 2);
  t.equal((await servicePets()).length, 1, 'one pet stored');
});

t.test('the answer to a create is lost: the client retries, and exactly one pet is stored', async (t) => {
  const { proxy, servicePets } = await proxied(t);
  const client = createClient({ baseUrl: proxy.url, apiKey: API_KEY });
  proxy.plan.push('drop-answer');
  const pet = await client.createPet({ name: 'Kit', categoryId: 4 });
  t.equal(creates(proxy).length, 2, 'sent again after the connection was lost');
  t.equal(responseOf(pet)!.replayed, true, 'the service answered the retry with the pet the first attempt made');
  t.same(await servicePets(), [{ id: 1, name: 'Kit', categoryId: 4 }], 'exactly one pet');
});

t.test('a hung attempt times out and is retried', async (t) => {
  const { proxy, servicePets } = await proxied(t);
  const client = createClient({ baseUrl: proxy.url, apiKey: API_KEY, timeoutMs: 300 });
  proxy.plan.push('hang');
  const pet = await client.createPet({ name: 'Tom', categoryId: 12 });
  t.equal(creates(proxy).length, 2);
  t.equal(responseOf(pet)!.replayed, false, 'the hung attempt never reached the service');
  t.equal((await servicePets()).length, 1);
  proxy.plan.push('hang', 'hang', 'hang');
  const error = await client.createPet({ name: 'Tom', categoryId: 12 }).catch((error: unknown) => error);
  t.ok(error instanceof PetstoreConnectionError);
  t.match(error, {
    operationId: 'createPet',
    attempts: 3,
    message: /^createPet: POST http:\/\/127\.0\.0\.1:\d+\/v1\/pets: no response within 300 ms \(3 attempts\)$/,
  });
});

t.test('400 and 422 are never retried', async (t) => {
  const { proxy } = await proxied(t);
  const client = createClient({ baseUrl: proxy.url, apiKey: API_KEY });
  await t.rejects(client.createPet({ name: '', categoryId: 1 }), { name: 'PetstoreError', status: 400 });
  t.equal(creates(proxy).length, 1, '400: one attempt');
  await client.createPet({ name: 'Rex', categoryId: 1 }, { idempotencyKey: 'k1' });
  await t.rejects(client.createPet({ name: 'Max', categoryId: 1 }, { idempotencyKey: 'k1' }), {
    status: 422,
    code: 'IDEMPOTENCY_KEY_REUSED',
  });
  t.equal(creates(proxy).length, 3, '422: one attempt');
  proxy.plan.push({ status: 500 });
  await t.rejects(client.createPet({ name: 'Max', categoryId: 1 }), { name: 'PetstoreError', status: 500 });
  t.equal(creates(proxy).length, 4, '500: one attempt');
});

t.test('502, 503 and 504 are retried up to maxRetries; then the last answer is the error', async (t) => {
  const { proxy } = await proxied(t);
  const client = createClient({ baseUrl: proxy.url, apiKey: API_KEY, maxRetries: 3 });
  proxy.plan.push({ status: 502 }, { status: 504 }, { status: 503, retryAfter: '0' });
  const pets = [];
  for await (const pet of client.listPets()) pets.push(pet);
  t.equal(proxy.seen.length, 4, 'a GET is retried too: it is idempotent');
  proxy.seen.length = 0;
  proxy.plan.push(...Array.from({ length: 4 }, () => ({ status: 503, retryAfter: '0' })));
  await t.rejects(client.createPet({ name: 'Rex', categoryId: 1 }), {
    name: 'PetstoreError',
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
    retryAfter: 0,
  });
  t.equal(proxy.seen.length, 4, 'maxRetries 3: four attempts');
  const once = createClient({ baseUrl: proxy.url, apiKey: API_KEY, maxRetries: 0 });
  proxy.seen.length = 0;
  proxy.plan.push({ status: 503, retryAfter: '0' });
  await t.rejects(once.createPet({ name: 'Rex', categoryId: 1 }), { name: 'PetstoreError', status: 503 });
  t.equal(proxy.seen.length, 1, 'maxRetries 0: one attempt');
});

t.test('nothing listening: the connection error after every attempt, with the cause', async (t) => {
  const { proxy } = await proxied(t);
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const client = createClient({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: API_KEY, maxRetries: 1 });
  const error = await client.createPet({ name: 'Rex', categoryId: 1 }).catch((error: unknown) => error);
  t.match(error, {
    name: 'PetstoreConnectionError',
    attempts: 2,
    message: /the connection failed \(fetch failed\) \(2 attempts\)$/,
  });
  t.ok((error as Error).cause instanceof Error, 'the cause is kept');
  t.equal(proxy.seen.length, 0);
});

t.test("the caller's signal stops the call, retries and waits included", async (t) => {
  const { proxy } = await proxied(t);
  const client = createClient({ baseUrl: proxy.url, apiKey: API_KEY });
  proxy.plan.push({ status: 503, retryAfter: '30' });
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error('the caller gave up')), 200);
  await t.rejects(client.createPet({ name: 'Rex', categoryId: 1 }, { signal: controller.signal }), {
    message: 'the caller gave up',
  });
  t.equal(creates(proxy).length, 1, 'no retry after the abort');
  proxy.plan.push('hang');
  const hanging = new AbortController();
  setTimeout(() => hanging.abort(new Error('enough')), 200);
  await t.rejects(client.createPet({ name: 'Rex', categoryId: 1 }, { signal: hanging.signal }), { message: 'enough' });
  await t.rejects(
    client.createPet({ name: 'Rex', categoryId: 1 }, { signal: AbortSignal.abort(new Error('before it began')) }),
    { message: 'before it began' },
  );
});

t.test('against the service: a client over its quota waits out the 429 and gets its answer', async (t) => {
  const table = keyTableOf([allRoles(API_KEY)], rolesOf(specCopy()), {
    default: { requests: 1, windowSeconds: 1 },
    clients: new Map(),
  });
  const { app } = await buildTestApp(t, { apiKeys: { table } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`;
  const client = createClient({ baseUrl, apiKey: API_KEY });
  await client.createPet({ name: 'Rex', categoryId: 1 });
  const started = performance.now();
  const second = await client.createPet({ name: 'Kit', categoryId: 2 });
  const waited = performance.now() - started;
  t.ok(
    waited >= 900 && waited < 5_000,
    `refused 429 with Retry-After: 1, then created: waited ${Math.round(waited)} ms`,
  );
  t.equal(responseOf(second)!.attempts, 2);
  const impatient = createClient({ baseUrl, apiKey: API_KEY, maxRetries: 0 });
  await t.rejects(impatient.createPet({ name: 'Max', categoryId: 3 }), {
    name: 'PetstoreError',
    status: 429,
    code: 'TOO_MANY_REQUESTS',
    retryAfter: 1,
  });
});
