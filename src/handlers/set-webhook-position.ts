import { PositionExpired, ValidationFailed } from '../errors/api-errors.js';
import { expiryOf, positionOfEventId } from '../events/event-id.js';
import type { OperationHandler } from '../types/api.js';
import { endpointBody } from '../webhooks/endpoint-state.js';
import { endpointOf, findEndpoint, type EndpointContext } from './webhook-endpoint-access.js';

/**
 * `after` must name a place in the feed as it is kept: the start (seq 0), the purge horizon, or an
 * event it holds. An id of another epoch, or one before the horizon, is 410 (those events are gone);
 * one that names no event of this feed is 400. Without it, the newest event. The feed is read before
 * the endpoint is looked up: a store that cannot respond gets a 503 whatever the id.
 */
export function setWebhookPosition(context: EndpointContext) {
  const { store } = context;
  return (async (request) => {
    const { endpointId } = request.params;
    const { after } = request.body;
    const position = after === undefined ? undefined : positionOfEventId(after);
    if (after !== undefined && position === undefined)
      throw new ValidationFailed(`body.after is not an event id this service issued`);
    const seq = position?.seq ?? 0;
    const page = await store.listEvents(Math.max(seq - 1, 0), 1);
    const endpoint = endpointOf(await findEndpoint(context, endpointId), context.api.allowPrivateUrls);
    if (position !== undefined) {
      const expiry = expiryOf(position, page);
      if (expiry !== undefined) throw new PositionExpired(after!, expiry);
      if (seq !== 0 && seq !== page.horizon && page.events[0]?.seq !== seq)
        throw new ValidationFailed(`body.after ${after} names no event of this feed`);
    }
    return endpointBody(endpoint, await store.deliveries.setPosition(endpoint.key, position?.seq), page.epoch);
  }) satisfies OperationHandler<'setWebhookPosition'>;
}
