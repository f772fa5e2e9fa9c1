import t from 'tap';
import { AUTH, JSON_TYPE, buildTestApp, postPet } from '../helpers/build-app.js';
import { checkContract } from '../helpers/contract.js';

// The interface document announces removal for 5 December 2030, replaced by GET /pets.
const DEPRECATION_HEADERS = {
  deprecation: '@1795305600',
  sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  link: '</v1/pets>; rel="successor-version"',
};

const get = (petId: string, headers: Record<string, string> = AUTH) => ({
  method: 'GET' as const,
  url: `/v1/pets/${petId}`,
  headers,
});

t.test('reads a pet by id', async (t) => {
  const { app } = await buildTestApp(t);
  await app.inject(postPet({ name: 'Rex', categoryId: 3, status: 'sold' }));
  const response = await app.inject(get('1'));
  t.equal(response.statusCode, 200);
  t.same(checkContract(t, response, 'getPet'), { id: 1, name: 'Rex', categoryId: 3, status: 'sold' });
  t.match(response.headers, DEPRECATION_HEADERS);
});

t.test('an id no pet has gets 404 PET_NOT_FOUND', async (t) => {
  const { app } = await buildTestApp(t);
  await app.inject(postPet({ name: 'Rex', categoryId: 3 }));
  for (const petId of ['2', '0', '-1', '9223372036854775807', '-9223372036854775808']) {
    const response = await app.inject(get(petId));
    t.equal(response.statusCode, 404, petId);
    const body = checkContract(t, response, 'getPet');
    t.equal(body.code, 'PET_NOT_FOUND');
    t.equal(body.message, `No pet has id ${petId}.`);
  }
});

t.test('a petId that is not an int64 gets 400', async (t) => {
  const { app } = await buildTestApp(t);
  for (const petId of ['', 'abc', '1.5', '1e3', '0x1', '9223372036854775808', '-9223372036854775809', '%201', '+1']) {
    const response = await app.inject(get(petId));
    t.equal(response.statusCode, 400, petId);
    const body = checkContract(t, response, 'getPet');
    t.equal(body.code, 'VALIDATION_FAILED');
    t.match(body.message, /^path parameter petId must be an integer from -9223372036854775808 to 9223372036854775807$/);
  }
});

t.test('a very long petId is an invalid int64 like any other', async (t) => {
  const { app } = await buildTestApp(t);
  const response = await app.inject(get('1'.repeat(10_000)));
  t.equal(response.statusCode, 400);
  t.equal(checkContract(t, response, 'getPet').code, 'VALIDATION_FAILED');
});

t.test('query parameters and bodies are refused', async (t) => {
  const { app } = await buildTestApp(t);
  await app.inject(postPet({ name: 'Rex', categoryId: 3 }));
  const withQuery = await app.inject(get('1?fields=name'));
  t.equal(withQuery.statusCode, 400);
  t.match(checkContract(t, withQuery, 'getPet').message, /unknown query parameter 'fields'/);
  const withBody = await app.inject({ ...get('1', { ...AUTH, ...JSON_TYPE }), payload: '{}' });
  t.equal(withBody.statusCode, 400);
  t.equal(checkContract(t, withBody, 'getPet').code, 'BODY_NOT_ALLOWED');
});

t.test('every answer of the deprecated operation carries the deprecation headers', async (t) => {
  const { app } = await buildTestApp(t);
  const responses = [await app.inject(get('1')), await app.inject(get('abc')), await app.inject(get('1', {}))];
  t.same(
    responses.map((response) => response.statusCode),
    [404, 400, 401],
  );
  for (const response of responses) {
    checkContract(t, response, 'getPet');
    t.match(response.headers, DEPRECATION_HEADERS, `on the ${response.statusCode}`);
  }
});

t.test('the non-deprecated operations carry none of them', async (t) => {
  const { app } = await buildTestApp(t);
  const response = await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH });
  t.notOk(response.headers['deprecation']);
  t.notOk(response.headers['sunset']);
  t.notOk(response.headers['link']);
});

t.test('getPet needs a valid key, checked before the path parameter', async (t) => {
  const { app } = await buildTestApp(t);
  const response = await app.inject(get('abc', { authorization: 'Bearer wrong-key-0123456789' }));
  t.equal(response.statusCode, 401);
  t.equal(checkContract(t, response, 'getPet').code, 'UNAUTHORIZED');
  t.equal(response.headers['www-authenticate'], 'Bearer realm="petstore", error="invalid_token"');
});
