// When deliveries are retried and how long one waits, unless configured (WEBHOOK_RETRY_DELAYS,
// WEBHOOK_TIMEOUT_SECONDS). A module of its own, so that reading the configuration loads nothing
// of the deliveries.

/**
 * The steps between attempts, each the most a retry waits: the wait is drawn between 0 and its
 * step (full jitter, src/webhooks/deliveries.ts). Svix's schedule (5 s, 5 min, 30 min, 2 h, 5 h,
 * 10 h, 10 h), then 24 h five times, so that the retries span about 3 days on average (3.1 days;
 * at most 6.2), as Stripe's do: a receiver down over a weekend is still retried on Monday.
 */
export const DEFAULT_RETRY_DELAYS_S = [
  5, 300, 1800, 7200, 18_000, 36_000, 36_000, 86_400, 86_400, 86_400, 86_400, 86_400,
];
export const DEFAULT_DELIVERY_TIMEOUT_MS = 15_000;
