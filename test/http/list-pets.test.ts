import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { AUTH, JSON_TYPE, OTHER_API_KEY, buildTestApp, postPet } from '../helpers/build-app.js';
import { encodeCursor } from '../../src/pagination/cursor.js';
import { checkContract } from '../helpers/contract.js';
import { nextTarget } from 'openapi-contract-engine';

const STATUSES = ['available', 'pending', 'sold', undefined] as const;

async function addPets(app: FastifyInstance, count: number) {
  for (let i = 1; i <= count; i++) {
    const status = STATUSES[i % STATUSES.length];
    const response = await app.inject(postPet({ name: `pet ${i}`, categoryId: i, ...(status && { status }) }));
    if (response.statusCode !== 201) throw new Error(response.body);
  }
}

const list = (query = '') => ({ method: 'GET' as const, url: `/v1/pets${query}`, headers: AUTH });

t.test('an empty store lists as a bare empty array', async (t) => {
  const { app } = await buildTestApp(t);
  const response = await app.inject(list());
  t.equal(response.statusCode, 200);
  t.same(checkContract(t, response, 'listPets'), []);
});

t.test('lists at most 20 pets by default, in ascending id order', async (t) => {
  const { app } = await buildTestApp(t);
  await addPets(app, 25);
  const pets = checkContract(t, await app.inject(list()), 'listPets');
  t.same(
    pets.map((pet: { id: number }) => pet.id),
    Array.from({ length: 20 }, (_, i) => i + 1),
  );
});

t.test('limit is honoured from 1 to 100', async (t) => {
  const { app } = await buildTestApp(t);
  await addPets(app, 120);
  for (const limit of [1, 2, 100]) {
    const pets = checkContract(t, await app.inject(list(`?limit=${limit}`)), 'listPets');
    t.equal(pets.length, limit, `limit=${limit}`);
  }
  t.equal(
    checkContract(t, await app.inject(list('?limit=007')), 'listPets').length,
    7,
    'leading zeros are the same decimal',
  );
});

t.test('the status filter returns only, and all, pets of that status up to the limit', async (t) => {
  const { app } = await buildTestApp(t);
  await addPets(app, 40);
  for (const status of ['available', 'pending', 'sold']) {
    const pets = checkContract(t, await app.inject(list(`?status=${status}&limit=100`)), 'listPets');
    t.equal(pets.length, 10, `${status}: all ten`);
    t.ok(
      pets.every((pet: { status: string }) => pet.status === status),
      `${status}: only ${status}`,
    );
    const limited = checkContract(t, await app.inject(list(`?status=${status}&limit=3`)), 'listPets');
    t.same(limited, pets.slice(0, 3), `${status}: the first three by id`);
  }
});

const nextOf = (response: { headers: Record<string, unknown> }) => nextTarget(response.headers['link']);

t.test('more than 100 pets of a status are all reachable through next links', async (t) => {
  const { app } = await buildTestApp(t);
  for (let i = 1; i <= 105; i++) await app.inject(postPet({ name: `pet ${i}`, categoryId: i, status: 'sold' }));
  const first = await app.inject(list('?limit=100&status=sold'));
  t.same(
    checkContract(t, first, 'listPets').map((pet: { id: number }) => pet.id),
    Array.from({ length: 100 }, (_, i) => i + 1),
  );
  const next = nextOf(first);
  t.match(
    next,
    /^\/v1\/pets\?limit=100&status=sold&cursor=[A-Za-z0-9_-]+$/,
    'the link keeps limit and status, and adds a cursor',
  );
  const second = await app.inject({ method: 'GET', url: next!, headers: AUTH });
  t.same(
    checkContract(t, second, 'listPets').map((pet: { id: number }) => pet.id),
    [101, 102, 103, 104, 105],
  );
  t.equal(second.headers['link'], undefined, 'the last page has no next link');
});

t.test('a next link is sent only while more pets of the filter follow', async (t) => {
  const { app } = await buildTestApp(t);
  await addPets(app, 40);
  t.equal((await app.inject(list('?limit=40'))).headers['link'], undefined, 'exactly limit pets: no link');
  t.equal(
    (await app.inject(list('?limit=10&status=sold'))).headers['link'],
    undefined,
    'exactly limit pets of the status: no link',
  );
  t.equal(
    nextOf(await app.inject(list('?limit=39'))),
    `/v1/pets?limit=39&cursor=${encodeCursor({ after: 39, status: undefined })}`,
  );
  t.equal(
    nextOf(await app.inject(list())),
    `/v1/pets?limit=20&cursor=${encodeCursor({ after: 20, status: undefined })}`,
    'the default limit is written out',
  );
  const pages: number[][] = [];
  for (let url: string | undefined = '/v1/pets?limit=3&status=pending'; url !== undefined;) {
    const response = await app.inject({ method: 'GET', url, headers: AUTH });
    pages.push(checkContract(t, response, 'listPets').map((pet: { id: number }) => pet.id));
    url = nextOf(response);
  }
  t.same(pages, [[1, 5, 9], [13, 17, 21], [25, 29, 33], [37]], 'pending pets, three at a time');
});

t.test('the page size may change between pages; the filter may not', async (t) => {
  const { app } = await buildTestApp(t);
  await addPets(app, 40);
  const cursor = encodeCursor({ after: 10, status: 'sold' });
  const response = await app.inject(list(`?limit=2&status=sold&cursor=${cursor}`));
  t.same(
    checkContract(t, response, 'listPets').map((pet: { id: number }) => pet.id),
    [14, 18],
  );
  for (const query of [`?cursor=${cursor}`, `?status=available&cursor=${cursor}`]) {
    const refused = await app.inject(list(query));
    t.equal(refused.statusCode, 400, query);
    const body = checkContract(t, refused, 'listPets');
    t.equal(body.code, 'VALIDATION_FAILED');
    t.match(body.message, /^query parameter cursor belongs to the list with status=sold, not to this request/);
  }
});

t.test('bad query parameters get 400 naming the parameter', async (t) => {
  const { app } = await buildTestApp(t);
  const cases: [string, RegExp][] = [
    ['?limit=0', /query parameter limit must be >= 1/],
    ['?limit=101', /query parameter limit must be <= 100/],
    ['?limit=-1', /query parameter limit must be >= 1/],
    ['?limit=99999999999999999999', /query parameter limit must be <= 100/],
    ['?limit=abc', /query parameter limit must be an integer/],
    ['?limit=', /query parameter limit must be an integer/],
    ['?limit=1.0', /query parameter limit must be an integer/],
    ['?limit=0x14', /query parameter limit must be an integer/],
    ['?limit=%2020', /query parameter limit must be an integer/],
    ['?limit=1e1', /query parameter limit must be an integer/],
    ['?limit=1&limit=2', /query parameter limit must be given at most once/],
    ['?status=lost', /query parameter status must be one of: available, pending, sold/],
    ['?status=Available', /query parameter status must be one of/],
    ['?offset=10', /unknown query parameter 'offset'/],
    ['?a%2Fb=1', /unknown query parameter 'a\/b'/],
    ['?__proto__=1', /unknown query parameter '__proto__'/],
    ['?cursor=', /query parameter cursor must have at least 1 characters/],
    ['?cursor=abc%3D', /query parameter cursor must match pattern/],
    ['?cursor=a+b', /query parameter cursor must match pattern/],
    [`?cursor=${'A'.repeat(65)}`, /query parameter cursor must have at most 64 characters/],
    ['?cursor=abcdef', /query parameter cursor is not a cursor this service issued/],
    [
      `?cursor=${encodeCursor({ after: 1, status: undefined })}&cursor=${encodeCursor({ after: 2, status: undefined })}`,
      /query parameter cursor must be given at most once/,
    ],
    ['?constructor=1', /unknown query parameter 'constructor'/],
  ];
  for (const [query, message] of cases) {
    const response = await app.inject(list(query));
    t.equal(response.statusCode, 400, query);
    const body = checkContract(t, response, 'listPets');
    t.equal(body.code, 'VALIDATION_FAILED', query);
    t.match(body.message, message, query);
  }
});

t.test('a body sent to listPets is refused, not ignored', async (t) => {
  const { app } = await buildTestApp(t);
  const response = await app.inject({ ...list(), headers: { ...AUTH, ...JSON_TYPE }, payload: '{"limit":5}' });
  t.equal(response.statusCode, 400);
  t.equal(checkContract(t, response, 'listPets').code, 'BODY_NOT_ALLOWED');
});

t.test('listPets needs a valid key, checked before the query', async (t) => {
  const { app } = await buildTestApp(t);
  for (const headers of [{}, { authorization: `Bearer ${OTHER_API_KEY}` }]) {
    const response = await app.inject({ method: 'GET', url: '/v1/pets?limit=0', headers });
    t.equal(response.statusCode, 401);
    t.equal(checkContract(t, response, 'listPets').code, 'UNAUTHORIZED');
  }
});
