// Orders (placeOrder and the rest, beta): what a store does with them. An order holds its pet: a
// placed order's pet is `pending` until the order is completed (`sold`), cancelled or expires
// (`available`). Each move of the pet is a change like any other (a version step and one
// pet.updated event), made in the same atomic step as the order's, by the store's clock. An order
// belongs to the client that placed it: another client reads and moves it as an order that never
// existed, unless it may see every order (the store's staff). A client holds at most so many
// placed orders at once, checked in the same atomic step as the hold.
import type { CancelReason, OrderId, OrderStatus, PetId, PetStatus } from '../types/api.js';
import type { ChangeKey } from '../idempotency/idempotency-key.js';
import type { ReadAt } from './read-at.js';

/** An order as the store holds it: times as Unix time in ms. */
export interface StoredOrder {
  id: OrderId;
  petId: PetId;
  /** The client that placed it; absent for an order placed before orders had owners (staff only). */
  placedBy?: string;
  status: OrderStatus;
  placedAt: number;
  expiresAt: number;
  /** When it stopped being placed (an expired order's expiresAt); absent while placed. */
  closedAt?: number;
  /** Present only when cancelled. */
  cancelReason?: CancelReason;
}

/** Who asks: the client whose key sent the request, and whether it sees and moves every client's orders. */
export interface OrderViewer {
  client: string;
  everyOrder: boolean;
}

export interface OrderListOptions {
  viewer: OrderViewer;
  limit: number;
  /** Only this client's orders: for a viewer who sees every order (anyone else sees only their own). */
  placedBy?: string | undefined;
  status?: OrderStatus | undefined;
  petId?: PetId | undefined;
  /** Only orders whose id is greater than this one (keyset pagination). */
  after?: OrderId | undefined;
  /** Where it may be read, and where it was (pet-store.ts). */
  at?: ReadAt | undefined;
}

export interface OrderPage {
  /** At most `limit` orders in ascending id order. */
  orders: StoredOrder[];
  /** Whether orders of the same filter follow the last one, at the time of reading. */
  more: boolean;
}

/** Why a pet cannot be held: no pet ever had its id, it was removed, or its status is not `available`. */
export type Unavailability = { why: 'missing' } | { why: 'removed' } | { why: 'status'; status: PetStatus | undefined };

/**
 * What an order operation did: `done` (the order afterwards, changed or already as asked),
 * `replayed` (a recorded key with the same request: its first response), `reused` (a recorded key,
 * another request), `missing` (no such order), `unavailable` (placeOrder: the pet cannot be held),
 * `conflict` (the order's state does not allow it; the order as it is), `limited` (placeOrder: the
 * client holds `limit` placed orders already).
 */
export type OrderOutcome =
  | { kind: 'done'; order: StoredOrder }
  | { kind: 'replayed'; order: StoredOrder }
  | { kind: 'reused' }
  | { kind: 'missing' }
  | { kind: 'unavailable'; unavailable: Unavailability }
  | { kind: 'conflict'; order: StoredOrder }
  | { kind: 'limited'; limit: number };

/** A placeOrder: whose it is, how many placed orders its client may hold at once, and its key. */
export interface Placing {
  client: string;
  maxHolds: number;
  key?: ChangeKey | undefined;
}

export interface OrderStore {
  /**
   * Holds the pet for `holdSeconds` if it is `available` and the client holds fewer than `maxHolds`
   * placed orders: the order placed and the pet `pending`, one step.
   */
  place(petId: PetId, holdSeconds: number, placing: Placing): Promise<OrderOutcome>;
  /**
   * Cancels a placed order the viewer may move (`customer` for its own client, `store` for staff
   * moving another's) and frees its pet; an order already cancelled is done as it is.
   */
  cancel(id: OrderId, viewer: OrderViewer, key?: ChangeKey): Promise<OrderOutcome>;
  /** Completes a placed order before its expiresAt and sells its pet; one already completed is done as it is. */
  complete(id: OrderId, viewer: OrderViewer, key?: ChangeKey): Promise<OrderOutcome>;
  /** The order, `expired` from its expiresAt on, or null (for an order the viewer may not see too). */
  get(id: OrderId, viewer: OrderViewer, at?: ReadAt): Promise<StoredOrder | null>;
  list(options: OrderListOptions): Promise<OrderPage>;
  /** Frees the pets of the placed orders whose hold ended, once across instances; how many it expired. */
  expire(): Promise<number>;
}

/** Whether `viewer` may see and move `order`. */
export function mayReach(order: StoredOrder, { client, everyOrder }: OrderViewer): boolean {
  return everyOrder || order.placedBy === client;
}

/** Why a cancel closes an order: its own client's, or the store's staff moving another's. */
export function cancelReasonOf(order: StoredOrder, { client }: OrderViewer): 'customer' | 'store' {
  return order.placedBy === client ? 'customer' : 'store';
}

/** An order as it reads at `now`: a placed order past its expiresAt is expired, closed at its expiresAt. */
export function orderAt(order: StoredOrder, now: number): StoredOrder {
  return order.status === 'placed' && order.expiresAt <= now
    ? { ...order, status: 'expired', closedAt: order.expiresAt }
    : order;
}
