import { lacksRoles } from '../auth/bearer-auth.js';
import { orderPositionOf } from '../pagination/cursor.js';
import { nextPageLink } from '../pagination/next-link.js';
import type { PetStore } from '../store/pet-store.js';
import type { OperationHandler } from '../types/api.js';
import { orderBody } from './order-outcome.js';
import { viewerOf, type OrderPolicy } from './order-policy.js';
import { readAtOf, replyReadAt } from './store-position.js';

/** `path` is where listOrders is served (`/v1/store/orders`), for the next-page links. */
export function listOrders(store: PetStore, path: string, policy: OrderPolicy) {
  return (async (request, reply) => {
    const { limit, status, petId, placedBy, cursor } = request.query;
    const viewer = viewerOf(request, policy);
    // Only a key that sees every order may ask for one client's: anyone else sees only their own.
    if (placedBy !== undefined && !viewer.everyOrder)
      lacksRoles(reply, [policy.ownership!.seenByAllWith], 'to filter by placedBy');
    const after = cursor === undefined ? undefined : orderPositionOf(cursor, { status, petId, placedBy });
    // The validator has applied the spec's default, so limit is always present here.
    const epoch = store.epoch();
    const at = readAtOf(request, epoch);
    const page = await store.orders.list({ viewer, limit: limit!, status, petId, placedBy, after, at });
    replyReadAt(reply, epoch, at);
    if (page.more)
      reply.header(
        'link',
        nextPageLink(path, { limit: limit!, status, petId, placedBy, lastId: page.orders.at(-1)!.id }),
      );
    return page.orders.map(orderBody);
  }) satisfies OperationHandler<'listOrders'>;
}
