// Liveness and readiness, outside the API's base path and without a key (src/routes/health.ts).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { registerHealth } from '../routes/health.js';
import type { PetStore } from '../store/pet-store.js';

interface HealthOptions {
  store: PetStore;
  headers: Readonly<Record<string, string>>;
  draining: () => boolean;
}

async function health(app: FastifyInstance, { store, headers, draining }: HealthOptions) {
  registerHealth(app, store, headers, draining);
}

export default fp(health, { name: 'health' });
