// What the order operations return for what the store did: the order (as the spec's Order), or the
// error that says why nothing changed.
import type { FastifyReply } from 'fastify';
import {
  OrderKeyReused,
  OrderLimitReached,
  OrderNotFound,
  OrderStateConflict,
  PetUnavailable,
} from '../errors/api-errors.js';
import type { OrderOutcome, StoredOrder, Unavailability } from '../store/order-store.js';
import type { Order, PetId } from '../types/api.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** The order as the spec's `Order`: times in RFC 3339, UTC, with milliseconds. */
export function orderBody(order: StoredOrder): Order {
  const body: Order = {
    id: order.id,
    petId: order.petId,
    ...(order.placedBy === undefined ? {} : { placedBy: order.placedBy }),
    status: order.status,
    placedAt: iso(order.placedAt),
    expiresAt: iso(order.expiresAt),
  };
  if (order.closedAt !== undefined) body.closedAt = iso(order.closedAt);
  if (order.cancelReason !== undefined) body.cancelReason = order.cancelReason;
  return body;
}

const unavailable = (petId: PetId, unavailability: Unavailability) => {
  switch (unavailability.why) {
    case 'missing':
      return `No pet has id ${petId}: only an available pet can be held.`;
    case 'removed':
      return `Pet ${petId} was removed: only an available pet can be held.`;
    case 'status':
      return `Pet ${petId} is ${unavailability.status ?? 'without a status'}, not available: it cannot be held.`;
  }
};

/** What each operation needs of the order it changes, for the message of a 409. */
const ALLOWED: Record<string, string> = {
  cancelOrder: 'only a placed order can be cancelled',
  completeOrder: 'only a placed order can be completed, before its expiresAt',
};

/** What an order request was: what its rejection names. */
export interface OrderRequest {
  operationId: string;
  /** The pet (placeOrder) or the order (cancelOrder, completeOrder) the request names. */
  subject: PetId;
  onReplay?: (() => void) | undefined;
}

/** Sets the reply's headers for what the order operation did and returns the order it left; or throws its rejection. */
export function replyWithOrder(
  outcome: OrderOutcome,
  reply: FastifyReply,
  { operationId, subject, onReplay }: OrderRequest,
): Order {
  switch (outcome.kind) {
    case 'missing':
      throw new OrderNotFound(String(subject));
    case 'unavailable':
      throw new PetUnavailable(unavailable(subject, outcome.unavailable));
    case 'limited':
      throw new OrderLimitReached(String(outcome.limit));
    case 'conflict':
      throw new OrderStateConflict(String(outcome.order.id), outcome.order.status, ALLOWED[operationId]!);
    case 'reused':
      throw new OrderKeyReused(operationId);
    case 'replayed':
      reply.header('idempotent-replayed', 'true');
      onReplay?.();
  }
  return orderBody(outcome.order);
}
