// The contract every PetStore implementation keeps, run by each implementation's own test file
// against itself: a store is done when this suite passes, not when its own tests do.
import type { Test } from 'tap';
import type { ChangeKey, ListOptions, PetStore, StoredEvent } from '../../src/store/pet-store.js';
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

/** The pet with this id, without its version, or null. */
const read = async (store: PetStore, id: PetId) => (await store.get(id))?.pet ?? null;

/** A page's pets and whether more follow, without their versions. */
async function pageOf(store: PetStore, options: ListOptions) {
  const { pets, more } = await store.list(options);
  return { pets, more };
}

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
    for (const pet of created) t.same(await read(store, pet.id), pet, `pet ${pet.id} reads back`);
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
      t.same(await read(store, created.id), created, `read back: ${pet.name}`);
    }
  });

  t.test('what the store returns is a copy: changing it changes nothing stored', async (t) => {
    const store = await createStore(t);
    const created = await store.create({ name: 'Rex', categoryId: 1 });
    const readBack = (await store.get(created.id))!.pet;
    const [listed] = (await store.list({ limit: 1 })).pets;
    for (const pet of [created, readBack, listed!]) Object.assign(pet, { name: 'Changed', status: 'sold' });
    t.same(await read(store, created.id), { id: created.id, name: 'Rex', categoryId: 1 });
    t.same((await store.list({ limit: 1, status: 'sold' })).pets, []);
  });

  t.test('get finds only stored ids', async (t) => {
    const store = await createStore(t);
    const [pet] = await addPets(store, 1);
    t.same(await read(store, pet!.id), pet);
    for (const id of [0, -1, BigInt(pet!.id) + 1n, 2n ** 62n, INT64_MAX, INT64_MIN])
      t.equal(await read(store, id), null, String(id));
  });

  t.test('two stores share nothing', async (t) => {
    const a = await createStore(t);
    await addPets(a, 1);
    const b = await createStore(t);
    t.same(await pageOf(b, { limit: 10 }), { pets: [], more: false });
  });

  t.test('list filters by status, in id order, up to the limit, and says whether more follow', async (t) => {
    const store = await createStore(t);
    const all = await addPets(store, 12);
    t.same(await pageOf(store, { limit: 100 }), { pets: all, more: false }, 'all pets, no more');
    t.same(await pageOf(store, { limit: 12 }), { pets: all, more: false }, 'exactly the limit: no more');
    t.same(await pageOf(store, { limit: 11 }), { pets: all.slice(0, 11), more: true }, 'one fewer than the pets: more');
    for (const status of ['available', 'pending', 'sold'] as const) {
      const matching = all.filter((pet) => pet.status === status);
      t.same(await pageOf(store, { limit: 100, status }), { pets: matching, more: false }, `${status}: all of them`);
      t.same(
        await pageOf(store, { limit: 1, status }),
        { pets: matching.slice(0, 1), more: true },
        `${status}: the first, more`,
      );
    }
  });

  t.test('list after an id starts past it, whatever the filter', async (t) => {
    const store = await createStore(t);
    const all = await addPets(store, 20);
    const middle = all[9]!.id;
    const after = (pets: Pet[]) => pets.filter((pet) => BigInt(pet.id) > BigInt(middle));
    t.same(await pageOf(store, { limit: 100, after: middle }), { pets: after(all), more: false });
    t.same(await pageOf(store, { limit: 3, after: middle }), { pets: after(all).slice(0, 3), more: true });
    const sold = all.filter((pet) => pet.status === 'sold');
    t.same(
      await pageOf(store, { limit: 100, status: 'sold', after: middle }),
      { pets: after(sold), more: false },
      'after an id of another status',
    );
    const last = all[all.length - 1]!.id;
    t.same(await pageOf(store, { limit: 5, after: last }), { pets: [], more: false }, 'after the last pet: nothing');
    for (const position of [0, -1, INT64_MIN])
      t.same(
        await pageOf(store, { limit: 100, after: position }),
        { pets: all, more: false },
        `after ${position}: all`,
      );
    for (const position of [BigInt(last) + 1000n, 2n ** 53n + 1n, INT64_MAX])
      t.same(
        await pageOf(store, { limit: 5, after: position }),
        { pets: [], more: false },
        `after ${position}: nothing`,
      );
  });

  t.test('walking pages with after reads every pet of the filter exactly once, in id order', async (t) => {
    const store = await createStore(t);
    const all = await addPets(store, 45);
    for (const [limit, status] of [
      [1, undefined],
      [7, undefined],
      [45, undefined],
      [100, undefined],
      [4, 'sold'],
      [11, 'sold'],
      [3, 'available'],
    ] as const) {
      const matching = status === undefined ? all : all.filter((pet) => pet.status === status);
      const walked = await walk(store, limit, status);
      t.same(ids(walked.pets), ids(matching), `limit ${limit}, status ${status ?? 'any'}`);
      t.equal(
        walked.pages,
        Math.max(1, Math.ceil(matching.length / limit)),
        `limit ${limit}, status ${status ?? 'any'}: no empty last page`,
      );
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
      if (added.length < 6)
        added.push(await store.create(newPet(100 + added.length)), await store.create(newPet(200 + added.length)));
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
    t.same(
      await store.createOnce({ name: 'Rex', categoryId: INT64_MAX, status: 'sold' }, key('k1')),
      { pet: first.pet, replayed: true },
      'the same request: replayed',
    );
    t.same(
      await store.createOnce({ name: 'Other', categoryId: 1 }, key('k1')),
      { pet: first.pet, replayed: true },
      'another body: the recorded pet, for the caller to refuse',
    );
    const second = await store.createOnce({ name: 'Rex', categoryId: INT64_MAX, status: 'sold' }, key('k2'));
    t.equal(second.replayed, false, 'another key: a new pet');
    const noStatus = await store.createOnce({ name: 'Tom', categoryId: -1 }, key('k3'));
    t.same(
      (await store.createOnce({ name: 'Tom', categoryId: -1 }, key('k3'))).pet,
      { id: noStatus.pet.id, name: 'Tom', categoryId: -1 },
      'a pet without status replays without one',
    );
    t.same(
      ids((await store.list({ limit: 10 })).pets),
      [first.pet.id, second.pet.id, noStatus.pet.id],
      'three pets, readable like any other',
    );
    t.same(await read(store, first.pet.id), first.pet);
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
    const results = await Promise.all(
      Array.from({ length: 20 }, () => store.createOnce({ name: 'Rex', categoryId: 7 }, key('race'))),
    );
    t.equal(results.filter((result) => !result.replayed).length, 1, 'one creation');
    t.ok(
      results.every((result) => String(result.pet.id) === String(results[0]!.pet.id)),
      'every call returns that pet',
    );
    t.equal((await store.list({ limit: 100 })).pets.length, 1, 'one pet stored');
  });

  t.test('keys with any allowed characters, up to 255 of them, are kept exactly', async (t) => {
    const store = await createStore(t);
    const keys = ['x'.repeat(255), " !#$%&'()*+,-./:;<=>?@[]^_`{|}~", 'A', 'a', 'a ', ' a'];
    const created = await Promise.all(
      keys.map((name, index) => store.createOnce({ name: `p${index}`, categoryId: index }, key(name))),
    );
    t.ok(
      created.every((result) => !result.replayed),
      'each a key of its own (case and spaces count)',
    );
    for (const [index, name] of keys.entries())
      t.same(
        (await store.createOnce({ name: 'other', categoryId: 0 }, key(name))).pet,
        created[index]!.pet,
        JSON.stringify(name),
      );
  });
}

/** What every store keeps for changes (updatePet, deletePet): versions, preconditions, removal, keys. */
export function changeConformance(t: Test, createStore: StoreFactory): void {
  const scope = 'c'.repeat(64);
  const changeKey = (key: string, operation: string, request: string): ChangeKey => ({
    scope,
    key,
    operation,
    request,
  });

  t.test('a new pet is at version 1; get and list give each pet with its version', async (t) => {
    const store = await createStore(t);
    const pets = await addPets(store, 3);
    t.same(await store.get(pets[0]!.id), { pet: pets[0], version: 1 });
    // Three creates, three events: the page reflects the feed's third.
    const position = (await store.listEvents(undefined, 10)).events.at(-1)!.seq;
    t.same(await store.list({ limit: 10 }), { pets, versions: [1, 1, 1], more: false, position });
    t.same(await store.list({ limit: 1, status: 'pending' }), {
      pets: [pets[1]],
      versions: [1],
      more: false,
      position,
    });
  });

  t.test('update applies a merge patch when the version matches, and counts a version per change', async (t) => {
    const store = await createStore(t);
    const [pet] = await addPets(store, 1);
    const id = pet!.id;
    t.same(await store.update(id, { status: 'sold' }, [1]), {
      kind: 'changed',
      pet: { pet: { ...pet, status: 'sold' }, version: 2 },
    });
    t.same(
      await store.update(id, { name: 'Rexy', categoryId: INT64_MAX }, '*'),
      { kind: 'changed', pet: { pet: { id, name: 'Rexy', categoryId: INT64_MAX, status: 'sold' }, version: 3 } },
      "'*': any version",
    );
    t.same(
      await store.update(id, { status: null }, [2, 3]),
      { kind: 'changed', pet: { pet: { id, name: 'Rexy', categoryId: INT64_MAX }, version: 4 } },
      'status: null removes it; a list of versions matches any of them',
    );
    t.same(
      await store.update(id, {}, [4]),
      { kind: 'changed', pet: { pet: { id, name: 'Rexy', categoryId: INT64_MAX }, version: 4 } },
      'an empty patch changes nothing: the same version',
    );
    t.same(
      await store.update(id, { name: 'Rexy', status: null }, [4]),
      { kind: 'changed', pet: { pet: { id, name: 'Rexy', categoryId: INT64_MAX }, version: 4 } },
      'values it has already: the same version',
    );
    t.same(await store.get(id), { pet: { id, name: 'Rexy', categoryId: INT64_MAX }, version: 4 }, 'read back');
  });

  t.test('update refuses a version the pet does not have, and a pet that is not there, changing nothing', async (t) => {
    const store = await createStore(t);
    const [pet] = await addPets(store, 1);
    await store.update(pet!.id, { status: 'sold' }, [1]);
    t.same(await store.update(pet!.id, { name: 'Lost' }, [1]), { kind: 'failed', version: 2 });
    t.same(await store.update(pet!.id, { name: 'Lost' }, []), { kind: 'failed', version: 2 }, 'no version at all');
    t.same(await store.get(pet!.id), { pet: { ...pet, status: 'sold' }, version: 2 }, 'unchanged');
    for (const id of [0, BigInt(pet!.id) + 1n, INT64_MAX])
      t.same(await store.update(id, { name: 'x' }, '*'), { kind: 'missing' }, String(id));
  });

  t.test('status changes move a pet between filtered lists, which stay in id order', async (t) => {
    const store = await createStore(t);
    const pets = await addPets(store, 12);
    const available = () => store.list({ limit: 100, status: 'available' }).then((page) => ids(page.pets));
    const before = await available();
    await store.update(pets[1]!.id, { status: 'available' }, '*');
    await store.update(pets[0]!.id, { status: 'sold' }, '*');
    await store.update(pets[3]!.id, { status: 'available' }, '*');
    const expected = [...before.filter((id) => id !== pets[0]!.id), pets[1]!.id, pets[3]!.id].sort((a, b) =>
      BigInt(a) < BigInt(b) ? -1 : 1,
    );
    t.same(await available(), expected);
    t.ok(ids((await store.list({ limit: 100, status: 'sold' })).pets).includes(pets[0]!.id), 'sold now');
  });

  t.test('remove takes the pet away for good; its id is never reused', async (t) => {
    const store = await createStore(t);
    const pets = await addPets(store, 6);
    t.same(await store.remove(pets[2]!.id, [2]), { kind: 'failed', version: 1 }, 'another version: kept');
    t.same(await store.remove(pets[2]!.id, [1]), { kind: 'changed', pet: null });
    t.same(await store.remove(pets[4]!.id, '*'), { kind: 'changed', pet: null });
    t.equal(await store.get(pets[2]!.id), null, 'get: none');
    t.same(await store.remove(pets[2]!.id, '*'), { kind: 'missing' }, 'removed again: missing');
    t.same(await store.update(pets[2]!.id, { name: 'x' }, '*'), { kind: 'missing' }, 'updated: missing');
    const left = pets.filter((_, index) => index !== 2 && index !== 4);
    t.same(ids((await store.list({ limit: 100 })).pets), ids(left), 'gone from the list');
    t.same(
      ids((await store.list({ limit: 100, status: 'sold' })).pets),
      ids(left.filter((pet) => pet.status === 'sold')),
      'gone from the filtered list',
    );
    t.same(await pageOf(store, { limit: 3 }), { pets: left.slice(0, 3), more: true });
    t.same(
      await pageOf(store, { limit: 100, after: pets[2]!.id }),
      { pets: left.slice(2), more: false },
      'a cursor past a removed pet still reads on',
    );
    const next = await store.create(newPet(9));
    t.ok(BigInt(next.id) > BigInt(pets[5]!.id), 'a new pet gets a new id');
  });

  t.test('a walk through every page while others remove pets returns each pet not removed exactly once', async (t) => {
    const store = await createStore(t);
    const all = await addPets(store, 60);
    // Removed pets, by id, with how many pets the walk had read when each went.
    const gone = new Map<string, number>();
    for (const [limit, status] of [
      [7, undefined],
      [3, 'sold'],
      [1, undefined],
    ] as const) {
      const seen: string[] = [];
      gone.forEach((_, id) => gone.set(id, 0));
      let after: PetId | undefined;
      for (let page = 0; ; page++) {
        const { pets, more } = await store.list({ limit, status, after });
        seen.push(...pets.map((pet) => String(pet.id)));
        if (!more) break;
        after = pets[pets.length - 1]!.id;
        // Between pages someone removes the pet the cursor points past, the one after it, and one read long ago.
        for (const victim of [BigInt(after), BigInt(after) + 1n, BigInt(all[page % 10]!.id)]) {
          if ((await store.remove(Number(victim), '*')).kind === 'changed') gone.set(String(victim), seen.length);
        }
      }
      const what = `limit ${limit}, status ${status ?? 'any'}`;
      t.equal(new Set(seen).size, seen.length, `${what}: no pet twice`);
      const kept = all
        .filter((pet) => (status === undefined || pet.status === status) && !gone.has(String(pet.id)))
        .map((pet) => String(pet.id));
      t.same(
        seen.filter((id) => !gone.has(id)),
        kept,
        `${what}: every pet not removed, in id order`,
      );
      t.ok(
        seen.every((id, index) => !gone.has(id) || index < gone.get(id)!),
        `${what}: a removed pet only if read before it went`,
      );
    }
  });

  t.test('a last page whose following pets were all removed says no more follow', async (t) => {
    const store = await createStore(t);
    const pets = await addPets(store, 5);
    await store.remove(pets[3]!.id, '*');
    await store.remove(pets[4]!.id, '*');
    t.same(await pageOf(store, { limit: 3 }), { pets: pets.slice(0, 3), more: false });
  });

  t.test('of concurrent changes holding one version, exactly one succeeds', async (t) => {
    const store = await createStore(t);
    const [pet] = await addPets(store, 1);
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, index) => store.update(pet!.id, { name: `writer ${index}` }, [1])),
    );
    const changed = outcomes.filter((outcome) => outcome.kind === 'changed');
    t.equal(changed.length, 1, 'one change');
    t.ok(
      outcomes.every((outcome) => outcome.kind === 'changed' || (outcome.kind === 'failed' && outcome.version === 2)),
      'the others failed at version 2',
    );
    t.same(await store.get(pet!.id), (changed[0] as { pet: unknown }).pet, 'the winner is what is stored');
  });

  t.test('concurrent changes of many pets are each checked and applied as if alone', async (t) => {
    const store = await createStore(t);
    const pets = await addPets(store, 8);
    const outcomes = await Promise.all([
      ...pets.map((pet, index) =>
        store.update(pet.id, { name: `changed ${index}` }, index % 3 === 0 ? [1] : index % 3 === 1 ? '*' : [5]),
      ),
      store.update(BigInt(pets[7]!.id) + 100n, { name: 'nobody' }, '*'),
      store.update(pets[0]!.id, { status: null }, [1, 2]),
    ]);
    pets.forEach((pet, index) => {
      const expected =
        index % 3 === 2
          ? { kind: 'failed', version: 1 }
          : { kind: 'changed', pet: { pet: { ...pet, name: `changed ${index}` }, version: 2 } };
      t.same(outcomes[index], expected, `pet ${index}`);
    });
    t.same(outcomes[8], { kind: 'missing' }, 'a pet that is not there');
    t.same(
      await store.get(pets[0]!.id),
      { pet: { id: pets[0]!.id, name: 'changed 0', categoryId: 0 }, version: 3 },
      'a second change of one pet: after the first, on its version',
    );
  });

  t.test(
    'a change key replays the first answer, refuses another request, and records nothing for a rejection',
    async (t) => {
      const store = await createStore(t);
      const [pet] = await addPets(store, 1);
      const id = pet!.id;
      const sell = changeKey('k1', 'updatePet', `sell ${id}`);
      t.same(
        await store.update(id, { status: 'sold' }, [7], sell),
        { kind: 'failed', version: 1 },
        'refused: nothing recorded',
      );
      const first = await store.update(id, { status: 'sold' }, [1], sell);
      t.same(first, { kind: 'changed', pet: { pet: { ...pet, status: 'sold' }, version: 2 } });
      await store.update(id, { name: 'Later' }, '*');
      t.same(
        await store.update(id, { status: 'sold' }, [1], sell),
        { kind: 'replayed', pet: { pet: { ...pet, status: 'sold' }, version: 2 } },
        'the first answer, not a 412',
      );
      t.same(await store.update(id, { status: 'pending' }, '*', changeKey('k1', 'updatePet', 'another')), {
        kind: 'reused',
        petId: id,
      });
      const removal = changeKey('k1', 'deletePet', `remove ${id}`);
      t.same(
        await store.remove(id, '*', removal),
        { kind: 'changed', pet: null },
        "another operation's keys are apart",
      );
      t.same(
        await store.remove(id, '*', removal),
        { kind: 'replayed', pet: null },
        'a retried removal: replayed, not missing',
      );
      t.same(
        await store.update(id, { status: 'sold' }, [1], sell),
        { kind: 'replayed', pet: { pet: { ...pet, status: 'sold' }, version: 2 } },
        'replayed after the removal too',
      );
      t.same(
        await store.update(id, { status: 'sold' }, [1], { ...sell, scope: 'd'.repeat(64) }),
        { kind: 'missing' },
        "another API key's key is a new key",
      );
    },
  );

  t.test('concurrent changes with one key change once; the others replay it', async (t) => {
    const store = await createStore(t);
    const [pet] = await addPets(store, 1);
    const key = changeKey('race', 'updatePet', 'rename');
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () => store.update(pet!.id, { name: 'Once' }, '*', key)),
    );
    t.equal(outcomes.filter((outcome) => outcome.kind === 'changed').length, 1, 'one change');
    t.equal(outcomes.filter((outcome) => outcome.kind === 'replayed').length, 9, 'nine replays');
    t.same(await store.get(pet!.id), { pet: { ...pet, name: 'Once' }, version: 2 }, 'one version more');
  });

  t.test('changes sent together, keyed or not, updates and removals, answer as if sent one by one', async (t) => {
    const store = await createStore(t);
    const [a, b, c, d, e] = ids(await addPets(store, 5)) as [PetId, PetId, PetId, PetId, PetId];
    const renameA = changeKey('k', 'updatePet', `rename ${a}`);
    await store.update(a, { name: 'recorded' }, '*', changeKey('old', 'updatePet', `rename ${a}`));
    const outcomes = await Promise.all([
      store.update(a, { name: 'A' }, '*', renameA),
      // The same key for another request, after the first in the same batch: refused, as if after it.
      store.update(b, { name: 'B' }, '*', changeKey('k', 'updatePet', `rename ${b}`)),
      // A rejection records nothing: the next request with its key is new.
      store.update(c, { name: 'C' }, [9], changeKey('r', 'updatePet', `refused ${c}`)),
      store.update(d, { name: 'D' }, '*', changeKey('r', 'updatePet', `rename ${d}`)),
      store.remove(e, [1], changeKey('gone', 'deletePet', `remove ${e}`)),
      store.update(e, { name: 'E' }, '*'),
      store.update(a, { name: 'old' }, '*', changeKey('old', 'updatePet', `rename ${a}`)),
      store.remove(c, '*'),
      store.update(a, { status: 'sold' }, [3]),
    ]);
    t.same(outcomes, [
      { kind: 'changed', pet: { pet: { id: a, name: 'A', categoryId: 0, status: 'available' }, version: 3 } },
      { kind: 'reused', petId: a },
      { kind: 'failed', version: 1 },
      { kind: 'changed', pet: { pet: { id: d, name: 'D', categoryId: 3 }, version: 2 } },
      { kind: 'changed', pet: null },
      { kind: 'missing' },
      {
        kind: 'replayed',
        pet: { pet: { id: a, name: 'recorded', categoryId: 0, status: 'available' }, version: 2 },
      },
      { kind: 'changed', pet: null },
      { kind: 'changed', pet: { pet: { id: a, name: 'A', categoryId: 0, status: 'sold' }, version: 4 } },
    ]);
    t.same(ids((await store.list({ limit: 10 })).pets), [a, b, d], 'c and e removed');
    t.same(await store.get(b), { pet: { id: b, name: 'pet 1', categoryId: 1, status: 'pending' }, version: 1 });
  });

  t.test('a create replayed after its pet changed answers as the create did', async (t) => {
    const store = await createStore(t);
    const created = await store.createOnce({ name: 'Rex', categoryId: 1 }, { scope, key: 'create' });
    await store.update(created.pet.id, { name: 'Changed' }, '*');
    t.same(await store.createOnce({ name: 'Rex', categoryId: 1 }, { scope, key: 'create' }), {
      pet: created.pet,
      replayed: true,
    });
    await store.remove(created.pet.id, '*');
    t.same(
      await store.createOnce({ name: 'Rex', categoryId: 1 }, { scope, key: 'create' }),
      { pet: created.pet, replayed: true },
      'and after its removal',
    );
  });
}

/** Every event of the store's feed, oldest first, read page by page. */
async function allEvents(store: PetStore, limit = 1000): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for (;;) {
    const page = await store.listEvents(events.at(-1)?.seq, limit);
    events.push(...page.events);
    if (page.events.length < limit) return events;
  }
}

/** What every store keeps for the change feed and the webhooks' ledger. */
export function eventConformance(t: Test, createStore: StoreFactory): void {
  const summary = (events: readonly StoredEvent[]) =>
    events.map(({ type, petId, version, pet }) => ({ type, petId: String(petId), version, pet }));

  t.test('each acknowledged change is one event, with the pet after it; rejections and no-ops are none', async (t) => {
    const store = await createStore(t);
    const empty = await store.listEvents(undefined, 10);
    t.same(empty.events, []);
    t.equal(empty.horizon, 0, 'nothing dropped');
    t.match(empty.epoch, /^[0-9a-f]{8}$/);
    const before = Date.now();
    const rex = await store.create({ name: 'Rex', categoryId: INT64_MAX, status: 'available' });
    const key = { scope: 'e'.repeat(64), key: 'once' };
    const { pet: tom } = await store.createOnce({ name: 'Tom', categoryId: 2 }, key);
    t.ok((await store.createOnce({ name: 'Tom', categoryId: 2 }, key)).replayed, 'a replay');
    await store.update(rex.id, { status: 'sold' }, [1]);
    await store.update(rex.id, { status: 'sold' }, [2]);
    await store.update(rex.id, { name: 'Lost' }, [1]);
    await store.update(tom.id, { name: 'Tommy', status: 'pending' }, '*', {
      scope: key.scope,
      key: 'change',
      operation: 'updatePet',
      request: 'r',
    });
    await store.remove(rex.id, [1]);
    await store.remove(rex.id, '*');
    await store.remove(rex.id, '*');
    const events = await allEvents(store);
    t.same(summary(events), [
      { type: 'pet.created', petId: String(rex.id), version: 1, pet: rex },
      { type: 'pet.created', petId: String(tom.id), version: 1, pet: tom },
      { type: 'pet.updated', petId: String(rex.id), version: 2, pet: { ...rex, status: 'sold' } },
      { type: 'pet.updated', petId: String(tom.id), version: 2, pet: { ...tom, name: 'Tommy', status: 'pending' } },
      { type: 'pet.deleted', petId: String(rex.id), version: 3, pet: undefined },
    ]);
    t.ok(
      events.every((event, index) => index === 0 || event.seq > events[index - 1]!.seq),
      'seqs grow',
    );
    t.ok(
      events.every(({ occurredAt }) => occurredAt >= before - 1000 && occurredAt <= Date.now() + 1000),
      'recorded now',
    );
    t.same(
      summary((await store.listEvents(events[1]!.seq, 2)).events),
      summary(events.slice(2, 4)),
      'after a seq, up to the limit',
    );
    const copy = (await store.listEvents(undefined, 1)).events[0]!;
    copy.pet!.name = 'changed by a caller';
    t.equal((await store.listEvents(undefined, 1)).events[0]!.pet!.name, 'Rex', 'a returned event is a copy');
  });

  t.test(
    'concurrent writers: every acknowledged change once, each pet without a gap, a concurrent reader skips none',
    async (t) => {
      const store = await createStore(t);
      const pets = await addPets(store, 6);
      const acknowledged: string[] = pets.map((pet) => `${pet.id}:1`);
      let writing = true;
      // A follower reads while the writers write, as listPetEvents' long polls do.
      const followed: StoredEvent[] = [];
      // It ends on an empty read that began after the last write was acknowledged: one that began
      // before could respond before that write commits (a fresh-clone run's walkthrough saw it so).
      const follower = (async () => {
        for (;;) {
          const began = writing;
          const { events } = await store.listEvents(followed.at(-1)?.seq, 7);
          followed.push(...events);
          if (!began && events.length === 0) return;
        }
      })();
      await Promise.all(
        Array.from({ length: 12 }, async (_, writer) => {
          for (let round = 0; round < 8; round++) {
            const pet = pets[(writer + round) % pets.length]!;
            if (writer === 0 && round === 7) {
              const outcome = await store.remove(pet.id, '*');
              if (outcome.kind === 'changed') acknowledged.push(`${pet.id}:removed`);
              continue;
            }
            const outcome = await store.update(pet.id, { name: `w${writer} r${round}` }, '*');
            if (outcome.kind === 'changed') acknowledged.push(`${pet.id}:${outcome.pet!.version}`);
            if (writer % 4 === 1) acknowledged.push(`${(await store.create(newPet(writer))).id}:1`);
          }
        }),
      );
      writing = false;
      await follower;
      const events = await allEvents(store, 5);
      const named = events.map(({ type, petId, version }) =>
        type === 'pet.deleted' ? `${petId}:removed` : `${petId}:${version}`,
      );
      t.same([...named].sort(), [...acknowledged].sort(), 'the feed holds each acknowledged change, once');
      const versions = new Map<string, number>();
      for (const { petId, version } of events) {
        const last = versions.get(String(petId)) ?? 0;
        if (version !== last + 1) t.fail(`pet ${petId}: version ${version} after ${last}`);
        versions.set(String(petId), version);
      }
      t.pass('each pet: versions 1, 2, 3… in feed order');
      t.same(
        followed.map(({ seq }) => seq),
        events.map(({ seq }) => seq),
        'the follower read exactly the feed, in order',
      );
    },
  );

  t.test('purgeEvents drops the oldest; a cursor before them is behind the horizon', async (t) => {
    const store = await createStore(t);
    await addPets(store, 3);
    const events = await allEvents(store);
    t.equal(await store.purgeEvents(3_600_000), 0, 'none older than an hour');
    await new Promise((resolve) => setTimeout(resolve, 20));
    t.equal(await store.purgeEvents(0), 3, 'all older than now');
    const page = await store.listEvents(undefined, 10);
    t.same(page.events, []);
    t.equal(page.horizon, events[2]!.seq, 'the horizon is the last one dropped');
    t.ok((await store.listEvents(events[0]!.seq, 10)).horizon > events[0]!.seq, 'an old cursor can tell it is expired');
    const [pet] = await addPets(store, 1);
    t.same(
      summary((await store.listEvents(page.horizon, 10)).events).map(({ petId }) => petId),
      [String(pet!.id)],
      'the feed goes on',
    );
  });

  t.test('the deliveries ledger: one owner at a time, starting after the newest event', async (t) => {
    const store = await createStore(t);
    await addPets(store, 2);
    const newest = (await allEvents(store)).at(-1)!.seq;
    const ledger = store.deliveries;
    const state = await ledger.claim('https://a.example/hook', 'one', 10_000);
    t.same(
      state,
      { position: newest, attempt: 0, dueAt: 0, stoppedEntry: '', generation: 0, skipped: 0, lastAttempt: undefined },
      'a new endpoint starts after the newest event',
    );
    t.equal(await ledger.claim('https://a.example/hook', 'two', 10_000), null, 'held by one');
    const next = {
      position: newest + 5,
      attempt: 2,
      dueAt: Date.parse('2030-01-01T00:00:00.000Z'),
      stoppedEntry: 'digest',
      generation: 0,
      skipped: 0,
      lastAttempt: {
        at: Date.parse('2029-12-31T23:00:00.000Z'),
        event: newest + 6,
        status: 503,
        error: 'responded with 503',
      },
    };
    t.ok(await ledger.record('https://a.example/hook', 'one', next, 10_000));
    t.notOk(await ledger.record('https://a.example/hook', 'two', { ...next, attempt: 9 }, 10_000), 'not by another');
    t.same(await ledger.claim('https://a.example/hook', 'one', 10_000), next, 'as recorded');
    t.same(
      await ledger.claim('https://b.example/hook', 'two', 50),
      { position: newest, attempt: 0, dueAt: 0, stoppedEntry: '', generation: 0, skipped: 0, lastAttempt: undefined },
      'endpoints are apart',
    );
    await ledger.release('https://a.example/hook', 'one');
    t.same(await ledger.claim('https://a.example/hook', 'two', 10_000), next, 'released: another takes it on');
    await new Promise((resolve) => setTimeout(resolve, 120));
    t.ok(await ledger.claim('https://b.example/hook', 'one', 10_000), 'a lease that lapsed is taken over');

    // An operator moves a position: whoever holds the lease, the attempts afresh, not stopped.
    const moved = await ledger.setPosition('https://a.example/hook', 1);
    t.same(moved, { ...next, position: 1, attempt: 0, dueAt: 0, stoppedEntry: '', generation: 1 });
    t.notOk(
      await ledger.record('https://a.example/hook', 'two', { ...next, position: newest + 9 }, 10_000),
      'a delivery claimed before the move records nothing: it would move the position back',
    );
    t.same(
      await ledger.read(['https://a.example/hook', 'https://c.example/none']),
      new Map([
        ['https://a.example/hook', moved],
        [
          'https://c.example/none',
          {
            position: newest,
            attempt: 0,
            dueAt: 0,
            stoppedEntry: '',
            generation: 0,
            skipped: 0,
            lastAttempt: undefined,
          },
        ],
      ]),
      'one not seen yet, as it will start: after the newest event',
    );
    t.ok(
      await ledger.record('https://a.example/hook', 'two', { ...moved, position: 2 }, 10_000),
      'claimed after: recorded',
    );
    const withNo2xx = {
      ...moved,
      position: 2,
      lastAttempt: { at: Date.parse('2030-01-02T00:00:00.000Z'), event: 3, error: 'not reached' },
    };
    t.ok(await ledger.record('https://a.example/hook', 'two', withNo2xx, 10_000));
    t.same(
      (await ledger.read(['https://a.example/hook'])).get('https://a.example/hook')!.lastAttempt,
      { at: Date.parse('2030-01-02T00:00:00.000Z'), event: 3, status: undefined, error: 'not reached' },
      'an attempt the endpoint did not answer has no status',
    );
    const accepted = {
      ...withNo2xx,
      lastAttempt: { at: Date.parse('2030-01-03T00:00:00.000Z'), event: 3, status: 204 },
    };
    t.ok(await ledger.record('https://a.example/hook', 'two', accepted, 10_000));
    t.same(
      (await ledger.read(['https://a.example/hook'])).get('https://a.example/hook')!.lastAttempt,
      { at: Date.parse('2030-01-03T00:00:00.000Z'), event: 3, status: 204, error: undefined },
      'an attempt accepted has no error',
    );
    t.same(
      await ledger.setPosition('https://c.example/new', 0),
      { position: 0, attempt: 0, dueAt: 0, stoppedEntry: '', generation: 1, skipped: 0, lastAttempt: undefined },
      'an endpoint not seen yet starts where it is set',
    );
    t.same(
      await ledger.setPosition('https://c.example/new', undefined),
      { position: newest, attempt: 0, dueAt: 0, stoppedEntry: '', generation: 2, skipped: 2, lastAttempt: undefined },
      'no position: after the newest event, the two events passed over counted as skipped',
    );
    t.equal((await ledger.setPosition('https://c.example/new', 0)).skipped, 2, 'moving back skips nothing');
  });
}
