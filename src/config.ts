// Reads the service's settings from the environment; invalid settings stop start-up with a clear reason.
import { DEFAULT_ORDER_HOLDS_PER_CLIENT } from './app-options.js';
import { CLIENT_NAME, unnamedClientOf, type ClientKey } from './auth/api-clients.js';
import { isUsableKey, MIN_KEY_LENGTH } from './auth/bearer-token.js';
import { DEFAULT_RETENTION_HOURS, HOUR_MS } from './idempotency/idempotency-key.js';
import { DEFAULT_WRITE_BATCH_MAX } from './store/postgres/batch-queue.js';
import { DEFAULT_DELIVERY_TIMEOUT_MS, DEFAULT_RETRY_DELAYS_S } from './webhooks/schedule.js';
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface DatabaseConfig {
  url: string;
  poolMax: number;
  /** Bounds every wait on the database: for a connection, and for a statement's response. */
  timeoutMs: number;
  /** The most creates, or changes without a key, one statement writes (1: each on its own, as they arrive). */
  writeBatchMax: number;
  /** DATABASE_READ_URLS: streaming replicas that serve reads; empty: every read on the primary. */
  readUrls: string[];
  /** DATABASE_READ_MAX_LAG_MS: a replica further behind the primary is skipped. */
  readMaxLagMs: number;
}

export interface Config {
  host: string;
  port: number;
  logLevel: string;
  /** Undefined when API_KEYS is unset: the server then makes a one-off key. */
  apiKeys: ClientKey[] | undefined;
  /** API_KEYS_FILE: the keys file, read again on SIGHUP and when it changes (src/auth/key-ring.ts). */
  apiKeysFile: string | undefined;
  /** FAIR_SHARE: while busy, refuse the clients over their share (src/limits/fair-share.ts); on unless `off`. */
  fairShare: boolean;
  /** Undefined when DATABASE_URL is unset: pets are kept in memory. */
  database: DatabaseConfig | undefined;
  /** How long an Idempotency-Key is kept at least. */
  idempotencyRetentionMs: number;
  /** The port of the metrics listener (0: any free one); undefined when METRICS_PORT is off. */
  metricsPort: number | undefined;
  /** Whether spans are exported: an OTLP endpoint is set, and the standard variables do not turn the SDK off. */
  tracing: boolean;
  /** EVENTS_RETENTION_HOURS: how long the change feed keeps an event. */
  eventsRetentionMs: number;
  /** WEBHOOKS_FILE: the webhook endpoints, read again on SIGHUP and when it changes (src/webhooks/endpoints.ts). */
  webhooksFile: string | undefined;
  /** WEBHOOK_RETRY_DELAYS: the waits before each retry of a failed delivery, in ms. */
  webhookRetryDelaysMs: number[];
  /** WEBHOOK_TIMEOUT_SECONDS: how long one delivery waits for its response, in ms. */
  webhookTimeoutMs: number;
  /** WEBHOOK_ALLOW_PRIVATE_URLS=on: endpoints of the API may point at private addresses (development, tests). */
  webhookAllowPrivateUrls: boolean;
  /**
   * How long the instance keeps serving after SIGTERM, not ready and closing each connection, before it closes its
   * listener.
   */
  drainMs: number;
  /** ORDER_HOLDS_PER_CLIENT: how many placed orders a client holds at once. */
  orderHoldsPerClient: number;
  /** What the environment says in words the service no longer uses: logged at start-up, each once. */
  deprecations: string[];
}

/**
 * The drain by default: long enough for the balancers and orchestrators in front to stop sending
 * (Kubernetes removes a terminating pod's endpoint within a few seconds; a readiness probe every
 * 5 s that fails twice takes 10 s), and short enough that drain and close together stay within
 * Kubernetes' default grace period of 30 s (docs: README, Deploying).
 */
export const DEFAULT_DRAIN_MS = 15_000;

/** OpenTelemetry's Prometheus exporter's port, which scrape configurations expect. */
export const DEFAULT_METRICS_PORT = 9464;

export function readConfig(env: NodeJS.ProcessEnv): Config {
  const deprecations: string[] = [];
  const config: Config = {
    host: env['HOST'] || '127.0.0.1',
    port: readPort('PORT', env['PORT'], 3000),
    logLevel: readLogLevel(env['LOG_LEVEL']),
    apiKeys: readApiKeys(env['API_KEYS']),
    apiKeysFile: readKeysFile(env),
    fairShare: readSwitch(env, 'FAIR_SHARE'),
    database: readDatabase(env, deprecations),
    idempotencyRetentionMs:
      readInteger(env, 'IDEMPOTENCY_RETENTION_HOURS', DEFAULT_RETENTION_HOURS, [1, 8760]) * HOUR_MS,
    metricsPort:
      env['METRICS_PORT'] === 'off' ? undefined : readPort('METRICS_PORT', env['METRICS_PORT'], DEFAULT_METRICS_PORT),
    tracing:
      Boolean(env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] || env['OTEL_EXPORTER_OTLP_ENDPOINT']) &&
      env['OTEL_SDK_DISABLED']?.toLowerCase() !== 'true' &&
      env['OTEL_TRACES_EXPORTER'] !== 'none',
    drainMs: readInteger(env, 'SHUTDOWN_DRAIN_MS', DEFAULT_DRAIN_MS, [0, 600_000]),
    eventsRetentionMs: readInteger(env, 'EVENTS_RETENTION_HOURS', DEFAULT_EVENTS_RETENTION_HOURS, [1, 8760]) * HOUR_MS,
    webhooksFile: env['WEBHOOKS_FILE'] || undefined,
    webhookRetryDelaysMs: readRetryDelays(env['WEBHOOK_RETRY_DELAYS']),
    webhookTimeoutMs: readInteger(env, 'WEBHOOK_TIMEOUT_SECONDS', DEFAULT_DELIVERY_TIMEOUT_MS / 1000, [1, 60]) * 1000,
    webhookAllowPrivateUrls: readSwitch(env, 'WEBHOOK_ALLOW_PRIVATE_URLS', false),
    orderHoldsPerClient: readInteger(env, 'ORDER_HOLDS_PER_CLIENT', DEFAULT_ORDER_HOLDS_PER_CLIENT, [1, 1000]),
    deprecations,
  };
  checkRetentionCoversRetries(config);
  return config;
}

// An endpoint retrying an event for longer than the feed keeps it would lose the event to the
// purge: the retention must outlast the schedule's longest span (each wait at most its step).
function checkRetentionCoversRetries({ eventsRetentionMs, webhookRetryDelaysMs }: Config): void {
  const spanMs = webhookRetryDelaysMs.reduce((sum, delay) => sum + delay, 0);
  if (eventsRetentionMs >= spanMs) return;
  const hours = (ms: number) => `${Math.round((ms / HOUR_MS) * 100) / 100} h`;
  throw new Error(
    `EVENTS_RETENTION_HOURS (${hours(eventsRetentionMs)}) is shorter than the webhook retries' longest span ` +
      `(${hours(spanMs)}, WEBHOOK_RETRY_DELAYS): an endpoint still retrying would lose events to the purge`,
  );
}

/** A week: followers and webhook endpoints that fall behind for less than that lose nothing. */
export const DEFAULT_EVENTS_RETENTION_HOURS = 168;

// Seconds, comma-separated: "5,300,1800". A day at most each, and at most 20 retries.
function readRetryDelays(value: string | undefined): number[] {
  if (value === undefined || value === '') return DEFAULT_RETRY_DELAYS_S.map((seconds) => seconds * 1000);
  const delays = value.split(',').map((delay) => delay.trim());
  if (delays.length > 20 || delays.some((delay) => !/^\d{1,5}$/.test(delay) || Number(delay) > 86_400)) {
    throw new Error(
      `WEBHOOK_RETRY_DELAYS must be 1 to 20 whole numbers of seconds (0 to 86400), separated by commas, not "${value}"`,
    );
  }
  return delays.map((delay) => Number(delay) * 1000);
}

// A connection string holds the password: messages never repeat it.
function checkDatabaseUrl(url: string, name: string): void {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    throw new Error(`${name} is not a URL; expected postgres://user:password@host:port/database`);
  }
  if (protocol !== 'postgres:' && protocol !== 'postgresql:') {
    throw new Error(`${name} must start with postgres:// or postgresql://, not ${protocol}//`);
  }
}

/** DATABASE_READ_URLS: connection strings separated by commas (none: no replicas). */
function readReplicaUrls(env: NodeJS.ProcessEnv): string[] {
  const value = env['DATABASE_READ_URLS'];
  if (value === undefined || value.trim() === '') return [];
  const urls = value.split(',').map((url) => url.trim());
  urls.forEach((url, index) => checkDatabaseUrl(url, `DATABASE_READ_URLS' entry ${index + 1}`));
  return urls;
}

function readDatabase(env: NodeJS.ProcessEnv, deprecations: string[]): DatabaseConfig | undefined {
  const url = env['DATABASE_URL'];
  if (url === undefined || url === '') {
    if (readReplicaUrls(env).length > 0) throw new Error('DATABASE_READ_URLS needs DATABASE_URL: the primary');
    return undefined;
  }
  checkDatabaseUrl(url, 'DATABASE_URL');
  return {
    url,
    poolMax: readInteger(env, 'DATABASE_POOL_MAX', 10, [1, 1000]),
    timeoutMs: readInteger(env, 'DATABASE_TIMEOUT_MS', 2000, [100, 600_000]),
    writeBatchMax: readInteger(
      env,
      renamed(env, 'DATABASE_WRITE_BATCH_MAX', 'DATABASE_CREATE_BATCH_MAX', deprecations),
      DEFAULT_WRITE_BATCH_MAX,
      [1, 10_000],
    ),
    readUrls: readReplicaUrls(env),
    readMaxLagMs: readInteger(env, 'DATABASE_READ_MAX_LAG_MS', 1000, [0, 3_600_000]),
  };
}

/**
 * The name a renamed setting is read under: the new one, unless only the old one is set (it keeps
 * working, with a line in the log at start-up).
 */
function renamed(env: NodeJS.ProcessEnv, now: string, old: string, deprecations: string[]): string {
  const set = (name: string) => env[name] !== undefined && env[name] !== '';
  if (!set(old)) return now;
  if (set(now)) {
    deprecations.push(`${old} is ignored: ${now}, its new name, is set; remove ${old}`);
    return now;
  }
  deprecations.push(`${old} is deprecated: rename it ${now} (it is read as that until then)`);
  return old;
}

/** `name`: on or off; `byDefault` when unset. */
function readSwitch(env: NodeJS.ProcessEnv, name: string, byDefault = true): boolean {
  const value = env[name];
  if (value === undefined || value === '') return byDefault;
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new Error(`${name} must be on or off, not "${value}"`);
}

/** `name`'s integer, from `min` to `max` (`fallback` when unset). */
function readInteger(env: NodeJS.ProcessEnv, name: string, fallback: number, [min, max]: [number, number]): number {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < min || number > max)
    throw new Error(`${name} must be an integer from ${min} to ${max}, not "${value}"`);
  return number;
}

function readPort(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new Error(
      `${name} must be an integer from 0 to 65535${name === 'METRICS_PORT' ? ' or off' : ''}, not "${value}"`,
    );
  }
  return port;
}

function readLogLevel(value: string | undefined): string {
  if (value === undefined || value === '') return 'info';
  if (!LOG_LEVELS.includes(value)) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, not "${value}"`);
  return value;
}

// Keys come from one place, so that removing a key from the file revokes it: an API_KEYS left set
// beside the file would keep its keys valid through every reload.
function readKeysFile(env: NodeJS.ProcessEnv): string | undefined {
  const file = env['API_KEYS_FILE'];
  if (file === undefined || file === '') return undefined;
  if (env['API_KEYS'] !== undefined && env['API_KEYS'] !== '')
    throw new Error(
      'API_KEYS and API_KEYS_FILE are both set: keys come from one of them; move the keys of API_KEYS into the file (or unset the file)',
    );
  return file;
}

// Messages name an entry by its position only: keys (and names, which sit beside them) never reach
// logs or output. An entry is `name:key` or a bare key; the key syntax has no colon, so the first
// colon is always the separator.
function readApiKeys(value: string | undefined): ClientKey[] | undefined {
  if (value === undefined) return undefined;
  const entries = value.split(',').map((entry) => entry.trim());
  if (entries.every((entry) => entry === ''))
    throw new Error('API_KEYS is set but holds no key; unset it or list keys separated by commas');
  return entries.map((entry, index) => {
    const colon = entry.indexOf(':');
    const client = colon === -1 ? undefined : entry.slice(0, colon);
    const key = colon === -1 ? entry : entry.slice(colon + 1);
    if (client !== undefined && !CLIENT_NAME.test(client)) {
      throw new Error(
        `API_KEYS entry ${index + 1} has an unusable client name: before the ':', 1 to 32 characters from a-z 0-9 - _`,
      );
    }
    if (!isUsableKey(key)) {
      throw new Error(
        `API_KEYS entry ${index + 1} is not a usable key: keys need at least ${MIN_KEY_LENGTH} characters ` +
          'from A-Z a-z 0-9 - . _ ~ + / (optionally ending in =), optionally after a client name and a colon',
      );
    }
    return { client: client ?? unnamedClientOf(key), key };
  });
}
