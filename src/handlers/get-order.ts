import { OrderNotFound } from '../errors/api-errors.js';
import type { PetStore } from '../store/pet-store.js';
import type { OperationHandler } from '../types/api.js';
import { orderBody } from './order-outcome.js';
import { viewerOf, type OrderPolicy } from './order-policy.js';

export function getOrder(store: PetStore, policy: OrderPolicy) {
  return (async (request) => {
    const { orderId } = request.params;
    // Another client's order is not found, exactly as an id that never existed.
    const order = await store.orders.get(orderId, viewerOf(request, policy));
    if (order === null) throw new OrderNotFound(String(orderId));
    return orderBody(order);
  }) satisfies OperationHandler<'getOrder'>;
}
