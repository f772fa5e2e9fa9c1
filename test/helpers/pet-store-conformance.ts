// The contract every PetStore implementation keeps, run by each implementation's own test file
// against itself: a store is done when this suite passes, not when its own tests do.
import type { Test } from 'tap';
import type { PetStore } from '../../src/store/pet-store.js';
import type { NewPet, Pet, PetId, PetStatus } from '../../src/types/api.js';
import { INT64_MAX, INT64_MIN } from '../../src/validation/int64.js';

/** Makes a fresh, empty store for one test, and releases it on the test's teardown. */
export type StoreFactory = (t: Test) => Promise<PetStore>;

const STATUSES: (PetStatus | undefined)[] = ['available', 'pending', 'sold', undefined];

function newPet(index: number): NewPet {
  const status = STATUSES[index % STATUSES.length];
  return { name: `pet ${index}`, categoryId: index, ...(status === undefined ? {} : { status }) };
}

async function addPets(store: PetStore, count: number): Promise<Pet[]> {
  const pets: Pet[] = [];
  for (let index = 0; index < count; index++) pets.push(await store.create(newPet(index)));
  return pets;
}

const ids = (pets: readonly Pet[]) => pets.map((pet) => pet.id);

/** Every pet of the filter, read page by page with `after`, as listPets' next links do. */
async function walk(store: PetStore, limit: number, status?: PetStatus): Promise<{ pets: Pet[]; pages: number }> {
  const pets: Pet[] = [];
  let after: PetId | undefined;
  for (let pages = 1; ; pages++) {
    const page = await store.list({ limit, status, after });
    pets.push(...page.pets);
    if (!page.more) return { pets, pages };
    after = page.pets[page.pets.length - 1]!.id;
  }
}

export function petStoreConformance(t: Test, createStore: StoreFactory): void {
  t.test('create stores the pet as given and assigns increasing ids', async (t) => {
    const store = await createStore(t);
    const created = await addPets(store, 8);
    created.forEach((pet, index) => t.same(pet, { id: pet.id, ...newPet(index) }, `pet ${index} as given`));
    t.ok(
      created.every((pet, index) => index === 0 || BigInt(pet.id) > BigInt(created[index - 1]!.id)),
      'each id greater than the one before',
    );
  });

  t.test('concurrent creates get distinct ids, all readable', async (t) => {
    const store = await createStore(t);
    const created = await Promise.all(Array.from({ length: 50 }, (_, index) => store.create(newPet(index))));
    t.equal(new Set(created.map((pet) => String(pet.id))).size, 50, '50 distinct ids');
    for (const pet of created) t.same(await store.get(pet.id), pet, `pet ${pet.id} reads back`);
  });

  t.test('names and int64 categoryIds round-trip exactly', async (t) => {
    const store = await createStore(t);
    const cases: NewPet[] = [
      { name: ' Rex ', categoryId: INT64_MAX },
      { name: 'Ünïcødé 🐈 名前', categoryId: INT64_MIN },
      { name: 'x'.repeat(100), categoryId: 2n ** 53n + 1n },
      { name: 'a', categoryId: -(2 ** 53) + 1, status: 'sold' },
      { name: '"quoted" \\ back\tslash', categoryId: 0 },
    ];
    for (const pet of cases) {
      const created = await store.create(pet);
      t.same(created, { id: created.id, ...pet }, `created: ${pet.name}`);
      t.same(await store.get(created.id), created, `read back: ${pet.name}`);
    }
  });

  t.test('what the store returns is a copy: changing it changes nothing stored', async (t) => {
    const store = await createStore(t);
    const created = await store.create({ name: 'Rex', categoryId: 1 });
    const read = await store.get(created.id);
    const [listed] = (await store.list({ limit: 1 })).pets;
    for (const pet of [created, read!, listed!]) Object.assign(pet, { name: 'Changed', status: 'sold' });
    t.same(await store.get(created.id), { id: created.id, name: 'Rex', categoryId: 1 });
    t.same((await store.list({ limit: 1, status: 'sold' })).pets, []);
  });

  t.test('get finds only stored ids', async (t) => {
    const store = await createStore(t);
    const [pet] = await addPets(store, 1);
    t.same(await store.get(pet!.id), pet);
    for (const id of [0, -1, BigInt(pet!.id) + 1n, 2n ** 62n, INT64_MAX, INT64_MIN]) t.equal(await store.get(id), null, String(id));
  });

  t.test('two stores share nothing', async (t) => {
    const a = await createStore(t);
    await addPets(a, 1);
    const b = await createStore(t);
    t.same(await b.list({ limit: 10 }), { pets: [], more: false });
  });

  t.test('list filters by status, in id order, up to the limit, and says whether more follow', async (t) => {
    const store = await createStore(t);
    const all = await addPets(store, 12);
    t.same(await store.list({ limit: 100 }), { pets: all, more: false }, 'all pets, no more');
    t.same(await store.list({ limit: 12 }), { pets: all, more: false }, 'exactly the limit: no more');
    t.same(await store.list({ limit: 11 }), { pets: all.slice(0, 11), more: true }, 'one fewer than the pets: more');
    for (const status of ['available', 'pending', 'sold'] as const) {
      const matching = all.filter((pet) => pet.status === status);
      t.same(await store.list({ limit: 100, status }), { pets: matching, more: false }, `${status}: all of them`);
      t.same(await store.list({ limit: 1, status }), { pets: matching.slice(0, 1), more: true }, `${status}: the first, more`);
    }
  });

  t.test('list after an id starts past it, whatever the filter', async (t) => {
    const store = await createStore(t);
    const all = await addPets(store, 20);
    const middle = all[9]!.id;
    const after = (pets: Pet[]) => pets.filter((pet) => BigInt(pet.id) > BigInt(middle));
    t.same(await store.list({ limit: 100, after: middle }), { pets: after(all), more: false });
    t.same(await store.list({ limit: 3, after: middle }), { pets: after(all).slice(0, 3), more: true });
    const sold = all.filter((pet) => pet.status === 'sold');
    t.same(await store.list({ limit: 100, status: 'sold', after: middle }), { pets: after(sold), more: false }, 'after an id of another status');
    const last = all[all.length - 1]!.id;
    t.same(await store.list({ limit: 5, after: last }), { pets: [], more: false }, 'after the last pet: nothing');
    for (const position of [0, -1, INT64_MIN]) t.same(await store.list({ limit: 100, after: position }), { pets: all, more: false }, `after ${position}: all`);
    for (const position of [BigInt(last) + 1000n, 2n ** 53n + 1n, INT64_MAX]) t.same(await store.list({ limit: 5, after: position }), { pets: [], more: false }, `after ${position}: nothing`);
  });

  t.test('walking pages with after reads every pet of the filter exactly once, in id order', async (t) => {
    const store = await createStore(t);
    const all = await addPets(store, 45);
    for (const [limit, status] of [[1, undefined], [7, undefined], [45, undefined], [100, undefined], [4, 'sold'], [11, 'sold'], [3, 'available']] as const) {
      const matching = status === undefined ? all : all.filter((pet) => pet.status === status);
      const walked = await walk(store, limit, status);
      t.same(ids(walked.pets), ids(matching), `limit ${limit}, status ${status ?? 'any'}`);
      t.equal(walked.pages, Math.max(1, Math.ceil(matching.length / limit)), `limit ${limit}, status ${status ?? 'any'}: no empty last page`);
    }
  });

  t.test('pets created during a walk appear on later pages, never twice', async (t) => {
    const store = await createStore(t);
    const before = await addPets(store, 10);
    const seen: Pet[] = [];
    const added: Pet[] = [];
    let after: PetId | undefined;
    for (;;) {
      const page = await store.list({ limit: 3, after });
      seen.push(...page.pets);
      if (!page.more) break;
      after = page.pets[page.pets.length - 1]!.id;
      if (added.length < 6) added.push(await store.create(newPet(100 + added.length)), await store.create(newPet(200 + added.length)));
    }
    t.same(ids(seen), ids([...before, ...added]), 'every pet once, in id order');
  });
}

/** What every store keeps for createOnce (Idempotency-Key), run by each store's own test file. */
export function idempotencyConformance(t: Test, createStore: StoreFactory): void {
  const key = (name: string, scope = 'a'.repeat(64)) => ({ scope, key: name });

  t.test('createOnce creates once per key and then returns the recorded pet, whatever is sent', async (t) => {
    const store = await createStore(t);
    const first = await store.createOnce({ name: 'Rex', categoryId: INT64_MAX, status: 'sold' }, key('k1'));
    t.same(first, { pet: { id: first.pet.id, name: 'Rex', categoryId: INT64_MAX, status: 'sold' }, replayed: false });
    t.same(await store.createOnce({ name: 'Rex', categoryId: INT64_MAX, status: 'sold' }, key('k1')), { pet: first.pet, replayed: true }, 'the same request: replayed');
    t.same(await store.createOnce({ name: 'Other', categoryId: 1 }, key('k1')), { pet: first.pet, replayed: true }, 'another body: the recorded pet, for the caller to refuse');
    const second = await store.createOnce({ name: 'Rex', categoryId: INT64_MAX, status: 'sold' }, key('k2'));
    t.equal(second.replayed, false, 'another key: a new pet');
    const noStatus = await store.createOnce({ name: 'Tom', categoryId: -1 }, key('k3'));
    t.same((await store.createOnce({ name: 'Tom', categoryId: -1 }, key('k3'))).pet, { id: noStatus.pet.id, name: 'Tom', categoryId: -1 }, 'a pet without status replays without one');
    t.same(ids((await store.list({ limit: 10 })).pets), [first.pet.id, second.pet.id, noStatus.pet.id], 'three pets, readable like any other');
    t.same(await store.get(first.pet.id), first.pet);
  });

  t.test('keys of different scopes are different keys', async (t) => {
    const store = await createStore(t);
    const a = await store.createOnce({ name: 'Rex', categoryId: 1 }, key('same', 'a'.repeat(64)));
    const b = await store.createOnce({ name: 'Rex', categoryId: 1 }, key('same', 'b'.repeat(64)));
    t.equal(b.replayed, false);
    t.not(String(b.pet.id), String(a.pet.id));
    t.same((await store.createOnce({ name: 'x', categoryId: 2 }, key('same', 'b'.repeat(64)))).pet, b.pet);
  });

  t.test('concurrent createOnce calls with one key create one pet and all return it', async (t) => {
    const store = await createStore(t);
    const results = await Promise.all(Array.from({ length: 20 }, () => store.createOnce({ name: 'Rex', categoryId: 7 }, key('race'))));
    t.equal(results.filter((result) => !result.replayed).length, 1, 'one creation');
    t.ok(results.every((result) => String(result.pet.id) === String(results[0]!.pet.id)), 'every call returns that pet');
    t.equal((await store.list({ limit: 100 })).pets.length, 1, 'one pet stored');
  });

  t.test('keys with any allowed characters, up to 255 of them, are kept exactly', async (t) => {
    const store = await createStore(t);
    const keys = ['x'.repeat(255), ' !#$%&\'()*+,-./:;<=>?@[]^_`{|}~', 'A', 'a', 'a ', ' a'];
    const created = await Promise.all(keys.map((name, index) => store.createOnce({ name: `p${index}`, categoryId: index }, key(name))));
    t.ok(created.every((result) => !result.replayed), 'each a key of its own (case and spaces count)');
    for (const [index, name] of keys.entries()) t.same((await store.createOnce({ name: 'other', categoryId: 0 }, key(name))).pet, created[index]!.pet, JSON.stringify(name));
  });
}
