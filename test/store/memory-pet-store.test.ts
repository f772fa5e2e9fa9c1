import t from 'tap';
import { createMemoryPetStore } from '../../src/store/memory-pet-store.js';
import {
  changeConformance,
  eventConformance,
  idempotencyConformance,
  petStoreConformance,
} from '../helpers/pet-store-conformance.js';
import { orderConformance } from '../helpers/order-store-conformance.js';
import { positionConformance } from '../helpers/position-conformance.js';
import { webhookConformance } from '../helpers/webhook-conformance.js';

petStoreConformance(t, async () => createMemoryPetStore());
idempotencyConformance(t, async () => createMemoryPetStore());
changeConformance(t, async () => createMemoryPetStore());
eventConformance(t, async () => createMemoryPetStore());
positionConformance(t, async () => createMemoryPetStore());
webhookConformance(t, async () => createMemoryPetStore());
// Orders on the store's injected clock: time passes when the test says so.
orderConformance(t, async () => {
  let now = Date.UTC(2026, 10, 28, 12);
  return { store: createMemoryPetStore({ now: () => now }), pass: async (ms) => void (now += ms) };
});

// What follows is particular to the in-memory store: ids from 1 and its column layout.

t.test('ids start at 1 and follow the order of creation', async (t) => {
  const store = createMemoryPetStore();
  const created = await Promise.all(
    Array.from({ length: 50 }, (_, i) => store.create({ name: `p${i}`, categoryId: i })),
  );
  t.same(
    created.map((pet) => pet.id),
    Array.from({ length: 50 }, (_, i) => i + 1),
  );
});

t.test('columns grow past their first capacity and keep every pet', async (t) => {
  const store = createMemoryPetStore();
  const statuses = ['available', 'pending', undefined] as const;
  for (let i = 0; i < 5000; i++) {
    const status = statuses[i % 3];
    await store.create(
      status === undefined ? { name: `p${i}`, categoryId: i } : { name: `p${i}`, categoryId: i, status },
    );
  }
  t.same((await store.get(4998))?.pet, { id: 4998, name: 'p4997', categoryId: 4997 });
  t.same((await store.get(5000))?.pet, { id: 5000, name: 'p4999', categoryId: 4999, status: 'pending' });
  const pending = await store.list({ limit: 100, status: 'pending' });
  t.same(
    pending.pets.map((pet) => pet.id),
    Array.from({ length: 100 }, (_, i) => 2 + 3 * i),
  );
  const later = await store.list({ limit: 100, status: 'pending', after: 4000 });
  t.same(
    later.pets.map((pet) => pet.id),
    Array.from({ length: 100 }, (_, i) => 4001 + 3 * i),
    'the status index is searched past its first capacity',
  );
});

t.test('at most 254 distinct statuses, since a status is stored in one byte (255 marks a removed pet)', async (t) => {
  const store = createMemoryPetStore();
  for (let i = 0; i < 254; i++) await store.create({ name: 'p', categoryId: 1, status: `s${i}` as 'sold' });
  await t.rejects(
    store.create({ name: 'p', categoryId: 1, status: 's254' as 'sold' }),
    /at most 254 distinct statuses/,
  );
  t.same(
    (await store.list({ limit: 1, status: 's253' as 'sold' })).pets.map((pet) => pet.id),
    [254],
  );
});

t.test("a keyed pet's first state is kept for its key's replays, and let go with the key", async (t) => {
  let now = 0;
  const store = createMemoryPetStore({ retentionMs: 1000, now: () => now });
  const key = { scope: 'a'.repeat(64), key: 'k' };
  const created = await store.createOnce({ name: 'Rex', categoryId: 1 }, key);
  await store.update(created.pet.id, { name: 'Changed' }, '*');
  await store.update(created.pet.id, { name: 'Again' }, '*');
  t.same(
    await store.createOnce({ name: 'Rex', categoryId: 1 }, key),
    { pet: created.pet, replayed: true },
    'the first state, after two changes',
  );
  now = 2000;
  const anew = await store.createOnce({ name: 'Rex', categoryId: 1 }, key);
  t.equal(anew.replayed, false, 'the key forgotten: a new pet');
  t.same((await store.get(created.pet.id))?.pet, { ...created.pet, name: 'Again' }, 'the first pet as it is now');
});

t.test('the in-memory feed keeps its newest maxEvents, whatever the count', async (t) => {
  const store = createMemoryPetStore({ maxEvents: 10 });
  for (let index = 0; index < 3000; index++) await store.create({ name: `pet ${index}`, categoryId: index });
  const page = await store.listEvents(undefined, 100);
  t.same(
    page.events.map(({ petId }) => petId),
    Array.from({ length: 10 }, (_, index) => 2991 + index),
  );
  t.equal(page.horizon, 2990);
  t.same(
    (await store.listEvents(2995, 2)).events.map(({ seq }) => seq),
    [2996, 2997],
    'a cursor within what is kept',
  );
  t.same((await store.listEvents(5000, 2)).events, [], 'one beyond the newest');
});
