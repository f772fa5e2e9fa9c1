import type { PetStore } from '../store/pet-store.js';
import type { OperationHandler } from '../types/api.js';
import { endpointBody } from '../webhooks/endpoint-state.js';
import type { Endpoints } from '../webhooks/endpoints.js';

/** `endpoints`: the webhooks file's, or none when the deployment has no file. */
export function listWebhookEndpoints(store: PetStore, endpoints: Endpoints | undefined) {
  return (async () => {
    const current = endpoints?.current() ?? [];
    if (current.length === 0) return [];
    const states = await store.deliveries.read(current.map((endpoint) => endpoint.url));
    const epoch = store.epoch();
    return current.map((endpoint) => endpointBody(endpoint, states.get(endpoint.url)!, epoch));
  }) satisfies OperationHandler<'listWebhookEndpoints'>;
}
