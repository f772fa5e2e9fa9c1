// Wakes the long polls of listPetEvents when an event arrives. A write served by this instance
// wakes them at once (notify); one served by another instance on the same database is found by a
// poll that runs only while a request waits, one query per interval for all of them.
import type { PetStore } from '../store/pet-store.js';
import { STORE_WRITES, wrapStore } from '../store/wrap-store.js';

export interface EventSignal {
  /** An event was recorded here: every waiter looks again. */
  notify(): void;
  /**
   * Resolves once an event after seq `after` may be readable, after `ms`, on `abort`, or at close;
   * whichever comes first: to false at close (respond now), else true (read again to see which).
   */
  wait(after: number, ms: number, abort?: AbortSignal): Promise<boolean>;
  /** Ends every wait, now and from now on (the instance is closing). */
  close(): void;
}

/** How often waiting requests look for events other instances recorded. */
export const EVENT_POLL_MS = 200;

/**
 * `firstAfter` finds the seq of the first event after a seq (undefined when there is none yet);
 * without it (a store of this process alone), only notify wakes the waiters.
 */
export function createEventSignal(
  firstAfter?: (after: number) => Promise<number | undefined>,
  pollMs = EVENT_POLL_MS,
): EventSignal {
  const waiters = new Set<{ after: number; wake: () => void }>();
  let closed = false;
  let polling: NodeJS.Timeout | undefined;

  const wakeAll = (upTo = Infinity) => {
    for (const waiter of waiters) if (waiter.after < upTo) waiter.wake();
  };
  const poll = async () => {
    polling = undefined;
    if (waiters.size === 0) return;
    const from = Math.min(...[...waiters].map((waiter) => waiter.after));
    // A failed look (the database away) is as good as an empty one: the next tick looks again.
    const seq = await firstAfter!(from).catch(() => undefined);
    if (seq !== undefined) wakeAll(seq);
    schedule();
  };
  const schedule = () => {
    if (firstAfter !== undefined && polling === undefined && waiters.size > 0 && !closed)
      polling = setTimeout(() => void poll(), pollMs);
  };

  return {
    notify: () => wakeAll(),
    wait(after, ms, abort) {
      if (closed) return Promise.resolve(false);
      if (abort?.aborted) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const waiter = {
          after,
          wake: () => {
            clearTimeout(timer);
            abort?.removeEventListener('abort', waiter.wake);
            waiters.delete(waiter);
            resolve(!closed);
          },
        };
        const timer = setTimeout(waiter.wake, ms);
        abort?.addEventListener('abort', waiter.wake, { once: true });
        waiters.add(waiter);
        schedule();
      });
    },
    close() {
      closed = true;
      clearTimeout(polling);
      wakeAll();
    },
  };
}

/** The store, telling `signal` of each write it acknowledged (each records an event, or is a no-op). */
export function signalling(store: PetStore, signal: EventSignal): PetStore {
  const told = <T>(result: T) => {
    signal.notify();
    return result;
  };
  return wrapStore(
    () => store,
    (path) => (STORE_WRITES.has(path) ? (call) => call().then(told) : undefined),
  );
}

/** The seq of the first event after `after` in `store`'s feed, for createEventSignal's poll. */
export const firstEventAfter = (store: PetStore) => async (after: number) =>
  (await store.listEvents(after, 1)).events[0]?.seq;
