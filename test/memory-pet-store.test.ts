import t from 'tap';
import { createMemoryPetStore } from '../src/store/memory-pet-store.js';

t.test('ids are unique, start at 1 and follow the order of creation', async (t) => {
  const store = createMemoryPetStore();
  const created = await Promise.all(Array.from({ length: 50 }, (_, i) => store.create({ name: `p${i}`, categoryId: i })));
  t.same(created.map((pet) => pet.id), Array.from({ length: 50 }, (_, i) => i + 1));
});

t.test('stored pets cannot be changed through what the store returns', async (t) => {
  const store = createMemoryPetStore();
  const created = await store.create({ name: 'Rex', categoryId: 1 });
  const read = await store.get(1);
  const [listed] = await store.list({ limit: 1 });
  for (const pet of [created, read!, listed!]) Object.assign(pet, { name: 'Changed', status: 'sold' });
  t.same(await store.get(1), { id: 1, name: 'Rex', categoryId: 1 });
  t.same(await store.list({ limit: 1, status: 'sold' }), []);
});

t.test('get finds only stored ids', async (t) => {
  const store = createMemoryPetStore();
  await store.create({ name: 'Rex', categoryId: 1 });
  t.equal((await store.get(1))?.name, 'Rex');
  for (const id of [0, -1, 2, 2n ** 62n, 1n]) t.equal(await store.get(id), null, String(id));
});

t.test('two stores share nothing', async (t) => {
  const a = createMemoryPetStore();
  const b = createMemoryPetStore();
  await a.create({ name: 'Rex', categoryId: 1 });
  t.same(await b.list({ limit: 10 }), []);
});

t.test('list filters by status in id order, up to the limit', async (t) => {
  const store = createMemoryPetStore();
  await store.create({ name: 'a', categoryId: 1, status: 'sold' });
  await store.create({ name: 'b', categoryId: 1 });
  await store.create({ name: 'c', categoryId: 1, status: 'sold' });
  await store.create({ name: 'd', categoryId: 1, status: 'pending' });
  t.same((await store.list({ limit: 10, status: 'sold' })).map((pet) => pet.name), ['a', 'c']);
  t.same((await store.list({ limit: 1, status: 'sold' })).map((pet) => pet.name), ['a']);
  t.same(await store.list({ limit: 10, status: 'available' }), []);
  t.same((await store.list({ limit: 3 })).map((pet) => pet.name), ['a', 'b', 'c']);
});

t.test('columns grow past their first capacity and keep every pet', async (t) => {
  const store = createMemoryPetStore();
  const statuses = ['available', 'pending', undefined] as const;
  for (let i = 0; i < 5000; i++) {
    const status = statuses[i % 3];
    await store.create(status === undefined ? { name: `p${i}`, categoryId: i } : { name: `p${i}`, categoryId: i, status });
  }
  t.same(await store.get(4998), { id: 4998, name: 'p4997', categoryId: 4997 });
  t.same(await store.get(5000), { id: 5000, name: 'p4999', categoryId: 4999, status: 'pending' });
  const pending = await store.list({ limit: 100, status: 'pending' });
  t.same(pending.map((pet) => pet.id), Array.from({ length: 100 }, (_, i) => 2 + 3 * i));
});

t.test('at most 255 distinct statuses, since a status is stored in one byte', async (t) => {
  const store = createMemoryPetStore();
  for (let i = 0; i < 255; i++) await store.create({ name: 'p', categoryId: 1, status: `s${i}` as 'sold' });
  await t.rejects(store.create({ name: 'p', categoryId: 1, status: 's255' as 'sold' }), /at most 255 distinct statuses/);
  t.same((await store.list({ limit: 1, status: 's254' as 'sold' })).map((pet) => pet.id), [255]);
});
