// The service's Prometheus metrics, named as OpenTelemetry's semantic conventions come out of a
// Prometheus exporter (dots become underscores, units a suffix). No label value is free text a client
// chose: routes are the service's own templates (one shared value for every path no route matches),
// methods outside the known set are _OTHER, statuses are numbers, clients are configured names.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { isUnavailable } from '../store/postgres/unavailable.js';
import { createReadMetrics, type ReplicaMetrics } from './read-metrics.js';
import { createResolvedHistogram } from './resolved-histogram.js';
import type { StatementInstrument } from '../store/postgres/statement-instrument.js';
import type { DeliveryMetrics } from '../webhooks/deliveries.js';

/** Seconds: from 100 µs (an in-memory response takes tens of µs) to 10 s (beyond the database's time limit). */
export const DURATION_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

// OpenTelemetry's known HTTP methods; any other is recorded as _OTHER.
const METHODS = ['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'QUERY', 'TRACE', '_OTHER'];
const METHOD_INDEX = new Map(METHODS.map((method, index) => [method, index]));
const OTHER_METHOD = METHODS.length - 1;

/** Records a request served on one route. */
export type RequestRecorder = (method: string, status: number, seconds: number) => void;

/** What a PostgreSQL pool says of its connections (pg.Pool). */
export interface PoolCounts {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

export interface ServiceMetrics {
  registry: Registry;
  /**
   * The recorder of one route: `route` is its template (`/v1/pets/{petId}`), `operationId` '' outside the spec's
   * operations.
   */
  requestRecorder(route: string, operationId: string): RequestRecorder;
  /** Counts an authenticated call of a deprecated operation, per client. */
  deprecatedCallCounter(operationId: string): (client: string) => void;
  idempotentReplay(): void;
  /** A response 503 because the database could not be reached. */
  databaseUnavailable(): void;
  /** A request refused 429, by client and reason (quota, fair-share). */
  rateLimited(client: string, reason: string): void;
  /** Reports the pool's connections at every scrape. */
  observePool(pool: PoolCounts, max: number): void;
  /** Times every statement of the PostgreSQL store. */
  statementInstrument: StatementInstrument;
  /** Where the PostgreSQL store's reads ran, and its replicas. */
  reads: ReplicaMetrics;
  /** The webhooks' deliveries (src/webhooks/deliveries.ts). */
  webhooks: DeliveryMetrics;
}

export interface MetricsOptions {
  /** The process and runtime metrics of prom-client (CPU, memory, event-loop delay, GC); on by default. */
  runtime?: boolean;
}

export function createServiceMetrics({ runtime = true }: MetricsOptions = {}): ServiceMetrics {
  const registry = new Registry();
  if (runtime) collectDefaultMetrics({ register: registry });
  const deprecatedCallCounts: { operationId: string; counts: Map<string, number> }[] = [];
  const { requests, replays, rateLimited, unavailable, deliveries, backlog, statements } = registerMetrics(
    registry,
    function collect(this: Counter) {
      for (const { operationId, counts } of deprecatedCallCounts) {
        for (const [client, count] of counts) this.inc({ operation_id: operationId, client }, count);
        counts.clear();
      }
    },
  );

  return {
    registry,

    requestRecorder(route, operationId) {
      // Each label set's cell is resolved once, on its first request.
      const cells = new Map<number, (seconds: number) => void>();
      return (method, status, seconds) => {
        const methodIndex = METHOD_INDEX.get(method) ?? OTHER_METHOD;
        const key = status * METHODS.length + methodIndex;
        let observe = cells.get(key);
        if (observe === undefined) {
          observe = requests.cell({
            http_request_method: METHODS[methodIndex]!,
            http_route: route,
            http_response_status_code: status,
            operation_id: operationId,
          });
          cells.set(key, observe);
        }
        observe(seconds);
      };
    },

    deprecatedCallCounter(operationId) {
      // Counted here and added to the counter at each scrape (its collect): a counter's inc validates and hashes its
      // labels every time, a child's too.
      const counts = new Map<string, number>();
      deprecatedCallCounts.push({ operationId, counts });
      return (client) => counts.set(client, (counts.get(client) ?? 0) + 1);
    },

    idempotentReplay: () => replays.inc(),
    databaseUnavailable: () => unavailable.inc(),
    rateLimited: (client, reason) => rateLimited.inc({ client, reason }),
    webhooks: {
      delivered: (endpoint, result) => deliveries.inc({ endpoint, result }),
      backlog: (endpoint, seconds) => backlog.set({ endpoint }, seconds),
    },

    observePool: (pool, max) => observePool(registry, pool, max),
    reads: createReadMetrics(registry),

    async statementInstrument(statement, run) {
      const started = performance.now();
      const observe = (errorType: string) =>
        statements.observe(
          { db_system_name: 'postgresql', db_operation_name: statement, error_type: errorType },
          (performance.now() - started) / 1000,
        );
      const result = await run().catch((error: unknown) => {
        observe(isUnavailable(error) ? 'unavailable' : 'error');
        throw error;
      });
      observe('');
      return result;
    },
  };
}

/** The metrics every instance records, registered in `registry`; `collectDeprecatedCalls` runs at each scrape. */
function registerMetrics(registry: Registry, collectDeprecatedCalls: (this: Counter) => void) {
  // Recorded on every request: its label sets are resolved once (src/metrics/resolved-histogram.ts).
  const requests = createResolvedHistogram({
    name: 'http_server_request_duration_seconds',
    help: 'Duration of HTTP server requests, from the request to the end of its response.',
    labelNames: ['http_request_method', 'http_route', 'http_response_status_code', 'operation_id'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  new Counter({
    name: 'petstore_deprecated_operation_requests_total',
    help: 'Authenticated calls of operations that the spec marks deprecated, per client.',
    labelNames: ['operation_id', 'client'],
    registers: [registry],
    collect: collectDeprecatedCalls,
  });
  const replays = new Counter({
    name: 'petstore_idempotent_replays_total',
    help: 'Requests (createPet, updatePet, deletePet) given what an earlier request with the same Idempotency-Key did.',
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'petstore_rate_limited_requests_total',
    help: 'Requests refused 429 TOO_MANY_REQUESTS, by client and reason: quota (its quota is used up) or fair-share (the instance is busy and the client holds more than its share).',
    labelNames: ['client', 'reason'],
    registers: [registry],
  });
  const unavailable = new Counter({
    name: 'petstore_database_unavailable_responses_total',
    help: 'Responds with 503 SERVICE_UNAVAILABLE because the database could not be reached (readiness checks included).',
    registers: [registry],
  });
  const deliveries = new Counter({
    name: 'petstore_webhook_deliveries_total',
    help: 'Attempts to deliver an event to a webhook endpoint (its URL without the query), by result: delivered (2xx), failed (another status, a timeout, not reached; retried), gone (410: stopped).',
    labelNames: ['endpoint', 'result'],
    registers: [registry],
  });
  const backlog = new Gauge({
    name: 'petstore_webhook_oldest_undelivered_seconds',
    help: 'Age of the oldest event a webhook endpoint has not accepted yet, as the instance delivering to it sees it (0 on the others: take the max over instances).',
    labelNames: ['endpoint'],
    registers: [registry],
  });
  const statements = new Histogram({
    name: 'db_client_operation_duration_seconds',
    help: "Duration of the PostgreSQL store's statements, waiting for a connection included.",
    labelNames: ['db_system_name', 'db_operation_name', 'error_type'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  return { requests, replays, rateLimited, unavailable, deliveries, backlog, statements };
}

/** The PostgreSQL pool's connections, read at each scrape. */
function observePool(registry: Registry, pool: PoolCounts, max: number) {
  new Gauge({
    name: 'db_client_connection_count',
    help: 'Connections of the PostgreSQL pool, by state (used, idle).',
    labelNames: ['db_client_connection_state'],
    registers: [registry],
    collect() {
      this.set({ db_client_connection_state: 'used' }, pool.totalCount - pool.idleCount);
      this.set({ db_client_connection_state: 'idle' }, pool.idleCount);
    },
  });
  new Gauge({
    name: 'db_client_connection_pending_requests',
    help: 'Statements waiting for a connection of the PostgreSQL pool.',
    registers: [registry],
    collect() {
      this.set(pool.waitingCount);
    },
  });
  new Gauge({
    name: 'db_client_connection_max',
    help: 'The most connections the PostgreSQL pool opens (DATABASE_POOL_MAX).',
    registers: [registry],
  }).set(max);
}
