// The typed client (src/client/, generated/client-api.ts) against the real service on 127.0.0.1,
// in memory and on PostgreSQL: int64 values exact both ways, every page read once while others
// create, one deprecation warning per client, getPet past its sunset, errors as the spec has them.
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import {
  changePet,
  createClient,
  PetstoreError,
  PetstoreResponseError,
  responseOf,
  type NewPet,
  type PetstoreClient,
} from 'petstore-client';
import { loadSpec } from '../../src/openapi/openapi-spec.js';
import type { PetStore } from '../../src/store/pet-store.js';
import { API_KEY, buildTestApp, NO_ROLE_API_KEY } from '../helpers/build-app.js';
import { startTestDatabase } from '../helpers/postgres.js';
import { specWith } from '../helpers/spec.js';

// The services here run on buildTestApp's clock, before getPet's sunset, so that no test depends on
// the day it runs; the one past a sunset, on a spec copy whose sunset is long past, on the real one.
const SUNSET_AT = Date.parse(`${loadSpec().paths['/pets/{petId}']!.get!['x-sunset'] as string}T00:00:00Z`);
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const TWO_53 = 2n ** 53n;

interface Served {
  baseUrl: string;
  client: PetstoreClient;
  warnings: string[];
  /** Requests that reached the service, by method and path. */
  requests: string[];
}

async function serve(t: Test, options: Parameters<typeof buildTestApp>[1] = {}): Promise<Served> {
  const { app } = await buildTestApp(t, options);
  const requests: string[] = [];
  app.addHook('onRequest', async (request) => void requests.push(`${request.method} ${request.url}`));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`;
  const warnings: string[] = [];
  return {
    baseUrl,
    client: createClient({ baseUrl, apiKey: API_KEY, logger: { warn: (line) => warnings.push(line) } }),
    warnings,
    requests,
  };
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const list: T[] = [];
  for await (const item of items) list.push(item);
  return list;
}

const database = await startTestDatabase(t);
const stores: [string, (t: Test) => Promise<PetStore | undefined>][] = [
  ['in memory', async () => undefined],
  ...(database === undefined
    ? []
    : [['on PostgreSQL', (t: Test) => database.createStore(t)] as [string, (t: Test) => Promise<PetStore>]]),
];

for (const [where, storeFor] of stores) {
  const served = async (t: Test) => {
    const store = await storeFor(t);
    return serve(t, store === undefined ? {} : { store });
  };

  t.test(`${where}: int64 values at both bounds and around 2^53 go and come back exactly, as bigints`, async (t) => {
    const { client } = await served(t);
    const categories = [INT64_MIN, INT64_MAX, TWO_53 - 1n, TWO_53, TWO_53 + 1n, -(TWO_53 + 1n), 0n];
    const created = [];
    for (const categoryId of categories) {
      const pet = await client.createPet({ name: `cat ${categoryId}`, categoryId });
      t.equal(typeof pet.id, 'bigint', 'the id is a bigint');
      t.equal(pet.categoryId, categoryId, `categoryId ${categoryId} as sent`);
      created.push(pet);
    }
    const fromNumber = await client.createPet({ name: 'small', categoryId: 3, status: 'sold' });
    t.equal(fromNumber.categoryId, 3n, 'a number up to 2^53 is taken and comes back as a bigint');
    for (const pet of created) t.same(await client.getPet(pet.id), pet, `getPet(${pet.id}) reads it back`);
    t.same(await client.getPet(Number(created[0]!.id)), created[0], 'getPet takes a number id too');
    t.same(await all(client.listPets()), [...created, fromNumber], 'listPets reads them all back, in id order');
    t.same(await all(client.listPets({ status: 'sold' })), [fromNumber], 'with the status filter');
  });

  t.test(`${where}: a walk over every page while other clients create reads each pet once, in id order`, async (t) => {
    const { client, baseUrl } = await served(t);
    const before = [];
    for (let index = 0; index < 25; index++)
      before.push(await client.createPet({ name: `before ${index}`, categoryId: BigInt(index) }));
    const writer = createClient({ baseUrl, apiKey: API_KEY });
    const seen: bigint[] = [];
    let pages = 0;
    const creating = (async () => {
      for (let index = 0; index < 25; index++) await writer.createPet({ name: `during ${index}`, categoryId: 1 });
    })();
    for await (const page of client.listPets({ limit: 3 }).pages()) {
      pages++;
      seen.push(...page.items.map((pet) => pet.id));
      // Give the writer a turn between pages.
      await new Promise((resolve) => setImmediate(resolve));
    }
    await creating;
    t.ok(pages >= 9, `${pages} pages of 3`);
    t.same(
      seen,
      [...seen].sort((a, b) => (a < b ? -1 : 1)),
      'ascending ids',
    );
    t.equal(new Set(seen).size, seen.length, 'no pet twice');
    for (const pet of before) t.ok(seen.includes(pet.id), `pet ${pet.id}, stored before the walk, was read`);
    const everything = await all(client.listPets({ limit: 100 }));
    t.equal(everything.length, 50, 'and all 50 are there at the end');
  });

  t.test(`${where}: getPet warns once per client, naming the operation, the sunset and the successor`, async (t) => {
    const { client, baseUrl, warnings } = await served(t);
    const pet = await client.createPet({ name: 'Rex', categoryId: 1 });
    t.same(warnings, [], 'createPet is not deprecated: no warning');
    t.same(await client.getPet(pet.id), pet);
    await client.getPet(pet.id);
    await t.rejects(client.getPet(pet.id + 1n), { code: 'PET_NOT_FOUND' });
    t.equal(warnings.length, 1, 'one warning for three calls');
    t.match(
      warnings[0],
      new RegExp(
        `^petstore-client: getPet is deprecated \\(Deprecation: @\\d+\\); it will be removed on ${escape(new Date(SUNSET_AT).toUTCString())} \\(Sunset\\); use /v1/pets instead\\.$`,
      ),
    );
    const logged: string[] = [];
    const other = createClient({ baseUrl, apiKey: API_KEY, logger: { warn: (line) => logged.push(line) } });
    await other.getPet(pet.id);
    t.equal(logged.length, 1, 'another client warns once of its own');
  });

  t.test(
    `${where}: updatePet and deletePet, typed, with If-Match from the ETag; a 412 is a PetstoreError`,
    async (t) => {
      const { client } = await served(t);
      const pet = await client.createPet({ name: 'Rex', categoryId: TWO_53 + 1n, status: 'available' });
      const etag = responseOf(pet)!.headers.get('etag')!;
      const sold = await client.updatePet(pet.id, { status: 'sold' }, { ifMatch: etag });
      t.same(sold, { id: pet.id, name: 'Rex', categoryId: TWO_53 + 1n, status: 'sold' });
      const stale = await client.updatePet(pet.id, { name: 'Lost' }, { ifMatch: etag }).then(
        () => undefined,
        (error: unknown) => error,
      );
      t.ok(
        stale instanceof PetstoreError && stale.status === 412 && stale.code === 'PRECONDITION_FAILED',
        'the stale tag: 412',
      );
      const unstatused = await client.updatePet(pet.id, { status: null }, { ifMatch: '*' });
      t.same(unstatused, { id: pet.id, name: 'Rex', categoryId: TWO_53 + 1n }, 'status: null removes it');
      t.equal(
        await client.deletePet(pet.id, { ifMatch: responseOf(unstatused)!.headers.get('etag')! }),
        undefined,
        'a removal resolves to nothing',
      );
      const gone = await client.deletePet(pet.id, { ifMatch: '*' }).then(
        () => undefined,
        (error: unknown) => error,
      );
      t.ok(gone instanceof PetstoreError && gone.status === 404, 'then 404');
    },
  );

  t.test(
    `${where}: changePet retries on 412 until its change lands on what others wrote: no update lost`,
    async (t) => {
      const { client } = await served(t);
      const pet = await client.createPet({ name: 'tally:', categoryId: 1 });
      // Eight writers, each appending its mark to the name it read: every mark must survive.
      const marks = Array.from({ length: 8 }, (_, index) => `w${index}`);
      await Promise.all(
        marks.map((mark) =>
          changePet(client, pet.id, (current) => ({ name: `${current.name}${mark};` }), { attempts: 50 }),
        ),
      );
      const final = await client.getPet(pet.id);
      t.same(
        final.name.slice('tally:'.length).split(';').filter(Boolean).sort(),
        marks,
        "every writer's change is in the final state",
      );
      t.same(
        await changePet(client, pet.id, () => undefined, { signal: new AbortController().signal }),
        final,
        'nothing to change: the pet as read, nothing sent',
      );
      const aborted = new AbortController();
      aborted.abort(new Error('stopped'));
      await t.rejects(
        changePet(client, pet.id, () => ({ name: 'never' }), { signal: aborted.signal }),
        /stopped/,
        "the caller's signal stops it",
      );
      const contended = changePet(client, pet.id, (current) => ({ name: `${current.name}x` }), {
        attempts: 1,
        known: { pet: final, etag: '"1"' },
      });
      await t.rejects(contended, { status: 412, code: 'PRECONDITION_FAILED' }, 'one attempt, a stale tag: the 412');
      await t.rejects(
        changePet(client, pet.id, () => undefined, { attempts: 0 }),
        RangeError,
      );
      await client.deletePet(pet.id, { ifMatch: '*' });
      await t.rejects(
        changePet(client, pet.id, () => ({ status: 'sold' }), { known: { pet: final, etag: '"9"' } }),
        { status: 404, code: 'PET_NOT_FOUND' },
        'any other error at once: the pet is gone',
      );
    },
  );
}

t.test('the default logger is the console', async (t) => {
  const { baseUrl, client } = await serve(t);
  const pet = await client.createPet({ name: 'Rex', categoryId: 1 });
  const warned: unknown[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => void warned.push(args);
  t.teardown(() => void (console.warn = warn));
  const quiet = createClient({ baseUrl, apiKey: API_KEY });
  await quiet.getPet(pet.id);
  await quiet.getPet(pet.id);
  t.match(warned, [[/^petstore-client: getPet is deprecated/]]);
});

t.test('past the sunset (a spec copy whose sunset has passed), getPet rejects with OPERATION_GONE', async (t) => {
  const spec = specWith((spec) => {
    const getPet = spec.paths['/pets/{petId}']!.get!;
    getPet['x-deprecated-at'] = '2020-01-01';
    getPet['x-sunset'] = '2021-01-01';
  });
  const { client, warnings } = await serve(t, { spec, clock: Date.now });
  const pet = await client.createPet({ name: 'Rex', categoryId: 1 });
  const gone = await client.getPet(pet.id).catch((error: unknown) => error);
  t.ok(gone instanceof PetstoreError, 'a PetstoreError');
  t.match(gone, {
    status: 410,
    code: 'OPERATION_GONE',
    operationId: 'getPet',
    message: /getPet was retired on 2021-01-01/,
  });
  t.match(
    warnings,
    [/removed on Fri, 01 Jan 2021 00:00:00 GMT/],
    'the 410 carries the deprecation headers: one warning',
  );
  t.same(await all(client.listPets()), [pet], 'the replacement still reads the pet');
});

t.test('errors: the documented Error body as a PetstoreError; a refused request is not retried', async (t) => {
  const { client, requests } = await serve(t);
  const missing = await client.getPet(42n).catch((error: unknown) => error);
  t.match(missing, { name: 'PetstoreError', status: 404, code: 'PET_NOT_FOUND', message: 'No pet has id 42.' });
  t.equal((missing as PetstoreError).retryAfter, undefined, 'no Retry-After, none given');
  requests.length = 0;
  const invalid = await client.createPet({ name: '', categoryId: 1 }).catch((error: unknown) => error);
  t.match(invalid, { status: 400, code: 'VALIDATION_FAILED', message: /name/ });
  t.equal(requests.length, 1, 'sent once');
  const unknown = await client
    .createPet({ name: 'Rex', categoryId: 1, status: 'lost' } as unknown as NewPet)
    .catch((error: unknown) => error);
  t.match(unknown, { status: 400, code: 'VALIDATION_FAILED', message: /status/ });
  const wrongKey = createClient({ baseUrl: (await serve(t)).baseUrl, apiKey: 'not-the-key-0123456789' });
  await t.rejects(all(wrongKey.listPets()), { status: 401, code: 'UNAUTHORIZED' });
  // A valid key without the operation's role: a PetstoreError with its code, not retried.
  const noRole = createClient({ baseUrl: (await serve(t)).baseUrl, apiKey: NO_ROLE_API_KEY });
  const forbidden = await noRole.createPet({ name: 'Rex', categoryId: 1 }).catch((error: unknown) => error);
  t.ok(forbidden instanceof PetstoreError);
  t.match(forbidden, { operationId: 'createPet', status: 403, code: 'INSUFFICIENT_SCOPE', message: /pets:write/ });
});

t.test('a number beyond 2^53 is refused before anything is sent, naming where it was', async (t) => {
  const { client, requests } = await serve(t);
  await t.rejects(client.createPet({ name: 'Rex', categoryId: 2 ** 53 + 2 }), {
    name: 'RangeError',
    message:
      'body.categoryId is 9007199254740994, beyond 2^53: a number cannot hold such an integer exactly (it may be rounded already); pass a bigint',
  });
  await t.rejects(client.getPet(2 ** 60), {
    name: 'RangeError',
    message: /^path parameter petId is 1152921504606847000, beyond 2\^53/,
  });
  t.same(requests, [], 'no request reached the service');
  t.equal(
    (await client.createPet({ name: 'Rex', categoryId: 2 ** 53 - 1 })).categoryId,
    TWO_53 - 1n,
    '2^53 - 1 as a number is exact, and taken',
  );
});

t.test("Idempotency-Key: a new one per create, the caller's when given; a replay says so", async (t) => {
  const { client } = await serve(t);
  const first = await client.createPet({ name: 'Kit', categoryId: 4 }, { idempotencyKey: 'order-17' });
  t.match(responseOf(first), { status: 201, replayed: false, attempts: 1 });
  t.equal(responseOf(first)!.headers.get('location'), `/v1/pets/${first.id}`);
  const again = await client.createPet({ name: 'Kit', categoryId: 4 }, { idempotencyKey: 'order-17' });
  t.same(again, first, 'the same pet');
  t.equal(responseOf(again)!.replayed, true, 'responseOf tells the replay');
  await t.rejects(client.createPet({ name: 'Tom', categoryId: 4 }, { idempotencyKey: 'order-17' }), {
    status: 422,
    code: 'IDEMPOTENCY_KEY_REUSED',
  });
  const [a, b] = [
    await client.createPet({ name: 'Kit', categoryId: 4 }),
    await client.createPet({ name: 'Kit', categoryId: 4 }),
  ];
  t.not(a.id, b.id, "without a key of the caller's, each create is its own pet");
  t.equal(responseOf({}), undefined, 'nothing is known of an object no call returned');
});

t.test('an answer that is not the documented JSON is refused, naming the status and the content type', async (t) => {
  const responses: Response[] = [
    new Response('<html>busy</html>', { status: 200, headers: { 'content-type': 'text/html' } }),
    new Response('{"id": 1,', { status: 201, headers: { 'content-type': 'application/json' } }),
    new Response('{"error":"nope"}', { status: 404, headers: { 'content-type': 'application/json' } }),
    new Response('{"code":"X","message":"m","status":418}', {
      status: 418,
      headers: { 'content-type': 'application/json; charset=utf-8' },
    }),
    new Response(null, { status: 200 }),
  ];
  const client = createClient({
    baseUrl: 'http://127.0.0.1:9/v1',
    apiKey: API_KEY,
    fetch: async () => responses.shift()!,
  });
  await t.rejects(
    all(client.listPets()),
    new PetstoreResponseError('listPets', 200, 'text/html', 'is not the JSON the spec documents'),
  );
  await t.rejects(client.createPet({ name: 'Rex', categoryId: 1 }), {
    name: 'PetstoreResponseError',
    status: 201,
    contentType: 'application/json',
    message: /is not valid JSON: .* at position 9/,
  });
  await t.rejects(client.getPet(1n), {
    message:
      'getPet: the response (status 404, content type application/json) is not a response the spec documents for it',
  });
  await t.rejects(client.getPet(1n), {
    status: 418,
    message: /status 418, content type application\/json; charset=utf-8\) is not a response the spec documents/,
  });
  await t.rejects(client.getPet(1n), {
    message: 'getPet: the response (status 200, content type none) is not the JSON the spec documents',
  });
});

t.test('createClient refuses settings it cannot use', async (t) => {
  t.throws(() => createClient({ baseUrl: 'http://127.0.0.1/v1', apiKey: API_KEY, maxRetries: -1 }), {
    name: 'RangeError',
    message: /maxRetries/,
  });
  t.throws(() => createClient({ baseUrl: 'http://127.0.0.1/v1', apiKey: API_KEY, maxRetries: 1.5 }), {
    message: /maxRetries/,
  });
  t.throws(() => createClient({ baseUrl: 'http://127.0.0.1/v1', apiKey: API_KEY, timeoutMs: 0 }), {
    name: 'RangeError',
    message: /timeoutMs/,
  });
  const client = createClient({
    baseUrl: new URL('http://127.0.0.1:9/v1/'),
    apiKey: API_KEY,
    fetch: async (input) =>
      new Response(`[]`, { status: 200, headers: { 'content-type': 'application/json', 'x-url': String(input) } }),
  });
  const page = (await client.listPets({ limit: 5, status: 'sold' }).pages()[Symbol.asyncIterator]().next()).value!;
  t.same(page, { items: [], next: undefined }, 'a URL base, with its trailing slash, is taken');
});

t.test(
  'orders through the client: placed once with its key, every page read, rejections as PetstoreError',
  async (t) => {
    const { client, requests } = await serve(t);
    const pets = [];
    for (let index = 0; index < 5; index++)
      pets.push(await client.createPet({ name: `p${index}`, categoryId: index, status: 'available' }));
    const first = await client.placeOrder({ petId: pets[0]!.id }, { idempotencyKey: 'order-p0' });
    const again = await client.placeOrder({ petId: pets[0]!.id }, { idempotencyKey: 'order-p0' });
    t.same(again, first, 'a retry with its key: the same order');
    t.equal(responseOf(again)?.headers.get('idempotent-replayed'), 'true');
    t.equal(Date.parse(first.expiresAt) - Date.parse(first.placedAt), 900_000, 'holdSeconds left out: 15 minutes');
    for (const pet of pets.slice(1)) await client.placeOrder({ petId: pet.id, holdSeconds: 60 });
    const completed = await client.completeOrder(first.id);
    t.match(completed, { id: first.id, status: 'completed' });
    const listed = [];
    for await (const order of client.listOrders({ limit: 2 })) listed.push(order.id);
    t.same(listed, [1, 2, 3, 4, 5], 'every order, page after page');
    t.equal(requests.filter((line) => line.startsWith('GET /v1/store/orders')).length, 3, 'three pages of two');
    const refused = await client.placeOrder({ petId: pets[0]!.id }).catch((error: unknown) => error);
    t.ok(refused instanceof PetstoreError);
    t.match(refused, { status: 409, code: 'PET_UNAVAILABLE', message: /is sold/ });
  },
);
