import type { OperationHandler } from '../types/api.js';
import { endpointOfStored } from '../webhooks/api-endpoints.js';
import { endpointBody } from '../webhooks/endpoint-state.js';
import type { EndpointContext } from './webhook-endpoint-access.js';

/** The webhooks file's endpoints (none without a file), then those of the API, oldest first. */
export function listWebhookEndpoints(context: EndpointContext) {
  return (async () => {
    const { store, file, api } = context;
    const endpoints = [
      ...(file?.current() ?? []),
      ...(await store.webhookEndpoints.list()).map((stored) => endpointOfStored(stored, !api.allowPrivateUrls)),
    ];
    if (endpoints.length === 0) return [];
    const states = await store.deliveries.read(endpoints.map((endpoint) => endpoint.key));
    const epoch = store.epoch();
    return endpoints.map((endpoint) => endpointBody(endpoint, states.get(endpoint.key)!, epoch));
  }) satisfies OperationHandler<'listWebhookEndpoints'>;
}
