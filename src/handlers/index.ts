import type { EventSignal } from '../events/event-signal.js';
import type { PetStore } from '../store/pet-store.js';
import type { EveryHandler, OperationHandlers } from '../types/api.js';
import type { Endpoints } from '../webhooks/endpoints.js';
import { cancelOrder } from './cancel-order.js';
import { completeOrder } from './complete-order.js';
import { createPet } from './create-pet.js';
import { deletePet } from './delete-pet.js';
import { getOrder } from './get-order.js';
import { getPet } from './get-pet.js';
import { listOrders } from './list-orders.js';
import { listPetEvents } from './list-pet-events.js';
import { listPets } from './list-pets.js';
import { listWebhookEndpoints } from './list-webhook-endpoints.js';
import { placeOrder } from './place-order.js';
import { setWebhookPosition } from './set-webhook-position.js';
import { createWebhookEndpoint } from './create-webhook-endpoint.js';
import { deleteWebhookEndpoint } from './delete-webhook-endpoint.js';
import { getWebhookEndpoint } from './get-webhook-endpoint.js';
import { listWebhookDeliveries } from './list-webhook-deliveries.js';
import { resendWebhookEvent } from './resend-webhook-event.js';
import { rotateWebhookSecret } from './rotate-webhook-secret.js';
import { updateWebhookEndpoint } from './update-webhook-endpoint.js';
import type { WebhookApiOptions } from './webhook-endpoint-access.js';
import { updatePet } from './update-pet.js';
import type { OrderPolicy } from './order-policy.js';

export interface HandlerOptions {
  store: PetStore;
  /** Wakes listPetEvents' long polls. */
  events: EventSignal;
  /**
   * Where an operation is served, base path included (`/v1/pets`), for the links responds carry; undefined for one the
   * spec does not define.
   */
  pathOf: (operationId: string) => string | undefined;
  /** Told of every create or change given what an earlier request with its Idempotency-Key did. */
  onReplay?: () => void;
  /** The webhooks file's endpoints; none when the deployment has no file. */
  webhooks: Endpoints | undefined;
  /** How the endpoints of the API are checked, and whom a change is told to. */
  webhookApi: WebhookApiOptions;
  /** Whose orders each key sees, and how many a client may hold. */
  orders: OrderPolicy;
}

/** The handler of every operation in openapi.yaml, keyed by operationId. */
export function createHandlers(options: HandlerOptions): OperationHandlers {
  const { store, events, pathOf, onReplay, webhooks, orders, webhookApi } = options;
  const endpoints = { store, file: webhooks, api: webhookApi };
  // A pet's own address (the Location of a created pet) is getPet's path, and outlives it: once
  // getPet is removed from the spec, it is the same address under createPet's collection.
  const petPath = pathOf('getPet') ?? `${pathOf('createPet')!}/{petId}`;
  const handlers = {
    listPets: listPets(store, pathOf('listPets')!),
    createPet: createPet(store, petPath, onReplay),
    getPet: getPet(store),
    updatePet: updatePet(store, onReplay),
    deletePet: deletePet(store, onReplay),
    listPetEvents: listPetEvents(store, events, pathOf('listPetEvents')!),
    listWebhookEndpoints: listWebhookEndpoints(endpoints),
    setWebhookPosition: setWebhookPosition(endpoints),
    createWebhookEndpoint: createWebhookEndpoint(endpoints, pathOf('getWebhookEndpoint')!),
    getWebhookEndpoint: getWebhookEndpoint(endpoints),
    updateWebhookEndpoint: updateWebhookEndpoint(endpoints),
    deleteWebhookEndpoint: deleteWebhookEndpoint(endpoints),
    rotateWebhookSecret: rotateWebhookSecret(endpoints),
    listWebhookDeliveries: listWebhookDeliveries(endpoints, pathOf('listWebhookDeliveries')!),
    resendWebhookEvent: resendWebhookEvent(endpoints),
    placeOrder: placeOrder(store, pathOf('getOrder')!, orders, onReplay),
    listOrders: listOrders(store, pathOf('listOrders')!, orders),
    getOrder: getOrder(store, orders),
    cancelOrder: cancelOrder(store, orders, onReplay),
    completeOrder: completeOrder(store, orders, onReplay),
  };
  // An operation of the spec without a handler fails here, the message naming the file to write; so
  // does a handler that returns a field the spec does not define for it.
  const every: EveryHandler<typeof handlers> = handlers;
  return every;
}
