import { CursorExpired, ValidationFailed } from '../errors/api-errors.js';
import { eventBody, eventIdOf, expiryOf, positionOfEventId } from '../events/event-id.js';
import type { EventSignal } from '../events/event-signal.js';
import type { PetStore } from '../store/pet-store.js';
import type { OperationHandler } from '../types/api.js';
import { readAtOf } from './store-position.js';

/** `path` is where listPetEvents is served (`/v1/pet-events`), for the next links. */
export function listPetEvents(store: PetStore, signal: EventSignal, path: string) {
  return (async (request, reply) => {
    // The validator has applied the spec's defaults, so limit and wait are always present here.
    const { after } = request.query;
    const limit = request.query.limit!;
    const wait = request.query.wait!;
    const position = after === undefined ? undefined : positionOfEventId(after);
    if (after !== undefined && position === undefined)
      throw new ValidationFailed(`query parameter after is not an event id this service issued`);
    const deadline = performance.now() + wait * 1000;
    // A long poll ends when its client goes away, not 30 s later.
    const gone = new AbortController();
    reply.raw.once('close', () => gone.abort());
    const { atLeast } = readAtOf(request, store.epoch());
    for (let open = true; ;) {
      const page = await store.listEvents(position?.seq, limit, { atLeast });
      const expiry = position === undefined ? undefined : expiryOf(position, page);
      if (expiry !== undefined) throw new CursorExpired(after!, expiry);
      // Where this read stands when it found nothing: the cursor, or the horizon when that is later.
      const reached = Math.max(position?.seq ?? 0, page.horizon);
      const remaining = deadline - performance.now();
      if (page.events.length > 0 || remaining <= 0 || gone.signal.aborted || !open) {
        // What the client has seen of the feed is where it reads next: its Store-Position.
        const last = eventIdOf(page.epoch, page.events.at(-1)?.seq ?? reached);
        reply.header('link', `<${path}?after=${last}&limit=${limit}&wait=${wait}>; rel="next"`);
        reply.header('store-position', last);
        return page.events.map((event) => eventBody(page.epoch, event));
      }
      open = await signal.wait(reached, remaining, gone.signal);
    }
  }) satisfies OperationHandler<'listPetEvents'>;
}
