import type { PetStore } from '../store/pet-store.js';
import type { OperationHandler } from '../types/api.js';
import { changeKeyOf } from './change-outcome.js';
import { replyWithOrder } from './order-outcome.js';
import { replyWrittenAt } from './store-position.js';
import { viewerOf, type OrderPolicy } from './order-policy.js';

export function cancelOrder(store: PetStore, policy: OrderPolicy, onReplay?: () => void) {
  return (async (request, reply) => {
    const { orderId } = request.params;
    const key = changeKeyOf(request, 'cancelOrder', orderId);
    const outcome = await store.orders.cancel(orderId, viewerOf(request, policy), key);
    const order = replyWithOrder(outcome, reply, { operationId: 'cancelOrder', subject: orderId, onReplay });
    replyWrittenAt(reply, store);
    return order;
  }) satisfies OperationHandler<'cancelOrder'>;
}
