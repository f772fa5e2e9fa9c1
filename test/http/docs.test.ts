import t from 'tap';
import { parse } from 'yaml';
import { buildTestApp } from '../helpers/build-app.js';
import { spec } from '../helpers/contract.js';
import { specWith } from '../helpers/spec.js';

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
  // Each operation's roles are said at the end of its description, as Swagger UI shows no others.
  t.match(
    served.paths['/pets'].post.description,
    /\n\n\*\*Roles\*\*: `pets:write`\. A key without it gets 403 `INSUFFICIENT_SCOPE`\.$/,
  );
  const withoutRoles = JSON.parse(
    JSON.stringify(served.paths).replace(/\\n\\n\*\*Roles\*\*: [^"]*INSUFFICIENT_SCOPE`\./g, ''),
  );
  t.same(
    withoutRoles,
    JSON.parse(JSON.stringify(spec.paths, (_key, value) => (typeof value === 'bigint' ? Number(value) : value))),
    'the operations are otherwise those of openapi.yaml',
  );
  t.equal(served.paths['/pets/{petId}'].get.deprecated, true, 'getPet shows as deprecated');
  t.same(
    served.components.securitySchemes.bearerAuth,
    spec.components.securitySchemes?.['bearerAuth'],
    'Authorize takes a bearer key',
  );

  const yaml = await app.inject({ method: 'GET', url: '/docs/yaml' });
  t.equal(yaml.statusCode, 200);
  t.same(parse(yaml.body), served);
});

t.test("Swagger UI is told each operation's roles: one, several, or none, with a description or without", async (t) => {
  const spec = specWith((spec) => {
    spec.paths['/pets']!.get!.security = [];
    spec.paths['/pets']!.post!.security = [{ bearerAuth: ['pets:write', 'pets:read'] }];
    delete (spec.paths['/pets/{petId}']!.get! as { description?: string }).description;
  });
  const { app } = await buildTestApp(t, { spec });
  const served = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
  t.equal(
    served.paths['/pets'].get.description,
    (spec.paths['/pets']!.get! as { description?: string }).description,
    'no roles: the description as it is',
  );
  t.match(
    served.paths['/pets'].post.description,
    /\*\*Roles\*\*: `pets:write`, `pets:read`\. A key without them gets 403/,
  );
  t.equal(
    served.paths['/pets/{petId}'].get.description,
    '**Roles**: `pets:read`. A key without it gets 403 `INSUFFICIENT_SCOPE`.',
  );
});
