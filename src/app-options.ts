// What buildApp (src/app.ts) takes: the service's parts, each explicit, so that src/server.ts, the
// tests and the tools build the same service from what they choose.
import type { DestinationStream, LoggerOptions } from 'pino';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyEntry } from './auth/api-clients.js';
import type { KeySource } from './auth/bearer-auth.js';
import type { EventSignal } from './events/event-signal.js';
import type { ServiceMetrics } from './metrics/service-metrics.js';
import type { OpenApiDocument } from './openapi/openapi-spec.js';
import type { PetStore } from './store/pet-store.js';
import type { Tracing } from './tracing/tracing.js';
import type { WebhookApiOptions } from './handlers/webhook-endpoint-access.js';
import type { Endpoints } from './webhooks/endpoints.js';

/** How many placed orders a client holds at once unless ORDER_HOLDS_PER_CLIENT says otherwise. */
export const DEFAULT_ORDER_HOLDS_PER_CLIENT = 5;

export interface AppOptions {
  /**
   * Keys accepted as `Authorization: Bearer <key>`, each with its client's name or named after its
   * hash, and its roles (every role the spec names unless it lists some); at least one. Or a source
   * whose keys change while the service runs (API_KEYS_FILE, src/auth/key-ring.ts).
   */
  apiKeys: readonly ApiKeyEntry[] | KeySource;
  store?: PetStore;
  /** Wakes the feed's long polls (and the webhooks' deliveries, src/server.ts); one of the app's own unless given. */
  events?: EventSignal;
  /** WEBHOOKS_FILE's endpoints, for listWebhookEndpoints and setWebhookPosition; none: the deployment has none. */
  webhooks?: Endpoints;
  /**
   * The endpoints of the API: whether their URLs may be private (WEBHOOK_ALLOW_PRIVATE_URLS; not unless
   * told), and whom a change is told to (the instance's deliveries).
   */
  webhookApi?: WebhookApiOptions;
  spec?: OpenApiDocument;
  /** Options for a pino logger; none (or false) logs nothing. */
  logger?: false | (LoggerOptions & { stream?: DestinationStream });
  /** A logger made by the caller (src/server.ts), in place of `logger` options. */
  loggerInstance?: FastifyBaseLogger;
  /** Records the Prometheus metrics; none records nothing and costs nothing. */
  metrics?: ServiceMetrics;
  /** Exports spans (src/tracing/otel-tracing.ts); none exports nothing and costs nothing. */
  tracing?: Tracing;
  /** The time in ms since 1970 for the spec's sunsets; Date.now unless a test moves it. */
  clock?: () => number;
  /**
   * Handlers for operations that a spec under test adds to openapi.yaml's (npm run compat's tests
   * of proposed edits), keyed by operationId; the built-in handlers serve the rest.
   */
  handlers?: Readonly<Record<string, (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>>>;
  /**
   * True while the instance drains before it closes (src/shutdown.ts): not ready, and every response closes its
   * connection.
   */
  draining?: () => boolean;
  /**
   * Fair share (src/limits/fair-share.ts): while the instance is busy, a client over its share of
   * the work is refused with 429. On in the service (src/server.ts); off unless asked for here.
   */
  fairShare?: boolean;
  /** The live instances that share the quotas (src/store/postgres/instances.ts); 1 unless told. */
  instances?: () => number;
  /**
   * How long a rejection (429) waits before it is sent: REJECTION_DELAY_MS unless the benchmark
   * measures a rejection's own cost.
   */
  rejectionDelayMs?: number;
  /** The placed orders a client may hold at once (ORDER_HOLDS_PER_CLIENT); DEFAULT_ORDER_HOLDS_PER_CLIENT if absent. */
  orderHoldsPerClient?: number;
}
