// Reads the service's settings from the environment; invalid settings stop start-up with a clear reason.
import { isBearerToken } from './auth/bearer-auth.js';

const MIN_KEY_LENGTH = 16;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface Config {
  host: string;
  port: number;
  logLevel: string;
  /** Undefined when API_KEYS is unset: the server then makes a one-off key. */
  apiKeys: string[] | undefined;
}

export function readConfig(env: NodeJS.ProcessEnv): Config {
  return {
    host: env['HOST'] || '127.0.0.1',
    port: readPort(env['PORT']),
    logLevel: readLogLevel(env['LOG_LEVEL']),
    apiKeys: readApiKeys(env['API_KEYS']),
  };
}

function readPort(value: string | undefined): number {
  if (value === undefined || value === '') return 3000;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new Error(`PORT must be an integer from 0 to 65535, not "${value}"`);
  return port;
}

function readLogLevel(value: string | undefined): string {
  if (value === undefined || value === '') return 'info';
  if (!LOG_LEVELS.includes(value)) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, not "${value}"`);
  return value;
}

// Messages name a key by its position only: keys never reach logs or output.
function readApiKeys(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const keys = value.split(',').map((key) => key.trim());
  if (keys.every((key) => key === '')) throw new Error('API_KEYS is set but holds no key; unset it or list keys separated by commas');
  keys.forEach((key, index) => {
    if (!isBearerToken(key) || key.length < MIN_KEY_LENGTH) {
      throw new Error(
        `API_KEYS entry ${index + 1} is not a usable key: keys need at least ${MIN_KEY_LENGTH} characters ` +
          'from A-Z a-z 0-9 - . _ ~ + / (optionally ending in =)',
      );
    }
  });
  return keys;
}
