import t from 'tap';
import { readConfig } from '../src/config.js';

const KEY = 'a'.repeat(16);

t.test('defaults', async (t) => {
  t.same(readConfig({}), { host: '127.0.0.1', port: 3000, logLevel: 'info', apiKeys: undefined });
  t.same(readConfig({ HOST: '', PORT: '', LOG_LEVEL: '' }).port, 3000);
});

t.test('settings from the environment', async (t) => {
  t.same(readConfig({ HOST: '0.0.0.0', PORT: '8080', LOG_LEVEL: 'debug', API_KEYS: `${KEY}, ${'b'.repeat(20)}=` }), {
    host: '0.0.0.0',
    port: 8080,
    logLevel: 'debug',
    apiKeys: [KEY, `${'b'.repeat(20)}=`],
  });
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
