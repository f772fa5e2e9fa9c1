// The sweep that frees the pets of expired orders (docs/orders.md): every instance runs it each
// second, so a pet is available again within a second or two of its order's expiresAt, even when
// nobody reads the order. The store makes each expiry happen once, whichever instance sweeps first.
// A failure (the database away) is only logged: the next round catches up.
import type { FastifyBaseLogger } from 'fastify';
import type { PetStore } from './pet-store.js';

export const EXPIRY_EVERY_MS = 1000;

export function startOrderExpiry(
  store: PetStore,
  log: FastifyBaseLogger,
  onExpired: () => void,
  everyMs = EXPIRY_EVERY_MS,
): { close(): Promise<void> } {
  let sweeping: Promise<void> = Promise.resolve();
  let failing = false;
  let busy = false;
  const sweep = () => {
    // A sweep slower than the period is not stacked on.
    if (busy) return;
    busy = true;
    sweeping = store.orders
      .expire()
      .then(
        (expired) => {
          failing = false;
          if (expired > 0) onExpired();
        },
        (error: Error) => {
          // Once per outage, not every second.
          if (!failing) log.warn({ reason: error.message }, 'cannot expire orders now; retrying every second');
          failing = true;
        },
      )
      .finally(() => (busy = false));
  };
  const timer = setInterval(sweep, everyMs).unref();
  return {
    async close() {
      clearInterval(timer);
      await sweeping;
    },
  };
}
