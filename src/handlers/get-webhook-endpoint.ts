import type { OperationHandler } from '../types/api.js';
import { bodyOf, endpointTag, findEndpoint, type EndpointContext } from './webhook-endpoint-access.js';

export function getWebhookEndpoint(context: EndpointContext) {
  return (async (request, reply) => {
    const found = await findEndpoint(context, request.params.endpointId);
    reply.header('etag', endpointTag(context, found));
    return bodyOf(context, found);
  }) satisfies OperationHandler<'getWebhookEndpoint'>;
}
