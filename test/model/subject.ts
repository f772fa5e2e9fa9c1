// The service as the in-process properties (in-process.ts) run it: one app, never listening, on a
// store that is emptied between cases, with two clients' keys and a clock before the spec's sunsets.
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { parseJson, type Sender } from 'openapi-contract-engine';
import { loadSpec } from '../../src/openapi/openapi-spec.js';
import { createMemoryPetStore } from '../../src/store/memory-pet-store.js';
import type { PetStore } from '../../src/store/pet-store.js';
import type { PostgresPetStore } from '../../src/store/postgres/postgres-pet-store.js';
import { wrapStore } from '../../src/store/wrap-store.js';
import type { NewPet, Pet } from '../../src/types/api.js';
import { clockBeforeSunsets } from 'petstore-contract-plugin';
import { oneWebhookEndpoint } from '../../src/webhooks/discard-endpoint.js';
import { allRoles } from '../helpers/build-app.js';

/** The service's two clients (idempotency keys are each client's own). */
export const CLIENT_KEYS = ['in-process-key-0123456789abcdef', 'in-process-other-key-0123456789ab'] as const;

/** The service under test: one app for a whole campaign, with a store emptied before each case. */
export interface Subject extends Sender {
  /** Empties the store, then stores `pets` directly (not through HTTP), and returns them stored, in id order. */
  resetStore(pets?: readonly NewPet[]): Promise<Pet[]>;
  requestsSent(): number;
  close(): Promise<void>;
}

/**
 * A store the properties run against, and how to empty it between cases: the store is a parameter
 * of the same properties, never a second copy of them. Emptied, ids start at 1 again.
 */
export interface StoreUnderTest {
  store: PetStore;
  empty(): Promise<void>;
}

/** The in-memory store: emptied by swapping in a fresh one behind the same app. */
export function memoryStoreUnderTest(): StoreUnderTest {
  let store = createMemoryPetStore();
  return {
    store: wrapStore(() => store),
    empty: async () => void (store = createMemoryPetStore()),
  };
}

/** A PostgreSQL store in a schema of its own (it deletes every pet there between cases). */
export function postgresStoreUnderTest(store: PostgresPetStore): StoreUnderTest {
  // Most cases (refused requests) leave the table empty, and with no row there was no insert since
  // the last emptying, so the ids still start at 1. DELETE, not TRUNCATE, which gives the table new files.
  const empty = async () => {
    await store.pool.query('DELETE FROM idempotency_keys');
    const { rowCount } = await store.pool.query('DELETE FROM pets');
    if (rowCount !== 0) await store.pool.query('ALTER TABLE pets ALTER COLUMN id RESTART WITH 1');
  };
  return { store, empty };
}

/** openapi.yaml, which the properties are generated from. */
export const SPEC = loadSpec();
// The subject's clock, and the live checks': before the spec's sunsets, so that the model's getPet
// responds whatever day the properties run.
export const CLOCK = clockBeforeSunsets(SPEC);

export async function createSubject(under: StoreUnderTest = memoryStoreUnderTest()): Promise<Subject> {
  // Building an app takes ~85 ms: one app serves every case, with its store emptied in between.
  // Two clients: idempotency keys are each client's own.
  const app: FastifyInstance = await buildApp({
    // The first holds every role; the second a customer's (the spec's default roles): it sees only its own orders.
    apiKeys: [allRoles(CLIENT_KEYS[0], SPEC), CLIENT_KEYS[1]],
    store: under.store,
    clock: CLOCK,
    webhooks: oneWebhookEndpoint('in-process'),
  });
  let sent = 0;
  return {
    async send(request) {
      sent += 1;
      const { method, url, headers, payload } = request;
      const response = await app.inject({
        method: method as 'GET',
        url,
        headers,
        ...(payload === undefined ? {} : { payload }),
      });
      let json: unknown;
      try {
        json = parseJson(response.body);
      } catch {
        json = undefined;
      }
      return { statusCode: response.statusCode, headers: response.headers, body: response.body, json };
    },
    async resetStore(pets = []) {
      await under.empty();
      // Stored concurrently (over a database pool's connections), then put in id order, as the model keeps them.
      const stored = await Promise.all(pets.map((pet) => under.store.create(pet)));
      return stored.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
    },
    requestsSent: () => sent,
    close: () => app.close(),
  };
}
