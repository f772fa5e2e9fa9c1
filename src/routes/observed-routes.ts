// What metrics and spans know of every request: the route it matched, named by its template (the
// spec's path for an operation), timed from its arrival to the end of its response. Fixed per route
// when the route is registered, so no request pays for naming it; added only when metrics or
// tracing are on.
import type { FastifyInstance, FastifyRequest } from 'fastify';
// Types only: prom-client (and the OpenTelemetry API it loads, some 80 modules) is loaded by whoever
// creates the metrics, not by every app.
import type { RequestRecorder, ServiceMetrics } from '../metrics/service-metrics.js';
import type { ObservedRoute, Tracing } from '../tracing/tracing.js';

interface RouteObserver extends ObservedRoute {
  record: RequestRecorder | undefined;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on every route when metrics or tracing are on. */
    observer?: RouteObserver;
  }
}

/** `/v1/pets/:petId` as the spec writes it, `/v1/pets/{petId}`. */
export function templateOf(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** The http_route of every request that matched no route. */
export const UNMATCHED_ROUTE = '';

export function observeRoutes(
  app: FastifyInstance,
  metrics: ServiceMetrics | undefined,
  tracing: Tracing | undefined,
): void {
  if (metrics === undefined && tracing === undefined) return;
  const observerOf = (route: string, operationId: string): RouteObserver => ({
    route,
    operationId,
    record: metrics?.requestRecorder(route, operationId),
  });
  app.addHook('onRoute', (options) => {
    const operationId = (options.schema as { operationId?: string } | undefined)?.operationId ?? '';
    options.config = { ...options.config, observer: observerOf(templateOf(options.url), operationId) };
  });
  // Every request that matched no route shares one, so random paths cannot add series.
  const unmatched = observerOf(UNMATCHED_ROUTE, '');
  const observed = (request: FastifyRequest): RouteObserver =>
    request.is404 ? unmatched : request.routeOptions.config.observer!;

  if (tracing !== undefined) {
    app.addHook('onRequest', (request, _reply, done) => {
      tracing.startRequest(request, observed(request));
      done();
    });
    app.addHook('preHandler', (request, _reply, done) => tracing.enterRequest(request, done));
  }
  app.addHook('onResponse', (request, reply, done) => {
    observed(request).record?.(request.method, reply.statusCode, reply.elapsedTime / 1000);
    tracing?.endRequest(request, reply);
    done();
  });
}
