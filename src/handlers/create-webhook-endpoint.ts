import { apiEndpointKey } from '../store/webhook-endpoint-store.js';
import type { OperationHandler } from '../types/api.js';
import { newEndpointId, newSecret } from '../webhooks/api-endpoints.js';
import { bodyOf, checkedUrl, endpointTag, type EndpointContext } from './webhook-endpoint-access.js';

/** `path` is where getWebhookEndpoint is served (`/v1/webhook-endpoints/{endpointId}`), for Location. */
export function createWebhookEndpoint(context: EndpointContext, path: string) {
  return (async (request, reply) => {
    const { url, events, description } = request.body;
    const secret = newSecret();
    const stored = await context.store.webhookEndpoints.add(newEndpointId(), {
      url: await checkedUrl(url, context.api),
      events: events ?? null,
      description: description ?? null,
      disabled: false,
      secrets: [{ secret, expiresAt: null }],
    });
    // Its deliveries start after the newest event now, whichever instance takes it on later: every
    // event after this answer reaches it.
    await context.store.deliveries.setPosition(apiEndpointKey(stored.id), undefined);
    context.api.onChange?.();
    const found = { source: 'api' as const, stored };
    reply
      .code(201)
      .header('location', path.replace('{endpointId}', stored.id))
      .header('etag', endpointTag(context, found));
    return { ...(await bodyOf(context, found)), secret };
  }) satisfies OperationHandler<'createWebhookEndpoint'>;
}
