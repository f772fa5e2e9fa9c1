import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { unnamedClientOf } from '../../src/auth/api-clients.js';
import { readConfig } from '../../src/config.js';

const KEY = 'a'.repeat(16);

t.test('defaults', async (t) => {
  t.same(readConfig({}), {
    host: '127.0.0.1',
    port: 3000,
    logLevel: 'info',
    apiKeys: undefined,
    apiKeysFile: undefined,
    fairShare: true,
    database: undefined,
    idempotencyRetentionMs: 24 * 3_600_000,
    metricsPort: 9464,
    tracing: false,
    drainMs: 15_000,
    eventsRetentionMs: 168 * 3_600_000,
    webhooksFile: undefined,
    webhookRetryDelaysMs: [5, 300, 1800, 7200, 18_000, 36_000, 36_000, 86_400, 86_400, 86_400, 86_400, 86_400].map(
      (seconds) => seconds * 1000,
    ),
    webhookTimeoutMs: 15_000,
    webhookAllowPrivateUrls: false,
    orderHoldsPerClient: 5,
    deprecations: [],
  });
  t.same(readConfig({ HOST: '', PORT: '', LOG_LEVEL: '' }).port, 3000);
});

t.test('settings from the environment', async (t) => {
  t.same(readConfig({ HOST: '0.0.0.0', PORT: '8080', LOG_LEVEL: 'debug', API_KEYS: `${KEY}, ${'b'.repeat(20)}=` }), {
    host: '0.0.0.0',
    port: 8080,
    logLevel: 'debug',
    apiKeys: [
      { client: unnamedClientOf(KEY), key: KEY },
      { client: unnamedClientOf(`${'b'.repeat(20)}=`), key: `${'b'.repeat(20)}=` },
    ],
    apiKeysFile: undefined,
    fairShare: true,
    database: undefined,
    idempotencyRetentionMs: 24 * 3_600_000,
    metricsPort: 9464,
    tracing: false,
    drainMs: 15_000,
    eventsRetentionMs: 168 * 3_600_000,
    webhooksFile: undefined,
    webhookRetryDelaysMs: [5, 300, 1800, 7200, 18_000, 36_000, 36_000, 86_400, 86_400, 86_400, 86_400, 86_400].map(
      (seconds) => seconds * 1000,
    ),
    webhookTimeoutMs: 15_000,
    webhookAllowPrivateUrls: false,
    orderHoldsPerClient: 5,
    deprecations: [],
  });
});

t.test(
  'the feed and the webhooks: EVENTS_RETENTION_HOURS, WEBHOOKS_FILE, WEBHOOK_RETRY_DELAYS, WEBHOOK_TIMEOUT_SECONDS',
  async (t) => {
    const config = readConfig({
      EVENTS_RETENTION_HOURS: '24',
      WEBHOOKS_FILE: 'hooks.yaml',
      WEBHOOK_RETRY_DELAYS: '1, 2,0',
      WEBHOOK_TIMEOUT_SECONDS: '3',
    });
    t.same(
      {
        eventsRetentionMs: config.eventsRetentionMs,
        webhooksFile: config.webhooksFile,
        webhookRetryDelaysMs: config.webhookRetryDelaysMs,
        webhookTimeoutMs: config.webhookTimeoutMs,
      },
      {
        eventsRetentionMs: 24 * 3_600_000,
        webhooksFile: 'hooks.yaml',
        webhookRetryDelaysMs: [1000, 2000, 0],
        webhookTimeoutMs: 3000,
      },
    );
    t.equal(readConfig({ WEBHOOKS_FILE: '' }).webhooksFile, undefined);
    t.equal(readConfig({ WEBHOOK_ALLOW_PRIVATE_URLS: 'on' }).webhookAllowPrivateUrls, true);
    t.equal(readConfig({ WEBHOOK_ALLOW_PRIVATE_URLS: 'off' }).webhookAllowPrivateUrls, false);
    t.throws(() => readConfig({ WEBHOOK_ALLOW_PRIVATE_URLS: 'yes' }), /WEBHOOK_ALLOW_PRIVATE_URLS must be on or off/);
    // The default schedule spans at most 147.58 h: a retention of 6 days stops start-up, naming both.
    t.throws(
      () => readConfig({ EVENTS_RETENTION_HOURS: '144' }),
      /^EVENTS_RETENTION_HOURS \(144 h\) is shorter than the webhook retries' longest span \(147\.58 h,/,
    );
    t.throws(
      () => readConfig({ EVENTS_RETENTION_HOURS: '1', WEBHOOK_RETRY_DELAYS: '3600,1' }),
      /EVENTS_RETENTION_HOURS \(1 h\) is shorter than the webhook retries' longest span \(1 h,/,
    );
    t.equal(readConfig({ EVENTS_RETENTION_HOURS: '148' }).eventsRetentionMs, 148 * 3_600_000);
    t.equal(readConfig({ EVENTS_RETENTION_HOURS: '1', WEBHOOK_RETRY_DELAYS: '3600' }).eventsRetentionMs, 3_600_000);
    for (const bad of ['0', '8761', 'week'])
      t.throws(
        () => readConfig({ EVENTS_RETENTION_HOURS: bad }),
        /EVENTS_RETENTION_HOURS must be an integer from 1 to 8760/,
        bad,
      );
    for (const bad of ['1,,2', '5s', '-1', '86401', Array(21).fill('1').join(',')]) {
      t.throws(
        () => readConfig({ WEBHOOK_RETRY_DELAYS: bad }),
        /WEBHOOK_RETRY_DELAYS must be 1 to 20 whole numbers of seconds/,
        bad,
      );
    }
    for (const bad of ['0', '61'])
      t.throws(
        () => readConfig({ WEBHOOK_TIMEOUT_SECONDS: bad }),
        /WEBHOOK_TIMEOUT_SECONDS must be an integer from 1 to 60/,
        bad,
      );
  },
);

t.test('ORDER_HOLDS_PER_CLIENT: the placed orders a client holds at once, 1 to 1000, 5 unless set', async (t) => {
  t.equal(readConfig({}).orderHoldsPerClient, 5);
  t.equal(readConfig({ ORDER_HOLDS_PER_CLIENT: '1' }).orderHoldsPerClient, 1);
  t.equal(readConfig({ ORDER_HOLDS_PER_CLIENT: '1000' }).orderHoldsPerClient, 1000);
  for (const bad of ['0', '1001', '2.5', 'five', '-1'])
    t.throws(
      () => readConfig({ ORDER_HOLDS_PER_CLIENT: bad }),
      /ORDER_HOLDS_PER_CLIENT must be an integer from 1 to 1000/,
      bad,
    );
});

t.test('SHUTDOWN_DRAIN_MS: how long SIGTERM drains, 0 for no drain', async (t) => {
  t.equal(readConfig({ SHUTDOWN_DRAIN_MS: '0' }).drainMs, 0);
  t.equal(readConfig({ SHUTDOWN_DRAIN_MS: '30000' }).drainMs, 30_000);
  for (const bad of ['-1', '1.5', '600001', 'soon']) {
    t.throws(
      () => readConfig({ SHUTDOWN_DRAIN_MS: bad }),
      /SHUTDOWN_DRAIN_MS must be an integer from 0 to 600000/,
      bad,
    );
  }
});

t.test('API_KEYS entries name their client as name:key; a bare key is named after its SHA-256', async (t) => {
  const other = 'b'.repeat(16);
  t.same(readConfig({ API_KEYS: `mobile-app:${KEY}, mobile-app:${other},billing_2:${KEY}z, ${other}y` }).apiKeys, [
    { client: 'mobile-app', key: KEY },
    { client: 'mobile-app', key: other },
    { client: 'billing_2', key: `${KEY}z` },
    { client: 'key-ea390ecc', key: `${other}y` },
  ]);
  t.equal(unnamedClientOf(`${other}y`), 'key-ea390ecc', 'key- and the first 8 hex digits of the SHA-256 of the key');
  t.equal(
    readConfig({ API_KEYS: `${'n'.repeat(32)}:${KEY}` }).apiKeys?.[0]?.client,
    'n'.repeat(32),
    '32 characters is the most',
  );
});

t.test('a malformed API_KEYS entry stops start-up, naming its position and never its text', async (t) => {
  const name = 'team-with-a-secret-name';
  for (const [keys, entry] of [
    [`${KEY},:${KEY}`, 2],
    [`Mobile:${KEY}`, 1],
    [`${'n'.repeat(33)}:${KEY}`, 1],
    [`${KEY},${KEY},mobile app:${KEY}`, 3],
    [`mobile.app:${KEY}`, 1],
    [`${name}:${KEY}:x`, 1],
  ] as const) {
    const error = t.throws(() => readConfig({ API_KEYS: keys }), new RegExp(`API_KEYS entry ${entry} `), keys) as Error;
    t.notMatch(error.message, KEY, 'no key in the message');
    t.notMatch(error.message, name, 'no name in the message');
  }
  t.throws(() => readConfig({ API_KEYS: `${name}:` }), /API_KEYS entry 1 is not a usable key/);
  t.throws(() => readConfig({ API_KEYS: `${name}:short` }), /API_KEYS entry 1 is not a usable key/);
});

t.test('API_KEYS_FILE names the keys file; with API_KEYS too, start-up stops', async (t) => {
  t.equal(readConfig({ API_KEYS_FILE: '/etc/petstore/keys.yaml' }).apiKeysFile, '/etc/petstore/keys.yaml');
  t.equal(readConfig({ API_KEYS_FILE: '' }).apiKeysFile, undefined);
  t.throws(() => readConfig({ API_KEYS_FILE: 'keys.yaml', API_KEYS: KEY }), /API_KEYS and API_KEYS_FILE are both set/);
});

t.test('FAIR_SHARE: on unless off', async (t) => {
  t.equal(readConfig({ FAIR_SHARE: 'off' }).fairShare, false);
  t.equal(readConfig({ FAIR_SHARE: 'on' }).fairShare, true);
  t.throws(() => readConfig({ FAIR_SHARE: 'no' }), /FAIR_SHARE must be on or off, not "no"/);
});

t.test('METRICS_PORT: a port, 0 for any free one, or off', async (t) => {
  t.equal(readConfig({ METRICS_PORT: '9100' }).metricsPort, 9100);
  t.equal(readConfig({ METRICS_PORT: '0' }).metricsPort, 0);
  t.equal(readConfig({ METRICS_PORT: '' }).metricsPort, 9464, 'empty is unset');
  t.equal(readConfig({ METRICS_PORT: 'off' }).metricsPort, undefined);
  for (const bad of ['OFF', '65536', '-1', 'none']) {
    t.throws(() => readConfig({ METRICS_PORT: bad }), /METRICS_PORT must be an integer from 0 to 65535 or off/, bad);
  }
});

t.test('tracing is on with an OTLP endpoint, unless the standard variables turn it off', async (t) => {
  const endpoint = 'http://127.0.0.1:4318';
  t.equal(readConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }).tracing, true);
  t.equal(readConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/v1/traces` }).tracing, true);
  t.equal(readConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }).tracing, false, 'empty is unset');
  t.equal(readConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SDK_DISABLED: 'TRUE' }).tracing, false);
  t.equal(readConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_EXPORTER: 'none' }).tracing, false);
});

t.test('IDEMPOTENCY_RETENTION_HOURS sets how long idempotency keys are kept', async (t) => {
  t.equal(readConfig({ IDEMPOTENCY_RETENTION_HOURS: '48' }).idempotencyRetentionMs, 48 * 3_600_000);
  t.equal(readConfig({ IDEMPOTENCY_RETENTION_HOURS: '' }).idempotencyRetentionMs, 24 * 3_600_000, 'empty is unset');
  for (const bad of ['0', '8761', '1.5', '24h', '-1']) {
    t.throws(
      () => readConfig({ IDEMPOTENCY_RETENTION_HOURS: bad }),
      /IDEMPOTENCY_RETENTION_HOURS must be an integer from 1 to 8760/,
      bad,
    );
  }
});

t.test('DATABASE_URL selects PostgreSQL, with the pool size, time limit and write batch bound', async (t) => {
  const url = 'postgres://pets:s3cret@db.internal:5432/petstore?sslmode=verify-full';
  t.same(readConfig({ DATABASE_URL: url }).database, {
    url,
    poolMax: 10,
    timeoutMs: 2000,
    writeBatchMax: 100,
    readUrls: [],
    readMaxLagMs: 1000,
  });
  t.same(readConfig({ DATABASE_URL: url }).deprecations, [], 'no deprecated setting');
  t.same(
    readConfig({
      DATABASE_URL: 'postgresql://db/petstore',
      DATABASE_POOL_MAX: '40',
      DATABASE_TIMEOUT_MS: '500',
      DATABASE_WRITE_BATCH_MAX: '1',
      DATABASE_READ_URLS: 'postgres://replica-1/petstore, postgresql://replica-2:5433/petstore',
      DATABASE_READ_MAX_LAG_MS: '250',
    }).database,
    {
      url: 'postgresql://db/petstore',
      poolMax: 40,
      timeoutMs: 500,
      writeBatchMax: 1,
      readUrls: ['postgres://replica-1/petstore', 'postgresql://replica-2:5433/petstore'],
      readMaxLagMs: 250,
    },
  );
  const old = readConfig({ DATABASE_URL: url, DATABASE_CREATE_BATCH_MAX: '7' });
  t.equal(old.database?.writeBatchMax, 7, 'the old name still works');
  t.same(old.deprecations, [
    'DATABASE_CREATE_BATCH_MAX is deprecated: rename it DATABASE_WRITE_BATCH_MAX (it is read as that until then)',
  ]);
  const both = readConfig({ DATABASE_URL: url, DATABASE_CREATE_BATCH_MAX: '7', DATABASE_WRITE_BATCH_MAX: '9' });
  t.equal(both.database?.writeBatchMax, 9, 'the new name wins');
  t.same(both.deprecations, [
    'DATABASE_CREATE_BATCH_MAX is ignored: DATABASE_WRITE_BATCH_MAX, its new name, is set; remove DATABASE_CREATE_BATCH_MAX',
  ]);
  t.equal(readConfig({ DATABASE_URL: '' }).database, undefined, 'empty is unset');
});

t.test('a bad database setting stops start-up without repeating the connection string', async (t) => {
  for (const [env, message] of [
    [{ DATABASE_URL: '//pets:s3cret@db/petstore' }, /DATABASE_URL is not a URL/],
    [
      { DATABASE_URL: 'pets:s3cret@db/petstore' },
      /DATABASE_URL must start with postgres:\/\/ or postgresql:\/\/, not pets:\/\//,
    ],
    [
      { DATABASE_URL: 'mysql://pets:s3cret@db/petstore' },
      /DATABASE_URL must start with postgres:\/\/ or postgresql:\/\/, not mysql:\/\//,
    ],
    [
      { DATABASE_URL: 'postgres://pets:s3cret@db/petstore', DATABASE_POOL_MAX: '0' },
      /DATABASE_POOL_MAX must be an integer from 1 to 1000, not "0"/,
    ],
    [
      {
        DATABASE_URL: 'postgres://pets:s3cret@db/petstore',
        DATABASE_READ_URLS: 'postgres://r/p,mysql://pets:s3cret@r/p',
      },
      /DATABASE_READ_URLS' entry 2 must start with postgres:\/\/ or postgresql:\/\/, not mysql:\/\//,
    ],
    [
      { DATABASE_URL: 'postgres://pets:s3cret@db/petstore', DATABASE_READ_URLS: '//pets:s3cret@r/p' },
      /DATABASE_READ_URLS' entry 1 is not a URL/,
    ],
    [{ DATABASE_READ_URLS: 'postgres://pets:s3cret@r/p' }, /DATABASE_READ_URLS needs DATABASE_URL: the primary/],
    [
      { DATABASE_URL: 'postgres://pets:s3cret@db/petstore', DATABASE_READ_MAX_LAG_MS: '-1' },
      /DATABASE_READ_MAX_LAG_MS must be an integer from 0 to 3600000/,
    ],
    [
      { DATABASE_URL: 'postgres://pets:s3cret@db/petstore', DATABASE_TIMEOUT_MS: '2s' },
      /DATABASE_TIMEOUT_MS must be an integer from 100 to 600000/,
    ],
    [
      { DATABASE_URL: 'postgres://pets:s3cret@db/petstore', DATABASE_CREATE_BATCH_MAX: '0' },
      /DATABASE_CREATE_BATCH_MAX must be an integer from 1 to 10000, not "0"/,
    ],
    [
      { DATABASE_URL: 'postgres://pets:s3cret@db/petstore', DATABASE_WRITE_BATCH_MAX: '10001' },
      /DATABASE_WRITE_BATCH_MAX must be an integer from 1 to 10000/,
    ],
  ] as const) {
    const error = t.throws(() => readConfig(env), message) as Error;
    t.notMatch(error.message, 's3cret', 'no password in the message');
  }
});

t.test('invalid settings stop start-up without echoing keys', async (t) => {
  t.throws(() => readConfig({ PORT: '80a' }), /PORT must be an integer from 0 to 65535, not "80a"/);
  t.throws(() => readConfig({ PORT: '70000' }), /PORT must be/);
  t.throws(() => readConfig({ LOG_LEVEL: 'loud' }), /LOG_LEVEL must be one of/);
  t.throws(() => readConfig({ API_KEYS: '' }), /API_KEYS is set but holds no key/);
  t.throws(() => readConfig({ API_KEYS: ' , ' }), /API_KEYS is set but holds no key/);
  for (const [keys, entry] of [
    ['short', 1],
    [`${KEY},,${KEY}`, 2],
    [`${KEY},has space in it 123456`, 2],
  ] as const) {
    const error = t.throws(
      () => readConfig({ API_KEYS: keys }),
      new RegExp(`API_KEYS entry ${entry} is not a usable key`),
    ) as Error;
    t.notMatch(error.message, keys, 'the message does not repeat the keys');
  }
});

t.test('reading the configuration loads no database driver and none of the webhooks', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-config-modules-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const moduleLog = join(dir, 'modules');
  const recorder = fileURLToPath(new URL('../helpers/record-modules.mjs', import.meta.url));
  const config = new URL('../../src/config.js', import.meta.url).href;
  await promisify(execFile)(
    process.execPath,
    [
      `--import=${pathToFileURL(recorder).href}`,
      '--input-type=module',
      '-e',
      `await import(${JSON.stringify(config)})`,
    ],
    { env: { ...process.env, MODULE_LOG: moduleLog } },
  );
  const modules = readFileSync(moduleLog, 'utf8');
  t.match(modules, '/src/config.js', 'the log records what the process imports');
  t.notMatch(modules, /node_modules\/pg\//, 'no pg');
  t.notMatch(modules, /standardwebhooks|webhooks\/deliveries/, 'no delivery code');
});
