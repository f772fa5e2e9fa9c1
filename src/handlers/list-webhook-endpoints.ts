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
    // An endpoint its deliveries have not reached yet starts after the newest event, as they will.
    const start = current.length === states.size ? 0 : (await store.list({ limit: 1 })).position;
    const epoch = store.epoch();
    return current.map((endpoint) =>
      endpointBody(
        endpoint,
        states.get(endpoint.url) ?? { position: start, attempt: 0, dueAt: 0, stoppedEntry: '', generation: 0 },
        epoch,
      ),
    );
  }) satisfies OperationHandler<'listWebhookEndpoints'>;
}
