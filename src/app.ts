// Builds the service as an un-listened Fastify instance from explicit options.
// src/server.ts is the only place that reads the environment and listens.
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import openapiGlue, { type FastifyOpenapiGlueOptions } from 'fastify-openapi-glue';
import pino, { type DestinationStream, type LoggerOptions } from 'pino';
import type { ApiKeyEntry } from './auth/api-clients.js';
import { createBearerAuth, type KeySource } from './auth/bearer-auth.js';
import { fixedKeys } from './auth/fixed-keys.js';
import { rolesOf } from './auth/roles.js';
import { createFairShare } from './limits/fair-share.js';
import { createQuotas } from './limits/quotas.js';
import { createRateLimiter } from './limits/rate-limiter.js';
import { registerDocs } from './docs/swagger-ui.js';
import { RouteNotFound } from './errors/api-errors.js';
import { createClientErrorHandler } from './errors/client-error-handler.js';
import { createErrorHandler } from './errors/error-handler.js';
import { createHandlers } from './handlers/index.js';
import { RequestLog } from './logging/request-log.js';
import { withLazyChildren } from './logging/request-logger.js';
import type { ServiceMetrics } from './metrics/service-metrics.js';
import { requestIdGenerator } from './request-id.js';
import { collapseJsonContent } from './routes/json-content-schemas.js';
import { registerHealth } from './routes/health.js';
import { registerMethodNotAllowed } from './routes/method-not-allowed.js';
import { observeRoutes } from './routes/observed-routes.js';
import { securityHeaders } from './routes/security-headers.js';
import { createOperationResolver } from './routes/operation-routes.js';
import {
  basePathOf,
  errorCodesOf,
  loadServedSpec,
  operationsOf,
  type OpenApiDocument,
} from './openapi/openapi-spec.js';
import { usePrecompiledMetaSchema } from './openapi/precompiled-meta-schema.js';
import { createEventSignal, firstEventAfter, signalling, type EventSignal } from './events/event-signal.js';
import { createMemoryPetStore } from './store/memory-pet-store.js';
import type { PetStore } from './store/pet-store.js';
import type { OperationHandlers } from './types/api.js';
import { traceFromHeader } from './tracing/trace-context.js';
import type { Tracing } from './tracing/tracing.js';
import { formatSchemaErrors } from './validation/error-messages.js';
import { withInt64ConstraintsAsText } from './validation/ajv.js';
import { parseJsonBody } from './validation/json-body-parser.js';
import { createValidatorCompiler, rejectUndeclaredQuery } from './validation/request-validator.js';
import type { Endpoints } from './webhooks/endpoints.js';

export const BODY_LIMIT = 16 * 1024;
/** How long a request may take to arrive whole; deploy/nginx/petstore.conf matches it. */
export const REQUEST_TIMEOUT_MS = 30_000;
/**
 * How long an idle connection is kept open (Fastify's default, stated): longer than the upstream
 * keep-alive of the nginx configuration in deploy/, so that idle connections are closed by the
 * proxy, never under a request it is sending.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 72_000;
// Longer than any request line Node accepts (16 KiB of headers), so an over-long petId reaches
// its route and is answered, after authentication, as an invalid int64 rather than a bare 414.
export const MAX_PARAM_LENGTH = 16 * 1024;

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
  spec?: OpenApiDocument;
  /** Options for a pino logger; none (or false) logs nothing. */
  logger?: false | (LoggerOptions & { stream?: DestinationStream });
  /** A logger made by the caller (src/server.ts), in place of `logger` options. */
  loggerInstance?: FastifyBaseLogger;
  /** Records the Prometheus metrics; none records nothing and costs nothing. */
  metrics?: ServiceMetrics;
  /** Exports spans (src/tracing/otel-tracing.ts); none exports nothing and costs nothing. */
  tracing?: Tracing;
  /** The time in ms since the epoch for the spec's sunsets; Date.now unless a test moves it. */
  clock?: () => number;
  /**
   * Handlers for operations that a spec under test adds to openapi.yaml's (npm run compat's tests
   * of proposed edits), keyed by operationId; the built-in handlers serve the rest.
   */
  handlers?: Readonly<Record<string, (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>>>;
  /**
   * True while the instance drains before it closes (src/shutdown.ts): not ready, and every answer closes its
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
   * How long a refusal (429) waits before it is sent: REFUSAL_DELAY_MS unless the benchmark measures a refusal's own
   * cost.
   */
  refusalDelayMs?: number;
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const spec = options.spec ?? loadServedSpec();
  const basePath = basePathOf(spec);
  const operations = operationsOf(spec);
  // Writes served here wake the feed's long polls at once; those of other instances, its poll.
  const unsignalled = options.store ?? createMemoryPetStore();
  const events = options.events ?? createEventSignal(firstEventAfter(unsignalled));
  const store = signalling(unsignalled, events);
  const headers = securityHeaders();
  const { metrics, tracing } = options;
  const handleError = createErrorHandler({
    errorCodes: errorCodesOf(spec),
    bodyLimit: BODY_LIMIT,
    headers,
    ...(metrics === undefined ? {} : { onUnavailable: metrics.databaseUnavailable }),
  });

  const logger = options.loggerInstance ?? (options.logger ? pinoLogger(options.logger) : undefined);
  const app = Fastify({
    ...(logger === undefined ? { logger: false } : { loggerInstance: withLazyChildren(logger) }),
    logController: new RequestLog(tracing?.traceOf ?? traceFromHeader),
    genReqId: requestIdGenerator(),
    bodyLimit: BODY_LIMIT,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Only what the spec defines is served: HEAD gets a 405 like any other undefined method.
    exposeHeadRoutes: false,
    // During a graceful close, requests already on open connections are still served.
    return503OnClosing: false,
    requestTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    schemaErrorFormatter: formatSchemaErrors,
    frameworkErrors: (error, request, reply) => void handleError(error, request, reply),
    clientErrorHandler: createClientErrorHandler(headers),
  });
  // Set by authentication; declared here so every request object has the same shape.
  app.decorateRequest('apiKeyScope', '');
  app.decorateRequest('client', '');
  app.decorateRequest('rateLimited', false);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler(async (request) => {
    throw new RouteNotFound(request.method, request.url.replace(/\?.*$/s, ''));
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['application/json', 'application/merge-patch+json'], { parseAs: 'buffer' }, parseJsonBody);
  app.setValidatorCompiler(createValidatorCompiler());
  app.addHook('onRoute', rejectUndeclaredQuery);
  app.addHook('onRoute', collapseJsonContent);
  observeRoutes(app, metrics, tracing);

  // While the instance drains and while it closes, every answer closes its connection, so that no
  // client or proxy keeps one to reuse: the service never has to close a connection under a request.
  let closing = false;
  const { draining = () => false } = options;
  app.addHook('preClose', async () => {
    closing = true;
    // Long polls answer now (empty, with their next link), so that the close does not wait for them.
    events.close();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing || draining()) reply.header('connection', 'close');
    done(null, payload);
  });

  const keys = isKeySource(options.apiKeys) ? options.apiKeys : fixedKeys(options.apiKeys, rolesOf(spec));
  const limiter = createRateLimiter({
    ...(options.fairShare === true ? { fairShare: createFairShare() } : {}),
    quotas: createQuotas(options.instances ?? (() => 1)),
    policy: () => keys.table.quotas,
    ...(metrics === undefined ? {} : { onRefused: metrics.rateLimited }),
    ...(options.refusalDelayMs === undefined ? {} : { delayMs: options.refusalDelayMs }),
    log: app.log,
  });
  app.addHook('onClose', async () => limiter.close());

  await registerDocs(app, spec, basePath);
  usePrecompiledMetaSchema();
  await app.register(openapiGlue, {
    specification: withInt64ConstraintsAsText(spec),
    prefix: basePath,
    // Glue spreads these options over its own method, url and schema; its type asks for whole RouteOptions.
    operationResolver: createOperationResolver({
      spec,
      handlers: {
        ...createHandlers({
          store,
          events,
          pathOf: (operationId) => {
            const operation = operations.find((candidate) => candidate.operationId === operationId);
            return operation === undefined ? undefined : basePath + operation.path;
          },
          ...(metrics === undefined ? {} : { onReplay: metrics.idempotentReplay }),
          webhooks: options.webhooks,
        }),
        ...(options.handlers as Partial<OperationHandlers> | undefined),
      },
      authenticators: { bearerAuth: createBearerAuth(keys, options.clock) },
      limit: limiter.limit,
      headers,
      ...(metrics === undefined ? {} : { countDeprecatedCalls: metrics.deprecatedCallCounter }),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    }) as unknown as NonNullable<FastifyOpenapiGlueOptions['operationResolver']>,
  });
  registerMethodNotAllowed(app, operations, basePath);
  registerHealth(app, store, headers, draining);
  return app;
}

function isKeySource(keys: AppOptions['apiKeys']): keys is KeySource {
  return !Array.isArray(keys);
}

function pinoLogger({ stream, ...options }: LoggerOptions & { stream?: DestinationStream }): FastifyBaseLogger {
  return (stream === undefined ? pino(options) : pino(options, stream)) as FastifyBaseLogger;
}
