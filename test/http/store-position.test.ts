// Store-Position over HTTP, on the in-memory store (openapi.yaml, "Reading your own writes";
// test/system/replica-reads.test.ts runs it on replicas): every answer of the reads and writes says
// where it stands, a request's position is honoured, one of another store is read as none, and one
// that is not a position gets 400.
import t from 'tap';
import { AUTH, buildTestApp, postPet } from '../helpers/build-app.js';
import { checkContract } from '../helpers/contract.js';

const seqOf = (position: string | string[] | number | undefined) => Number(String(position).split('-')[1]);

t.test('writes and reads carry the position they stand at', async (t) => {
  const { app } = await buildTestApp(t);
  const created = await app.inject(postPet({ name: 'Rex', categoryId: 1 }));
  t.equal(seqOf(created.headers['store-position']), 1, "a create: its event's");
  const changed = await app.inject({
    method: 'PATCH',
    url: '/v1/pets/1',
    headers: { ...AUTH, 'content-type': 'application/merge-patch+json', 'if-match': '*' },
    payload: '{"name":"Rex II"}',
  });
  t.equal(seqOf(changed.headers['store-position']), 2, "a change: its event's");
  const read = await app.inject({
    method: 'GET',
    url: '/v1/pets/1',
    headers: { ...AUTH, 'store-position': String(created.headers['store-position']) },
  });
  checkContract(t, read, 'getPet');
  t.equal(seqOf(read.headers['store-position']), 2, 'a read: where it read, never before what was asked');
  const list = await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH });
  t.equal(list.headers['store-position'], list.headers['pet-events-position'], "a list: its page's position");
  const feed = await app.inject({ method: 'GET', url: '/v1/pet-events?limit=1', headers: AUTH });
  t.equal(seqOf(feed.headers['store-position']), 1, 'the feed: what the client has seen of it, the next after');
  const removed = await app.inject({ method: 'DELETE', url: '/v1/pets/1', headers: { ...AUTH, 'if-match': '*' } });
  t.equal(seqOf(removed.headers['store-position']), 3);
});

t.test('a position of another store is read as none; one that is not a position gets 400', async (t) => {
  const { app } = await buildTestApp(t);
  await app.inject(postPet({ name: 'Rex', categoryId: 1 }));
  const elsewhere = await app.inject({
    method: 'GET',
    url: '/v1/pets/1',
    headers: { ...AUTH, 'store-position': '00000000-99' },
  });
  t.equal(elsewhere.statusCode, 200, 'another epoch: answered as without one');
  for (const bad of ['12345678-99999999999999999', 'later', '0a0b0c0d-01']) {
    const refused = await app.inject({ method: 'GET', url: '/v1/pets/1', headers: { ...AUTH, 'store-position': bad } });
    t.equal(refused.statusCode, 400, bad);
    t.match(refused.json(), { code: 'VALIDATION_FAILED', message: /Store-Position/i });
  }
});
