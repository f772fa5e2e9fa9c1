// The reference for scripts/bench/tables.ts: a plain fastify app with the same routes under /v1,
// hand-written JSON schemas, the same store (scripts/bench/bench-store.ts: in memory, or PostgreSQL
// with the same driver and SQL), the same page cursors and next links, and
// a simple bearer check; it sends the same security headers and Location. No spec, no glue, no
// extra strictness: what the framework costs on its own.
// With DEPRECATION_HEADERS=1, the get route also sends the Deprecation, Sunset and Link headers the
// spec gives getPet, set as the service sets them: what those three lines cost bare fastify.
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { keyOf } from '../../src/idempotency/idempotency-key.js';
import { sha256Hex } from '../../src/auth/api-clients.js';
import { positionOf } from '../../src/pagination/cursor.js';
import { nextPageLink } from '../../src/pagination/next-link.js';
import { entityTagOf, preconditionOf } from '../../src/preconditions/entity-tag.js';
import { securityHeaders } from '../../src/routes/security-headers.js';
import type { NewPet, PetPatch, PetStatus } from '../../src/types/api.js';
import { benchStore } from './bench-store.js';
import { errorSchema, newPetSchema, petSchema, statusSchema } from './pet-schemas.js';
import { reportReady } from './seed-pets.js';

const store = await benchStore();
const expected = `Bearer ${process.env['API_KEY']!}`;
const scope = sha256Hex(process.env['API_KEY']!);
const deprecation = process.env['DEPRECATION_HEADERS'] === '1' ? await deprecationHeadersOfGetPet() : undefined;
const security = securityHeaders();

const app = Fastify();
app.addContentTypeParser(
  'application/merge-patch+json',
  { parseAs: 'string' },
  app.getDefaultJsonParser('error', 'error'),
);
app.addHook('onRequest', async (request, reply) => {
  reply.headers(security);
  if (request.headers.authorization !== expected) {
    return reply.code(401).send({ code: 'UNAUTHORIZED', message: 'The API key is not valid.', status: 401 });
  }
});
app.register(
  async (v1) => {
    v1.get<{ Querystring: { limit: number; status?: PetStatus; cursor?: string } }>(
      '/pets',
      {
        schema: {
          querystring: {
            type: 'object',
            additionalProperties: false,
            properties: {
              limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
              status: statusSchema,
              cursor: { type: 'string' },
            },
          },
          response: { 200: { type: 'array', items: petSchema }, 400: errorSchema },
        },
      },
      async (request, reply) => {
        const { limit, status, cursor } = request.query;
        const page = await store.list({
          limit,
          status,
          after: cursor === undefined ? undefined : positionOf(cursor, status),
        });
        if (page.more)
          reply.header(
            'link',
            nextPageLink('/v1/pets', { limit, status, lastId: page.pets[page.pets.length - 1]!.id }),
          );
        return page.pets;
      },
    );
    v1.post<{ Body: NewPet }>(
      '/pets',
      {
        schema: {
          body: newPetSchema,
          response: { 201: petSchema, 400: errorSchema },
        },
      },
      async (request, reply) => {
        const header = request.headers['idempotency-key'];
        if (typeof header !== 'string') {
          const pet = await store.create(request.body);
          return reply.code(201).header('location', `/v1/pets/${pet.id}`).send(pet);
        }
        // The same job as the service's: the key unquoted, scoped, recorded with the pet, a replay marked.
        const { pet, replayed } = await store.createOnce(request.body, { scope, key: keyOf(header) });
        if (replayed) reply.header('idempotent-replayed', 'true');
        return reply.code(201).header('location', `/v1/pets/${pet.id}`).send(pet);
      },
    );
    v1.get<{ Params: { petId: number } }>(
      '/pets/:petId',
      {
        schema: {
          params: { type: 'object', properties: { petId: { type: 'integer' } } },
          response: { 200: petSchema, 404: errorSchema },
        },
      },
      async (request, reply) => {
        if (deprecation !== undefined) reply.headers(deprecation);
        const found = await store.get(request.params.petId);
        if (found === null)
          return reply
            .code(404)
            .send({ code: 'PET_NOT_FOUND', message: `No pet has id ${request.params.petId}.`, status: 404 });
        return reply.header('etag', entityTagOf(store.epoch(), found.pet.id, found.version)).send(found.pet);
      },
    );
    // The same conditional change as the service's (the store's update, with If-Match read the same way).
    v1.patch<{ Params: { petId: number }; Body: PetPatch }>(
      '/pets/:petId',
      {
        schema: {
          params: { type: 'object', properties: { petId: { type: 'integer' } } },
          body: {
            type: 'object',
            additionalProperties: false,
            properties: {
              name: { type: 'string', minLength: 1, maxLength: 100 },
              categoryId: { type: 'integer' },
              status: { enum: ['available', 'pending', 'sold', null] },
            },
          },
          response: { 200: petSchema, 404: errorSchema, 412: errorSchema, 428: errorSchema },
        },
      },
      async (request, reply) => {
        const outcome = await store.update(
          request.params.petId,
          request.body,
          preconditionOf(request.headers['if-match'], store.epoch(), request.params.petId),
        );
        if (outcome.kind !== 'changed' || outcome.pet === null)
          return reply.code(412).send({ code: 'PRECONDITION_FAILED', message: 'Changed.', status: 412 });
        return reply
          .header('etag', entityTagOf(store.epoch(), outcome.pet.pet.id, outcome.pet.version))
          .send(outcome.pet.pet);
      },
    );
  },
  { prefix: '/v1' },
);
await app.listen({ host: '127.0.0.1', port: 0 });
reportReady((app.server.address() as AddressInfo).port);

async function deprecationHeadersOfGetPet() {
  // Loaded only here, so that the plain baseline's start-up is not charged for reading the spec.
  const { basePathOf, loadServedSpec, operationsOf } = await import('../../src/openapi/openapi-spec.js');
  const { deprecationHeadersOf } = await import('../../src/routes/deprecation-headers.js');
  const { lifecycleOf } = await import('../../src/openapi/lifecycle.js');
  const spec = loadServedSpec();
  const operations = operationsOf(spec);
  const getPet = operations.find((operation) => operation.operationId === 'getPet')!;
  return deprecationHeadersOf(lifecycleOf(getPet, operations), basePathOf(spec));
}

// A clean exit on SIGINT lets `node --cpu-prof` write its profile.
process.once('SIGINT', () => void app.close().then(() => process.exit(0)));
