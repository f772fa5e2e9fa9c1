// The entry point: reads the environment, picks the store, listens (the API, and metrics on a port
// of their own), reads the keys again on SIGHUP, and closes gracefully on SIGTERM/SIGINT.
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import closeWithGrace from 'close-with-grace';
import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import pino from 'pino';
import { buildApp } from './app.js';
import { fixedKeys } from './auth/fixed-keys.js';
import { keysFromFile, type KeyRing } from './auth/key-ring.js';
import { writeOneOffKey } from './auth/one-off-key.js';
import { rolesOf } from './auth/roles.js';
import { readConfig, type Config, type DatabaseConfig } from './config.js';
import { createLogDestination } from './logging/log-destination.js';
import { observeKeys, type KeyMetrics } from './metrics/key-metrics.js';
import { listenForMetrics, METRICS_PATH } from './metrics/metrics-server.js';
import { createServiceMetrics, type ServiceMetrics } from './metrics/service-metrics.js';
import { closeListener } from './shutdown.js';
import { loadServedSpec } from './openapi/openapi-spec.js';
import { createMemoryPetStore } from './store/memory-pet-store.js';
import { startOrderExpiry } from './store/order-expiry.js';
import type { PetStore } from './store/pet-store.js';
import { poolConfigOf } from './store/postgres/pool-config.js';
import { startPostgresStore, type StartedPostgresStore } from './store/postgres/start.js';
import { composeInstruments } from './store/postgres/statement-instrument.js';
import type { Tracing } from './tracing/tracing.js';
import { createEventSignal, firstEventAfter } from './events/event-signal.js';
import { startEventRetention } from './events/retention.js';
import { startDeliveries, type Deliveries } from './webhooks/deliveries.js';
import { endpointsFromFile, type Endpoints } from './webhooks/endpoints.js';

export const ONE_OFF_KEY_FILE = '.api-key';
/** How long connections may take to end once the listener is closed; then what is left is closed. */
const CLOSE_TIMEOUT_MS = 10_000;

async function main() {
  const config = readConfig(process.env);
  // What is still buffered is written out synchronously when the process exits, however it exits (but SIGKILL).
  const stream = createLogDestination(1);
  process.once('exit', () => stream.flushSync());
  const log = pino({ level: config.logLevel, redact: ['req.headers.authorization'] }, stream) as FastifyBaseLogger;

  const spec = loadServedSpec();
  const metrics = config.metricsPort === undefined ? undefined : createServiceMetrics();
  const oneOffKeyFile =
    config.apiKeys === undefined && config.apiKeysFile === undefined ? resolve(ONE_OFF_KEY_FILE) : undefined;
  const apiKeys = await serviceKeys(config, rolesOf(spec), log, metrics, oneOffKeyFile);
  const tracing = config.tracing ? await startTracing(spec.info.version) : undefined;
  const store: PetStore & { migrated?: Promise<void>; instances?: () => number } =
    config.database === undefined
      ? createMemoryPetStore({ retentionMs: config.idempotencyRetentionMs })
      : postgresStore(config, log, metrics, tracing);
  log.info(
    config.database === undefined
      ? 'pets are kept in memory (DATABASE_URL is not set)'
      : `pets are kept in PostgreSQL at ${where(config.database.url)}`,
  );
  if (tracing !== undefined) log.info('spans are exported over OTLP/HTTP (OTEL_EXPORTER_OTLP_ENDPOINT is set)');
  for (const deprecation of config.deprecations) log.warn(deprecation);

  // Wakes the feed's long polls and the webhooks' deliveries when this instance records an event.
  const events = createEventSignal(firstEventAfter(store));
  const endpoints = webhookEndpoints(config, log);

  let draining = false;
  let closing = false;
  let retention: { close(): Promise<void> } | undefined;
  let expiry: { close(): Promise<void> } | undefined;
  let deliveries: Deliveries | undefined;
  const app = await buildApp({
    apiKeys,
    loggerInstance: log,
    store,
    events,
    ...(endpoints === undefined ? {} : { webhooks: endpoints }),
    spec,
    draining: () => draining,
    fairShare: config.fairShare,
    // With PostgreSQL, the instances count one another, and divide each quota among themselves.
    ...(store.instances === undefined ? {} : { instances: store.instances }),
    ...(metrics === undefined ? {} : { metrics }),
    ...(tracing === undefined ? {} : { tracing }),
  });
  if (oneOffKeyFile !== undefined) {
    app.log.warn(`API_KEYS is not set: generated a one-off API key for this run only, in ${oneOffKeyFile}`);
  }
  const metricsServer =
    metrics === undefined
      ? undefined
      : await listenForMetrics(metrics.registry, config.host, config.metricsPort!).catch((error: Error) => {
          throw new Error(
            `metrics cannot listen on ${config.host}:${config.metricsPort} (METRICS_PORT; off turns metrics off): ${error.message}`,
          );
        });
  if (metricsServer !== undefined)
    app.log.info(
      `metrics at http://${config.host}:${metricsServer.port}${METRICS_PATH} (internal: no key, keep the port private)`,
    );

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
          `draining: /health/ready answers 503 and every answer closes its connection; the listener closes in ${drainMs} ms`,
        );
        draining = true;
        await sleep(drainMs);
        app.log.info({ signal }, 'drained');
      }
      app.log.info({ signal }, 'closing gracefully: the listener closes; finishing requests in flight');
      // After a drain, each connection is left to end after its answer (src/shutdown.ts); without
      // one (Ctrl-C), idle connections are closed at once, as Fastify does.
      // Here it takes CLOSE_TIMEOUT_MS.
      /* c8 ignore start -- closeListener's time limit is tested on its own (test/system/shutdown.test.ts) */
      if (drainMs > 0 && (await closeListener(app.server, CLOSE_TIMEOUT_MS)) === 'timeout') {
        app.log.warn(`connections still open ${CLOSE_TIMEOUT_MS} ms after the listener closed: closing them`);
      }
      /* c8 ignore stop */
      // Deliveries stop first: one under way finishes, and the lease is given up for another instance.
      endpoints?.close();
      await deliveries?.close();
      await app.close();
      await retention?.close();
      await expiry?.close();
      await store.close?.();
      await metricsServer?.close();
      await tracing?.shutdown();
      app.log.info({ signal }, 'closed');
    },
  );
  // The API's port opens only once the store can serve (PostgreSQL: the schema is current). A proxy
  // without active health checks (nginx, as deploy/ ships it) sends requests to whatever accepts
  // connections, and meets a port not yet open as refused, which it retries on another instance;
  // an open port whose every answer is 503 it passes on to the caller (docs/operating.md).
  await store.migrated;
  if (closing) return;
  retention = startEventRetention(store, config.eventsRetentionMs, app.log);
  expiry = startOrderExpiry(store, app.log, () => events.notify());
  if (endpoints !== undefined) {
    deliveries = startDeliveries({
      store,
      endpoints,
      signal: events,
      log: app.log,
      retryDelaysMs: config.webhookRetryDelaysMs,
      timeoutMs: config.webhookTimeoutMs,
      ...(metrics === undefined ? {} : { metrics: metrics.webhooks }),
    });
  }
  await app.listen({ host: config.host, port: config.port });
}

/**
 * WEBHOOKS_FILE's endpoints (reloaded on SIGHUP and when it changes), or none. An unusable file stops start-up with its
 * line and reason.
 */
function webhookEndpoints(config: Config, log: FastifyBaseLogger): Endpoints | undefined {
  if (config.webhooksFile === undefined) return undefined;
  const file = config.webhooksFile;
  const endpoints = endpointsFromFile(file, {
    onReload(result) {
      if (result.ok)
        log.info({ endpoints: result.endpoints }, `WEBHOOKS_FILE ${file} read again: ${result.endpoints} endpoints`);
      else log.error(`${result.reason}; the endpoints in use are kept until it is fixed`);
    },
  });
  log.info(
    `webhook endpoints from WEBHOOKS_FILE ${file} (${endpoints.current().length}); read again on SIGHUP and when it changes`,
  );
  process.on('SIGHUP', () => void endpoints.reload());
  return endpoints;
}

/**
 * The keys: API_KEYS_FILE (reloaded on SIGHUP and when it changes), API_KEYS, or else a one-off key
 * written to `oneOffKeyFile`. An unusable keys file stops start-up with its line and reason.
 */
async function serviceKeys(
  config: Config,
  roles: readonly string[],
  log: FastifyBaseLogger,
  metrics: ServiceMetrics | undefined,
  oneOffKeyFile: string | undefined,
): Promise<KeyRing> {
  if (config.apiKeysFile === undefined) {
    const keys = fixedKeys(config.apiKeys ?? [await writeOneOffKey(oneOffKeyFile!)], roles);
    process.on('SIGHUP', () =>
      log.info(
        { signal: 'SIGHUP' },
        'nothing to reload: the keys come from API_KEYS (API_KEYS_FILE is read again on SIGHUP)',
      ),
    );
    return keys;
  }
  const file = config.apiKeysFile;
  let keyMetrics: KeyMetrics | undefined;
  const keys = keysFromFile(file, roles, {
    onReload(result) {
      keyMetrics?.reloaded(result.ok);
      if (result.ok) log.info({ keys: result.keys }, `API_KEYS_FILE ${file} read again: ${result.keys} keys in use`);
      else log.error(`${result.reason}; the keys in use are kept until it is fixed`);
    },
  });
  if (metrics !== undefined) keyMetrics = observeKeys(metrics.registry, keys);
  log.info(
    `API keys from API_KEYS_FILE ${file} (${keys.table.credentials.length}); read again on SIGHUP and when it changes`,
  );
  process.on('SIGHUP', () => void keys.reload());
  return keys;
}

// Imported only here, so that without an OTLP endpoint no tracing code is loaded.
async function startTracing(serviceVersion: string): Promise<Tracing> {
  const { createOtelTracing, exporterFor } = await import('./tracing/otel-tracing.js');
  return createOtelTracing({ serviceVersion, exporter: exporterFor(process.env) });
}

function postgresStore(
  { database, idempotencyRetentionMs: retentionMs }: Config,
  log: FastifyBaseLogger,
  metrics: ServiceMetrics | undefined,
  tracing: Tracing | undefined,
): StartedPostgresStore {
  const { poolMax, writeBatchMax } = database as DatabaseConfig;
  return startPostgresStore(poolConfigOf(database!), {
    log,
    retentionMs,
    maxWriteBatch: writeBatchMax,
    ...(metrics === undefined ? {} : { observePool: (pool: pg.Pool) => metrics.observePool(pool, poolMax) }),
    // test/system/tracing.test.ts traces its statements in-process.
    /* c8 ignore next -- no server process in the tests traces and uses PostgreSQL at once */
    instrument: composeInstruments([metrics?.statementInstrument, tracing?.statementInstrument]),
  });
}

/** Host, port and database of a connection string: never its user or password. */
function where(url: string): string {
  const { hostname, port, pathname } = new URL(url);
  /* c8 ignore next -- a URL on PostgreSQL's default port; the tests' clusters listen on free ports */
  return `${hostname}${port === '' ? '' : `:${port}`}${pathname}`;
}

main().catch((error: Error) => {
  console.error(`petstore: cannot start: ${error.message}`);
  process.exit(1);
});
