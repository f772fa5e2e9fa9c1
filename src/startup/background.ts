// What an instance does besides serving requests, once its store can serve: the change feed's
// retention, the orders' expiry, and the webhooks' deliveries when it has endpoints.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { EventSignal } from '../events/event-signal.js';
import { startEventRetention } from '../events/retention.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { startOrderExpiry } from '../store/order-expiry.js';
import type { PetStore } from '../store/pet-store.js';
import { startDeliveries } from '../webhooks/deliveries.js';
import type { Endpoints } from '../webhooks/endpoints.js';

export interface BackgroundOptions {
  store: PetStore;
  events: EventSignal;
  endpoints: Endpoints | undefined;
  config: Config;
  log: FastifyBaseLogger;
  metrics: ServiceMetrics | undefined;
}

export function startBackground({ store, events, endpoints, config, log, metrics }: BackgroundOptions) {
  const retention = startEventRetention(store, config.eventsRetentionMs, log);
  const expiry = startOrderExpiry(store, log, () => events.notify());
  const deliveries =
    endpoints === undefined
      ? undefined
      : startDeliveries({
          store,
          endpoints,
          signal: events,
          log,
          retryDelaysMs: config.webhookRetryDelaysMs,
          timeoutMs: config.webhookTimeoutMs,
          ...(metrics === undefined ? {} : { metrics: metrics.webhooks }),
        });
  return {
    /** Deliveries stop first: one under way finishes, and its lease is given up for another instance. */
    stopDeliveries: async () => deliveries?.close(),
    async close() {
      await retention.close();
      await expiry.close();
    },
  };
}
