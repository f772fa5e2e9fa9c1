import { WebhookEndpointNotFound } from '../errors/api-errors.js';
import type { OperationHandler } from '../types/api.js';
import { newSecret } from '../webhooks/api-endpoints.js';
import { apiEndpoint, endpointTag, type EndpointContext } from './webhook-endpoint-access.js';

/** At most this many secrets sign at once: the new one and two being rotated out. */
const MAX_SECRETS = 3;

/**
 * A new secret first; the one in use until now signs until `oldSecretExpiresInSeconds` from now,
 * those rotated out before keep their own ends. Applied at the version read, again if another change
 * came between, so that no rotation is lost.
 */
export function rotateWebhookSecret(context: EndpointContext, now: () => number = Date.now) {
  return (async (request, reply) => {
    const { endpointId } = request.params;
    // The validator has applied the spec's default.
    const expiresInMs = request.body.oldSecretExpiresInSeconds! * 1000;
    const secret = newSecret();
    for (;;) {
      const stored = await apiEndpoint(context, endpointId);
      const at = now();
      const kept = stored.secrets
        .map((old, index) => (index === 0 ? { secret: old.secret, expiresAt: at + expiresInMs } : old))
        .filter(({ expiresAt }) => expiresAt !== null && expiresAt > at)
        .slice(0, MAX_SECRETS - 1);
      const { url, events, description, disabled } = stored;
      const changed = await context.store.webhookEndpoints.replace(endpointId, stored.version, {
        url,
        events,
        description,
        disabled,
        secrets: [{ secret, expiresAt: null }, ...kept],
      });
      if (changed === null) throw new WebhookEndpointNotFound(endpointId);
      if ('current' in changed) continue;
      context.api.onChange?.();
      reply.header('etag', endpointTag(context, { source: 'api', stored: changed }));
      return { secret };
    }
  }) satisfies OperationHandler<'rotateWebhookSecret'>;
}
