// glue's spec check with the meta-schema compiled by `npm run generate` (src/openapi/precompiled-meta-schema.ts):
// in use, and deciding exactly as the validator's own compile does.
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv } from 'ajv';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { loadSpec, type OpenApiDocument } from '../../src/openapi/openapi-spec.js';
import { validate as precompiledCheck } from '../../generated/openapi-3.1-meta-validator.js';
import { installedMetaSchemaSha256, usePrecompiledMetaSchema } from '../../src/openapi/precompiled-meta-schema.js';

type MetaValidate = ((data: unknown) => boolean) & { errors?: unknown[] | null };
type ValidatorInternals = { getAjvValidator(version: string): MetaValidate };

const META_SCHEMA_ID = /^https:\/\/spec\.openapis\.org\/oas\/3\.1\/schema\//;
const spec = loadSpec();

/** The meta-schema check a fresh validator (as glue makes one) uses for an OpenAPI version. */
const metaCheckFor = (version: string): MetaValidate =>
  (new Validator() as unknown as ValidatorInternals).getAjvValidator(version);

// Taken before usePrecompiledMetaSchema() replaces it: the validator compiling the meta-schema itself.
const compiled = metaCheckFor('3.1');

/** Documents that break the meta-schema in different places, and the spec itself. */
function documents(): [string, unknown][] {
  const broken = (change: (document: Record<string, any>) => void): Record<string, any> => {
    const document = structuredClone(spec) as unknown as Record<string, any>;
    change(document);
    return document;
  };
  return [
    ['openapi.yaml', spec],
    ['no info', broken((d) => delete d['info'])],
    ['info.title a number', broken((d) => (d['info'].title = 7))],
    ['a bad version', broken((d) => (d['openapi'] = '3.1'))],
    ['an unknown top-level field', broken((d) => (d['extra'] = true))],
    ['a path not starting with /', broken((d) => (d['paths']['pets'] = d['paths']['/pets']))],
    ['a response without description', broken((d) => delete d['paths']['/pets'].get.responses['200'].description)],
    ['a parameter without in', broken((d) => delete d['paths']['/pets'].get.parameters[0].in)],
    ['a server url not a string', broken((d) => (d['servers'][0].url = 1))],
    ['an unknown security scheme type', broken((d) => (d['components'].securitySchemes.bearerAuth.type = 'token'))],
  ];
}

// Before anything in this file installs the precompiled check.
t.test('a check compiled from another meta-schema is not used: glue compiles as it always did', async (t) => {
  t.equal(usePrecompiledMetaSchema('0'.repeat(64)), false);
  t.not(metaCheckFor('3.1'), precompiledCheck);
  t.equal(
    installedMetaSchemaSha256(new URL('./no-such-schema.json', import.meta.url)),
    undefined,
    'an unreadable schema matches nothing',
  );
});

// Still before this file installs the precompiled check itself: buildApp must do it.
t.test('glue still checks the spec at start-up, without compiling the meta-schema', async (t) => {
  // Every Ajv class (the validator uses Ajv2020) compiles through the prototype they share.
  const core = Object.getPrototypeOf(Ajv.prototype) as Ajv;
  const compile = core.compile;
  const compiledIds: string[] = [];
  core.compile = function (this: Ajv, schema: unknown, meta?: boolean) {
    if (typeof schema === 'object' && schema !== null && '$id' in schema) compiledIds.push(String(schema.$id));
    return compile.call(this, schema as object, meta);
  } as typeof compile;
  t.teardown(() => void (core.compile = compile));

  const app = await buildApp({ apiKeys: ['k'.repeat(32)] });
  await app.ready();
  await app.close();
  t.same(
    compiledIds.filter((id) => META_SCHEMA_ID.test(id)),
    [],
  );

  // A spec the meta-schema refuses still stops the start-up; glue prints why.
  const printed = t.capture(console, 'log');
  const invalid = { ...spec, info: { version: '1' } } as unknown as OpenApiDocument;
  await t.rejects(buildApp({ apiKeys: ['k'.repeat(32)], spec: invalid }), /valid specification/);
  t.match(
    printed()
      .map((call) => call.args.join(' '))
      .join('\n'),
    /"missingProperty": "title"/,
  );
});

t.test('the generated check matches the meta-schema installed, so it is used', async (t) => {
  t.equal(usePrecompiledMetaSchema(), true, 'stale? run `npm run generate`');
  t.not(metaCheckFor('3.1'), compiled);
  // Other OpenAPI versions are compiled as before.
  const openApi30 = metaCheckFor('3.0');
  t.not(openApi30, precompiledCheck);
  t.equal(openApi30({ openapi: '3.0.3', info: { title: 't', version: '1' }, paths: {} }), true);
});

t.test('it decides every document as the validator compiling the meta-schema does, with the same errors', async (t) => {
  usePrecompiledMetaSchema();
  const precompiled = metaCheckFor('3.1');
  for (const [name, document] of documents()) {
    const expected = compiled(document);
    t.equal(precompiled(document), expected, `${name}: ${expected ? 'valid' : 'invalid'}`);
    t.same(precompiled.errors ?? null, compiled.errors ?? null, `${name}: errors`);
  }
  t.equal(compiled(spec), true, 'openapi.yaml is valid');
});
