// The feed's retention: every instance purges on its own timer (their deletes are of the same
// oldest rows, one after the other). A failure (the database away) is only logged: the next round
// catches up.
import type { FastifyBaseLogger } from 'fastify';
import type { PetStore } from '../store/pet-store.js';

const PURGE_EVERY_MS = 5 * 60_000;

export function startEventRetention(
  store: PetStore,
  retentionMs: number,
  log: FastifyBaseLogger,
  everyMs = PURGE_EVERY_MS,
): { close(): Promise<void> } {
  let purging: Promise<void> = Promise.resolve();
  const purge = () => {
    purging = store.purgeEvents(retentionMs).then(
      (purged) =>
        void (purged > 0 && log.info({ purged }, 'purged events past their retention (EVENTS_RETENTION_HOURS)')),
      (error: Error) => log.warn({ reason: error.message }, 'cannot purge old events now; retrying later'),
    );
  };
  const timer = setInterval(purge, everyMs).unref();
  purge();
  return {
    async close() {
      clearInterval(timer);
      await purging;
    },
  };
}
