import type { PetStore } from '../store/pet-store.js';
import type { OperationHandler } from '../types/api.js';
import { changeKeyOf } from './change-outcome.js';
import { replyWithOrder } from './order-outcome.js';

export function cancelOrder(store: PetStore, onReplay?: () => void) {
  return (async (request, reply) => {
    const { orderId } = request.params;
    const outcome = await store.orders.cancel(orderId, changeKeyOf(request, 'cancelOrder', orderId));
    return replyWithOrder(outcome, reply, { operationId: 'cancelOrder', subject: orderId, onReplay });
  }) satisfies OperationHandler<'cancelOrder'>;
}
