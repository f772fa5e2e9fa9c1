import { OrderNotFound } from '../errors/api-errors.js';
import type { PetStore } from '../store/pet-store.js';
import type { OperationHandler } from '../types/api.js';
import { orderBody } from './order-outcome.js';

export function getOrder(store: PetStore) {
  return (async (request) => {
    const { orderId } = request.params;
    const order = await store.orders.get(orderId);
    if (order === null) throw new OrderNotFound(String(orderId));
    return orderBody(order);
  }) satisfies OperationHandler<'getOrder'>;
}
