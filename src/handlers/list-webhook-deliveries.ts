import { ValidationFailed } from '../errors/api-errors.js';
import { eventIdOf, positionOfEventId } from '../events/event-id.js';
import { attemptPositionOf, encodeAttemptCursor } from '../pagination/attempt-cursor.js';
import { nextLink } from '../pagination/next-link.js';
import type { OperationHandler } from '../types/api.js';
import { endpointOf, findEndpoint, type EndpointContext } from './webhook-endpoint-access.js';

/** `path` is where listWebhookDeliveries is served (`/v1/webhook-endpoints/{endpointId}/deliveries`). */
export function listWebhookDeliveries(context: EndpointContext, path: string) {
  return (async (request, reply) => {
    const { endpointId } = request.params;
    const { eventId, limit, cursor } = request.query;
    // The query is read before the endpoint is looked up: a broken one is 400 whatever the id.
    const position = eventId === undefined ? undefined : positionOfEventId(eventId);
    if (eventId !== undefined && position === undefined)
      throw new ValidationFailed('query parameter eventId is not an event id this service issued');
    const after = cursor === undefined ? undefined : attemptPositionOf(cursor, eventId);
    const endpoint = endpointOf(await findEndpoint(context, endpointId), context.api.allowPrivateUrls);
    const epoch = context.store.epoch();
    // An event of another feed (the store was replaced) has no attempts here.
    const page =
      position !== undefined && position.epoch !== epoch
        ? { attempts: [], more: false }
        : await context.store.deliveries.attempts(endpoint.key, { event: position?.seq, after, limit: limit! });
    if (page.more) {
      const target = path.replace('{endpointId}', endpointId);
      const next = encodeAttemptCursor(page.attempts.at(-1)!.n, eventId);
      reply.header(
        'link',
        nextLink(
          target,
          [
            ['limit', limit],
            ['eventId', eventId],
          ],
          next,
        ),
      );
    }
    return page.attempts.map(({ at, event, status, result, durationMs, error, resend }) => ({
      endpointId,
      eventId: eventIdOf(epoch, event),
      attemptedAt: new Date(at).toISOString(),
      ...(status === undefined ? {} : { status }),
      result,
      durationMs,
      ...(error === undefined ? {} : { error }),
      ...(resend ? { resend } : {}),
    }));
  }) satisfies OperationHandler<'listWebhookDeliveries'>;
}
