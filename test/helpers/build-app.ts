// Builds a fresh app with a fresh store for one test, and closes it on teardown.
import { Writable } from 'node:stream';
import type { FastifyInstance, InjectOptions } from 'fastify';
import type { Test } from 'tap';
import { buildApp, type AppOptions } from '../../src/app.js';
import { clockBeforeSunsets as clockBefore } from 'petstore-contract-plugin';
import type { OpenApiDocument } from '../../src/openapi/openapi-spec.js';
import { specCopy } from './spec.js';
import { oneWebhookEndpoint } from '../../src/webhooks/discard-endpoint.js';
import { unnamedClientOf, type ClientKey } from '../../src/auth/api-clients.js';
import { rolesOf } from '../../src/auth/roles.js';

export const API_KEY = 'test-key-0123456789abcdef';
export const OTHER_API_KEY = 'other-key-0123456789abcdef';
/** A valid key with no role (client no-roles): every operation whose security names a role responds to it 403. */
export const NO_ROLE_API_KEY = 'no-role-key-0123456789abcdef';
export const AUTH = { authorization: `Bearer ${API_KEY}` };
export const JSON_TYPE = { 'content-type': 'application/json' };
/** The id (and ledger key) of the webhooks file's one endpoint in a test app. */
export const TEST_ENDPOINT = 'test';

export interface TestApp {
  app: FastifyInstance;
  /** Every log line the app wrote, as text. */
  logs: () => string;
}

/**
 * A fresh app for one test. Its clock is the real one until a day before the first sunset its spec
 * announces (clockBeforeSunsets), so that every operation responds as it does today whatever day the
 * test runs; a test about sunsets or brownouts passes a clock of its own (Date.now for the real one).
 */
export async function buildTestApp(t: Test, options: Partial<AppOptions> = {}): Promise<TestApp> {
  const spec = options.spec ?? specCopy();
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const app = await buildApp({
    // API_KEY holds every role the spec names (the operator's too), as the one-off key of npm start does.
    apiKeys: [allRoles(API_KEY, spec), { client: 'no-roles', key: NO_ROLE_API_KEY, roles: [] }],
    logger: { level: 'trace', stream, redact: ['req.headers.authorization'] },
    // A deployment with one webhook endpoint, as the contract runs meet it: setWebhookPosition has one to move.
    webhooks: oneWebhookEndpoint(TEST_ENDPOINT),
    ...options,
    spec,
    clock: options.clock ?? clockBeforeSunsets(spec),
  });
  t.teardown(() => app.close());
  return { app, logs: () => lines.join('') };
}

/** `key` as an entry holding every role `spec` names, under the client name a bare key gets. */
export function allRoles(key: string, spec: OpenApiDocument = specCopy()): ClientKey {
  return { client: unnamedClientOf(key), key, roles: rolesOf(spec).named };
}

/** The clock of petstore-contract-plugin (scripts/contract/pet-store/), for openapi.yaml unless told. */
export const clockBeforeSunsets = (spec: OpenApiDocument = specCopy()): (() => number) => clockBefore(spec);

/** The time clockBeforeSunsets(spec) reads now. */
export const beforeSunsets = (spec?: OpenApiDocument): number => clockBeforeSunsets(spec)();

/** An authenticated request with a JSON body, as most tests send it. */
export function postPet(body: unknown, headers: Record<string, string> = {}): InjectOptions {
  return {
    method: 'POST',
    url: '/v1/pets',
    headers: { ...AUTH, ...JSON_TYPE, ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  };
}
