import { nextOrdersLink, orderPositionOf } from '../pagination/order-cursor.js';
import type { PetStore } from '../store/pet-store.js';
import type { OperationHandler } from '../types/api.js';
import { orderBody } from './order-outcome.js';

/** `path` is where listOrders is served (`/v1/store/orders`), for the next-page links. */
export function listOrders(store: PetStore, path: string) {
  return (async (request, reply) => {
    const { limit, status, petId, cursor } = request.query;
    const filter = { status, petId };
    const after = cursor === undefined ? undefined : orderPositionOf(cursor, filter);
    // The validator has applied the spec's default, so limit is always present here.
    const page = await store.orders.list({ limit: limit!, status, petId, after });
    if (page.more) reply.header('link', nextOrdersLink(path, limit!, filter, page.orders[page.orders.length - 1]!.id));
    return page.orders.map(orderBody);
  }) satisfies OperationHandler<'listOrders'>;
}
