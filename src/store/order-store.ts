// Orders (placeOrder and the rest, beta): what a store does with them. An order holds its pet: a
// placed order's pet is `pending` until the order is completed (`sold`), cancelled or expires
// (`available`). Each move of the pet is a change like any other (a version step and one
// pet.updated event), made in the same atomic step as the order's, by the store's clock.
import type { CancelReason, OrderId, OrderStatus, PetId, PetStatus } from '../types/api.js';
import type { ChangeKey } from '../idempotency/idempotency-key.js';

/** An order as the store holds it: times as Unix time in ms. */
export interface StoredOrder {
  id: OrderId;
  petId: PetId;
  status: OrderStatus;
  placedAt: number;
  expiresAt: number;
  /** When it stopped being placed (an expired order's expiresAt); absent while placed. */
  closedAt?: number;
  /** Present only when cancelled. */
  cancelReason?: CancelReason;
}

export interface OrderListOptions {
  limit: number;
  status?: OrderStatus | undefined;
  petId?: PetId | undefined;
  /** Only orders whose id is greater than this one (keyset pagination). */
  after?: OrderId | undefined;
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
 * `conflict` (the order's state does not allow it; the order as it is).
 */
export type OrderOutcome =
  | { kind: 'done'; order: StoredOrder }
  | { kind: 'replayed'; order: StoredOrder }
  | { kind: 'reused' }
  | { kind: 'missing' }
  | { kind: 'unavailable'; unavailable: Unavailability }
  | { kind: 'conflict'; order: StoredOrder };

export interface OrderStore {
  /** Holds the pet for `holdSeconds` if it is `available`: the order placed and the pet `pending`, one step. */
  place(petId: PetId, holdSeconds: number, key?: ChangeKey): Promise<OrderOutcome>;
  /** Cancels a placed order (`customer`) and frees its pet; an order already cancelled is done as it is. */
  cancel(id: OrderId, key?: ChangeKey): Promise<OrderOutcome>;
  /** Completes a placed order before its expiresAt and sells its pet; one already completed is done as it is. */
  complete(id: OrderId, key?: ChangeKey): Promise<OrderOutcome>;
  /** The order, `expired` from its expiresAt on, or null. */
  get(id: OrderId): Promise<StoredOrder | null>;
  list(options: OrderListOptions): Promise<OrderPage>;
  /** Frees the pets of the placed orders whose hold ended, once across instances; how many it expired. */
  expire(): Promise<number>;
}

/** An order as it reads at `now`: a placed order past its expiresAt is expired, closed at its expiresAt. */
export function orderAt(order: StoredOrder, now: number): StoredOrder {
  return order.status === 'placed' && order.expiresAt <= now
    ? { ...order, status: 'expired', closedAt: order.expiresAt }
    : order;
}
