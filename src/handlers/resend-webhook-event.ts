import { EventExpired, ValidationFailed } from '../errors/api-errors.js';
import { expiryOf, positionOfEventId } from '../events/event-id.js';
import type { OperationHandler } from '../types/api.js';
import { endpointOf, findEndpoint, type EndpointContext } from './webhook-endpoint-access.js';

/**
 * The event must be one the feed keeps: one of another epoch, or before the purge horizon, is 410;
 * an id that names no event of this feed is 400. The endpoint's deliverer sends it (deliveries.ts).
 */
export function resendWebhookEvent(context: EndpointContext) {
  return (async (request, reply) => {
    const { endpointId } = request.params;
    const { eventId } = request.body;
    const endpoint = endpointOf(await findEndpoint(context, endpointId), context.api.allowPrivateUrls);
    const position = positionOfEventId(eventId);
    if (position === undefined) throw new ValidationFailed('body.eventId is not an event id this service issued');
    const page = await context.store.listEvents(Math.max(position.seq - 1, 0), 1);
    // An event, not a cursor: the first one kept is the one after the horizon.
    const expiry = expiryOf(position, page, page.horizon + 1);
    if (expiry !== undefined) throw new EventExpired(eventId, expiry);
    if (page.events[0]?.seq !== position.seq)
      throw new ValidationFailed(`body.eventId ${eventId} names no event of this feed`);
    await context.store.deliveries.resend(endpoint.key, position.seq);
    reply.code(202);
  }) satisfies OperationHandler<'resendWebhookEvent'>;
}
