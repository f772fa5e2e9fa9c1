// Every status openapi.yaml documents for every operation is produced here and checked against
// the spec; a status added to the spec without a case here fails the suite.
import t, { type Test } from 'tap';
import type { InjectOptions } from 'fastify';
import { ServiceUnavailable } from '../src/errors/api-errors.js';
import { loadSpec } from '../src/spec/openapi-spec.js';
import { createMemoryPetStore } from '../src/store/memory-pet-store.js';
import type { PetStore } from '../src/store/pet-store.js';
import { standInStore } from './helpers/stand-in-store.js';
import { AUTH, JSON_TYPE, buildTestApp, postPet } from './helpers/build-app.js';
import { checkContract, documentedStatuses, operations } from './helpers/contract.js';
import { startTestDatabase, whyNoPostgres } from './helpers/postgres.js';

const SEED_KEY = '"seed"';

/** `at`: the time the app's clock says (ms since the epoch), for answers that depend on it. */
type Case = { request: InjectOptions; store?: 'failing' | 'unavailable'; at?: number };
// 00:00 UTC on getPet's x-sunset, as openapi.yaml gives it.
const AFTER_GET_PET_SUNSET = Date.parse(`${loadSpec().paths['/pets/{petId}']!.get!['x-sunset'] as string}T00:00:00Z`);

const cases: Record<string, Record<number, Case>> = {
  listPets: {
    200: { request: { method: 'GET', url: '/v1/pets?limit=1&status=available', headers: AUTH } },
    400: { request: { method: 'GET', url: '/v1/pets?limit=101', headers: AUTH } },
    401: { request: { method: 'GET', url: '/v1/pets' } },
    500: { request: { method: 'GET', url: '/v1/pets', headers: AUTH }, store: 'failing' },
    503: { request: { method: 'GET', url: '/v1/pets', headers: AUTH }, store: 'unavailable' },
  },
  createPet: {
    201: { request: postPet({ name: 'Rex', categoryId: 1, status: 'pending' }) },
    400: { request: postPet({ name: 'Rex' }) },
    401: { request: { ...postPet({ name: 'Rex', categoryId: 1 }), headers: JSON_TYPE } },
    413: { request: postPet({ name: 'x'.repeat(17_000), categoryId: 1 }) },
    415: { request: postPet('{}', { 'content-type': 'application/xml' }) },
    // The seed pet below was created with this key, from another body.
    422: { request: postPet({ name: 'Rex', categoryId: 1 }, { 'idempotency-key': SEED_KEY }) },
    500: { request: postPet({ name: 'Rex', categoryId: 1 }), store: 'failing' },
    503: { request: postPet({ name: 'Rex', categoryId: 1 }), store: 'unavailable' },
  },
  getPet: {
    200: { request: { method: 'GET', url: '/v1/pets/1', headers: AUTH } },
    400: { request: { method: 'GET', url: '/v1/pets/one', headers: AUTH } },
    401: { request: { method: 'GET', url: '/v1/pets/1' } },
    404: { request: { method: 'GET', url: '/v1/pets/2', headers: AUTH } },
    410: { request: { method: 'GET', url: '/v1/pets/1', headers: AUTH }, at: AFTER_GET_PET_SUNSET },
    500: { request: { method: 'GET', url: '/v1/pets/1', headers: AUTH }, store: 'failing' },
    503: { request: { method: 'GET', url: '/v1/pets/1', headers: AUTH }, store: 'unavailable' },
  },
};

// A store that fails as a bug would (500), and one that says its database cannot be reached (503),
// as the PostgreSQL store does (its real outages are tested in test/postgres-faults.test.ts).
const failingStore = standInStore({}, () => new Error('store down'));
const unavailableStore = standInStore({}, () => new ServiceUnavailable());
const stores = { failing: failingStore, unavailable: unavailableStore };

t.test('the cases cover exactly the operations and statuses of openapi.yaml', async (t) => {
  t.same(Object.keys(cases).sort(), operations.map((operation) => operation.operationId).sort());
  for (const operationId of Object.keys(cases)) {
    t.same(Object.keys(cases[operationId]!).map(Number), documentedStatuses(operationId), operationId);
  }
});

// Every case runs against each real store; the failing and unavailable stand-ins replace both.
const database = await startTestDatabase(t);
const realStores: [string, (t: Test) => Promise<PetStore>, string | boolean][] = [
  ['in-memory store', async () => createMemoryPetStore(), false],
  ['PostgreSQL store', (t) => database!.createStore(t), database === undefined ? (whyNoPostgres() ?? true) : false],
];

for (const [storeName, createStore, skip] of realStores) {
  t.test(storeName, { skip }, async (t) => {
    for (const [operationId, byStatus] of Object.entries(cases)) {
      for (const [status, { request, store, at }] of Object.entries(byStatus)) {
        t.test(`${operationId} answers ${status} as documented`, async (t) => {
          const { app } = await buildTestApp(t, {
            store: store === undefined ? await createStore(t) : stores[store],
            ...(at === undefined ? {} : { clock: () => at }),
          });
          await app.inject(postPet({ name: 'Seed', categoryId: 7, status: 'available' }, { 'idempotency-key': SEED_KEY }));
          const response = await app.inject(request);
          t.equal(response.statusCode, Number(status));
          checkContract(t, response, operationId);
        });
      }
    }
  });
}
