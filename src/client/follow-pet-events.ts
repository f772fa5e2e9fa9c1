// A follower of the change feed: every event, in order, for as long as the caller reads, resuming
// where it stood. It long-polls (`wait`), so a change arrives within a second or so of its
// acknowledgement, and it rides out outages: a lost connection or a 5xx is retried from the last
// event it yielded, never skipping or repeating one. A cursor the feed no longer keeps (410
// CURSOR_EXPIRED) ends it with that PetstoreError: the caller reads the pets again, then follows
// from the start (no `after`).
import type { components, PetstoreOperations } from '../../generated/client-api.js';
import { backoffMs, type CallOptions } from './call.js';
import { PetstoreConnectionError, PetstoreError } from './errors.js';

type PetEvent = components['schemas']['PetEvent'];

export interface FollowOptions extends CallOptions {
  /** Resume after this event (an event's `id`, saved by the caller); from the oldest kept when left out. */
  after?: string;
  /** Seconds each request waits for an event (default 30, the most the service holds one). */
  wait?: number;
  /** Events per request (default 100). */
  limit?: number;
  /** Told of each outage the follower rides out, with the delay before it tries again. */
  onRetry?: (error: Error, delayMs: number) => void;
}

export const DEFAULT_FOLLOW_WAIT_S = 30;

/** Every event after `after`, oldest first, for ever (until `signal`, or a break out of the loop). */
export async function* followPetEvents(
  client: PetstoreOperations,
  options: FollowOptions = {},
): AsyncGenerator<PetEvent, void, undefined> {
  const { wait = DEFAULT_FOLLOW_WAIT_S, limit, signal, onRetry } = options;
  let after = options.after;
  for (let outages = 0; ;) {
    try {
      const query = { wait, ...(after === undefined ? {} : { after }), ...(limit === undefined ? {} : { limit }) };
      for await (const page of client.listPetEvents(query, signal === undefined ? {} : { signal }).pages()) {
        outages = 0;
        for (const event of page.items) {
          after = event.id;
          yield event;
        }
      }
      /* c8 ignore next 2 -- every response of the feed links to the next one: the pages end only by an error */
      return;
    } catch (error) {
      const passing =
        error instanceof PetstoreConnectionError ||
        (error instanceof PetstoreError && (error.status === 429 || error.status >= 500));
      // An abandoned follower (signal) ends with its abort, which is neither.
      if (!passing) throw error;
      const delayMs = backoffMs(Math.min(outages++, 6), (error as PetstoreError).retryAfter);
      onRetry?.(error as Error, delayMs);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}
