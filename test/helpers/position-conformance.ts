// Positions (docs/replicas.md), as every PetStore keeps them, run by each store's own test file: a
// write's position is at or after its own event and never past the feed; a read made at least at a
// position reports where it read, at or after it, and reflects every write up to it; positions never
// go back. The in-memory store has no replicas, and its positions still work.
import type { Test } from 'tap';
import type { PetStore } from '../../src/store/pet-store.js';
import type { ReadAt } from '../../src/store/read-at.js';
import type { StoreFactory } from './pet-store-conformance.js';

const STAFF = { client: 'staff', everyOrder: true };

/** The feed's newest seq, as a read of the whole feed sees it. */
async function feedEnd(store: PetStore): Promise<number> {
  const { events, horizon } = await store.listEvents(undefined, 1000);
  return events.at(-1)?.seq ?? horizon;
}

export function positionConformance(t: Test, createStore: StoreFactory): void {
  t.test("a write's position is at or after its event, and a read at it reflects the write", async (t) => {
    const store = await createStore(t);
    const pet = await store.create({ name: 'Rex', categoryId: 1, status: 'available' });
    const created = store.writePosition();
    const [event] = (await store.listEvents(undefined, 1000)).events.filter(({ petId }) => petId === pet.id);
    t.ok(created >= event!.seq && created <= (await feedEnd(store)), `a create: ${created}, its event ${event!.seq}`);

    const changed = await store.update(pet.id, { name: 'Rex II' }, '*');
    t.equal(changed.kind, 'changed');
    const afterChange = store.writePosition();
    t.ok(afterChange > created, 'each change moves it on');

    const at: ReadAt = { atLeast: afterChange };
    t.equal((await store.get(pet.id, at))?.pet.name, 'Rex II', 'get reflects the change');
    t.ok(at.position! >= afterChange, 'and reads at or after it');
    const page: ReadAt = { atLeast: afterChange };
    const listed = await store.list({ limit: 10, at: page });
    t.equal(listed.pets[0]?.name, 'Rex II');
    t.equal(page.position, listed.position, "a list reads at its page's position");
    const feed: ReadAt = { atLeast: afterChange };
    await store.listEvents(undefined, 10, feed);
    t.ok(feed.position! >= afterChange, 'the feed too');

    const placed = await store.orders.place(pet.id, 60, { client: 'shop', maxHolds: 5 });
    t.equal(placed.kind, 'done');
    const ordered = store.writePosition();
    t.ok(ordered > afterChange, "an order's hold is a change of its pet");
    const order: ReadAt = { atLeast: ordered };
    t.equal((await store.orders.get(placed.kind === 'done' ? placed.order.id : 0, STAFF, order))?.status, 'placed');
    t.ok(order.position! >= ordered);
    const orders: ReadAt = { atLeast: ordered };
    t.equal((await store.orders.list({ viewer: STAFF, limit: 10, at: orders })).orders.length, 1);
    t.ok(orders.position! >= ordered);
  });

  t.test('a read without a position reports where it read; positions never go back', async (t) => {
    const store = await createStore(t);
    const seen: number[] = [];
    for (let index = 0; index < 5; index++) {
      const pet = await store.create({ name: `pet ${index}`, categoryId: index });
      seen.push(store.writePosition());
      const at: ReadAt = {};
      await store.get(pet.id, at);
      seen.push(at.position!);
    }
    t.same(
      seen,
      [...seen].sort((a, b) => a - b),
      `in order: ${seen.join(', ')}`,
    );
    t.equal(seen.at(-1), await feedEnd(store), 'the last read is at the end of the feed');
  });
}
