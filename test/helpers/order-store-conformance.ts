// The contract every store keeps for orders (src/store/order-store.ts), run by each store's own
// test file against itself: the in-memory store on its injected clock, PostgreSQL on its own.
import type { Test } from 'tap';
import type { OrderOutcome, OrderViewer, Placing, StoredOrder } from '../../src/store/order-store.js';
import type { ChangeKey, PetStore } from '../../src/store/pet-store.js';
import type { NewPet, PetId } from '../../src/types/api.js';

/** A fresh, empty store for one test, and how time passes for it (an injected clock moved, or a real wait). */
export type OrderStoreFactory = (t: Test) => Promise<{ store: PetStore; pass: (ms: number) => Promise<void> }>;

const rex: NewPet = { name: 'Rex', categoryId: 1, status: 'available' };

// A customer (client shop) who sees only its own orders, with a cap no test here reaches but the cap's own.
const SHOP: OrderViewer = { client: 'shop', everyOrder: false };
const AS_SHOP: Placing = { client: 'shop', maxHolds: 1000 };

const orderOf = (t: Test, outcome: OrderOutcome, what: string): StoredOrder => {
  if (outcome.kind !== 'done' && outcome.kind !== 'replayed') {
    t.fail(`${what}: ${JSON.stringify(outcome)}`);
    throw new Error(what);
  }
  return outcome.order;
};

/** The version of the pet and the events recorded for it, in order. */
async function history(store: PetStore, id: PetId) {
  const events = (await store.listEvents(undefined, 1000)).events.filter((event) => event.petId === id);
  return {
    version: (await store.get(id))?.version,
    status: (await store.get(id))?.pet.status,
    events: events.map((event) => `${event.type}:${event.version}:${event.pet?.status ?? '-'}`),
  };
}

const key = (name: string, operation: string, request: string): ChangeKey => ({
  scope: 'c'.repeat(64),
  key: name,
  operation,
  request,
});

export function orderConformance(t: Test, open: OrderStoreFactory): void {
  t.test('placing holds an available pet: the pet is pending, one version step, one event', async (t) => {
    const { store } = await open(t);
    const pet = await store.create(rex);
    const order = orderOf(t, await store.orders.place(pet.id, 900, AS_SHOP), 'placed');
    t.match(order, { petId: pet.id, status: 'placed' });
    t.equal(order.expiresAt - order.placedAt, 900_000, 'held for holdSeconds');
    t.notOk('closedAt' in order || 'cancelReason' in order, 'no closedAt or cancelReason while placed');
    t.same(await history(store, pet.id), {
      version: 2,
      status: 'pending',
      events: ['pet.created:1:available', 'pet.updated:2:pending'],
    });
    t.same(await store.orders.get(order.id, SHOP), order, 'read back as placed');
    t.same(await store.orders.place(pet.id, 900, AS_SHOP), {
      kind: 'unavailable',
      unavailable: { why: 'status', status: 'pending' },
    });
  });

  t.test('a pet that cannot be held is refused, saying why, and nothing changes', async (t) => {
    const { store } = await open(t);
    const sold = await store.create({ ...rex, status: 'sold' });
    const none = await store.create({ name: 'Tom', categoryId: 2 });
    const gone = await store.create(rex);
    await store.remove(gone.id, '*');
    t.same(await store.orders.place(sold.id, 60, AS_SHOP), {
      kind: 'unavailable',
      unavailable: { why: 'status', status: 'sold' },
    });
    t.same(await store.orders.place(none.id, 60, AS_SHOP), {
      kind: 'unavailable',
      unavailable: { why: 'status', status: undefined },
    });
    t.same(await store.orders.place(gone.id, 60, AS_SHOP), { kind: 'unavailable', unavailable: { why: 'removed' } });
    t.same(await store.orders.place(10_000, 60, AS_SHOP), { kind: 'unavailable', unavailable: { why: 'missing' } });
    t.same(await store.orders.place(2n ** 62n, 60, AS_SHOP), { kind: 'unavailable', unavailable: { why: 'missing' } });
    t.same((await store.orders.list({ viewer: SHOP, limit: 10 })).orders, [], 'no order was placed');
    t.equal((await store.get(sold.id))?.version, 1, 'the pets are unchanged');
  });

  t.test('completing sells the pet; completing again answers the same; cancelling then is a conflict', async (t) => {
    const { store } = await open(t);
    const pet = await store.create(rex);
    const placed = orderOf(t, await store.orders.place(pet.id, 900, AS_SHOP), 'placed');
    const completed = orderOf(t, await store.orders.complete(placed.id, SHOP), 'completed');
    t.match(completed, { id: placed.id, status: 'completed', placedAt: placed.placedAt });
    t.ok(completed.closedAt! >= placed.placedAt && completed.closedAt! < placed.expiresAt, 'closed when completed');
    t.same(await store.orders.complete(placed.id, SHOP), { kind: 'done', order: completed }, 'again: unchanged');
    t.same(await store.orders.cancel(placed.id, SHOP), { kind: 'conflict', order: completed });
    t.same((await history(store, pet.id)).events.slice(1), ['pet.updated:2:pending', 'pet.updated:3:sold']);
    t.same(await store.orders.complete(999_999, SHOP), { kind: 'missing' });
    t.same(await store.orders.cancel(2n ** 63n - 1n, SHOP), { kind: 'missing' });
    t.equal(await store.orders.get(999_999, SHOP), null);
  });

  t.test('cancelling frees the pet; cancelling again answers the same; completing then is a conflict', async (t) => {
    const { store } = await open(t);
    const pet = await store.create(rex);
    const placed = orderOf(t, await store.orders.place(pet.id, 900, AS_SHOP), 'placed');
    const cancelled = orderOf(t, await store.orders.cancel(placed.id, SHOP), 'cancelled');
    t.match(cancelled, { status: 'cancelled', cancelReason: 'customer' });
    t.same(await store.orders.cancel(placed.id, SHOP), { kind: 'done', order: cancelled });
    t.same(await store.orders.complete(placed.id, SHOP), { kind: 'conflict', order: cancelled });
    t.same(await history(store, pet.id), {
      version: 3,
      status: 'available',
      events: ['pet.created:1:available', 'pet.updated:2:pending', 'pet.updated:3:available'],
    });
    t.equal(orderOf(t, await store.orders.place(pet.id, 60, AS_SHOP), 'placed again').status, 'placed', 'held anew');
  });

  t.test('an order past expiresAt reads expired at once; the sweep frees its pet once', async (t) => {
    const { store, pass } = await open(t);
    const pet = await store.create(rex);
    const placed = orderOf(t, await store.orders.place(pet.id, 1, AS_SHOP), 'placed');
    await pass(1100);
    const expired = { ...placed, status: 'expired', closedAt: placed.expiresAt };
    t.same(await store.orders.get(placed.id, SHOP), expired, 'expired, closed at expiresAt');
    t.same(
      (await store.orders.list({ viewer: SHOP, limit: 5, status: 'expired' })).orders,
      [expired],
      'listed as expired',
    );
    t.same((await store.orders.list({ viewer: SHOP, limit: 5, status: 'placed' })).orders, [], 'not as placed');
    t.same(await store.orders.complete(placed.id, SHOP), { kind: 'conflict', order: expired }, 'too late to complete');
    await store.orders.expire();
    await store.orders.expire();
    t.same(await history(store, pet.id), {
      version: 3,
      status: 'available',
      events: ['pet.created:1:available', 'pet.updated:2:pending', 'pet.updated:3:available'],
    });
    t.same(await store.orders.cancel(placed.id, SHOP), { kind: 'conflict', order: expired });
  });

  t.test('the sweep frees every pet whose hold ended, and only those', async (t) => {
    const { store, pass } = await open(t);
    const pets = await Promise.all([1, 2, 3].map((index) => store.create({ ...rex, categoryId: index })));
    await store.orders.place(pets[0]!.id, 1, AS_SHOP);
    await store.orders.place(pets[1]!.id, 1, AS_SHOP);
    const kept = orderOf(t, await store.orders.place(pets[2]!.id, 600, AS_SHOP), 'kept');
    await pass(1100);
    t.equal(await store.orders.expire(), 2, 'two expired');
    t.equal(await store.orders.expire(), 0, 'none left');
    t.same(await Promise.all(pets.map(async (pet) => (await store.get(pet.id))?.pet.status)), [
      'available',
      'available',
      'pending',
    ]);
    t.equal((await store.orders.get(kept.id, SHOP))?.status, 'placed');
  });

  t.test("a change of a held pet's status cancels its order; of its name, not; a removal does", async (t) => {
    const { store } = await open(t);
    const pet = await store.create(rex);
    const other = await store.create(rex);
    const first = orderOf(t, await store.orders.place(pet.id, 900, AS_SHOP), 'first');
    const second = orderOf(t, await store.orders.place(other.id, 900, AS_SHOP), 'second');
    await store.update(pet.id, { name: 'Rexy', categoryId: 9 }, '*');
    t.equal((await store.orders.get(first.id, SHOP))?.status, 'placed', 'a rename leaves it placed');
    const changed = await store.update(pet.id, { status: 'sold' }, '*');
    t.equal(changed.kind, 'changed', 'the update answers as ever');
    t.match(await store.orders.get(first.id, SHOP), { status: 'cancelled', cancelReason: 'pet_changed' });
    t.equal((await store.get(pet.id))?.pet.status, 'sold', 'the pet as the update left it');
    await store.remove(other.id, '*');
    t.match(await store.orders.get(second.id, SHOP), { status: 'cancelled', cancelReason: 'pet_deleted' });
    t.same((await store.orders.list({ viewer: SHOP, limit: 5, status: 'placed' })).orders, [], 'no order holds a pet');
  });

  t.test('orders are listed in id order, filtered by status and pet, page after page', async (t) => {
    const { store } = await open(t);
    const pets = await Promise.all([1, 2, 3, 4, 5].map((index) => store.create({ ...rex, categoryId: index })));
    const orders = [];
    for (const pet of pets) orders.push(orderOf(t, await store.orders.place(pet.id, 900, AS_SHOP), 'placed'));
    await store.orders.cancel(orders[1]!.id, SHOP);
    await store.orders.complete(orders[3]!.id, SHOP);
    const ids = (page: { orders: StoredOrder[] }) => page.orders.map((order) => order.id);
    t.same(
      ids(await store.orders.list({ viewer: SHOP, limit: 10 })),
      orders.map((order) => order.id),
    );
    const first = await store.orders.list({ viewer: SHOP, limit: 2 });
    t.same(ids(first), [orders[0]!.id, orders[1]!.id]);
    t.ok(first.more, 'more follow');
    const last = await store.orders.list({ viewer: SHOP, limit: 3, after: orders[1]!.id });
    t.same(
      ids(last),
      orders.slice(2).map((order) => order.id),
    );
    t.notOk(last.more, 'nothing after the last');
    t.same(ids(await store.orders.list({ viewer: SHOP, limit: 10, status: 'placed' })), [
      orders[0]!.id,
      orders[2]!.id,
      orders[4]!.id,
    ]);
    t.same(ids(await store.orders.list({ viewer: SHOP, limit: 10, status: 'cancelled' })), [orders[1]!.id]);
    t.same(ids(await store.orders.list({ viewer: SHOP, limit: 10, petId: pets[3]!.id })), [orders[3]!.id]);
    t.same(ids(await store.orders.list({ viewer: SHOP, limit: 10, petId: pets[3]!.id, status: 'placed' })), []);
    t.same(
      ids(await store.orders.list({ viewer: SHOP, limit: 10, after: 2n ** 63n - 1n })),
      [],
      'after the greatest id',
    );
    t.equal(
      (await store.orders.list({ viewer: SHOP, limit: 10, after: -(2n ** 63n) })).orders.length,
      5,
      'after the least id: all',
    );
  });

  t.test('a key replays its first answer, even once the order moved on; another request gets reused', async (t) => {
    const { store } = await open(t);
    const pet = await store.create(rex);
    const place = key('k1', 'placeOrder', `place ${pet.id}`);
    const placed = orderOf(t, await store.orders.place(pet.id, 900, { ...AS_SHOP, key: place }), 'placed');
    const cancel = key('k1', 'cancelOrder', `cancel ${placed.id}`);
    const cancelled = orderOf(t, await store.orders.cancel(placed.id, SHOP, cancel), 'cancelled');
    t.same(
      await store.orders.place(pet.id, 900, { ...AS_SHOP, key: place }),
      { kind: 'replayed', order: placed },
      'the placed order',
    );
    t.same(await store.orders.cancel(placed.id, SHOP, cancel), { kind: 'replayed', order: cancelled });
    t.same(await store.orders.place(pet.id, 60, { ...AS_SHOP, key: { ...place, request: 'another' } }), {
      kind: 'reused',
    });
    t.equal((await store.orders.list({ viewer: SHOP, limit: 10 })).orders.length, 1, 'one order placed in all');
    t.equal((await store.get(pet.id))?.version, 3, 'and the pet moved twice');
  });

  t.test('a rejection records nothing: the key is free for the request once it can succeed', async (t) => {
    const { store } = await open(t);
    const pet = await store.create({ ...rex, status: 'sold' });
    const place = key('k2', 'placeOrder', `place ${pet.id}`);
    t.equal((await store.orders.place(pet.id, 900, { ...AS_SHOP, key: place })).kind, 'unavailable');
    await store.update(pet.id, { status: 'available' }, '*');
    t.equal(
      (await store.orders.place(pet.id, 900, { ...AS_SHOP, key: place })).kind,
      'done',
      'placed with the same key',
    );
    const complete = key('k3', 'completeOrder', 'complete 999999');
    t.same(await store.orders.complete(999_999, SHOP, complete), { kind: 'missing' });
    t.same(await store.orders.complete(999_999, SHOP, complete), { kind: 'missing' }, 'still missing, not replayed');
  });

  t.test('concurrent retries with one key: one order, the others replay it', async (t) => {
    const { store } = await open(t);
    const pet = await store.create(rex);
    const place = key('k4', 'placeOrder', `place ${pet.id}`);
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () => store.orders.place(pet.id, 900, { ...AS_SHOP, key: place })),
    );
    t.same(
      outcomes.map((outcome) => outcome.kind).sort(),
      ['done', ...Array.from({ length: 7 }, () => 'replayed')],
      'one placed, seven replays',
    );
    const ids = new Set(outcomes.map((outcome) => (outcome as { order: StoredOrder }).order.id));
    t.equal(ids.size, 1, 'all of the same order');
  });

  t.test('of 20 concurrent orders for one pet, exactly one is placed', async (t) => {
    const { store } = await open(t);
    const pet = await store.create(rex);
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => store.orders.place(pet.id, 900, AS_SHOP)));
    t.equal(outcomes.filter((outcome) => outcome.kind === 'done').length, 1, 'one placed');
    t.equal(outcomes.filter((outcome) => outcome.kind === 'unavailable').length, 19, 'the rest refused');
    t.equal((await store.get(pet.id))?.version, 2, 'one version step');
  });

  t.test("an order is its client's: another client finds it as an id that never existed; staff find all", async (t) => {
    const { store } = await open(t);
    const pets = await Promise.all([1, 2, 3].map((index) => store.create({ ...rex, categoryId: index })));
    const KIOSK: OrderViewer = { client: 'kiosk', everyOrder: false };
    const STAFF: OrderViewer = { client: 'staff', everyOrder: true };
    const mine = orderOf(t, await store.orders.place(pets[0]!.id, 900, AS_SHOP), 'shop');
    const also = orderOf(t, await store.orders.place(pets[1]!.id, 900, AS_SHOP), 'shop');
    const theirs = orderOf(t, await store.orders.place(pets[2]!.id, 900, { client: 'kiosk', maxHolds: 5 }), 'kiosk');
    t.equal(mine.placedBy, 'shop', 'the owner is recorded');
    t.equal(await store.orders.get(mine.id, KIOSK), null, "another's order reads as none");
    t.same(await store.orders.cancel(mine.id, KIOSK), { kind: 'missing' }, 'and cannot be cancelled');
    t.same(await store.orders.complete(mine.id, KIOSK), { kind: 'missing' }, 'nor completed');
    const ids = async (viewer: OrderViewer, placedBy?: string) =>
      (await store.orders.list({ viewer, limit: 10, placedBy })).orders.map((order) => order.id);
    t.same(await ids(KIOSK), [theirs.id], 'a list holds only its own');
    t.same(await ids(SHOP), [mine.id, also.id]);
    t.same(await ids(STAFF), [mine.id, also.id, theirs.id], 'staff list every order');
    t.same(await ids(STAFF, 'kiosk'), [theirs.id], "or one client's");
    t.same(await store.orders.get(theirs.id, STAFF), theirs, 'staff read any');
    t.match(orderOf(t, await store.orders.cancel(mine.id, STAFF), 'staff cancel'), {
      status: 'cancelled',
      cancelReason: 'store',
    });
    t.match(orderOf(t, await store.orders.cancel(also.id, SHOP), 'own cancel'), { cancelReason: 'customer' });
    t.match(orderOf(t, await store.orders.complete(theirs.id, STAFF), 'staff complete'), { status: 'completed' });
    t.equal((await store.get(pets[0]!.id))?.pet.status, 'available', "the staff's cancel freed the pet");
  });

  t.test('a client holds at most maxHolds placed orders; completing, cancelling or expiry frees a place', async (t) => {
    const { store, pass } = await open(t);
    const pets = await Promise.all([1, 2, 3, 4, 5].map((index) => store.create({ ...rex, categoryId: index })));
    const capped: Placing = { client: 'shop', maxHolds: 2 };
    const first = orderOf(t, await store.orders.place(pets[0]!.id, 1, capped), 'first');
    const second = orderOf(t, await store.orders.place(pets[1]!.id, 900, capped), 'second');
    t.same(await store.orders.place(pets[2]!.id, 900, capped), { kind: 'limited', limit: 2 }, 'the third is refused');
    t.same(
      await store.orders.place(pets[0]!.id, 900, capped),
      { kind: 'unavailable', unavailable: { why: 'status', status: 'pending' } },
      'a pet that cannot be held is the reason first, whatever the client holds',
    );
    t.same(await store.orders.place(10_000, 900, capped), { kind: 'unavailable', unavailable: { why: 'missing' } });
    t.equal((await store.get(pets[2]!.id))?.version, 1, 'and its pet left alone');
    const other = await store.orders.place(pets[2]!.id, 900, { client: 'kiosk', maxHolds: 2 });
    t.equal(other.kind, 'done', "another client's places are its own");
    await store.orders.cancel(second.id, SHOP);
    t.equal((await store.orders.place(pets[3]!.id, 900, capped)).kind, 'done', 'a cancel frees a place');
    t.equal((await store.orders.place(pets[4]!.id, 900, capped)).kind, 'limited');
    await pass(1100);
    t.equal((await store.orders.get(first.id, SHOP))?.status, 'expired');
    t.equal((await store.orders.place(pets[4]!.id, 900, capped)).kind, 'done', 'an expiry frees a place');
  });

  t.test('of 12 concurrent orders of one client for 12 pets, exactly maxHolds are placed', async (t) => {
    const { store } = await open(t);
    const pets = await Promise.all(
      Array.from({ length: 12 }, (_, index) => store.create({ ...rex, categoryId: index })),
    );
    const capped: Placing = { client: 'shop', maxHolds: 5 };
    const outcomes = await Promise.all(pets.map((pet) => store.orders.place(pet.id, 900, capped)));
    t.equal(outcomes.filter((outcome) => outcome.kind === 'done').length, 5, 'five placed');
    t.equal(outcomes.filter((outcome) => outcome.kind === 'limited').length, 7, 'the rest refused');
  });
}
