// getPet's sunset, as the spec announces it (x-sunset): until 00:00 UTC on that date the operation
// serves as usual, with its deprecation headers; from then on every authenticated call is a 410
// naming the replacement, the store unread. Time comes from an injected clock: no test waits for
// a date, and none depends on today's.
import t, { type Test } from 'tap';
import type { AddressInfo } from 'node:net';
import { loadSpec, type OpenApiDocument } from '../../src/openapi/openapi-spec.js';
import type { PetStore } from '../../src/store/pet-store.js';
import { standInStore } from '../helpers/stand-in-store.js';
import { AUTH, buildTestApp, postPet } from '../helpers/build-app.js';
import { checkContract } from '../helpers/contract.js';
import { specWith } from '../helpers/spec.js';

const spec = loadSpec();
const getPet = spec.paths['/pets/{petId}']!.get!;
const SUNSET = getPet['x-sunset'] as string;
const SUNSET_AT = Date.parse(`${SUNSET}T00:00:00Z`);

/** The app with its clock at `at`, holding one pet (id 1). */
async function appAt(t: Test, at: number, options: { spec?: OpenApiDocument; store?: PetStore } = {}) {
  let now = at;
  const { app } = await buildTestApp(t, { clock: () => now, ...options });
  if (options.store === undefined) t.equal((await app.inject(postPet({ name: 'Rex', categoryId: 1 }))).statusCode, 201);
  return { app, setClock: (to: number) => void (now = to) };
}

t.test('the spec announces the sunset this test drives: getPet, deprecated, x-sunset a date', async (t) => {
  t.equal(getPet.deprecated, true);
  t.match(SUNSET, /^\d{4}-\d{2}-\d{2}$/);
  t.equal(getPet['x-replaced-by'], 'listPets');
});

t.test('before 00:00 UTC on the sunset date: served as usual, with the deprecation headers', async (t) => {
  const { app } = await appAt(t, SUNSET_AT - 1);
  const found = await app.inject({ method: 'GET', url: '/v1/pets/1', headers: AUTH });
  t.equal(found.statusCode, 200);
  checkContract(t, found, 'getPet');
  t.equal(found.headers['sunset'], new Date(SUNSET_AT).toUTCString());
  const missing = await app.inject({ method: 'GET', url: '/v1/pets/2', headers: AUTH });
  t.equal(missing.statusCode, 404, 'an unknown id is still a 404');
});

t.test('from 00:00 UTC on the sunset date: 410 for every authenticated call, whatever the id', async (t) => {
  const { app, setClock } = await appAt(t, SUNSET_AT - 1);
  for (const at of [SUNSET_AT, SUNSET_AT + 1, SUNSET_AT + 400 * 86_400_000]) {
    setClock(at);
    for (const url of ['/v1/pets/1', '/v1/pets/2', '/v1/pets/not-a-number']) {
      const gone = await app.inject({ method: 'GET', url, headers: AUTH });
      t.equal(gone.statusCode, 410, `${url} at ${new Date(at).toISOString()}`);
      const body = checkContract(t, gone, 'getPet');
      t.equal(body.code, 'OPERATION_GONE');
      t.equal(
        body.message,
        `getPet was retired on ${SUNSET} (its sunset); use listPets: GET /v1/pets.`,
        'names the date and the replacement',
      );
      t.ok(
        gone.headers['deprecation'] !== undefined && gone.headers['sunset'] !== undefined,
        'with Deprecation and Sunset',
      );
      t.equal(gone.headers['link'], '</v1/pets>; rel="successor-version"');
    }
  }
  const unauthenticated = await app.inject({ method: 'GET', url: '/v1/pets/1' });
  t.equal(unauthenticated.statusCode, 401, 'a call without a valid key still gets its 401 first');
  checkContract(t, unauthenticated, 'getPet');
  const listed = await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH });
  t.same(
    JSON.parse(listed.body).map((pet: { id: number }) => pet.id),
    [1],
    'listPets, the replacement, still reaches the pet',
  );
  setClock(SUNSET_AT - 1);
  t.equal(
    (await app.inject({ method: 'GET', url: '/v1/pets/1', headers: AUTH })).statusCode,
    200,
    'the clock, not a flag, decides',
  );
});

t.test('after the sunset the store is not read', async (t) => {
  let reads = 0;
  const store = standInStore({
    get: async () => {
      reads++;
      return null;
    },
    list: async () => ({ pets: [], versions: [], more: false, position: 0 }),
  });
  const { app } = await appAt(t, SUNSET_AT, { store });
  t.equal((await app.inject({ method: 'GET', url: '/v1/pets/7', headers: AUTH })).statusCode, 410);
  t.equal(reads, 0);
});

t.test('a spec whose x-sunset is edited: the service follows it, over HTTP, on the real clock', async (t) => {
  // Dates far from any real "now", so that the response cannot depend on the day the test runs.
  for (const [deprecatedAt, sunset, status] of [
    ['1999-01-01', '2000-01-01', 410],
    ['2026-11-22', '9999-12-31', 200],
  ] as const) {
    const edited = specWith((spec) =>
      Object.assign(spec.paths['/pets/{petId}']!.get!, { 'x-deprecated-at': deprecatedAt, 'x-sunset': sunset }),
    );
    const { app } = await buildTestApp(t, { spec: edited, clock: Date.now });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    await (
      await fetch(`${base}/v1/pets`, {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: '{"name":"Rex","categoryId":1}',
      })
    ).arrayBuffer();
    const response = await fetch(`${base}/v1/pets/1`, { headers: AUTH });
    t.equal(response.status, status, `x-sunset ${sunset}: ${status}`);
    t.equal(
      response.headers.get('sunset'),
      new Date(`${sunset}T00:00:00Z`).toUTCString(),
      'the Sunset header follows the edit',
    );
    if (status === 410) t.match(((await response.json()) as { message: string }).message, `retired on ${sunset}`);
    else await response.arrayBuffer();
  }
});
