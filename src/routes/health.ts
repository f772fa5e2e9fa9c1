// Liveness and readiness for load balancers and orchestrators, outside the API's base path and
// without a key: they reveal only "ok" or "ready", or the API's own 503 when the store cannot serve.
import type { FastifyInstance } from 'fastify';
import { ServiceUnavailable } from '../errors/api-errors.js';
import type { PetStore } from '../store/pet-store.js';

export const LIVENESS_PATH = '/health/live';
export const READINESS_PATH = '/health/ready';

/** What readiness responds while the instance drains before it closes (src/shutdown.ts). */
export const SHUTTING_DOWN = {
  code: 'SERVICE_UNAVAILABLE',
  message: 'This instance is shutting down; send requests to another one.',
  status: 503,
} as const;

export function registerHealth(
  app: FastifyInstance,
  store: PetStore,
  headers: Readonly<Record<string, string>>,
  draining?: () => boolean,
): void {
  // The process is up and its event loop turns: nothing else is checked, so that a database outage
  // never gets healthy instances restarted.
  app.get(LIVENESS_PATH, async (_request, reply) => reply.headers(headers).send({ status: 'ok' }));
  // The store can serve: for PostgreSQL, the database responds and holds the current schema. While
  // the instance drains, not ready, so that balancers stop sending it requests; nor is the database
  // to blame, so this 503 is not one of the store's.
  app.get(READINESS_PATH, async (_request, reply) => {
    if (draining?.() === true) return reply.code(503).headers(headers).send(SHUTTING_DOWN);
    if (store.ready !== undefined && !(await store.ready())) throw new ServiceUnavailable();
    return reply.headers(headers).send({ status: 'ready' });
  });
}
