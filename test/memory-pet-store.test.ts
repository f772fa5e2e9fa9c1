import t from 'tap';
import { createMemoryPetStore } from '../src/store/memory-pet-store.js';

t.test('ids are unique, start at 1 and follow the order of creation', async (t) => {
  const store = createMemoryPetStore();
  const created = await Promise.all(Array.from({ length: 50 }, (_, i) => store.create({ name: `p${i}`, categoryId: i })));
  t.same(created.map((pet) => pet.id), Array.from({ length: 50 }, (_, i) => i + 1));
});

t.test('stored pets cannot be changed through what the store returns', async (t) => {
  const store = createMemoryPetStore();
  const pet = await store.create({ name: 'Rex', categoryId: 1 });
  t.throws(() => Object.assign(pet, { name: 'Changed' }));
  t.equal((await store.get(1))?.name, 'Rex');
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
