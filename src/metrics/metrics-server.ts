// The metrics listener: Prometheus scrapes GET /metrics here, on a port of its own and never on the
// API's, so a public API does not publish its internals. It needs no key: keep the port internal.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export const METRICS_PATH = '/metrics';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

export async function listenForMetrics(registry: Registry, host: string, port: number): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    /* c8 ignore next -- Node sets url on every request a server receives; the type allows none */
    const path = (request.url ?? '').replace(/\?.*$/s, '');
    if (path !== METRICS_PATH || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end(`Only GET ${METRICS_PATH} is served here.\n`);
      return;
    }
    registry.metrics().then(
      (text) =>
        response
          .writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' })
          .end(request.method === 'HEAD' ? undefined : text),
      (error: Error) =>
        response
          .writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
          .end(`Metrics could not be collected: ${error.message}\n`),
    );
  });
  // A scrape is short: an idle connection is not kept for long.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
