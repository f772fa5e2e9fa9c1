// The client's call runtime on its own, through an injected fetch: Retry-After and the backoff, what
// is retried and what is not, a caller's abort during a wait, deprecation warnings, and the numbers
// the spec does not declare int64. test/client/client-retries.test.ts runs it against the service.
import t from 'tap';
import { backoffMs, createCall, retryAfterSeconds, withNumbers, type OperationSpec } from '../call.js';

const API_KEY = 'a-test-key';

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
const response = (status: number, body?: string, headers: Record<string, string> = {}) =>
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
  readYourWrites: true,
};

t.test('an operation that is not safe to retry is sent once; one without a JSON body resolves empty', async (t) => {
  const sent: string[] = [];
  const call = createCall({
    ...settings,
    fetch: async (input, init) => {
      sent.push(`${init!.method} ${String(input)}`);
      return sent.length === 1
        ? response(503, '{"code":"SERVICE_UNAVAILABLE","message":"m","status":503}', { 'retry-after': '0' })
        : response(204);
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
      response(429, '{"code":"TOO_MANY_REQUESTS","message":"m","status":429}', { 'retry-after': '0' });
    const call = createCall({
      ...settings,
      fetch: async (input, init) => {
        sent.push(`${init!.method} ${String(input)}`);
        return sent.length <= 2 ? tooMany() : response(204);
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
      fetch: async () =>
        response(429, '{"code":"TOO_MANY_REQUESTS","message":"m","status":429}', { 'retry-after': '0' }),
    });
    await t.rejects(always.send(unsafe, { path: { petId: 7n } }), {
      name: 'PetstoreError',
      status: 429,
      code: 'TOO_MANY_REQUESTS',
      retryAfter: 0,
    });
  },
);

t.test("a retry waits with the caller's signal, and an abort during the wait ends it", async (t) => {
  const controller = new AbortController();
  let calls = 0;
  const call = createCall({
    ...settings,
    fetch: async () => (++calls === 1 ? response(503, '{}', { 'retry-after': '0' }) : response(200, '[]')),
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
      controller.abort(new Error('stopped while the response came'));
      return response(503, '{}', { 'retry-after': '5' });
    },
  });
  await t.rejects(aborting.send(list, { path: {} }, { signal: controller.signal }), {
    message: 'stopped while the response came',
  });
});

t.test('a deprecation warning names what the response gives, and no more', async (t) => {
  const warned: string[] = [];
  const call = createCall({
    ...settings,
    logger: { warn: (line) => warned.push(line) },
    fetch: async () => response(200, '{"id":1}', { deprecation: '@1' }),
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
