import t from 'tap';
import { parse } from 'yaml';
import { buildTestApp } from '../helpers/build-app.js';
import { spec } from '../helpers/contract.js';

t.test('Swagger UI is served at /docs without a key', async (t) => {
  const { app } = await buildTestApp(t);
  const page = await app.inject({ method: 'GET', url: '/docs/' });
  t.equal(page.statusCode, 200);
  t.match(page.headers['content-type'], /text\/html/);
  t.match(page.body, /swagger/i);
  const initializer = await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
  t.equal(initializer.statusCode, 200);
  t.match(initializer.body, "url: resolveUrl('./json')", 'the UI loads the spec served beside it');
});

t.test('the spec is downloadable, with this instance first among the servers', async (t) => {
  const { app } = await buildTestApp(t);
  const json = await app.inject({ method: 'GET', url: '/docs/json' });
  t.equal(json.statusCode, 200);
  const served = JSON.parse(json.body);
  t.same(served.servers, [{ url: '/v1', description: 'This instance (the one serving these docs)' }, ...spec.servers]);
  t.same(served.paths, spec.paths, 'the operations are those of openapi.yaml');
  t.equal(served.paths['/pets/{petId}'].get.deprecated, true, 'getPet shows as deprecated');
  t.same(served.components.securitySchemes.bearerAuth, spec.components.securitySchemes?.['bearerAuth'], 'Authorize takes a bearer key');

  const yaml = await app.inject({ method: 'GET', url: '/docs/yaml' });
  t.equal(yaml.statusCode, 200);
  t.same(parse(yaml.body), served);
});
