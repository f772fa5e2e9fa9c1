import t from 'tap';
import { createBearerAuth } from '../../src/auth/bearer-auth.js';
import { fixedKeys } from '../../src/auth/fixed-keys.js';
import { createEventSignal } from '../../src/events/event-signal.js';
import { createHandlers } from '../../src/handlers/index.js';
import { createOperationResolver, handlerFileOf } from '../../src/routes/operation-routes.js';
import type { OpenApiDocument } from '../../src/openapi/openapi-spec.js';
import { createMemoryPetStore } from '../../src/store/memory-pet-store.js';
import { API_KEY, buildTestApp } from '../helpers/build-app.js';
import { specWith } from '../helpers/spec.js';

const handlers = createHandlers({
  store: createMemoryPetStore(),
  events: createEventSignal(),
  pathOf: (operationId) => (operationId === 'getPet' ? '/v1/pets/{petId}' : '/v1/pets'),
  orders: { holdsPerClient: 5, ownership: undefined },
  webhooks: undefined,
  webhookApi: { allowPrivateUrls: false },
});
const authenticators = {
  bearerAuth: createBearerAuth(
    fixedKeys([API_KEY], { named: ['pets:read', 'pets:write'], byDefault: ['pets:read', 'pets:write'] }),
  ),
};

t.test('gaps between the spec and the service fail at start-up, not at request time', async (t) => {
  const cases: [string, (spec: OpenApiDocument) => void, RegExp][] = [
    [
      'an operation without a handler',
      (spec) => (spec.paths['/pets']!.get!.operationId = 'findPets'),
      /^openapi\.yaml: no handler for operationId findPets: write src\/handlers\/find-pets\.ts and add it to src\/handlers\/index\.ts$/,
    ],
    [
      'an unknown security scheme',
      (spec) => (spec.paths['/pets']!.get!.security = [{ apiKeyAuth: ['pets:read'] }]),
      /listPets needs security \[apiKeyAuth\]; the service provides exactly one of: bearerAuth/,
    ],
    [
      'alternative security requirements',
      (spec) => (spec.paths['/pets']!.get!.security = [{ bearerAuth: ['pets:read'] }, { bearerAuth: [] }]),
      /needs security \[bearerAuth, bearerAuth\]/,
    ],
    ['a requirement naming no scheme', (spec) => (spec.paths['/pets']!.get!.security = [{}]), /needs security \[\]/],
    [
      'an operation with two success responses',
      (spec) => (spec.paths['/pets']!.post!.responses['200'] = { description: 'also' }),
      /createPet must document exactly one 2xx response/,
    ],
  ];
  for (const [what, change, problem] of cases) {
    t.throws(
      () => createOperationResolver({ spec: specWith(change), handlers, authenticators, headers: {} }),
      problem,
      what,
    );
  }
});

t.test('an operation the spec opens to everyone needs no key', async (t) => {
  const spec = specWith((spec) => (spec.paths['/pets']!.get!.security = []));
  const { app } = await buildTestApp(t, { spec });
  t.equal((await app.inject({ method: 'GET', url: '/v1/pets' })).statusCode, 200);
  t.equal((await app.inject({ method: 'GET', url: '/v1/pets/1' })).statusCode, 401, 'the others still do');
});

t.test('a spec without security requirements needs no key anywhere', async (t) => {
  const spec = specWith((spec) => {
    delete spec.security;
    // A default role must be one an operation needs: with none needed, there is none to grant.
    delete (spec.components.securitySchemes!['bearerAuth'] as Record<string, unknown>)['x-default-roles'];
    for (const item of Object.values(spec.paths))
      for (const operation of Object.values(item)) delete operation.security;
  });
  const { app } = await buildTestApp(t, { spec });
  t.equal((await app.inject({ method: 'GET', url: '/v1/pets' })).statusCode, 200);
});

t.test('a handler lives in a file named after its operationId, in kebab case', async (t) => {
  t.equal(handlerFileOf('listPets'), 'src/handlers/list-pets.ts');
  t.equal(handlerFileOf('updatePetStatus'), 'src/handlers/update-pet-status.ts');
  t.equal(handlerFileOf('ping'), 'src/handlers/ping.ts');
});
