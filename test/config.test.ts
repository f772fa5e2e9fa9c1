import t from 'tap';
import { readConfig } from '../src/config.js';

const KEY = 'a'.repeat(16);

t.test('defaults', async (t) => {
  t.same(readConfig({}), { host: '127.0.0.1', port: 3000, logLevel: 'info', apiKeys: undefined, database: undefined, idempotencyRetentionMs: 24 * 3_600_000 });
  t.same(readConfig({ HOST: '', PORT: '', LOG_LEVEL: '' }).port, 3000);
});

t.test('settings from the environment', async (t) => {
  t.same(readConfig({ HOST: '0.0.0.0', PORT: '8080', LOG_LEVEL: 'debug', API_KEYS: `${KEY}, ${'b'.repeat(20)}=` }), {
    host: '0.0.0.0',
    port: 8080,
    logLevel: 'debug',
    apiKeys: [KEY, `${'b'.repeat(20)}=`],
    database: undefined,
    idempotencyRetentionMs: 24 * 3_600_000,
  });
});

t.test('IDEMPOTENCY_RETENTION_HOURS sets how long idempotency keys are kept', async (t) => {
  t.equal(readConfig({ IDEMPOTENCY_RETENTION_HOURS: '48' }).idempotencyRetentionMs, 48 * 3_600_000);
  t.equal(readConfig({ IDEMPOTENCY_RETENTION_HOURS: '' }).idempotencyRetentionMs, 24 * 3_600_000, 'empty is unset');
  for (const bad of ['0', '8761', '1.5', '24h', '-1']) {
    t.throws(() => readConfig({ IDEMPOTENCY_RETENTION_HOURS: bad }), /IDEMPOTENCY_RETENTION_HOURS must be an integer from 1 to 8760/, bad);
  }
});

t.test('DATABASE_URL selects PostgreSQL, with the pool size and time limit', async (t) => {
  const url = 'postgres://pets:s3cret@db.internal:5432/petstore?sslmode=verify-full';
  t.same(readConfig({ DATABASE_URL: url }).database, { url, poolMax: 10, timeoutMs: 2000 });
  t.same(readConfig({ DATABASE_URL: 'postgresql://db/petstore', DATABASE_POOL_MAX: '40', DATABASE_TIMEOUT_MS: '500' }).database, {
    url: 'postgresql://db/petstore',
    poolMax: 40,
    timeoutMs: 500,
  });
  t.equal(readConfig({ DATABASE_URL: '' }).database, undefined, 'empty is unset');
});

t.test('a bad database setting stops start-up without repeating the connection string', async (t) => {
  for (const [env, message] of [
    [{ DATABASE_URL: '//pets:s3cret@db/petstore' }, /DATABASE_URL is not a URL/],
    [{ DATABASE_URL: 'pets:s3cret@db/petstore' }, /DATABASE_URL must start with postgres:\/\/ or postgresql:\/\/, not pets:\/\//],
    [{ DATABASE_URL: 'mysql://pets:s3cret@db/petstore' }, /DATABASE_URL must start with postgres:\/\/ or postgresql:\/\/, not mysql:\/\//],
    [{ DATABASE_URL: 'postgres://pets:s3cret@db/petstore', DATABASE_POOL_MAX: '0' }, /DATABASE_POOL_MAX must be an integer from 1 to 1000, not "0"/],
    [{ DATABASE_URL: 'postgres://pets:s3cret@db/petstore', DATABASE_TIMEOUT_MS: '2s' }, /DATABASE_TIMEOUT_MS must be an integer from 100 to 600000/],
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
  for (const [keys, entry] of [['short', 1], [`${KEY},,${KEY}`, 2], [`${KEY},has space in it 123456`, 2]] as const) {
    const error = t.throws(() => readConfig({ API_KEYS: keys }), new RegExp(`API_KEYS entry ${entry} is not a usable key`)) as Error;
    t.notMatch(error.message, keys, 'the message does not repeat the keys');
  }
});
