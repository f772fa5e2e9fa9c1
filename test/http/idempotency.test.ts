// Idempotency-Key on createPet over HTTP (in-memory store; the PostgreSQL store runs the same
// store-level suite in test/store/postgres-pet-store.test.ts, and keyed creates through two
// instances in test/system/postgres-service.test.ts).
import t from 'tap';
import { keyOf } from '../../src/idempotency/idempotency-key.js';
import { clientScopeOf, sha256Hex } from '../../src/auth/api-clients.js';
import { createMemoryPetStore } from '../../src/store/memory-pet-store.js';
import { API_KEY, AUTH, JSON_TYPE, OTHER_API_KEY, buildTestApp, postPet } from '../helpers/build-app.js';
import { checkContract } from '../helpers/contract.js';

const KEY = '"8e03978e-40d5-43e8-bc93-6894a57f9324"';
const withKey = (body: unknown, key = KEY, headers: Record<string, string> = {}) =>
  postPet(body, { 'idempotency-key': key, ...headers });

t.test(
  'a retry with the same key and body replays the first 201: same pet, same Location, no second pet',
  async (t) => {
    const { app } = await buildTestApp(t);
    const first = await app.inject(withKey({ name: 'Rex', categoryId: 3, status: 'available' }));
    t.equal(first.statusCode, 201);
    checkContract(t, first, 'createPet');
    t.equal(first.headers['idempotent-replayed'], undefined, 'the first answer is not marked');
    // The same body with other spacing, member order and number spelling is the same request.
    const retry = await app.inject(withKey('{ "status":"available",  "categoryId": 3.0e0, "name": "Rex" }'));
    t.equal(retry.statusCode, 201);
    checkContract(t, retry, 'createPet');
    t.equal(retry.headers['idempotent-replayed'], 'true');
    t.equal(retry.body, first.body, 'the same body, the same id');
    t.equal(retry.headers['location'], first.headers['location']);
    const list = await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH });
    t.same(list.json(), [first.json()], 'one pet stored');
  },
);

t.test('the quoted and the bare form name the same key', async (t) => {
  const { app } = await buildTestApp(t);
  const first = await app.inject(withKey({ name: 'Rex', categoryId: 3 }, '"abc-1"'));
  const bare = await app.inject(withKey({ name: 'Rex', categoryId: 3 }, 'abc-1'));
  t.equal(bare.statusCode, 201);
  t.equal(bare.headers['idempotent-replayed'], 'true');
  t.equal(bare.body, first.body);
  t.equal(keyOf('"a b"'), 'a b');
  t.equal(keyOf('a'), 'a');
});

t.test('the same key with another body is refused with 422 and creates nothing', async (t) => {
  const { app } = await buildTestApp(t);
  const first = await app.inject(withKey({ name: 'Rex', categoryId: 3 }));
  for (const changed of [
    { name: 'Rex ', categoryId: 3 },
    { name: 'Rex', categoryId: 4 },
    { name: 'Rex', categoryId: 3, status: 'sold' },
  ]) {
    const response = await app.inject(withKey(changed));
    t.equal(response.statusCode, 422, JSON.stringify(changed));
    const body = checkContract(t, response, 'createPet');
    t.equal(body.code, 'IDEMPOTENCY_KEY_REUSED');
    t.match(body.message, `pet ${first.json().id}`);
    t.equal(response.headers['location'], undefined, 'no Location on a rejection');
  }
  const list = await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH });
  t.equal(list.json().length, 1, 'still one pet');
  const again = await app.inject(withKey({ name: 'Rex', categoryId: 3 }));
  t.equal(again.headers['idempotent-replayed'], 'true', 'the original body still replays');
});

t.test('a refused request records nothing: fixed, it creates the pet with the same key', async (t) => {
  const { app } = await buildTestApp(t);
  const refused = [
    withKey({ name: '', categoryId: 3 }),
    withKey('{"name": "Rex", "categoryId": 3'),
    withKey({ name: 'Rex', categoryId: 3 }, KEY, { 'content-type': 'text/plain' }),
    withKey({ name: 'Rex', categoryId: 3, extra: 1 }),
    withKey('x'.repeat(17 * 1024)),
    { ...withKey({ name: 'Rex', categoryId: 3 }), headers: { ...JSON_TYPE, 'idempotency-key': KEY } },
  ];
  for (const request of refused) {
    const response = await app.inject(request);
    t.ok([400, 401, 413, 415].includes(response.statusCode), `refused with ${response.statusCode}`);
  }
  const fixed = await app.inject(withKey({ name: 'Tom', categoryId: 5 }));
  t.equal(fixed.statusCode, 201);
  t.equal(fixed.headers['idempotent-replayed'], undefined, 'a creation, not a replay');
  t.same(fixed.json(), { id: 1, name: 'Tom', categoryId: 5 });
});

t.test('keys belong to the client whose API key sent them, across its rotated keys', async (t) => {
  const ROTATED = 'rotated-key-0123456789abcdef';
  const { app } = await buildTestApp(t, {
    apiKeys: [
      { client: 'shop', key: API_KEY },
      { client: 'shop', key: ROTATED },
      { client: 'kiosk', key: OTHER_API_KEY },
    ],
  });
  const mine = await app.inject(withKey({ name: 'Rex', categoryId: 3 }));
  const other = { authorization: `Bearer ${OTHER_API_KEY}` };
  const theirs = await app.inject(withKey({ name: 'Rex', categoryId: 3 }, KEY, other));
  t.equal(theirs.statusCode, 201);
  t.equal(theirs.headers['idempotent-replayed'], undefined, "not a replay of the other client's pet");
  t.not(theirs.json().id, mine.json().id);
  const theirsChanged = await app.inject(withKey({ name: 'Tom', categoryId: 9 }, KEY, other));
  t.equal(theirsChanged.statusCode, 422, 'and their own key is theirs to conflict with');
  t.match(theirsChanged.json().message, `pet ${theirs.json().id}`, 'naming their pet, not mine');
  const rotated = await app.inject(
    withKey({ name: 'Rex', categoryId: 3 }, KEY, { authorization: `Bearer ${ROTATED}` }),
  );
  t.equal(rotated.statusCode, 201);
  t.equal(rotated.headers['idempotent-replayed'], 'true', "a retry with the client's new key replays the first 201");
  t.same(rotated.json(), mine.json());
  t.notMatch(clientScopeOf('shop'), API_KEY, 'the scope is not the key');
  t.not(clientScopeOf('shop'), sha256Hex(API_KEY), "nor the key's digest");
});

t.test('without the header every create is a new pet, as before', async (t) => {
  const { app } = await buildTestApp(t);
  const a = await app.inject(postPet({ name: 'Rex', categoryId: 3 }));
  const b = await app.inject(postPet({ name: 'Rex', categoryId: 3 }));
  t.same([a.json().id, b.json().id], [1, 2]);
  t.equal(b.headers['idempotent-replayed'], undefined);
});

t.test('a malformed Idempotency-Key is a 400 naming the header', async (t) => {
  const { app } = await buildTestApp(t);
  const malformed = [
    '',
    '""',
    '"a\\"b"',
    '"a\\\\b"',
    'a b',
    'a,b',
    '"a", "b"',
    '"a";p=1',
    'a;b',
    `"${'x'.repeat(256)}"`,
    'x'.repeat(256),
    '"é"',
    '"\u007f"',
    "'abc'x\"",
    '"abc',
  ];
  for (const key of malformed) {
    const response = await app.inject(withKey({ name: 'Rex', categoryId: 3 }, key));
    t.equal(response.statusCode, 400, JSON.stringify(key));
    const body = checkContract(t, response, 'createPet');
    t.equal(body.code, 'VALIDATION_FAILED');
    t.match(body.message, /^header idempotency-key /i, JSON.stringify(key));
  }
  for (const key of [
    `"${'x'.repeat(255)}"`,
    'x'.repeat(255),
    '" !#$%&\'()*+,-./:;<=>?@[]^_`{|}~"',
    "!#$%&'*+-./:<=>?@[]^_`{|}~",
    '"a"',
    'a',
  ]) {
    const response = await app.inject(withKey({ name: 'Rex', categoryId: 3 }, key));
    t.equal(response.statusCode, 201, `accepted: ${key.slice(0, 40)}`);
  }
  const list = await app.inject({ method: 'GET', url: '/v1/pets?limit=100', headers: AUTH });
  t.equal(list.json().length, 4, 'the accepted keys made four pets (quoted and bare, x…x and a are one key each)');
});

t.test('a request without a valid API key is a 401 before its Idempotency-Key is looked at', async (t) => {
  const { app } = await buildTestApp(t);
  const response = await app.inject({
    ...withKey({ name: 'Rex', categoryId: 3 }, 'a b'),
    headers: { ...JSON_TYPE, authorization: 'Bearer wrong-key-0123456789', 'idempotency-key': 'a b' },
  });
  t.equal(response.statusCode, 401);
});

t.test('the in-memory store forgets keys after the retention period, and holds at most maxKeys', async (t) => {
  let now = 0;
  const store = createMemoryPetStore({ retentionMs: 1000, maxKeys: 3, now: () => now });
  const key = (name: string) => ({ scope: 's', key: name });
  const pet = { name: 'Rex', categoryId: 1 };
  const first = await store.createOnce(pet, key('a'));
  now = 999;
  t.same(await store.createOnce(pet, key('a')), { pet: first.pet, replayed: true }, 'kept within the period');
  now = 1000;
  const later = await store.createOnce(pet, key('a'));
  t.equal(later.replayed, false, 'forgotten after it: a new pet');
  t.not(later.pet.id, first.pet.id);
  for (const name of ['b', 'c', 'd']) await store.createOnce(pet, key(name));
  t.equal((await store.createOnce(pet, key('a'))).replayed, false, 'beyond maxKeys the oldest is forgotten first');
  t.equal((await store.createOnce(pet, key('d'))).replayed, true, 'the newest are kept');
  // Many keys through the queue: its front is cut off as it goes, and every recent key is kept.
  const many = createMemoryPetStore({ retentionMs: 10, maxKeys: 100_000, now: () => now });
  for (let index = 0; index < 5000; index++) {
    now = index;
    await many.createOnce(pet, key(`k${index}`));
  }
  t.equal((await many.createOnce(pet, key('k4990'))).replayed, true, 'a key within the period');
  t.equal((await many.createOnce(pet, key('k4989'))).replayed, false, 'the key just past it');
});
