// The keys' metrics: reloads of the keys file by result, whether the file in use is the last one
// read, and which clients hold keys that expire within 14 days (by client name, never the key).
import { Counter, Gauge, type Registry } from 'prom-client';
import type { KeySource } from '../auth/bearer-auth.js';

export const EXPIRY_WARNING_MS = 14 * 24 * 60 * 60 * 1000;

export interface KeyMetrics {
  /** Records a reload of the keys file: usable or not. */
  reloaded(ok: boolean): void;
}

export function observeKeys(registry: Registry, keys: KeySource, clock: () => number = Date.now): KeyMetrics {
  const reloads = new Counter({
    name: 'petstore_api_keys_reloads_total',
    help: 'Reloads of API_KEYS_FILE (SIGHUP or a change to the file), by result: ok, or failed (the keys in use were kept).',
    labelNames: ['result'],
    registers: [registry],
  });
  const failing = new Gauge({
    name: 'petstore_api_keys_file_unusable',
    help: '1 while the last read of API_KEYS_FILE failed and older keys are in use (the log says why); else 0.',
    registers: [registry],
  });
  failing.set(0);
  new Gauge({
    name: 'petstore_api_keys_expiring',
    help: 'Keys that expire within 14 days and have not yet, by client (docs/operating.md, "Rotating a key").',
    labelNames: ['client'],
    registers: [registry],
    collect() {
      this.reset();
      const now = clock();
      for (const { client, expiresAt } of keys.table.credentials) {
        if (expiresAt > now && expiresAt - now <= EXPIRY_WARNING_MS) this.inc({ client });
      }
    },
  });
  return {
    reloaded(ok) {
      reloads.inc({ result: ok ? 'ok' : 'failed' });
      failing.set(ok ? 0 : 1);
    },
  };
}
