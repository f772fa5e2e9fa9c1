// Who may call: the API keys (fixed, or a source that changes while the service runs), each with
// its client and roles, and the bearerAuth scheme the spec names, which the operations' routes
// check against each operation's security requirement (src/auth/).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { ApiKeyEntry } from '../auth/api-clients.js';
import { createBearerAuth, type Authenticator, type KeySource } from '../auth/bearer-auth.js';
import { fixedKeys } from '../auth/fixed-keys.js';
import { rolesOf } from '../auth/roles.js';
import type { OpenApiDocument } from '../openapi/openapi-spec.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The keys in use, with their clients, roles and quotas. */
    apiKeys: KeySource;
    /** The spec's bearerAuth security scheme. */
    bearerAuth: Authenticator;
  }
}

interface SecurityOptions {
  apiKeys: readonly ApiKeyEntry[] | KeySource;
  spec: OpenApiDocument;
  clock: (() => number) | undefined;
}

async function security(app: FastifyInstance, { apiKeys, spec, clock }: SecurityOptions) {
  const keys = Array.isArray(apiKeys) ? fixedKeys(apiKeys, rolesOf(spec)) : (apiKeys as KeySource);
  app.decorate('apiKeys', keys);
  app.decorate('bearerAuth', createBearerAuth(keys, clock));
}

export default fp(security, { name: 'security' });
