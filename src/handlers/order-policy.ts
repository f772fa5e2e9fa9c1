// Who may see and move which orders, and how many a client may hold: the spec's `x-owner` on Order
// (the property naming the owner, and the role that sees every order) and the deployment's cap.
import type { FastifyRequest } from 'fastify';
import type { Ownership } from '../openapi/ownership.js';
import type { OrderViewer } from '../store/order-store.js';

export interface OrderPolicy {
  /** ORDER_HOLDS_PER_CLIENT: the placed orders a client may hold at once. */
  holdsPerClient: number;
  /** Order's x-owner; undefined when the spec does not mark orders as owned (everyone sees every order). */
  ownership: Ownership | undefined;
}

/** The request's viewer: its client, and whether its key sees every client's orders. */
export function viewerOf(request: FastifyRequest, { ownership }: OrderPolicy): OrderViewer {
  return {
    client: request.client,
    everyOrder: ownership === undefined || request.roles!.has(ownership.seenByAllWith),
  };
}
