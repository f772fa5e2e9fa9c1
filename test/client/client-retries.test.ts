// The typed client behind a proxy that misbehaves, in front of the real service on 127.0.0.1: it
// waits out a 503's Retry-After and resends with the same key; a create whose answer is lost is
// retried and stored once; a hung attempt times out and is retried; a 4xx is never retried; the
// retries stop at maxRetries; a caller's abort stops everything.
import { createServer, request as forward, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { backoffMs, createCall, retryAfterSeconds, withNumbers, type OperationSpec } from '../../src/client/call.js';
import { createClient, PetstoreConnectionError, responseOf } from '../../src/client/index.js';
import { keyTableOf } from '../../src/auth/key-table.js';
import { rolesOf } from '../../src/auth/roles.js';
import { API_KEY, buildTestApp } from '../helpers/build-app.js';
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
      (answer) => {
        if (step === 'drop-answer') {
          // The service has answered (the pet is stored); the client never hears of it.
          answer.resume();
          answer.on('end', () => incoming.socket.destroy());
          return;
        }
        outgoing.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(outgoing);
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
    message: /^createPet: POST http:\/\/127\.0\.0\.1:\d+\/v1\/pets: no answer within 300 ms \(3 attempts\)$/,
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

t.test(
  'Retry-After is read as seconds or as an HTTP-date, and capped; without it the backoff has jitter',
  async (t) => {
    t.equal(retryAfterSeconds(null), undefined);
    t.equal(retryAfterSeconds('2'), 2);
    t.equal(retryAfterSeconds(' 7 '), 7);
    t.equal(retryAfterSeconds('Thu, 01 Jan 2026 00:00:10 GMT', Date.parse('2026-01-01T00:00:00Z')), 10);
    t.equal(
      retryAfterSeconds('Thu, 01 Jan 2026 00:00:00 GMT', Date.parse('2026-01-02T00:00:00Z')),
      0,
      'a date past is no wait',
    );
    t.equal(retryAfterSeconds('soon'), undefined);
    t.equal(backoffMs(0, 1), 1_000);
    t.equal(backoffMs(0, 3_600), 60_000, 'an hour is waited as a minute');
    t.equal(
      backoffMs(0, undefined, () => 1),
      250,
    );
    t.equal(
      backoffMs(2, undefined, () => 0.5),
      500,
    );
    t.equal(
      backoffMs(10, undefined, () => 1),
      10_000,
      'capped at 10 s',
    );
    t.equal(
      backoffMs(1, undefined, () => 0),
      0,
      'full jitter',
    );
  },
);

// The runtime on operations this spec does not have (none of its operations lacks a key or a body),
// through an injected fetch.
const answer = (status: number, body?: string, headers: Record<string, string> = {}) =>
  new Response(body ?? null, {
    status,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
  });
const settings = {
  baseUrl: 'http://127.0.0.1:9/v1',
  apiKey: API_KEY,
  logger: { warn: () => undefined },
  maxRetries: 2,
  timeoutMs: 1_000,
};

t.test('an operation that is not safe to retry is sent once; one without a JSON body resolves empty', async (t) => {
  const sent: string[] = [];
  const call = createCall({
    ...settings,
    fetch: async (input, init) => {
      sent.push(`${init!.method} ${String(input)}`);
      return sent.length === 1
        ? answer(503, '{"code":"SERVICE_UNAVAILABLE","message":"m","status":503}', { 'retry-after': '0' })
        : answer(204);
    },
  });
  const unsafe: OperationSpec = {
    operationId: 'updatePet',
    method: 'PATCH',
    path: '/pets/{petId}',
    successStatuses: [204],
    retrySafe: false,
    idempotencyKey: false,
    mediaType: 'application/json',
    headerOptions: {},
    numbers: { '503': { p: { status: 'n' } } },
  };
  await t.rejects(call.send(unsafe, { path: { petId: 7n }, body: { name: 'Rex' } }), {
    name: 'PetstoreError',
    status: 503,
  });
  t.same(sent, ['PATCH http://127.0.0.1:9/v1/pets/7'], 'a 503 to a PATCH without a key is not retried');
  t.equal(await call.send(unsafe, { path: { petId: 'a b' } }), undefined, 'a 204 resolves with nothing');
  t.equal(sent[1], 'PATCH http://127.0.0.1:9/v1/pets/a%20b', 'path values are encoded');
  const refused = createCall({ ...settings, fetch: async () => Promise.reject(new TypeError('fetch failed')) });
  await t.rejects(refused.send(unsafe, { path: { petId: 1 } }), {
    name: 'PetstoreConnectionError',
    attempts: 1,
    message: /\(1 attempt\)$/,
  });
});

t.test(
  'a 429 is retried whatever the method, after its Retry-After, within maxRetries; then retryAfter is in the error',
  async (t) => {
    const sent: string[] = [];
    const tooMany = () =>
      answer(429, '{"code":"TOO_MANY_REQUESTS","message":"m","status":429}', { 'retry-after': '0' });
    const call = createCall({
      ...settings,
      fetch: async (input, init) => {
        sent.push(`${init!.method} ${String(input)}`);
        return sent.length <= 2 ? tooMany() : answer(204);
      },
    });
    const unsafe: OperationSpec = {
      operationId: 'updatePet',
      method: 'PATCH',
      path: '/pets/{petId}',
      successStatuses: [204],
      retrySafe: false,
      idempotencyKey: false,
      mediaType: 'application/json',
      headerOptions: {},
      numbers: { '429': { p: { status: 'n' } } },
    };
    t.equal(
      await call.send(unsafe, { path: { petId: 7n }, body: { name: 'Rex' } }),
      undefined,
      'a PATCH refused 429 twice, then done',
    );
    t.equal(sent.length, 3, 'nothing was done with a 429: sent again, even a PATCH without a key');
    const always = createCall({
      ...settings,
      maxRetries: 1,
      fetch: async () => answer(429, '{"code":"TOO_MANY_REQUESTS","message":"m","status":429}', { 'retry-after': '0' }),
    });
    await t.rejects(always.send(unsafe, { path: { petId: 7n } }), {
      name: 'PetstoreError',
      status: 429,
      code: 'TOO_MANY_REQUESTS',
      retryAfter: 0,
    });
  },
);

t.test('against the service: a client over its quota waits out the 429 and gets its answer', async (t) => {
  const table = keyTableOf([API_KEY], rolesOf(specCopy()), {
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

t.test("a retry waits with the caller's signal, and an abort during the wait ends it", async (t) => {
  const controller = new AbortController();
  let calls = 0;
  const call = createCall({
    ...settings,
    fetch: async () => (++calls === 1 ? answer(503, '{}', { 'retry-after': '0' }) : answer(200, '[]')),
  });
  const list: OperationSpec = {
    operationId: 'listPets',
    method: 'GET',
    path: '/pets',
    successStatuses: [200],
    retrySafe: true,
    idempotencyKey: false,
    mediaType: 'application/json',
    headerOptions: {},
    numbers: { '200': null },
  };
  t.same(
    await call.send(list, { path: {} }, { signal: controller.signal }),
    [],
    'retried once with a signal that never fires',
  );
  const aborting = createCall({
    ...settings,
    fetch: async () => {
      controller.abort(new Error('stopped while the answer came'));
      return answer(503, '{}', { 'retry-after': '5' });
    },
  });
  await t.rejects(aborting.send(list, { path: {} }, { signal: controller.signal }), {
    message: 'stopped while the answer came',
  });
});

t.test('a deprecation warning names what the answer gives, and no more', async (t) => {
  const warned: string[] = [];
  const call = createCall({
    ...settings,
    logger: { warn: (line) => warned.push(line) },
    fetch: async () => answer(200, '{"id":1}', { deprecation: '@1' }),
  });
  const read: OperationSpec = {
    operationId: 'readThing',
    method: 'GET',
    path: '/things',
    successStatuses: [200],
    retrySafe: true,
    idempotencyKey: false,
    mediaType: 'application/json',
    headerOptions: {},
    numbers: { '200': null },
  };
  await call.send(read, { path: {} });
  t.same(warned, ['petstore-client: readThing is deprecated (Deprecation: @1).']);
});

t.test('numbers the spec does not declare int64 become numbers, wherever they are', async (t) => {
  t.equal(withNumbers(5n, 'n'), 5);
  t.equal(withNumbers(2.5, 'n'), 2.5, 'a fraction is a number already');
  t.same(withNumbers([1n, 2n], { i: 'n' }), [1, 2]);
  t.equal(withNumbers('x', { i: 'n' }), 'x', 'not the array the spec promised: left for the caller to see');
  t.same(withNumbers({ size: 3n, id: 4n }, { p: { size: 'n' } }), { size: 3, id: 4n });
  t.same(withNumbers({ id: 4n }, { p: { size: 'n' } }), { id: 4n }, 'an absent property stays absent');
  t.same(
    withNumbers([{ a: 1n }], { p: { a: 'n' } }),
    [{ a: 1n }],
    'an array where an object was promised is left as it is',
  );
  t.equal(withNumbers(null, { p: { a: 'n' } }), null);
  t.equal(withNumbers(7n, null), 7n);
});
