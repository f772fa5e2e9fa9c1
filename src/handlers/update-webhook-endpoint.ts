import { WebhookEndpointNotFound } from '../errors/api-errors.js';
import type { OperationHandler } from '../types/api.js';
import {
  apiEndpoint,
  bodyOf,
  changedSince,
  checkedUrl,
  checkIfMatch,
  endpointTag,
  type EndpointContext,
} from './webhook-endpoint-access.js';

/**
 * A merge patch of url, events, description and disabled, applied at the version If-Match named:
 * a change made meanwhile by another request is a 412, never overwritten.
 */
export function updateWebhookEndpoint(context: EndpointContext) {
  return (async (request, reply) => {
    const { endpointId } = request.params;
    const ifMatch = request.headers['if-match'];
    const stored = await apiEndpoint(context, endpointId);
    checkIfMatch(context, reply, ifMatch, stored);
    const { url, events, description, disabled } = request.body;
    const changed = await context.store.webhookEndpoints.replace(endpointId, stored.version, {
      url: url === undefined ? stored.url : await checkedUrl(url, context.api),
      events: events === undefined ? stored.events : events,
      description: description === undefined ? stored.description : description,
      disabled: disabled ?? stored.disabled,
      secrets: stored.secrets,
    });
    if (changed === null) throw new WebhookEndpointNotFound(endpointId);
    if ('current' in changed) changedSince(context, reply, ifMatch!, changed.current);
    context.api.onChange?.();
    const found = { source: 'api' as const, stored: changed };
    reply.header('etag', endpointTag(context, found));
    return bodyOf(context, found);
  }) satisfies OperationHandler<'updateWebhookEndpoint'>;
}
