// What an instance does besides serving requests, once its store can serve: the change feed's
// retention, the orders' expiry, and the webhooks' deliveries (to the file's endpoints and the API's).
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { EventSignal } from '../events/event-signal.js';
import { startEventRetention } from '../events/retention.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { startOrderExpiry } from '../store/order-expiry.js';
import type { PetStore } from '../store/pet-store.js';
import { deliveredEndpoints } from '../webhooks/api-endpoints.js';
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
  const delivered = deliveredEndpoints({
    file: endpoints,
    store: store.webhookEndpoints,
    log,
    guarded: !config.webhookAllowPrivateUrls,
  });
  const deliveries = startDeliveries({
    store,
    endpoints: delivered,
    signal: events,
    log,
    retryDelaysMs: config.webhookRetryDelaysMs,
    timeoutMs: config.webhookTimeoutMs,
    ...(metrics === undefined ? {} : { metrics: metrics.webhooks }),
  });
  return {
    /** Reads the API's endpoints again now: one was added, changed or removed on this instance. */
    refreshEndpoints: () => delivered.refresh(),
    /** Deliveries stop first: one under way finishes, and its lease is given up for another instance. */
    async stopDeliveries() {
      delivered.close();
      await deliveries.close();
    },
    async close() {
      await retention.close();
      await expiry.close();
    },
  };
}
