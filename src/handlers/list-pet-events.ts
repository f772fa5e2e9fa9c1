import { CursorExpired, ValidationFailed } from '../errors/api-errors.js';
import { eventIdOf, positionOfEventId } from '../events/event-id.js';
import type { EventSignal } from '../events/event-signal.js';
import type { PetStore, StoredEvent } from '../store/pet-store.js';
import type { OperationHandler } from '../types/api.js';

/** `path` is where listPetEvents is served (`/v1/pet-events`), for the next links. */
export function listPetEvents(store: PetStore, signal: EventSignal, path: string) {
  return (async (request, reply) => {
    // The validator has applied the spec's defaults, so limit and wait are always present here.
    const { after, limit = 100, wait = 0 } = request.query;
    const position = after === undefined ? undefined : positionOfEventId(after);
    if (after !== undefined && position === undefined) throw new ValidationFailed(`query parameter after is not an event id this service issued`);
    const deadline = performance.now() + wait * 1000;
    // A long poll ends when its client goes away, not 30 s later.
    const gone = new AbortController();
    reply.raw.once('close', () => gone.abort());
    for (let open = true; ; ) {
      const page = await store.listEvents(position?.seq, limit);
      if (position !== undefined && position.epoch !== page.epoch) throw new CursorExpired(after!, 'is from a feed this store no longer keeps (the store was replaced)');
      if (position !== undefined && position.seq < page.horizon) throw new CursorExpired(after!, `is older than the events kept (from ${eventIdOf(page.epoch, page.horizon)} on)`);
      const remaining = deadline - performance.now();
      if (page.events.length > 0 || remaining <= 0 || gone.signal.aborted || !open) {
        const last = page.events.at(-1)?.seq ?? Math.max(position?.seq ?? 0, page.horizon);
        reply.header('link', `<${path}?after=${eventIdOf(page.epoch, last)}&limit=${limit}&wait=${wait}>; rel="next"`);
        return page.events.map((event) => eventBody(page.epoch, event));
      }
      open = await signal.wait(Math.max(position?.seq ?? 0, page.horizon), remaining, gone.signal);
    }
  }) satisfies OperationHandler<'listPetEvents'>;
}

/** An event as the feed and the webhooks send it (openapi.yaml, PetEvent). */
export function eventBody(epoch: string, { seq, type, petId, version, occurredAt, pet }: StoredEvent) {
  const body = { id: eventIdOf(epoch, seq), type, petId, version, occurredAt: new Date(occurredAt).toISOString() };
  return pet === undefined ? body : { ...body, pet };
}
