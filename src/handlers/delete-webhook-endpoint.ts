import { WebhookEndpointNotFound } from '../errors/api-errors.js';
import type { OperationHandler } from '../types/api.js';
import { apiEndpoint, changedSince, checkIfMatch, type EndpointContext } from './webhook-endpoint-access.js';

export function deleteWebhookEndpoint(context: EndpointContext) {
  return (async (request, reply) => {
    const { endpointId } = request.params;
    const ifMatch = request.headers['if-match'];
    const stored = await apiEndpoint(context, endpointId);
    checkIfMatch(context, reply, ifMatch, stored);
    const removed = await context.store.webhookEndpoints.remove(endpointId, stored.version);
    if (removed === null) throw new WebhookEndpointNotFound(endpointId);
    if (removed !== true) changedSince(context, reply, ifMatch!, removed.current);
    context.api.onChange?.();
    reply.code(204);
  }) satisfies OperationHandler<'deleteWebhookEndpoint'>;
}
