// The JSON schemas the two fastify apps the service is measured against write by hand
// (scripts/bench/baseline-server.ts, scripts/bench/hand-written-server.ts): one copy, so that both
// validate and serialize alike.
export const statusSchema = { type: 'string', enum: ['available', 'pending', 'sold'] } as const;
export const petSchema = {
  type: 'object',
  required: ['id', 'name', 'categoryId'],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    categoryId: { type: 'integer' },
    status: statusSchema,
  },
} as const;
export const newPetSchema = {
  type: 'object',
  required: ['name', 'categoryId'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    categoryId: { type: 'integer' },
    status: statusSchema,
  },
} as const;
export const errorSchema = {
  type: 'object',
  properties: { code: { type: 'string' }, message: { type: 'string' }, status: { type: 'integer' } },
} as const;
