import { EventExpired, ValidationFailed } from '../errors/api-errors.js';
import { eventIdOf, positionOfEventId } from '../events/event-id.js';
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
    if (position.epoch !== page.epoch)
      throw new EventExpired(eventId, 'is from a feed this store no longer keeps (the store was replaced)');
    if (position.seq <= page.horizon)
      throw new EventExpired(
        eventId,
        `is older than the events kept (from ${eventIdOf(page.epoch, page.horizon + 1)} on)`,
      );
    if (page.events[0]?.seq !== position.seq)
      throw new ValidationFailed(`body.eventId ${eventId} names no event of this feed`);
    await context.store.deliveries.resend(endpoint.key, position.seq);
    reply.code(202);
  }) satisfies OperationHandler<'resendWebhookEvent'>;
}
