// The API itself: every operation of the spec wired to its handler by fastify-openapi-glue, under
// the spec's base path, with its security, limits, deprecation headers and validation; Swagger UI
// at /docs; and 405 for a method the spec does not define on a path it has.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import openapiGlue, { type FastifyOpenapiGlueOptions } from 'fastify-openapi-glue';
import { registerDocs } from '../docs/swagger-ui.js';
import type { EventSignal } from '../events/event-signal.js';
import { createHandlers } from '../handlers/index.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { basePathOf, operationsOf, type OpenApiDocument } from '../openapi/openapi-spec.js';
import { ownershipOf } from '../openapi/ownership.js';
import { usePrecompiledMetaSchema } from '../openapi/precompiled-meta-schema.js';
import { registerMethodNotAllowed } from '../routes/method-not-allowed.js';
import { createOperationResolver } from '../routes/operation-routes.js';
import type { PetStore } from '../store/pet-store.js';
import type { OperationHandlers } from '../types/api.js';
import { withInt64ConstraintsAsText } from '../validation/ajv.js';
import type { WebhookApiOptions } from '../handlers/webhook-endpoint-access.js';
import type { Endpoints } from '../webhooks/endpoints.js';

interface OperationsOptions {
  spec: OpenApiDocument;
  store: PetStore;
  events: EventSignal;
  webhooks: Endpoints | undefined;
  webhookApi: WebhookApiOptions;
  headers: Readonly<Record<string, string>>;
  metrics: ServiceMetrics | undefined;
  clock: (() => number) | undefined;
  handlers: Readonly<Record<string, (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>>> | undefined;
  /** ORDER_HOLDS_PER_CLIENT. */
  orderHoldsPerClient: number;
}

async function operations(app: FastifyInstance, options: OperationsOptions) {
  const { spec, metrics, clock } = options;
  const basePath = basePathOf(spec);
  const all = operationsOf(spec);
  await registerDocs(app, spec, basePath);
  usePrecompiledMetaSchema();
  const handlers = createHandlers({
    store: options.store,
    events: options.events,
    pathOf: (operationId) => {
      const operation = all.find((candidate) => candidate.operationId === operationId);
      return operation === undefined ? undefined : basePath + operation.path;
    },
    ...(metrics === undefined ? {} : { onReplay: metrics.idempotentReplay }),
    webhooks: options.webhooks,
    webhookApi: options.webhookApi,
    orders: { holdsPerClient: options.orderHoldsPerClient, ownership: ownershipOf(spec, 'Order') },
  });
  await app.register(openapiGlue, {
    specification: withInt64ConstraintsAsText(spec),
    prefix: basePath,
    // Glue spreads these options over its own method, url and schema; its type asks for whole RouteOptions.
    operationResolver: createOperationResolver({
      spec,
      handlers: { ...handlers, ...(options.handlers as Partial<OperationHandlers> | undefined) },
      authenticators: { bearerAuth: app.bearerAuth },
      limit: app.limiter.limit,
      headers: options.headers,
      ...(metrics === undefined ? {} : { countDeprecatedCalls: metrics.deprecatedCallCounter }),
      ...(clock === undefined ? {} : { clock }),
    }) as unknown as NonNullable<FastifyOpenapiGlueOptions['operationResolver']>,
  });
  registerMethodNotAllowed(app, all, basePath);
}

export default fp(operations, { name: 'operations', dependencies: ['security', 'limits'] });
