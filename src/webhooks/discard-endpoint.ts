// One webhook endpoint for a service run in process by the contract checks (npm run compat, the
// property tests): listWebhookEndpoints then lists one, and setWebhookPosition has one to move. No
// deliveries run there, and its address (the discard port on loopback) would receive nothing anyway.
import type { Endpoints } from './endpoints.js';
import { webhooksFileEndpoints } from './webhooks-file.js';

export function oneWebhookEndpoint(id: string): Endpoints {
  const endpoints = webhooksFileEndpoints(
    `endpoints:\n  - id: ${id}\n    url: http://127.0.0.1:9/hooks\n    secret: whsec_${Buffer.alloc(32, 1).toString('base64')}\n`,
    id,
  );
  return { current: () => endpoints, onChange: () => undefined, close: () => undefined };
}
