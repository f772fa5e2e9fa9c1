// Roles from the spec's security requirements, keys given by their SHA-256, and expiry, in process.
import { createHash } from 'node:crypto';
import t from 'tap';
import { roleNamesOf, rolesOf, requiredRolesOf } from '../../src/auth/roles.js';
import { operationsOf } from '../../src/openapi/openapi-spec.js';
import { ownershipOf } from '../../src/openapi/ownership.js';
import { buildTestApp, JSON_TYPE } from '../helpers/build-app.js';
import { checkContract } from '../helpers/contract.js';
import { specCopy, specWith } from '../helpers/spec.js';

const READER = 'reader-key-0123456789abcdefghij';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const create = (key: string) => ({
  method: 'POST' as const,
  url: '/v1/pets',
  headers: { authorization: `Bearer ${key}`, ...JSON_TYPE },
  payload: '{"name":"Rex","categoryId":1}',
});
const list = (key: string) => ({
  method: 'GET' as const,
  url: '/v1/pets',
  headers: { authorization: `Bearer ${key}` },
});

t.test('the roles are those the spec names: pets:read on listPets and getPet, pets:write on createPet', async (t) => {
  const spec = specCopy();
  t.same(roleNamesOf(spec), [
    'orders:fulfil',
    'orders:read',
    'orders:write',
    'pets:read',
    'pets:write',
    'webhooks:manage',
  ]);
  t.match(
    Object.fromEntries(
      operationsOf(spec).map((operation) => [operation.operationId, requiredRolesOf(operation, spec)]),
    ),
    {
      listPets: ['pets:read'],
      createPet: ['pets:write'],
      getPet: ['pets:read'],
      placeOrder: ['orders:write'],
      listOrders: ['orders:read'],
      getOrder: ['orders:read'],
      cancelOrder: ['orders:write'],
      completeOrder: ['orders:fulfil'],
    },
  );
});

t.test('a key given by its sha256 with pets:read lists, and gets the documented 403 on createPet', async (t) => {
  const { app, logs } = await buildTestApp(t, {
    apiKeys: [{ client: 'reporting', sha256: sha256(READER), roles: ['pets:read'] }],
  });
  const listed = await app.inject(list(READER));
  t.equal(listed.statusCode, 200);
  const refused = await app.inject(create(READER));
  t.equal(refused.statusCode, 403);
  t.same(refused.json(), {
    code: 'INSUFFICIENT_SCOPE',
    message: 'This operation needs the role pets:write, which this API key does not have.',
    status: 403,
  });
  t.equal(
    refused.headers['www-authenticate'],
    'Bearer realm="petstore", error="insufficient_scope", scope="pets:write"',
  );
  checkContract(t, refused, 'createPet');
  t.equal((await app.inject(list(`${READER}x`))).statusCode, 401, 'another key is still refused');
  t.equal(
    (await app.inject(list(READER))).statusCode,
    200,
    'and the key still lets in, found the second time without a hash',
  );
  t.notMatch(logs(), READER, 'the key never reaches the log');
  t.match(logs(), /"client":"reporting"/);
});

t.test("a key without roles listed gets the spec's x-default-roles: a customer's, never an operator's", async (t) => {
  t.same(rolesOf(specCopy()).byDefault, ['orders:read', 'orders:write', 'pets:read', 'pets:write']);
  const OPERATOR = 'operator-key-0123456789abcdefghij';
  const { app } = await buildTestApp(t, {
    apiKeys: [
      { client: 'shop', sha256: sha256(READER) },
      { client: 'staff', key: OPERATOR, roles: ['orders:fulfil', 'webhooks:manage', 'pets:write'] },
    ],
  });
  const send = (key: string, method: 'GET' | 'POST', url: string, payload?: unknown) =>
    app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${key}`, ...(payload === undefined ? {} : JSON_TYPE) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const customer = [
    [201, 'POST', '/v1/pets', { name: 'Rex', categoryId: 1, status: 'available' }],
    [200, 'GET', '/v1/pets'],
    [200, 'GET', '/v1/pet-events'],
    [201, 'POST', '/v1/store/orders', { petId: 1 }],
    [200, 'GET', '/v1/store/orders'],
    [200, 'GET', '/v1/store/orders/1'],
    [201, 'POST', '/v1/pets', { name: 'Tom', categoryId: 1, status: 'available' }],
    [201, 'POST', '/v1/store/orders', { petId: 2 }],
    [200, 'POST', '/v1/store/orders/2/cancel'],
  ] as const;
  for (const [status, method, url, payload] of customer) {
    t.equal((await send(READER, method, url, payload)).statusCode, status, `role-less key: ${method} ${url}`);
  }
  const operator = [
    ['completeOrder', 'POST', '/v1/store/orders/1/complete'],
    ['listWebhookEndpoints', 'GET', '/v1/webhook-endpoints'],
    ['setWebhookPosition', 'POST', '/v1/webhook-endpoints/test/position', {}],
  ] as const;
  for (const [operationId, method, url, payload] of operator) {
    const refused = await send(READER, method, url, payload);
    t.equal(refused.statusCode, 403, `role-less key: ${operationId}`);
    checkContract(t, refused, operationId);
    t.equal((await send(OPERATOR, method, url, payload)).statusCode, 200, `a key naming the role: ${operationId}`);
  }
});

t.test('an expired key gets 401, from the instant it expires', async (t) => {
  let now = Date.parse('2027-01-30T23:59:59.999Z');
  const { app } = await buildTestApp(t, {
    apiKeys: [{ client: 'temp', sha256: sha256(READER), expiresAt: Date.parse('2027-01-31T00:00:00Z') }],
    clock: () => now,
  });
  t.equal((await app.inject(list(READER))).statusCode, 200, 'a millisecond before');
  now += 1;
  const expired = await app.inject(list(READER));
  t.equal(expired.statusCode, 401);
  t.match(expired.json(), {
    code: 'UNAUTHORIZED',
    message: 'The API key expired at 2027-01-31T00:00:00.000Z; ask for a new one.',
  });
  t.equal(expired.headers['www-authenticate'], 'Bearer realm="petstore", error="invalid_token"');
  checkContract(t, expired, 'listPets');
});

t.test("a new operation's roles come from its security requirement alone", async (t) => {
  const spec = specWith((spec) => (spec.paths['/pets']!.get!.security = [{ bearerAuth: ['pets:audit'] }]));
  t.same(roleNamesOf(spec), [
    'orders:fulfil',
    'orders:read',
    'orders:write',
    'pets:audit',
    'pets:read',
    'pets:write',
    'webhooks:manage',
  ]);
  const { app } = await buildTestApp(t, { spec, apiKeys: [{ client: 'reader', key: READER, roles: ['pets:read'] }] });
  const refused = await app.inject(list(READER));
  t.equal(refused.statusCode, 403);
  t.equal(
    refused.headers['www-authenticate'],
    'Bearer realm="petstore", error="insufficient_scope", scope="pets:audit"',
  );
  await t.rejects(
    buildTestApp(t, { apiKeys: [{ client: 'reader', key: READER, roles: ['pets:audit'] }] }),
    /entry 1: role "pets:audit" is not named by openapi\.yaml/,
  );
});

t.test('an operation needing two roles names both in its 403', async (t) => {
  const spec = specWith(
    (spec) => (spec.paths['/pets']!.post!.security = [{ bearerAuth: ['pets:write', 'pets:read'] }]),
  );
  const { app } = await buildTestApp(t, { spec, apiKeys: [{ client: 'writer', key: READER, roles: ['pets:write'] }] });
  const refused = await app.inject(create(READER));
  t.equal(refused.statusCode, 403);
  t.equal(
    refused.json().message,
    'This operation needs the roles pets:write, pets:read, which this API key does not have.',
  );
  t.equal(
    refused.headers['www-authenticate'],
    'Bearer realm="petstore", error="insufficient_scope", scope="pets:write pets:read"',
  );
});

t.test("x-default-roles must be a list of roles the spec's operations need", async (t) => {
  const withDefaults = (roles: unknown) =>
    specWith((spec) => {
      (spec.components.securitySchemes!['bearerAuth'] as Record<string, unknown>)['x-default-roles'] = roles;
    });
  t.throws(() => rolesOf(withDefaults('pets:read')), /x-default-roles must be a list of role names/);
  t.throws(() => rolesOf(withDefaults(['pets:read', 7])), /x-default-roles must be a list of role names/);
  t.throws(() => rolesOf(withDefaults(['pets:audit'])), /"pets:audit" is not a role any operation needs/);
  await t.rejects(buildTestApp(t, { spec: withDefaults(['pets:audit']) }), /pets:audit/, 'the service does not start');
  t.same(rolesOf(withDefaults(['pets:read', 'pets:read'])).byDefault, ['pets:read'], 'each once');
  const schemeless = specWith((spec) => delete spec.components.securitySchemes);
  t.same(rolesOf(schemeless).byDefault, [], 'no scheme: no role is granted by default');
});

t.test("Order's x-owner must name one of its properties, and a role", async (t) => {
  const withOwner = (owner: unknown) =>
    specWith((spec) => {
      (spec.components.schemas['Order'] as Record<string, unknown>)['x-owner'] = owner;
    });
  t.same(ownershipOf(specCopy(), 'Order'), { property: 'placedBy', seenByAllWith: 'orders:fulfil' });
  t.equal(ownershipOf(specCopy(), 'Pet'), undefined, 'pets are not owned');
  t.equal(ownershipOf(specCopy(), 'Nothing'), undefined, 'nor is what the spec does not define');
  const bare = specWith((spec) => {
    spec.components.schemas['Tag'] = { type: 'string', 'x-owner': { property: 'owner', seenByAllWith: 'pets:read' } };
  });
  t.throws(() => ownershipOf(bare, 'Tag'), /schemas\.Tag\.x-owner\.property must name one of its properties/);
  t.throws(() => ownershipOf(withOwner({ property: 'owner' }), 'Order'), /x-owner\.property must name one of/);
  t.throws(() => ownershipOf(withOwner({}), 'Order'), /x-owner\.property must name one of/);
  t.throws(
    () => ownershipOf(withOwner({ property: 'placedBy', seenByAllWith: 3 }), 'Order'),
    /x-owner\.seenByAllWith must be a role name/,
  );
  t.throws(() => ownershipOf(withOwner({ property: 'placedBy' }), 'Order'), /x-owner\.seenByAllWith must be a role/);
});
