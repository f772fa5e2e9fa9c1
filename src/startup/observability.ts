// What operators see the service do: Prometheus metrics on a port of their own (METRICS_PORT), and
// spans over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import { listenForMetrics, METRICS_PATH } from '../metrics/metrics-server.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { Tracing } from '../tracing/tracing.js';

/** The metrics' own listener: none without metrics. A port that cannot be had stops start-up. */
export async function listenMetrics(
  config: Config,
  metrics: ServiceMetrics | undefined,
  log: FastifyBaseLogger,
): Promise<{ close(): Promise<void> } | undefined> {
  if (metrics === undefined) return undefined;
  const server = await listenForMetrics(metrics.registry, config.host, config.metricsPort!).catch((error: Error) => {
    throw new Error(
      `metrics cannot listen on ${config.host}:${config.metricsPort} (METRICS_PORT; off turns metrics off): ${error.message}`,
    );
  });
  log.info(`metrics at http://${config.host}:${server.port}${METRICS_PATH} (internal: no key, keep the port private)`);
  return server;
}

// Imported only here, so that without an OTLP endpoint no tracing code is loaded.
export async function startTracing(serviceVersion: string): Promise<Tracing> {
  const { createOtelTracing, exporterFor } = await import('../tracing/otel-tracing.js');
  return createOtelTracing({ serviceVersion, exporter: exporterFor(process.env) });
}
