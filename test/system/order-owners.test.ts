// Orders belong to their client, across instances (issue 66): three server processes on one
// PostgreSQL, and one on the in-memory store, each reading one keys file whose customers share a
// role list through a YAML alias. A customer never reads, cancels or lists another's orders; the
// store's staff see and move them all; the cap on a client's holds is exact under races spread
// over the instances; a retry sent with the client's rotated key replays the first order.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { createClient, PetstoreError, type components, type PetstoreClient } from 'petstore-client';
import { startTestDatabase, whyNoPostgres } from '../helpers/postgres.js';
import { startRacingInstance, startReadyServer } from '../helpers/server-process.js';

type Order = components['schemas']['Order'];

const database = await startTestDatabase(t);
const skip = database === undefined ? (whyNoPostgres() ?? true) : false;
t.setTimeout(300_000);

const SHOP = 'shop-key-0123456789abcdefghijkl';
const SHOP_ROTATED = 'shop-key-rotated-0123456789abcdef';
const KIOSK = 'kiosk-key-0123456789abcdefghijk';
const STAFF = 'staff-key-0123456789abcdefghijk';
const HOLDS = 5;

/** The keys file: the customers' entries share one role list through an anchor and aliases. */
function keysFile(t: Test): { API_KEYS_FILE: string } {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-owners-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'keys.yaml');
  writeFileSync(
    file,
    `keys:
  - client: shop
    key: ${SHOP}
    roles: &customer [pets:read, orders:read, orders:write]
  - client: shop
    key: ${SHOP_ROTATED}
    roles: *customer
  - client: kiosk
    key: ${KIOSK}
    roles: *customer
  - client: staff
    key: ${STAFF}
    roles: [pets:read, pets:write, orders:read, orders:write, orders:fulfil]
`,
  );
  return { API_KEYS_FILE: file };
}

interface Deployment {
  /** Each instance's base URL. */
  urls: string[];
  as(key: string, instance?: number): PetstoreClient;
}

/** Three instances on a fresh PostgreSQL schema, or one on the in-memory store. */
async function deploy(t: Test, store: 'postgres' | 'memory'): Promise<Deployment> {
  const keys = keysFile(t);
  const env = { ORDER_HOLDS_PER_CLIENT: String(HOLDS) };
  const servers =
    store === 'memory'
      ? [await startReadyServer(t, { ...keys, ...env, FAIR_SHARE: 'off', LOG_LEVEL: 'info' })]
      : await (async () => {
          const url = await database!.freshSchema();
          return [
            await startRacingInstance(t, url, keys, env),
            await startRacingInstance(t, url, keys, env),
            await startRacingInstance(t, url, keys, env),
          ];
        })();
  const urls = servers.map((server) => `http://127.0.0.1:${server.port}/v1`);
  return {
    urls,
    as: (apiKey, instance = 0) =>
      createClient({
        baseUrl: urls[instance % urls.length]!,
        apiKey,
        maxRetries: 0,
        logger: { warn: () => undefined },
      }),
  };
}

/** The status of a call: 200 for any 2xx, or the status of the PetstoreError it rejected with (and its code). */
async function outcomeOf(call: Promise<unknown>): Promise<{ status: number; code?: string }> {
  try {
    await call;
    return { status: 200 };
  } catch (error) {
    if (error instanceof PetstoreError) return { status: error.status, code: error.code };
    throw error;
  }
}

/** The first page of a list: the request is sent when it is asked for. */
const firstPage = <T>(list: { pages(): AsyncIterable<T> }) => list.pages()[Symbol.asyncIterator]().next();

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const found: T[] = [];
  for await (const item of items) found.push(item);
  return found;
}

/**
 * What `key` can learn of `orders` on every instance: each read, cancel (dry: only an order it may
 * not move is tried) and list, on every page and filter. Empty when none of them is reached.
 */
async function reachedBy(deployment: Deployment, key: string, orders: readonly Order[]): Promise<string[]> {
  const reached: string[] = [];
  const ids = new Set(orders.map((order) => String(order.id)));
  for (let instance = 0; instance < deployment.urls.length; instance++) {
    const client = deployment.as(key, instance);
    for (const order of orders) {
      const read = await outcomeOf(client.getOrder(order.id));
      if (read.status !== 404) reached.push(`instance ${instance}: getOrder ${order.id} → ${read.status}`);
    }
    const filters = [
      { limit: 1 },
      { limit: 2, status: 'placed' as const },
      ...orders.map((order) => ({ limit: 100, petId: order.petId })),
    ];
    for (const filter of filters) {
      for (const listed of await all(client.listOrders(filter)))
        if (ids.has(String(listed.id)))
          reached.push(`instance ${instance}: listOrders ${String(Object.values(filter))} lists ${listed.id}`);
    }
  }
  return reached;
}

for (const store of ['postgres', 'memory'] as const) {
  const where = store === 'postgres' ? 'three instances on one PostgreSQL' : 'the in-memory store';

  t.test(`ownership, on ${where}: another customer reaches none of a client's orders`, { skip }, async (t) => {
    const deployment = await deploy(t, store);
    const staff = deployment.as(STAFF);
    const pets = await Promise.all(
      Array.from({ length: HOLDS }, (_, index) =>
        staff.createPet({ name: `pet ${index}`, categoryId: index, status: 'available' }),
      ),
    );
    const orders = await Promise.all(
      pets.map((pet, index) => deployment.as(SHOP, index).placeOrder({ petId: pet.id })),
    );
    t.ok(
      orders.every((order) => order.placedBy === 'shop'),
      'each order names its client',
    );

    t.same(await reachedBy(deployment, KIOSK, orders), [], 'kiosk reads and lists none of them, on any instance');
    // The negative control: the same search, with a key that may see every order, finds them all.
    const control = await reachedBy(deployment, STAFF, orders);
    t.ok(
      control.length >= orders.length * deployment.urls.length,
      `the search finds a leak (${control.length} reached)`,
    );

    for (let instance = 0; instance < deployment.urls.length; instance++) {
      const kiosk = deployment.as(KIOSK, instance);
      for (const order of orders) {
        const cancel = await outcomeOf(kiosk.cancelOrder(order.id));
        t.same(
          cancel,
          { status: 404, code: 'ORDER_NOT_FOUND' },
          `instance ${instance}: kiosk cannot cancel ${order.id}`,
        );
      }
    }
    const shop = deployment.as(SHOP, 1);
    t.same(
      (await all(shop.listOrders({ limit: 2 }))).map((order) => order.status),
      orders.map(() => 'placed'),
      "kiosk's tries moved none of them",
    );

    const seen = await all(staff.listOrders({ limit: 2, placedBy: 'shop' }));
    t.same(
      seen.map((order) => String(order.id)),
      orders.map((order) => String(order.id)).sort((a, b) => Number(a) - Number(b)),
      "staff list the client's orders, in id order",
    );
    t.match(await deployment.as(STAFF, 2).completeOrder(orders[0]!.id), { status: 'completed' });
    t.match(await deployment.as(STAFF, 1).cancelOrder(orders[1]!.id), { status: 'cancelled', cancelReason: 'store' });
    t.match(await shop.cancelOrder(orders[2]!.id), { status: 'cancelled', cancelReason: 'customer' });
    t.same(await outcomeOf(firstPage(shop.listOrders({ placedBy: 'shop' }))), {
      status: 403,
      code: 'INSUFFICIENT_SCOPE',
    });
    // Each entry of the aliased role list holds those roles, and no operator's.
    for (const key of [SHOP, SHOP_ROTATED, KIOSK]) {
      t.equal((await outcomeOf(firstPage(deployment.as(key).listOrders({})))).status, 200, 'orders:read, by the alias');
      t.same(
        await outcomeOf(deployment.as(key).completeOrder(orders[3]!.id)),
        { status: 403, code: 'INSUFFICIENT_SCOPE' },
        'completeOrder needs orders:fulfil, which the alias does not name',
      );
    }
  });

  t.test(
    `the cap, on ${where}: of 40 concurrent orders of one client, exactly ${HOLDS} placed`,
    { skip },
    async (t) => {
      const deployment = await deploy(t, store);
      const staff = deployment.as(STAFF);
      const pets = await Promise.all(
        Array.from({ length: 40 }, (_, index) =>
          staff.createPet({ name: `pet ${index}`, categoryId: index, status: 'available' }),
        ),
      );
      for (let round = 0; round < 10; round++) {
        const outcomes = await Promise.all(
          pets.map((pet, index) => outcomeOf(deployment.as(SHOP, index).placeOrder({ petId: pet.id }))),
        );
        const placed = outcomes.filter((outcome) => outcome.status === 200).length;
        const limited = outcomes.filter((outcome) => outcome.code === 'ORDER_LIMIT_REACHED').length;
        t.same({ placed, limited }, { placed: HOLDS, limited: 40 - HOLDS }, `round ${round}`);
        const held = await all(deployment.as(SHOP, round).listOrders({ status: 'placed' }));
        t.equal(held.length, HOLDS, `round ${round}: the client holds ${HOLDS}`);
        await deployment.as(SHOP, round + 1).cancelOrder(held[0]!.id);
        const free = pets.find((pet) => String(pet.id) === String(held[0]!.petId))!;
        t.equal(
          (await outcomeOf(deployment.as(SHOP, round + 2).placeOrder({ petId: free.id }))).status,
          200,
          'a cancel frees one place',
        );
        // Any pet shop does not hold is available (kiosk holds none yet): one more is past the cap.
        const spare = pets.find((pet) => !held.some((order) => String(order.petId) === String(pet.id)))!;
        t.same(
          await outcomeOf(deployment.as(SHOP, round).placeOrder({ petId: spare.id })),
          { status: 409, code: 'ORDER_LIMIT_REACHED' },
          'and only one',
        );
        // Another client's places are its own: kiosk holds one beside shop's full count.
        t.equal((await outcomeOf(deployment.as(KIOSK, round).placeOrder({ petId: spare.id }))).status, 200);
        for (const order of await all(staff.listOrders({ status: 'placed' }))) await staff.cancelOrder(order.id);
      }
    },
  );

  t.test(`a retry with the client's rotated key replays the first order, on ${where}`, { skip }, async (t) => {
    const deployment = await deploy(t, store);
    const pet = await deployment.as(STAFF).createPet({ name: 'Rex', categoryId: 1, status: 'available' });
    const first = await deployment.as(SHOP, 0).placeOrder({ petId: pet.id }, { idempotencyKey: 'order-rex' });
    const retried = await deployment.as(SHOP_ROTATED, 1).placeOrder({ petId: pet.id }, { idempotencyKey: 'order-rex' });
    t.same(retried, first, 'the first 201, replayed');
    const orders = await all(deployment.as(STAFF, 2).listOrders({ petId: pet.id }));
    t.equal(orders.length, 1, 'one order');
    const other = await outcomeOf(
      deployment.as(KIOSK, 2).placeOrder({ petId: pet.id }, { idempotencyKey: 'order-rex' }),
    );
    t.same(other, { status: 409, code: 'PET_UNAVAILABLE' }, "another client's key of the same text is its own");
  });
}
