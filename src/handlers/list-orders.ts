import { orderPositionOf } from '../pagination/cursor.js';
import { nextPageLink } from '../pagination/next-link.js';
import type { PetStore } from '../store/pet-store.js';
import type { OperationHandler } from '../types/api.js';
import { orderBody } from './order-outcome.js';

/** `path` is where listOrders is served (`/v1/store/orders`), for the next-page links. */
export function listOrders(store: PetStore, path: string) {
  return (async (request, reply) => {
    const { limit, status, petId, cursor } = request.query;
    const after = cursor === undefined ? undefined : orderPositionOf(cursor, { status, petId });
    // The validator has applied the spec's default, so limit is always present here.
    const page = await store.orders.list({ limit: limit!, status, petId, after });
    if (page.more)
      reply.header('link', nextPageLink(path, { limit: limit!, status, petId, lastId: page.orders.at(-1)!.id }));
    return page.orders.map(orderBody);
  }) satisfies OperationHandler<'listOrders'>;
}
