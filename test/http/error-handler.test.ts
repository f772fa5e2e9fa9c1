import t from 'tap';
import { basePathOf, HTTP_METHODS, loadSpec } from '../../src/openapi/openapi-spec.js';
import { standInStore } from '../helpers/stand-in-store.js';
import { AUTH, JSON_TYPE, buildTestApp } from '../helpers/build-app.js';
import { checkContract, checkErrorBody } from '../helpers/contract.js';

const failingStore = standInStore(
  { get: async () => null, list: () => Promise.reject(new Error('connection to db-7.internal refused')) },
  () => new Error('disk /var/lib/pets is full'),
);

t.test('an unexpected failure is a 500 that reveals nothing and is logged with the request id', async (t) => {
  const { app, logs } = await buildTestApp(t, { store: failingStore });
  const response = await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH });
  t.equal(response.statusCode, 500);
  const body = checkContract(t, response, 'listPets');
  t.equal(body.code, 'INTERNAL_ERROR');
  t.notMatch(response.body, /db-7|internal refused|Error:/, 'nothing internal in the body');
  const requestId = /Quote request id (\S+) when/.exec(body.message)?.[1];
  t.ok(requestId, 'the message carries the request id');
  const errorLine = logs()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .find((line) => line.level === 50);
  t.equal(errorLine?.reqId, requestId, 'the error is logged under the same request id');
  t.match(errorLine?.err?.message, /db-7\.internal/, 'the log has the cause');

  const create = await app.inject({
    method: 'POST',
    url: '/v1/pets',
    headers: { ...AUTH, ...JSON_TYPE },
    payload: '{"name":"a","categoryId":1}',
  });
  t.equal(checkContract(t, create, 'createPet').code, 'INTERNAL_ERROR');
});

t.test('an unknown path gets 404 ROUTE_NOT_FOUND, without needing a key', async (t) => {
  const { app } = await buildTestApp(t);
  for (const url of ['/v1/orders', '/v1/store/inventory', '/pets', '/v1/pets/1/photos', '/']) {
    const body = checkErrorBody(t, await app.inject({ method: 'GET', url: `${url}?x=1` }), 404, 'ROUTE_NOT_FOUND');
    t.equal(body.message, `No operation is defined for GET ${url}; the operations are listed at /docs.`);
  }
});

t.test('a method a path does not define gets 405 with Allow, before authentication or parsing', async (t) => {
  const { app } = await buildTestApp(t);
  // Every path of the spec, with every method it does not define (HEAD and OPTIONS included).
  const spec = loadSpec();
  const basePath = basePathOf(spec);
  for (const [path, item] of Object.entries(spec.paths)) {
    const defined = HTTP_METHODS.filter((method) => item[method] !== undefined).map((method) => method.toUpperCase());
    const url = `${basePath}${path.replace(/\{[^}]+\}/g, '1')}`;
    for (const method of ['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'].filter(
      (method) => !defined.includes(method),
    )) {
      const payload = method === 'HEAD' ? {} : { payload: '{bad' };
      const response = await app.inject({ method: method as 'GET', url, headers: JSON_TYPE, ...payload });
      t.equal(response.statusCode, 405, `${method} ${url}`);
      t.same(
        String(response.headers['allow']).split(', ').sort(),
        [...defined].sort(),
        `Allow: the methods the spec defines for ${path}`,
      );
      if (method !== 'HEAD')
        t.match(checkErrorBody(t, response, 405, 'METHOD_NOT_ALLOWED').message, `${method} is not allowed`);
    }
  }
});

t.test('a URL that cannot be decoded gets 400 BAD_REQUEST', async (t) => {
  const { app } = await buildTestApp(t);
  checkErrorBody(t, await app.inject({ method: 'GET', url: '/v1/pets/%zz', headers: AUTH }), 400, 'BAD_REQUEST');
});

t.test('a Content-Length that does not match the body gets 400 BAD_REQUEST', async (t) => {
  const { app } = await buildTestApp(t);
  const response = await app.inject({
    method: 'POST',
    url: '/v1/pets',
    headers: { ...AUTH, ...JSON_TYPE, 'content-length': '2' },
    payload: '{"name":"Rex","categoryId":1}',
  });
  t.match(checkErrorBody(t, response, 400, 'BAD_REQUEST').message, /Content-Length/);
});

t.test("any other client error Fastify raises stays a 400 with Fastify's explanation", async (t) => {
  const { app } = await buildTestApp(t);
  app.get('/test/client-error', async () => {
    throw Object.assign(new Error('Something the client must fix'), { statusCode: 409, code: 'FST_ERR_SOMETHING' });
  });
  const body = checkErrorBody(t, await app.inject({ method: 'GET', url: '/test/client-error' }), 400, 'BAD_REQUEST');
  t.equal(body.message, 'Something the client must fix');
});
