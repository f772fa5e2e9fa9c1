import type { PetStore } from '../store/pet-store.js';
import type { OperationHandler } from '../types/api.js';
import { changeKeyOf } from './change-outcome.js';
import { replyWithOrder } from './order-outcome.js';
import { replyWrittenAt } from './store-position.js';
import type { OrderPolicy } from './order-policy.js';

/** `orderPath` is where an order is read (`/v1/store/orders/{orderId}`): the new order's Location. */
export function placeOrder(store: PetStore, orderPath: string, policy: OrderPolicy, onReplay?: () => void) {
  const [before, after] = orderPath.split('{orderId}') as [string, string];
  return (async (request, reply) => {
    const { petId, holdSeconds } = request.body;
    // The validator has applied the spec's default: holdSeconds is always present here.
    const key = changeKeyOf(request, 'placeOrder', petId, { holdSeconds: holdSeconds! });
    const placing = { client: request.client, maxHolds: policy.holdsPerClient, key };
    const order = replyWithOrder(await store.orders.place(petId, holdSeconds!, placing), reply, {
      operationId: 'placeOrder',
      subject: petId,
      onReplay,
    });
    reply.header('location', `${before}${order.id}${after}`);
    replyWrittenAt(reply, store);
    return order;
  }) satisfies OperationHandler<'placeOrder'>;
}
