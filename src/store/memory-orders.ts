// The in-memory store's orders (order-store.ts). Like the pets, every method runs to its end
// without awaiting, so each is atomic: no other request runs between the check of a pet's status
// and the hold that follows it, and a pet is never held twice. Time is the store's injected clock.
import type { CancelReason, OrderId, PetId } from '../types/api.js';
import type { createPetColumns } from './memory-pet-columns.js';
import { MemoryIdempotencyKeys, type MemoryKeyOptions } from './memory-idempotency-keys.js';
import {
  cancelReasonOf,
  mayReach,
  orderAt,
  type OrderListOptions,
  type OrderOutcome,
  type OrderPage,
  type OrderStore,
  type OrderViewer,
  type Placing,
  type StoredOrder,
} from './order-store.js';
import { changeKeyName, type ChangeKey } from '../idempotency/idempotency-key.js';
import type { ReadAt } from './read-at.js';

type Columns = ReturnType<typeof createPetColumns>;

export interface MemoryOrders {
  orders: OrderStore;
  /** Expires the holds that ended: called first by every method of the store, so none reads a stale hold. */
  sweep(): number;
  /** Told after a change of the pet at `index` moved its status: its hold, if any, is cancelled (`pet_changed`). */
  statusChanged(index: number): void;
  /** Told after the pet at `index` was removed: its hold, if any, is cancelled (`pet_deleted`). */
  removed(index: number): void;
}

export function createMemoryOrders(
  columns: Columns,
  keyOptions: Omit<MemoryKeyOptions<unknown>, 'onForget'>,
): MemoryOrders {
  const { now } = keyOptions;
  const { latest } = columns;
  const orders: StoredOrder[] = [];
  // The placed order of each held pet, by pet index; and the earliest expiresAt among them.
  const holds = new Map<number, StoredOrder>();
  // How many placed orders each client holds: what the cap is checked against.
  const heldBy = new Map<string | undefined, number>();
  let nextDue = Infinity;
  const keys = new MemoryIdempotencyKeys<{ request: string; response: StoredOrder }>(keyOptions);

  // An order's pet sits at index petId - 1 of the columns, as every pet does.
  const petIndexOf = (order: StoredOrder) => Number(order.petId) - 1;
  /** Ends a placed order's hold: expired (closed at its expiresAt), completed, or cancelled for `reason`. */
  const close = (order: StoredOrder, status: 'expired' | 'completed' | 'cancelled', reason?: CancelReason) => {
    holds.delete(petIndexOf(order));
    heldBy.set(order.placedBy, heldBy.get(order.placedBy)! - 1);
    Object.assign(
      order,
      { status, closedAt: status === 'expired' ? order.expiresAt : now() },
      reason === undefined ? {} : { cancelReason: reason },
    );
  };
  const move = (order: StoredOrder, status: 'available' | 'sold') => columns.applyPatch(petIndexOf(order), { status });

  const sweep = (): number => {
    const at = now();
    if (at < nextDue) return 0;
    let expired = 0;
    nextDue = Infinity;
    for (const order of [...holds.values()]) {
      if (order.expiresAt <= at) {
        close(order, 'expired');
        move(order, 'available');
        expired++;
      } else nextDue = Math.min(nextDue, order.expiresAt);
    }
    return expired;
  };

  const cancelHold = (index: number, reason: CancelReason) => {
    const order = holds.get(index);
    if (order !== undefined) close(order, 'cancelled', reason);
  };

  const find = (id: OrderId, viewer: OrderViewer) => reachable(orders, id, viewer);

  /** Replays a recorded key, or runs `work` and records its response when it did something. */
  const once = (key: ChangeKey | undefined, work: () => OrderOutcome): OrderOutcome => {
    sweep();
    const scoped = key === undefined ? undefined : changeKeyName(key);
    if (scoped !== undefined) {
      const recorded = keys.find(scoped);
      if (recorded !== undefined)
        return recorded.request === key!.request
          ? { kind: 'replayed', order: copy(recorded.response) }
          : { kind: 'reused' };
    }
    const outcome = work();
    if (outcome.kind === 'done') {
      if (scoped !== undefined) keys.record(scoped, { request: key!.request, response: copy(outcome.order) });
      return { kind: 'done', order: copy(outcome.order) };
    }
    return outcome;
  };

  const store: OrderStore = {
    async place(petId: PetId, holdSeconds: number, { client, maxHolds, key }: Placing) {
      return once(key, () => {
        const index = columns.indexOf(petId);
        if (index < 0)
          return { kind: 'unavailable', unavailable: { why: columns.wasAssigned(petId) ? 'removed' : 'missing' } };
        const status = columns.statusOf(index);
        if (status !== 'available') return { kind: 'unavailable', unavailable: { why: 'status', status } };
        // What the request names is wrong whatever the client holds: the cap comes after.
        if ((heldBy.get(client) ?? 0) >= maxHolds) return { kind: 'limited', limit: maxHolds };
        const order = placedOrder({ id: orders.length + 1, petId: index + 1, placedBy: client }, now(), holdSeconds);
        columns.applyPatch(index, { status: 'pending' });
        orders.push(order);
        holds.set(index, order);
        heldBy.set(client, (heldBy.get(client) ?? 0) + 1);
        nextDue = Math.min(nextDue, order.expiresAt);
        return { kind: 'done', order };
      });
    },

    async cancel(id: OrderId, viewer: OrderViewer, key?: ChangeKey) {
      return once(key, () => {
        const order = find(id, viewer);
        if (order === undefined) return { kind: 'missing' };
        if (order.status === 'cancelled') return { kind: 'done', order };
        if (order.status !== 'placed') return { kind: 'conflict', order: copy(order) };
        close(order, 'cancelled', cancelReasonOf(order, viewer));
        move(order, 'available');
        return { kind: 'done', order };
      });
    },

    async complete(id: OrderId, viewer: OrderViewer, key?: ChangeKey) {
      return once(key, () => {
        const order = find(id, viewer);
        if (order === undefined) return { kind: 'missing' };
        if (order.status === 'completed') return { kind: 'done', order };
        // The sweep ran first: a placed order here is one whose hold has not ended.
        if (order.status !== 'placed') return { kind: 'conflict', order: copy(order) };
        close(order, 'completed');
        move(order, 'sold');
        return { kind: 'done', order };
      });
    },

    async get(id: OrderId, viewer: OrderViewer, at?: ReadAt) {
      if (at !== undefined) at.position = latest();
      const order = find(id, viewer);
      return order === undefined ? null : copy(orderAt(order, now()));
    },

    async list(options) {
      if (options.at !== undefined) options.at.position = latest();
      return listOrders(orders, options, now());
    },

    async expire() {
      return sweep();
    },
  };

  return {
    orders: store,
    sweep,
    statusChanged: (index) => cancelHold(index, 'pet_changed'),
    removed: (index) => cancelHold(index, 'pet_deleted'),
  };
}

const copy = (order: StoredOrder): StoredOrder => ({ ...order });

/** A new order, placed at `placedAt` and held `holdSeconds`. */
function placedOrder(
  { id, petId, placedBy }: { id: number; petId: number; placedBy: string },
  placedAt: number,
  holdSeconds: number,
): StoredOrder {
  return { id, petId, placedBy, status: 'placed', placedAt, expiresAt: placedAt + holdSeconds * 1000 };
}

/** The order `id` if `viewer` may reach it: another client's is found exactly as an id that never existed. */
function reachable(orders: readonly StoredOrder[], id: OrderId, viewer: OrderViewer): StoredOrder | undefined {
  const order = typeof id === 'number' && id >= 1 && id <= orders.length ? orders[id - 1]! : undefined;
  return order !== undefined && mayReach(order, viewer) ? order : undefined;
}

/** A page of `orders` (in id order) as they read at `at`: a scan from the cursor, orders being few beside pets. */
function listOrders(
  orders: readonly StoredOrder[],
  { viewer, limit, status, petId, placedBy, after }: OrderListOptions,
  at: number,
): OrderPage {
  const found: StoredOrder[] = [];
  // Ids stay far inside the safe-integer range: a bigint cursor is past every order, or before all.
  let index =
    typeof after === 'bigint' ? (after > 0n ? orders.length : 0) : Math.max(0, Math.min(after ?? 0, orders.length));
  for (; index < orders.length && found.length <= limit; index++) {
    const order = orderAt(orders[index]!, at);
    if (
      mayReach(order, viewer) &&
      (placedBy === undefined || order.placedBy === placedBy) &&
      (status === undefined || order.status === status) &&
      (petId === undefined || BigInt(order.petId) === BigInt(petId))
    )
      found.push({ ...order });
  }
  const more = found.length > limit;
  if (more) found.length = limit;
  return { orders: found, more };
}
