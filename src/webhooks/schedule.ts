// When deliveries are retried and how long one waits, unless configured (WEBHOOK_RETRY_DELAYS,
// WEBHOOK_TIMEOUT_SECONDS). A module of its own, so that reading the configuration loads nothing
// of the deliveries.

/**
 * The Standard Webhooks schedule (as Svix sends it): after the first attempt, 5 s, 5 min, 30 min,
 * 2 h, 5 h, 10 h, 10 h.
 */
export const DEFAULT_RETRY_DELAYS_S = [5, 300, 1800, 7200, 18_000, 36_000, 36_000];
export const DEFAULT_DELIVERY_TIMEOUT_MS = 15_000;
