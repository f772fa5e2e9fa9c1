import t from 'tap';
import { createMemoryPetStore } from '../../src/store/memory-pet-store.js';
import { AUTH, buildTestApp, NO_ROLE_API_KEY, postPet } from '../helpers/build-app.js';
import { checkContract } from '../helpers/contract.js';

const feed = (query = '') => ({ method: 'GET' as const, url: `/v1/pet-events${query}`, headers: AUTH });
const patch = (petId: number, body: unknown, ifMatch: string) => ({
  method: 'PATCH' as const,
  url: `/v1/pets/${petId}`,
  headers: { ...AUTH, 'content-type': 'application/merge-patch+json', 'if-match': ifMatch },
  payload: JSON.stringify(body),
});
/** The query of a next link: `<…?after=…>; rel="next"` → `?after=…`. */
const nextOf = (link: unknown) => /^<\/v1\/pet-events(\?[^>]+)>; rel="next"$/.exec(String(link))![1]!;

t.test('every acknowledged change is an event, in order, each pet counting its versions', async (t) => {
  const { app } = await buildTestApp(t);
  const empty = await app.inject(feed());
  t.equal(empty.statusCode, 200);
  t.same(checkContract(t, empty, 'listPetEvents'), [], 'nothing yet');
  const start = nextOf(empty.headers.link);
  t.match(start, /^\?after=[0-9a-f]{8}-0&limit=100&wait=0$/, 'an empty feed still says where to read next');

  const rex = (await app.inject(postPet({ name: 'Rex', categoryId: 3, status: 'available' }))).headers['etag'];
  await app.inject(postPet('{"name":"Tom","categoryId":9007199254740993}'));
  const sold = await app.inject(patch(1, { status: 'sold' }, rex as string));
  t.equal(sold.statusCode, 200);
  const tag = sold.headers['etag'] as string;
  t.equal((await app.inject(patch(1, { status: 'sold' }, tag))).statusCode, 200, 'a patch that changes nothing');
  t.equal((await app.inject(patch(2, {}, tag))).statusCode, 412, 'a refused change');
  t.equal(
    (await app.inject({ method: 'DELETE', url: '/v1/pets/1', headers: { ...AUTH, 'if-match': tag } })).statusCode,
    204,
  );

  const page = await app.inject(feed(start));
  const events = checkContract(t, page, 'listPetEvents') as {
    id: string;
    type: string;
    petId: number;
    version: number;
    occurredAt: string;
    pet?: unknown;
  }[];
  t.same(
    events.map(({ type, petId, version, pet }) => ({ type, petId, version, pet })),
    [
      { type: 'pet.created', petId: 1, version: 1, pet: { id: 1, name: 'Rex', categoryId: 3, status: 'available' } },
      { type: 'pet.created', petId: 2, version: 1, pet: { id: 2, name: 'Tom', categoryId: 9007199254740993n } },
      { type: 'pet.updated', petId: 1, version: 2, pet: { id: 1, name: 'Rex', categoryId: 3, status: 'sold' } },
      { type: 'pet.deleted', petId: 1, version: 3, pet: undefined },
    ],
  );
  t.match(page.body, /"categoryId":9007199254740993\b/, 'int64 exactly');
  t.equal(new Set(events.map(({ id }) => id)).size, 4, 'ids are distinct');
  for (const { occurredAt } of events) t.match(occurredAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  t.equal(
    nextOf(page.headers.link),
    `?after=${events[3]!.id}&limit=100&wait=0`,
    'the next link starts after the last event',
  );
  t.same((await app.inject(feed(nextOf(page.headers.link)))).json(), [], 'and finds nothing more');
  t.same((await app.inject(feed())).json().length, 4, 'without after: from the oldest kept');
});

t.test('limit pages through the feed; each id is the cursor after it', async (t) => {
  const { app } = await buildTestApp(t);
  for (let index = 0; index < 5; index++) await app.inject(postPet({ name: `Pet ${index}`, categoryId: index }));
  const seen: number[] = [];
  let query = '?limit=2';
  for (let pages = 0; pages < 4; pages++) {
    const response = await app.inject(feed(query));
    const events = checkContract(t, response, 'listPetEvents') as { id: string; petId: number }[];
    seen.push(...events.map(({ petId }) => petId));
    t.ok(events.length <= 2);
    query = nextOf(response.headers.link);
    t.match(query, /&limit=2&wait=0$/);
  }
  t.same(seen, [1, 2, 3, 4, 5]);
  const all = (await app.inject(feed())).json() as { id: string }[];
  t.same(
    ((await app.inject(feed(`?after=${all[1]!.id}`))).json() as { id: string }[]).map(({ id }) => id),
    all.slice(2).map(({ id }) => id),
  );
});

t.test('a long poll answers as soon as an event arrives, or empty when wait has passed', async (t) => {
  const { app } = await buildTestApp(t);
  const start = nextOf((await app.inject(feed())).headers.link).replace('wait=0', 'wait=5');
  const began = performance.now();
  const polled = app.inject(feed(start));
  await new Promise((resolve) => setTimeout(resolve, 100));
  await app.inject(postPet({ name: 'Rex', categoryId: 3 }));
  const response = await polled;
  const waited = performance.now() - began;
  t.equal((checkContract(t, response, 'listPetEvents') as unknown[]).length, 1, 'the event');
  t.ok(waited >= 100 && waited < 2000, `answered when the event came (${Math.round(waited)} ms), not after 5 s`);
  t.match(String(response.headers.link), /&wait=5>/, 'the next link long-polls too');

  const quiet = performance.now();
  const empty = await app.inject(feed(nextOf(response.headers.link).replace('wait=5', 'wait=1')));
  const held = performance.now() - quiet;
  t.same(checkContract(t, empty, 'listPetEvents'), []);
  t.ok(held >= 950 && held < 3000, `an empty answer after wait (${Math.round(held)} ms)`);
});

t.test('a long poll ends when the app closes', async (t) => {
  const { app } = await buildTestApp(t);
  const polled = app.inject(feed('?wait=30'));
  await new Promise((resolve) => setTimeout(resolve, 50));
  const began = performance.now();
  await app.close();
  const response = await polled;
  t.equal(response.statusCode, 200);
  t.ok(performance.now() - began < 2000, 'not 30 s');
});

t.test('cursors: malformed is 400, from another store or older than kept is 410', async (t) => {
  let now = Date.parse('2026-11-27T10:00:00Z');
  const store = createMemoryPetStore({ now: () => now, maxEvents: 3 });
  const { app } = await buildTestApp(t, { store });
  for (const after of [
    'abc',
    '0123456g-1',
    '01234567-01',
    '01234567--1',
    '01234567-99999999999999999999',
    '01234567-1%20',
  ]) {
    const response = await app.inject(feed(`?after=${after}`));
    t.equal(response.statusCode, 400, after);
    t.match(checkContract(t, response, 'listPetEvents'), { code: 'VALIDATION_FAILED', message: /after/ }, after);
  }
  for (const query of ['?limit=0', '?limit=1001', '?wait=31', '?wait=-1', '?wait=1.5', '?since=1']) {
    t.equal((await app.inject(feed(query))).statusCode, 400, query);
  }
  const beyond = await app.inject(feed('?after=01234567-9007199254740993'));
  t.equal(beyond.statusCode, 400, 'a seq beyond what the service issues');

  await app.inject(postPet({ name: 'Rex', categoryId: 3 }));
  const [first] = (await app.inject(feed())).json() as [{ id: string }];
  const foreign = await app.inject(
    feed(`?after=${first.id.replace(/^[0-9a-f]{8}/, (epoch) => (epoch === '00000000' ? '00000001' : '00000000'))}`),
  );
  t.equal(foreign.statusCode, 410);
  t.match(checkContract(t, foreign, 'listPetEvents'), { code: 'CURSOR_EXPIRED', message: /another|replaced/ });

  // Four more events: the store keeps three, so the first and the second are gone.
  for (let index = 0; index < 4; index++) await app.inject(postPet({ name: `Pet ${index}`, categoryId: index }));
  const expired = await app.inject(feed(`?after=${first.id}`));
  t.equal(expired.statusCode, 410);
  t.match(checkContract(t, expired, 'listPetEvents'), {
    code: 'CURSOR_EXPIRED',
    message: /older than the events kept.*listPets/,
  });
  t.same(
    ((await app.inject(feed())).json() as { petId: number }[]).map(({ petId }) => petId),
    [3, 4, 5],
    'the three kept',
  );

  now += 2 * 3_600_000;
  t.equal(await store.purgeEvents(3_600_000), 3, 'retention by age');
  const after = await app.inject(feed());
  t.same(after.json(), []);
  t.match(String(after.headers.link), /-5&/, 'an emptied feed reads on after the last purged');
});

t.test('the feed needs pets:read', async (t) => {
  const { app } = await buildTestApp(t);
  const response = await app.inject({
    method: 'GET',
    url: '/v1/pet-events',
    headers: { authorization: `Bearer ${NO_ROLE_API_KEY}` },
  });
  t.equal(response.statusCode, 403);
  checkContract(t, response, 'listPetEvents');
  t.equal((await app.inject({ method: 'GET', url: '/v1/pet-events' })).statusCode, 401);
});

t.test('every listPets page carries Pet-Events-Position: the newest event it reflects', async (t) => {
  const { app } = await buildTestApp(t);
  const list = (query = '') => app.inject({ method: 'GET', url: `/v1/pets${query}`, headers: AUTH });
  const empty = await list();
  checkContract(t, empty, 'listPets');
  const start = empty.headers['pet-events-position'] as string;
  t.match(start, /^[0-9a-f]{8}-0$/, 'before any change, the start of the feed');
  t.equal(nextOf((await app.inject(feed())).headers.link), `?after=${start}&limit=100&wait=0`, "the feed's own start");
  await app.inject(postPet({ name: 'Rex', categoryId: 3 }));
  await app.inject(postPet({ name: 'Tom', categoryId: 3, status: 'sold' }));
  const events = (await app.inject(feed())).json() as { id: string }[];
  for (const query of ['', '?limit=1', '?status=available', '?status=pending']) {
    const page = await list(query);
    t.equal(page.statusCode, 200, query);
    t.equal(page.headers['pet-events-position'], events.at(-1)!.id, `${query || 'the first page'}: the last event`);
  }
  const after = await app.inject(feed(`?after=${String((await list()).headers['pet-events-position'])}`));
  t.same(after.json(), [], 'nothing after it yet');
});
