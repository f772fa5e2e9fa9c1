// Builds the service as an un-listened Fastify instance from explicit options: its parts, in order.
// src/server.ts is the only place that reads the environment and listens.
import Fastify, { type FastifyInstance } from 'fastify';
import { DEFAULT_ORDER_HOLDS_PER_CLIENT, type AppOptions } from './app-options.js';
import { createErrorHandler } from './errors/error-handler.js';
import { createEventSignal, firstEventAfter, signalling } from './events/event-signal.js';
import { BODY_LIMIT, fastifyOptions } from './fastify-options.js';
import { errorCodesOf, loadServedSpec } from './openapi/openapi-spec.js';
import * as plugins from './plugins/index.js';
import { securityHeaders } from './routes/security-headers.js';
import { createMemoryPetStore } from './store/memory-pet-store.js';

export type { AppOptions } from './app-options.js';
export { BODY_LIMIT, KEEP_ALIVE_TIMEOUT_MS, MAX_PARAM_LENGTH, REQUEST_TIMEOUT_MS } from './fastify-options.js';

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const spec = options.spec ?? loadServedSpec();
  // Writes served here wake the feed's long polls at once; those of other instances, its poll.
  const unsignalled = options.store ?? createMemoryPetStore();
  const events = options.events ?? createEventSignal(firstEventAfter(unsignalled));
  const store = signalling(unsignalled, events);
  const headers = securityHeaders();
  const { metrics, tracing, clock, draining = () => false } = options;
  const handleError = createErrorHandler({
    errorCodes: errorCodesOf(spec),
    bodyLimit: BODY_LIMIT,
    headers,
    ...(metrics === undefined ? {} : { onUnavailable: metrics.databaseUnavailable }),
  });

  const app = Fastify(fastifyOptions(options, handleError, headers));
  await app.register(plugins.requests, { handleError });
  await app.register(plugins.observability, { metrics, tracing });
  await app.register(plugins.connections, { draining, events });
  await app.register(plugins.security, { apiKeys: options.apiKeys, spec, clock });
  await app.register(plugins.limits, {
    fairShare: options.fairShare === true,
    instances: options.instances ?? (() => 1),
    metrics,
    rejectionDelayMs: options.rejectionDelayMs,
  });
  const {
    webhooks,
    webhookApi = { allowPrivateUrls: false },
    handlers,
    orderHoldsPerClient = DEFAULT_ORDER_HOLDS_PER_CLIENT,
  } = options;
  await app.register(plugins.operations, {
    spec,
    store,
    events,
    webhooks,
    webhookApi,
    headers,
    metrics,
    clock,
    handlers,
    orderHoldsPerClient,
  });
  await app.register(plugins.health, { store, headers, draining });
  return app;
}
