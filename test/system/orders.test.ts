// No pet is sold twice, across instances: three server processes on one PostgreSQL, the typed
// client against each in turn. Races to place an order for one pet, races of completion,
// cancellation and expiry on one order, and holds that expire while every instance sweeps; after
// each, the invariants: a pet is pending exactly when one placed order holds it, no pet has two
// completed orders, and every move of an order has its pet's event in the feed, once.
import t, { type Test } from 'tap';
import { createClient, PetstoreError, type components, type PetstoreClient } from 'petstore-client';
import { API_KEY } from '../helpers/build-app.js';
import { startTestDatabase, whyNoPostgres } from '../helpers/postgres.js';
import { startRacingInstance, type Running } from '../helpers/server-process.js';
import { until } from '../helpers/until.js';

type Order = components['schemas']['Order'];
type Pet = components['schemas']['Pet'];
type PetEvent = components['schemas']['PetEvent'];

const database = await startTestDatabase(t);
const skip = database === undefined ? (whyNoPostgres() ?? true) : false;
t.setTimeout(240_000);

// One client places every order here, far more than the default cap on a client's holds allows at
// once: these races are about pets (order-owners.test.ts races the cap).
const instance = (t: Test, url: string): Promise<Running> =>
  startRacingInstance(t, url, API_KEY, { ORDER_HOLDS_PER_CLIENT: '1000' });

async function threeInstances(t: Test): Promise<PetstoreClient[]> {
  const url = await database!.freshSchema();
  const servers = [await instance(t, url), await instance(t, url), await instance(t, url)];
  return servers.map((server) =>
    createClient({
      baseUrl: `http://127.0.0.1:${server.port}/v1`,
      apiKey: API_KEY,
      maxRetries: 0,
      logger: { warn: () => undefined },
    }),
  );
}

/** The status of a call: its 2xx, or the status of the PetstoreError it rejected with. */
async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
    return 200;
  } catch (error) {
    if (error instanceof PetstoreError) return error.status;
    throw error;
  }
}

async function all<T>(pages: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of pages) items.push(item);
  return items;
}

/**
 * The invariants, once every hold that ended is swept: a pet is pending exactly when one placed
 * order holds it; no pet has two completed orders; each pet has one pending event per order, one
 * sold event per completed order and one available event per order that freed it.
 */
async function expectInvariants(t: Test, client: PetstoreClient) {
  let pets: Pet[] = [];
  let orders: Order[] = [];
  const held = () => {
    const placed = new Map<string, number>();
    for (const order of orders.filter((candidate) => candidate.status === 'placed'))
      placed.set(String(order.petId), (placed.get(String(order.petId)) ?? 0) + 1);
    return pets.every(
      (pet) =>
        (pet.status === 'pending') === (placed.get(String(pet.id)) === 1) && (placed.get(String(pet.id)) ?? 0) <= 1,
    );
  };
  await until(
    'every pet pending exactly when one placed order holds it',
    async () => {
      pets = await all(client.listPets({ limit: 100 }));
      orders = await all(client.listOrders({ limit: 100 }));
      return held();
    },
    10_000,
    200,
  );
  t.pass(`${pets.length} pets: pending exactly when one placed order holds it`);
  const events: PetEvent[] = [];
  for await (const page of client.listPetEvents({ limit: 1000 }).pages()) {
    if (page.items.length === 0) break;
    events.push(...page.items);
  }
  const count = (petId: string, status: string) =>
    events.filter(
      (event) => String(event.petId) === petId && event.type === 'pet.updated' && event.pet?.status === status,
    ).length;
  const problems: string[] = [];
  for (const pet of pets) {
    const id = String(pet.id);
    const mine = orders.filter((order) => String(order.petId) === id);
    const completed = mine.filter((order) => order.status === 'completed').length;
    const freed = mine.filter((order) => order.status === 'cancelled' || order.status === 'expired').length;
    if (completed > 1) problems.push(`pet ${id} sold to ${completed} orders`);
    if (count(id, 'pending') !== mine.length)
      problems.push(`pet ${id}: ${count(id, 'pending')} holds for ${mine.length} orders`);
    if (count(id, 'sold') !== completed)
      problems.push(`pet ${id}: ${count(id, 'sold')} sales for ${completed} completed`);
    if (count(id, 'available') !== freed)
      problems.push(`pet ${id}: freed ${count(id, 'available')} times for ${freed}`);
  }
  t.same(problems, [], 'no pet sold twice, and every move of an order is its pet event, once');
}

t.test('race to place: of 50 concurrent orders for one pet, one is placed and 49 get 409', { skip }, async (t) => {
  const clients = await threeInstances(t);
  const pets = await Promise.all(
    Array.from({ length: 20 }, (_, index) =>
      clients[index % 3]!.createPet({ name: `pet ${index}`, categoryId: index, status: 'available' }),
    ),
  );
  const tally = { placed: 0, refused: 0, other: [] as number[] };
  for (const pet of pets) {
    const statuses = await Promise.all(
      Array.from({ length: 50 }, (_, caller) => statusOf(clients[caller % 3]!.placeOrder({ petId: pet.id }))),
    );
    tally.placed += statuses.filter((status) => status === 200).length;
    tally.refused += statuses.filter((status) => status === 409).length;
    tally.other.push(...statuses.filter((status) => status !== 200 && status !== 409));
  }
  t.same(tally, { placed: 20, refused: 20 * 49, other: [] }, 'exactly one order per pet');
  await expectInvariants(t, clients[0]!);

  // The control: "read the pet, then change it" sells one pet to every caller who read it first.
  const pet = await clients[0]!.createPet({ name: 'control', categoryId: 0, status: 'available' });
  const read = await Promise.all(Array.from({ length: 10 }, (_, caller) => clients[caller % 3]!.getPet(pet.id)));
  const sold = await Promise.all(
    read.map(async (seen, caller) =>
      seen.status === 'available'
        ? statusOf(clients[caller % 3]!.updatePet(pet.id, { status: 'sold' }, { ifMatch: '*' }))
        : 0,
    ),
  );
  t.ok(sold.filter((status) => status === 200).length > 1, 'the same count catches a pet sold twice');
});

t.test('race to finish: complete, cancel and expiry on one order, one outcome each', { skip }, async (t) => {
  const clients = await threeInstances(t);
  const outcomes = new Map<string, number>();
  for (let round = 0; round < 20; round++) {
    const client = clients[round % 3]!;
    const pet = await client.createPet({ name: `pet ${round}`, categoryId: round, status: 'available' });
    const order = await client.placeOrder({ petId: pet.id, holdSeconds: 1 });
    // Sent about when the hold ends, so that the sweeps of three instances race them too.
    await new Promise((resolve) =>
      setTimeout(resolve, Date.parse(order.expiresAt) - Date.now() - 15 + (round % 5) * 10),
    );
    const [completed, cancelled] = await Promise.all([
      statusOf(clients[(round + 1) % 3]!.completeOrder(order.id)),
      statusOf(clients[(round + 2) % 3]!.cancelOrder(order.id)),
    ]);
    const final = await until(
      'the order settles',
      async () => (await client.getOrder(order.id)).status !== 'placed',
    ).then(() => client.getOrder(order.id));
    const winners = [completed === 200, cancelled === 200, final.status === 'expired'].filter(Boolean).length;
    t.equal(winners, 1, `round ${round}: one outcome (complete ${completed}, cancel ${cancelled}, ${final.status})`);
    t.ok(
      [completed, cancelled].every((status) => status === 200 || status === 409),
      'the others get 409',
    );
    const expected = final.status === 'completed' ? 'sold' : 'available';
    await until(`pet ${pet.id} ${expected}`, async () => (await client.getPet(pet.id)).status === expected, 5000, 50);
    outcomes.set(final.status, (outcomes.get(final.status) ?? 0) + 1);
  }
  t.comment(`outcomes: ${JSON.stringify(Object.fromEntries(outcomes))}`);
  await expectInvariants(t, clients[0]!);
});

t.test('200 holds of 1 to 3 s expire with every instance sweeping: each pet freed once', { skip }, async (t) => {
  const clients = await threeInstances(t);
  const pets = await Promise.all(
    Array.from({ length: 200 }, (_, index) =>
      clients[index % 3]!.createPet({ name: `pet ${index}`, categoryId: index, status: 'available' }),
    ),
  );
  const orders = await Promise.all(
    pets.map((pet, index) => clients[index % 3]!.placeOrder({ petId: pet.id, holdSeconds: 1 + (index % 3) })),
  );
  const lastExpiry = Math.max(...orders.map((order) => Date.parse(order.expiresAt)));
  await until(
    'every pet free within 5 s of its hold ending',
    async () => (await all(clients[1]!.listPets({ limit: 100, status: 'available' }))).length === 200,
    lastExpiry + 5000 - Date.now(),
    250,
  );
  t.ok(Date.now() <= lastExpiry + 5000, 'freed within 5 s of the last expiresAt');
  const expired = await all(clients[2]!.listOrders({ limit: 100, status: 'expired' }));
  t.equal(expired.length, 200, 'every order expired');
  t.ok(
    expired.every((order) => order.closedAt === order.expiresAt),
    'each closed at its expiresAt',
  );
  const versions = await Promise.all(pets.map(async (pet) => (await clients[0]!.getPet(pet.id)).status));
  t.ok(
    versions.every((status) => status === 'available'),
    'every pet available',
  );
  await expectInvariants(t, clients[0]!);
});
