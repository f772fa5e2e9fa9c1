// What each request records: Prometheus metrics and OpenTelemetry spans, by operation. Without
// either, no hook is added and nothing is paid.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { observeRoutes } from '../routes/observed-routes.js';
import type { Tracing } from '../tracing/tracing.js';

async function observability(
  app: FastifyInstance,
  { metrics, tracing }: { metrics: ServiceMetrics | undefined; tracing: Tracing | undefined },
) {
  observeRoutes(app, metrics, tracing);
}

export default fp(observability, { name: 'observability' });
