import { OrderNotFound } from '../errors/api-errors.js';
import type { PetStore } from '../store/pet-store.js';
import type { OperationHandler } from '../types/api.js';
import { orderBody } from './order-outcome.js';
import { viewerOf, type OrderPolicy } from './order-policy.js';
import { readAtOf, replyReadAt } from './store-position.js';

export function getOrder(store: PetStore, policy: OrderPolicy) {
  return (async (request, reply) => {
    const { orderId } = request.params;
    const epoch = store.epoch();
    const at = readAtOf(request, epoch);
    // Another client's order is not found, exactly as an id that never existed.
    const order = await store.orders.get(orderId, viewerOf(request, policy), at);
    if (order === null) throw new OrderNotFound(String(orderId));
    replyReadAt(reply, epoch, at);
    return orderBody(order);
  }) satisfies OperationHandler<'getOrder'>;
}
