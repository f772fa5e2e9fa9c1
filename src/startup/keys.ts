// The keys: API_KEYS_FILE (reloaded on SIGHUP and when it changes), API_KEYS, or else a one-off key
// written to ./.api-key. An unusable keys file stops start-up with its line and reason.
import { resolve } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { fixedKeys } from '../auth/fixed-keys.js';
import { keysFromFile, type KeyRing } from '../auth/key-ring.js';
import { writeOneOffKey } from '../auth/one-off-key.js';
import type { Config } from '../config.js';
import { unnamedClientOf } from '../auth/api-clients.js';
import type { SpecRoles } from '../auth/roles.js';
import { observeKeys, type KeyMetrics } from '../metrics/key-metrics.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';

export const ONE_OFF_KEY_FILE = '.api-key';

export interface ServiceKeys {
  keys: KeyRing;
  /** Where the one-off key was written, when there was no other. */
  oneOffKeyFile: string | undefined;
}

export async function serviceKeys(
  config: Config,
  roles: SpecRoles,
  log: FastifyBaseLogger,
  metrics: ServiceMetrics | undefined,
): Promise<ServiceKeys> {
  if (config.apiKeysFile === undefined) {
    const oneOffKeyFile = config.apiKeys === undefined ? resolve(ONE_OFF_KEY_FILE) : undefined;
    // The one-off key is for trying the service on one's own machine: it holds every role, the
    // operator's too, so that the README's walk can complete an order with it.
    const oneOff = async () => {
      const key = await writeOneOffKey(oneOffKeyFile!);
      return [{ client: unnamedClientOf(key), key, roles: roles.named }];
    };
    const keys = fixedKeys(config.apiKeys ?? (await oneOff()), roles);
    process.on('SIGHUP', () =>
      log.info(
        { signal: 'SIGHUP' },
        'nothing to reload: the keys come from API_KEYS (API_KEYS_FILE is read again on SIGHUP)',
      ),
    );
    return { keys, oneOffKeyFile };
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
  return { keys, oneOffKeyFile: undefined };
}
