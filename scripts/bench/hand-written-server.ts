// What a user would write by hand for the same routes (issue 49's reference): Fastify, JSON schemas,
// a Map of pet objects, a bearer check, logger off; with HAND_WRITTEN_LOGGER=<file>, Fastify's own
// `logger: true` (pino, every request), writing into that file. Nothing of src/ is imported: no
// spec, no glue, no column store, no cursors, none of the service's headers. It serves the routes
// of the workloads that compare with it: a page (`limit`, `status`), a pet by id, a create.
// Started by the benchmark (scripts/bench/servers.ts); prints {port, rss} when ready.
import { createWriteStream } from 'node:fs';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { errorSchema, newPetSchema, petSchema, statusSchema } from './pet-schemas.js';

interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status?: 'available' | 'pending' | 'sold';
}

const logFile = process.env['HAND_WRITTEN_LOGGER'];
const app = Fastify(
  logFile === undefined ? { logger: false } : { logger: { stream: createWriteStream(logFile, { flags: 'a' }) } },
);
const expected = `Bearer ${process.env['API_KEY']!}`;

// The same pets the benchmark's other servers hold (scripts/bench/seed-pets.ts), written out here.
const pets = new Map<number, Pet>();
let nextId = 1;
for (let index = 0; index < Number(process.env['SEED_PETS'] ?? 0); index++) {
  const status = index % 100 === 99 ? 'sold' : (['available', 'pending', undefined] as const)[index % 3];
  const pet: Pet = { id: nextId++, name: `pet ${index}`, categoryId: index % 1000 };
  if (status !== undefined) pet.status = status;
  pets.set(pet.id, pet);
}

app.addHook('onRequest', async (request, reply) => {
  if (request.headers.authorization !== expected)
    return reply.code(401).send({ code: 'UNAUTHORIZED', message: 'Bad key.', status: 401 });
});

app.get<{ Querystring: { limit: number; status?: Pet['status'] } }>(
  '/v1/pets',
  {
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 }, status: statusSchema },
      },
      response: { 200: { type: 'array', items: petSchema }, 400: errorSchema },
    },
  },
  async (request) => {
    const { limit, status: wanted } = request.query;
    const page: Pet[] = [];
    for (const pet of pets.values()) {
      if (wanted !== undefined && pet.status !== wanted) continue;
      page.push(pet);
      if (page.length === limit) break;
    }
    return page;
  },
);

app.get<{ Params: { petId: number } }>(
  '/v1/pets/:petId',
  {
    schema: {
      params: { type: 'object', properties: { petId: { type: 'integer' } } },
      response: { 200: petSchema, 404: errorSchema },
    },
  },
  async (request, reply) => {
    const pet = pets.get(request.params.petId);
    if (pet === undefined) return reply.code(404).send({ code: 'PET_NOT_FOUND', message: 'No such pet.', status: 404 });
    return pet;
  },
);

app.post<{ Body: Omit<Pet, 'id'> }>(
  '/v1/pets',
  {
    schema: {
      body: newPetSchema,
      response: { 201: petSchema, 400: errorSchema },
    },
  },
  async (request, reply) => {
    const pet: Pet = { id: nextId++, ...request.body };
    pets.set(pet.id, pet);
    return reply.code(201).send(pet);
  },
);

await app.listen({ host: '127.0.0.1', port: 0 });
(globalThis as { gc?: () => void }).gc?.();
process.stdout.write(
  `${JSON.stringify({ port: (app.server.address() as AddressInfo).port, rss: process.memoryUsage().rss })}\n`,
);
process.once('SIGINT', () => void app.close().then(() => process.exit(0)));
