import t from 'tap';
import { unnamedClientOf } from '../../src/auth/api-clients.js';
import { createBearerAuth } from '../../src/auth/bearer-auth.js';
import { fixedKeys } from '../../src/auth/fixed-keys.js';
import { API_KEY, OTHER_API_KEY, buildTestApp } from '../helpers/build-app.js';
import { checkContract } from '../helpers/contract.js';

const listWith = (authorization?: string) => ({
  method: 'GET' as const,
  url: '/v1/pets',
  headers: authorization === undefined ? {} : { authorization },
});

t.test('a valid key in any accepted spelling of the scheme is let in', async (t) => {
  const { app } = await buildTestApp(t);
  for (const header of [
    `Bearer ${API_KEY}`,
    `bearer ${API_KEY}`,
    `BEARER  ${API_KEY}`,
    `Bearer  ${API_KEY}`,
    `Bearer ${API_KEY} `,
  ]) {
    t.equal((await app.inject(listWith(header))).statusCode, 200, JSON.stringify(header));
  }
});

t.test('several keys are accepted at once, for rotation', async (t) => {
  const { app } = await buildTestApp(t, { apiKeys: [API_KEY, OTHER_API_KEY] });
  t.equal((await app.inject(listWith(`Bearer ${API_KEY}`))).statusCode, 200);
  t.equal((await app.inject(listWith(`Bearer ${OTHER_API_KEY}`))).statusCode, 200);
});

t.test('keys of different lengths, one the start of another, are each matched whole', async (t) => {
  const longer = `${API_KEY}Zz9`;
  const { app } = await buildTestApp(t, { apiKeys: [longer, API_KEY] });
  const lastChanged = `${API_KEY.slice(0, -1)}${API_KEY.endsWith('A') ? 'B' : 'A'}`;
  const cases: [string, number][] = [
    [API_KEY, 200],
    [longer, 200],
    [`${API_KEY}Z`, 401],
    [`${longer}0`, 401],
    [lastChanged, 401],
    [`${longer.slice(0, -1)}8`, 401],
  ];
  for (const [key, status] of cases) t.equal((await app.inject(listWith(`Bearer ${key}`))).statusCode, status, key);
});

t.test('missing, malformed and wrong credentials get 401 with an RFC 6750 challenge', async (t) => {
  const { app } = await buildTestApp(t);
  const cases: [string | undefined, string, RegExp][] = [
    [undefined, 'Bearer realm="petstore"', /header is missing/],
    ['', 'Bearer realm="petstore"', /header is missing/],
    [`Basic ${API_KEY}`, 'Bearer realm="petstore", error="invalid_request"', /must have the form "Bearer <API key>"/],
    ['Bearer', 'Bearer realm="petstore", error="invalid_request"', /must have the form/],
    [`Bearer ${API_KEY} extra`, 'Bearer realm="petstore", error="invalid_request"', /must have the form/],
    [`${API_KEY}`, 'Bearer realm="petstore", error="invalid_request"', /must have the form/],
    [`Bearer ${API_KEY}x`, 'Bearer realm="petstore", error="invalid_token"', /The API key is not valid/],
    [`Bearer ${API_KEY.slice(0, -1)}`, 'Bearer realm="petstore", error="invalid_token"', /The API key is not valid/],
    [`Bearer ${OTHER_API_KEY}`, 'Bearer realm="petstore", error="invalid_token"', /The API key is not valid/],
    [`Bearer\t${API_KEY}`, 'Bearer realm="petstore", error="invalid_request"', /must have the form/],
  ];
  for (const [authorization, challenge, message] of cases) {
    const response = await app.inject(listWith(authorization));
    t.equal(response.statusCode, 401, String(authorization));
    t.equal(response.headers['www-authenticate'], challenge);
    const body = checkContract(t, response, 'listPets');
    t.equal(body.code, 'UNAUTHORIZED');
    t.match(body.message, message);
  }
});

t.test('keys never appear in logs or responses', async (t) => {
  const { app, logs } = await buildTestApp(t);
  const wrongKey = 'wrong-key-that-must-not-leak-1234';
  const responses = [
    await app.inject(listWith(`Bearer ${API_KEY}`)),
    await app.inject(listWith(`Bearer ${wrongKey}`)),
    await app.inject({ ...listWith(`Bearer ${API_KEY}`), url: '/v1/pets?limit=0' }),
  ];
  for (const response of responses) {
    t.notMatch(response.body, API_KEY);
    t.notMatch(response.body, wrongKey);
    t.notMatch(JSON.stringify(response.headers), API_KEY);
  }
  t.match(logs(), /request completed/, 'requests were logged');
  t.notMatch(logs(), API_KEY);
  t.notMatch(logs(), wrongKey);
});

const ROLES = { named: ['pets:read', 'pets:write'], byDefault: ['pets:read', 'pets:write'] };

t.test('an authenticator needs at least one key', async (t) => {
  t.throws(() => fixedKeys([], ROLES), /at least one API key/);
});

t.test("entries given in code are checked as the keys file's are: digest, roles", async (t) => {
  t.throws(
    () => fixedKeys([{ client: 'a', sha256: 'abc' }], ROLES),
    /entry 1: sha256 must be 64 lower-case hex digits/,
  );
  t.throws(
    () => fixedKeys([{ client: 'a', key: API_KEY, roles: ['pets:admin'] }], ROLES),
    /entry 1: role "pets:admin" is not named by openapi\.yaml \(its roles: pets:read, pets:write\)/,
  );
  t.throws(
    () => fixedKeys([{ client: 'a', key: API_KEY, roles: ['pets:read'] }], { named: [], byDefault: [] }),
    /\(its roles: none\)/,
    'a spec that names no role',
  );
});

t.test('an authenticator refuses keys that no Authorization header could carry', async (t) => {
  for (const key of ['two words', 'semi;colon', 'é'.repeat(32), '=leading-padding']) {
    t.throws(
      () => fixedKeys([API_KEY, key], ROLES),
      /entry 2: the key must have the bearer token syntax/,
      JSON.stringify(key),
    );
  }
});

t.test('each key authenticates its client: the name given with it, or one made from its hash', async (t) => {
  const { app } = await buildTestApp(t);
  const authenticate = createBearerAuth(fixedKeys([{ client: 'mobile-app', key: API_KEY }, OTHER_API_KEY], ROLES));
  app.get(
    '/whoami',
    { onRequest: (request, reply, done) => (authenticate(request, reply, []), done()) },
    async (request) => ({ client: request.client }),
  );
  const whoami = async (authorization: string) =>
    (await app.inject({ method: 'GET', url: '/whoami', headers: { authorization } })).json();
  t.same(await whoami(`Bearer ${API_KEY}`), { client: 'mobile-app' });
  t.same(await whoami(`Bearer ${OTHER_API_KEY}`), { client: unnamedClientOf(OTHER_API_KEY) });
  t.same(await whoami(`bearer  ${API_KEY}`), { client: 'mobile-app' }, 'through the full syntax too');
  t.throws(
    () => fixedKeys([{ client: 'Mobile App', key: API_KEY }], ROLES),
    /entry 1: client must be 1 to 32 characters/,
  );
});
