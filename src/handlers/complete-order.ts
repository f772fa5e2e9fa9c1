import type { PetStore } from '../store/pet-store.js';
import type { OperationHandler } from '../types/api.js';
import { changeKeyOf } from './change-outcome.js';
import { replyWithOrder } from './order-outcome.js';

export function completeOrder(store: PetStore, onReplay?: () => void) {
  return (async (request, reply) => {
    const { orderId } = request.params;
    const outcome = await store.orders.complete(orderId, changeKeyOf(request, 'completeOrder', orderId));
    return replyWithOrder(outcome, reply, { operationId: 'completeOrder', subject: orderId, onReplay });
  }) satisfies OperationHandler<'completeOrder'>;
}
