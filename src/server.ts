// The entry point: reads the environment, picks the store, listens (the API, and metrics on a port
// of their own), reads the keys again on SIGHUP, and closes gracefully on SIGTERM/SIGINT. What it
// starts is in src/startup/, one module each.
import { setTimeout as sleep } from 'node:timers/promises';
import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { rolesOf } from './auth/roles.js';
import { readConfig } from './config.js';
import { createEventSignal, firstEventAfter } from './events/event-signal.js';
import { createServiceMetrics } from './metrics/service-metrics.js';
import { loadServedSpec } from './openapi/openapi-spec.js';
import { closeListener } from './shutdown.js';
import { startBackground } from './startup/background.js';
import { serviceKeys } from './startup/keys.js';
import { serviceLogger } from './startup/logger.js';
import { listenMetrics, startTracing } from './startup/observability.js';
import { serviceStore } from './startup/store.js';
import { webhookEndpoints } from './startup/webhook-endpoints.js';

/** How long connections may take to end once the listener is closed; then what is left is closed. */
const CLOSE_TIMEOUT_MS = 10_000;

async function main() {
  const config = readConfig(process.env);
  const log = serviceLogger(config.logLevel);

  const spec = loadServedSpec();
  const metrics = config.metricsPort === undefined ? undefined : createServiceMetrics();
  const { keys: apiKeys, oneOffKeyFile } = await serviceKeys(config, rolesOf(spec), log, metrics);
  const tracing = config.tracing ? await startTracing(spec.info.version) : undefined;
  const keyAdoptions = () => apiKeys.table.credentials.map(({ digest, scope }) => ({ digest, scope }));
  const store = serviceStore(config, log, { metrics, tracing, keyAdoptions });
  if (tracing !== undefined) log.info('spans are exported over OTLP/HTTP (OTEL_EXPORTER_OTLP_ENDPOINT is set)');
  for (const deprecation of config.deprecations) log.warn(deprecation);

  // Wakes the feed's long polls and the webhooks' deliveries when this instance records an event.
  const events = createEventSignal(firstEventAfter(store));
  const endpoints = webhookEndpoints(config, log);

  let draining = false;
  let closing = false;
  let background: ReturnType<typeof startBackground> | undefined;
  const app = await buildApp({
    apiKeys,
    loggerInstance: log,
    store,
    events,
    ...(endpoints === undefined ? {} : { webhooks: endpoints }),
    webhookApi: {
      allowPrivateUrls: config.webhookAllowPrivateUrls,
      onChange: () => void background?.refreshEndpoints(),
    },
    spec,
    draining: () => draining,
    fairShare: config.fairShare,
    orderHoldsPerClient: config.orderHoldsPerClient,
    // With PostgreSQL, the instances count one another, and divide each quota among themselves.
    ...(store.instances === undefined ? {} : { instances: store.instances }),
    ...(metrics === undefined ? {} : { metrics }),
    ...(tracing === undefined ? {} : { tracing }),
  });
  if (oneOffKeyFile !== undefined) {
    app.log.warn(`API_KEYS is not set: generated a one-off API key for this run only, in ${oneOffKeyFile}`);
  }
  const metricsServer = await listenMetrics(config, metrics, app.log);

  // SIGTERM (an orchestrator, a rolling restart) drains first; SIGINT (Ctrl-C at a terminal) and a
  // crash do not. A second signal exits at once (close-with-grace), and so does a close that takes
  // longer than the drain and CLOSE_TIMEOUT_MS together.
  // SIGHUP reads the keys again (operators send it to reload a service's configuration): it never ends the process.
  closeWithGrace(
    { delay: config.drainMs + 2 * CLOSE_TIMEOUT_MS, logger: app.log, skip: ['SIGHUP'] },
    async ({ signal, err }) => {
      closing = true;
      apiKeys.close();
      /* c8 ignore next -- an uncaught error: nothing in the tests makes the service crash */
      if (err !== undefined) app.log.error({ err }, 'closing after an unexpected error');
      // Nothing to drain before the port is open (the store not ready yet).
      const drainMs = signal === 'SIGTERM' && app.server.listening ? config.drainMs : 0;
      if (drainMs > 0) {
        app.log.info(
          { signal, drainMs },
          `draining: /health/ready responds with 503 and every response closes its connection; the listener closes in ${drainMs} ms`,
        );
        draining = true;
        await sleep(drainMs);
        app.log.info({ signal }, 'drained');
      }
      app.log.info({ signal }, 'closing gracefully: the listener closes; finishing requests in flight');
      // After a drain, each connection is left to end after its response (src/shutdown.ts); without
      // one (Ctrl-C), idle connections are closed at once, as Fastify does.
      // Here it takes CLOSE_TIMEOUT_MS.
      /* c8 ignore start -- closeListener's time limit is tested on its own (test/system/shutdown.test.ts) */
      if (drainMs > 0 && (await closeListener(app.server, CLOSE_TIMEOUT_MS)) === 'timeout') {
        app.log.warn(`connections still open ${CLOSE_TIMEOUT_MS} ms after the listener closed: closing them`);
      }
      /* c8 ignore stop */
      // Deliveries stop first: one under way finishes, and the lease is given up for another instance.
      endpoints?.close();
      await background?.stopDeliveries();
      await app.close();
      await background?.close();
      await store.close?.();
      await metricsServer?.close();
      await tracing?.shutdown();
      app.log.info({ signal }, 'closed');
    },
  );
  // The API's port opens only once the store can serve (PostgreSQL: the schema is current). A proxy
  // without active health checks (nginx, as deploy/ ships it) sends requests to whatever accepts
  // connections, and meets a port not yet open as refused, which it retries on another instance;
  // an open port whose every response is 503 it passes on to the caller (docs/operating.md).
  await store.migrated;
  if (closing) return;
  background = startBackground({ store, events, endpoints, config, log: app.log, metrics });
  await app.listen({ host: config.host, port: config.port });
}

main().catch((error: Error) => {
  console.error(`petstore: cannot start: ${error.message}`);
  process.exit(1);
});
