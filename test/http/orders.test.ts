// The order operations (beta) over HTTP, in process: a pet held, sold and freed, each rejection with
// its code and message, pages of orders, safe retries, and expiry on the store's injected clock.
import t from 'tap';
import { createMemoryPetStore } from '../../src/store/memory-pet-store.js';
import { allRoles, API_KEY, AUTH, OTHER_API_KEY, buildTestApp, postPet, JSON_TYPE } from '../helpers/build-app.js';
import { checkContract } from '../helpers/contract.js';

const place = (body: unknown, headers: Record<string, string> = {}) => ({
  method: 'POST' as const,
  url: '/v1/store/orders',
  headers: { ...AUTH, ...JSON_TYPE, ...headers },
  payload: JSON.stringify(body),
});
const post = (url: string, headers: Record<string, string> = {}) => ({
  method: 'POST' as const,
  url,
  headers: { ...AUTH, ...headers },
});
const get = (url: string) => ({ method: 'GET' as const, url, headers: AUTH });

t.test('a pet held, sold, and another freed: each a change of the pet with a new ETag', async (t) => {
  const { app } = await buildTestApp(t);
  const created = await app.inject(postPet({ name: 'Rex', categoryId: 3, status: 'available' }));
  const placed = await app.inject(place({ petId: 1 }));
  t.equal(placed.statusCode, 201);
  const order = checkContract(t, placed, 'placeOrder');
  t.match(order, { id: 1, petId: 1, status: 'placed' });
  t.equal(Date.parse(order.expiresAt) - Date.parse(order.placedAt), 900_000, 'held 15 minutes by default');
  t.equal(placed.headers['location'], '/v1/store/orders/1');
  const held = await app.inject(get('/v1/pets/1'));
  t.equal(held.json().status, 'pending', 'the pet is held');
  t.not(held.headers['etag'], created.headers['etag'], 'a new version of it');
  const sold = await app.inject(post('/v1/store/orders/1/complete'));
  t.match(checkContract(t, sold, 'completeOrder'), { status: 'completed', closedAt: /Z$/ });
  t.equal((await app.inject(get('/v1/pets/1'))).json().status, 'sold');

  await app.inject(postPet({ name: 'Tom', categoryId: 3, status: 'available' }));
  await app.inject(place({ petId: 2, holdSeconds: 60 }));
  const cancelled = await app.inject(post('/v1/store/orders/2/cancel'));
  t.match(checkContract(t, cancelled, 'cancelOrder'), { status: 'cancelled', cancelReason: 'customer' });
  t.equal((await app.inject(get('/v1/pets/2'))).json().status, 'available', 'freed');
  const events = (await app.inject(get('/v1/pet-events'))).json() as { petId: number; pet?: { status?: string } }[];
  t.same(
    events.map((event) => `${event.petId}:${event.pet?.status}`),
    ['1:available', '1:pending', '1:sold', '2:available', '2:pending', '2:available'],
    'one pet.updated for each move, none for the orders themselves',
  );
});

t.test('each rejection says why: 409 PET_UNAVAILABLE, 409 ORDER_STATE_CONFLICT, 404 ORDER_NOT_FOUND', async (t) => {
  const { app } = await buildTestApp(t);
  await app.inject(postPet({ name: 'Rex', categoryId: 3, status: 'available' }));
  await app.inject(postPet({ name: 'Tom', categoryId: 3 }));
  await app.inject(place({ petId: 1 }));
  const rejections: [unknown, string][] = [
    [{ petId: 1 }, 'Pet 1 is pending, not available: it cannot be held.'],
    [{ petId: 2 }, 'Pet 2 is without a status, not available: it cannot be held.'],
    [{ petId: 3 }, 'No pet has id 3: only an available pet can be held.'],
  ];
  for (const [body, message] of rejections) {
    const refused = await app.inject(place(body));
    t.equal(refused.statusCode, 409);
    t.same(checkContract(t, refused, 'placeOrder'), { code: 'PET_UNAVAILABLE', message, status: 409 });
  }
  await app.inject({ method: 'DELETE', url: '/v1/pets/2', headers: { ...AUTH, 'if-match': '*' } });
  t.equal(
    (await app.inject(place({ petId: 2 }))).json().message,
    'Pet 2 was removed: only an available pet can be held.',
  );
  await app.inject(post('/v1/store/orders/1/complete'));
  const late = await app.inject(post('/v1/store/orders/1/cancel'));
  t.same(checkContract(t, late, 'cancelOrder'), {
    code: 'ORDER_STATE_CONFLICT',
    message: 'Order 1 is completed; only a placed order can be cancelled.',
    status: 409,
  });
  const missing = await app.inject(get('/v1/store/orders/9223372036854775807'));
  t.same(checkContract(t, missing, 'getOrder'), {
    code: 'ORDER_NOT_FOUND',
    message: 'No order has id 9223372036854775807.',
    status: 404,
  });
  const withBody = await app.inject({ ...post('/v1/store/orders/1/cancel', JSON_TYPE), payload: '{}' });
  t.equal(withBody.json().code, 'BODY_NOT_ALLOWED', 'cancel takes no body');
  const tooLong = await app.inject(place({ petId: 1, holdSeconds: 86401 }));
  t.match(tooLong.json(), { code: 'VALIDATION_FAILED', message: /holdSeconds/ });
  const unknown = await app.inject(place({ petId: 1, quantity: 1 }));
  t.match(unknown.json(), { code: 'VALIDATION_FAILED', message: /quantity/ });
});

t.test('orders come in pages, filtered by status and pet; a cursor keeps its filters', async (t) => {
  const { app } = await buildTestApp(t);
  for (let index = 1; index <= 5; index++) {
    await app.inject(postPet({ name: `p${index}`, categoryId: index, status: 'available' }));
    await app.inject(place({ petId: index }));
  }
  await app.inject(post('/v1/store/orders/2/cancel'));
  const first = await app.inject(get('/v1/store/orders?limit=2&status=placed'));
  t.same(
    checkContract(t, first, 'listOrders').map((order: { id: number }) => order.id),
    [1, 3],
  );
  const next = /^<([^>]+)>; rel="next"$/.exec(first.headers['link'] as string)![1]!;
  t.match(next, /^\/v1\/store\/orders\?limit=2&status=placed&cursor=/);
  const second = await app.inject(get(next));
  t.same(
    second.json().map((order: { id: number }) => order.id),
    [4, 5],
  );
  t.notOk(second.headers['link'], 'the last page has no next link');
  const cursor = new URL(next, 'http://x').searchParams.get('cursor')!;
  const other = await app.inject(get(`/v1/store/orders?status=cancelled&cursor=${cursor}`));
  t.match(checkContract(t, other, 'listOrders'), { code: 'VALIDATION_FAILED', message: /cursor belongs to/ });
  const byPet = await app.inject(get('/v1/store/orders?petId=2'));
  t.match(byPet.json(), [{ id: 2, status: 'cancelled' }]);
});

t.test('a retry replays the first answer, even once the order moved on; another request gets 422', async (t) => {
  const { app } = await buildTestApp(t, { apiKeys: [allRoles(API_KEY), OTHER_API_KEY] });
  await app.inject(postPet({ name: 'Rex', categoryId: 3, status: 'available' }));
  const key = { 'idempotency-key': '"order-1"' };
  const first = await app.inject(place({ petId: 1 }, key));
  await app.inject(post('/v1/store/orders/1/complete', key));
  const again = await app.inject(place({ petId: 1, holdSeconds: 900 }, key));
  t.equal(again.statusCode, 201);
  t.equal(again.headers['idempotent-replayed'], 'true');
  t.same(again.json(), first.json(), 'the order as placed, though it is completed now');
  const completedAgain = await app.inject(post('/v1/store/orders/1/complete', key));
  t.equal(completedAgain.headers['idempotent-replayed'], 'true', 'keys are apart per operation');
  const reused = await app.inject(place({ petId: 1, holdSeconds: 60 }, key));
  t.equal(reused.statusCode, 422);
  t.match(checkContract(t, reused, 'placeOrder'), { code: 'IDEMPOTENCY_KEY_REUSED', message: /placeOrder/ });
  const otherClient = await app.inject(place({ petId: 1 }, { ...key, authorization: `Bearer ${OTHER_API_KEY}` }));
  t.equal(otherClient.statusCode, 409, "another client's key is its own: a new request, refused for the sold pet");
});

t.test('an order expires at expiresAt on the store clock: read as expired, then its pet freed', async (t) => {
  let now = Date.UTC(2026, 10, 28, 12);
  const { app } = await buildTestApp(t, { store: createMemoryPetStore({ now: () => now }) });
  await app.inject(postPet({ name: 'Rex', categoryId: 3, status: 'available' }));
  const order = (await app.inject(place({ petId: 1, holdSeconds: 2 }))).json();
  t.equal(order.placedAt, '2026-11-28T12:00:00.000Z', 'placed at the store clock');
  now += 2000;
  const complete = await app.inject(post('/v1/store/orders/1/complete'));
  t.match(complete.json(), {
    code: 'ORDER_STATE_CONFLICT',
    message: 'Order 1 is expired; only a placed order can be completed, before its expiresAt.',
  });
  const read = await app.inject(get('/v1/store/orders/1'));
  t.match(read.json(), { status: 'expired', closedAt: '2026-11-28T12:00:02.000Z' });
  t.equal((await app.inject(get('/v1/pets/1'))).json().status, 'available', 'the pet is free again');
});

t.test(
  'orders over HTTP belong to their client: others get the 404 of an id never issued; staff see all',
  async (t) => {
    const SHOP = 'shop-key-0123456789abcdefghij';
    const KIOSK = 'kiosk-key-0123456789abcdefghij';
    const STAFF = 'staff-key-0123456789abcdefghij';
    const { app } = await buildTestApp(t, {
      apiKeys: [
        { client: 'shop', key: SHOP },
        { client: 'kiosk', key: KIOSK },
        { client: 'staff', key: STAFF, roles: ['orders:read', 'orders:write', 'orders:fulfil', 'pets:write'] },
      ],
    });
    const as = (key: string) => ({ authorization: `Bearer ${key}` });
    for (const name of ['Rex', 'Tom', 'Kit', 'Max'])
      await app.inject(postPet({ name, categoryId: 1, status: 'available' }, as(STAFF)));
    const mine = checkContract(t, await app.inject(place({ petId: 1 }, as(SHOP))), 'placeOrder');
    t.equal(mine.placedBy, 'shop', 'the order names its client');
    await app.inject(place({ petId: 2 }, as(KIOSK)));
    await app.inject(place({ petId: 3 }, as(SHOP)));
    await app.inject(place({ petId: 4 }, as(KIOSK)));

    const read = (key: string, url: string) => app.inject({ method: 'GET', url, headers: as(key) });
    const never = await read(KIOSK, '/v1/store/orders/99');
    for (const [what, response] of [
      ['getOrder', await read(KIOSK, `/v1/store/orders/${mine.id}`)],
      ['cancelOrder', await app.inject(post(`/v1/store/orders/${mine.id}/cancel`, as(KIOSK)))],
    ] as const) {
      t.equal(response.statusCode, 404, `${what} of another's order`);
      t.same(
        response.json(),
        { ...never.json(), message: never.json().message.replace('99', String(mine.id)) },
        `${what}: the body of an id never issued`,
      );
      const headers = (r: typeof response) =>
        Object.keys(r.headers)
          .filter((name) => !['date', 'content-length', 'x-request-id'].includes(name))
          .sort()
          .map((name) => [name, r.headers[name]]);
      t.same(headers(response), headers(never), `${what}: the headers of an id never issued`);
      checkContract(t, response, what);
    }
    const ids = async (key: string, query = '') =>
      checkContract(t, await read(key, `/v1/store/orders${query}`), 'listOrders').map((o: { id: number }) => o.id);
    t.same(await ids(KIOSK), [2, 4], 'a list holds only its own client’s');
    t.same(await ids(KIOSK, '?petId=1'), [], 'on any filter');
    t.same(await ids(STAFF), [1, 2, 3, 4], 'staff list every order');
    t.same(await ids(STAFF, '?placedBy=kiosk'), [2, 4], "and one client's");
    const firstPage = await read(STAFF, '/v1/store/orders?placedBy=kiosk&limit=1');
    t.same(
      checkContract(t, firstPage, 'listOrders').map((o: { id: number }) => o.id),
      [2],
    );
    const next = /^<([^>]+)>; rel="next"$/.exec(String(firstPage.headers['link']))![1]!;
    t.match(next, /^\/v1\/store\/orders\?limit=1&placedBy=kiosk&cursor=/, 'the next page keeps the filter');
    t.same(await ids(STAFF, next.slice('/v1/store/orders'.length)), [4]);
    const foreign = await read(STAFF, next.replace('placedBy=kiosk', 'placedBy=shop'));
    t.match(checkContract(t, foreign, 'listOrders'), { code: 'VALIDATION_FAILED', message: /cursor belongs to/ });
    const filtered = await read(SHOP, '/v1/store/orders?placedBy=shop');
    t.equal(filtered.statusCode, 403, 'placedBy is for staff alone, even naming oneself');
    t.match(checkContract(t, filtered, 'listOrders'), {
      code: 'INSUFFICIENT_SCOPE',
      message: 'This operation needs the role orders:fulfil to filter by placedBy, which this API key does not have.',
    });
    t.equal(
      filtered.headers['www-authenticate'],
      'Bearer realm="petstore", error="insufficient_scope", scope="orders:fulfil"',
    );
    const cancelled = await app.inject(post(`/v1/store/orders/${mine.id}/cancel`, as(STAFF)));
    t.match(checkContract(t, cancelled, 'cancelOrder'), { status: 'cancelled', cancelReason: 'store' });
  },
);

t.test('past ORDER_HOLDS_PER_CLIENT placed orders, placeOrder gets 409 ORDER_LIMIT_REACHED naming it', async (t) => {
  const { app } = await buildTestApp(t, { orderHoldsPerClient: 2 });
  for (const name of ['Rex', 'Tom', 'Kit']) await app.inject(postPet({ name, categoryId: 1, status: 'available' }));
  t.equal((await app.inject(place({ petId: 1 }))).statusCode, 201);
  t.equal((await app.inject(place({ petId: 2 }))).statusCode, 201);
  const refused = await app.inject(place({ petId: 3 }));
  t.equal(refused.statusCode, 409);
  t.same(checkContract(t, refused, 'placeOrder'), {
    code: 'ORDER_LIMIT_REACHED',
    message:
      'This client already holds 2 placed orders, the most allowed at once; complete or cancel one to free a place.',
    status: 409,
  });
  await app.inject(post('/v1/store/orders/1/complete'));
  t.equal((await app.inject(place({ petId: 3 }))).statusCode, 201, 'a completed order frees a place');
});
