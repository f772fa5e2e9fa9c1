// WEBHOOKS_FILE's endpoints (reloaded on SIGHUP and when it changes), or none. An unusable file
// stops start-up with its line and reason.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import { endpointsFromFile, type Endpoints } from '../webhooks/endpoints.js';

export function webhookEndpoints(config: Config, log: FastifyBaseLogger): Endpoints | undefined {
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
