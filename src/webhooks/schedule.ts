// When deliveries are retried and how long one waits, unless configured (WEBHOOK_RETRY_DELAYS,
// WEBHOOK_TIMEOUT_SECONDS). A module of its own, so that reading the configuration loads nothing
// of the deliveries.

/**
 * The steps between attempts, each the most a retry waits: the wait is drawn between half its step
 * and the whole of it (equal jitter, src/webhooks/deliveries.ts). Svix's schedule (5 s, 5 min,
 * 30 min, 2 h, 5 h, 10 h, 10 h), then 24 h five times, so that the retries span at least 3.07
 * days (at most 6.15; 4.6 on average), longer than Stripe's three: a receiver down over a weekend
 * is still retried on Monday.
 */
export const DEFAULT_RETRY_DELAYS_S = [
  5, 300, 1800, 7200, 18_000, 36_000, 36_000, 86_400, 86_400, 86_400, 86_400, 86_400,
];
export const DEFAULT_DELIVERY_TIMEOUT_MS = 15_000;
