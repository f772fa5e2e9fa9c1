// Every JSON Schema keyword the validator supports works on int64 fields too (minimum, maximum,
// exclusiveMinimum, exclusiveMaximum, multipleOf, enum, const), compared exactly beyond 2^53 where
// doubles would round neighbours together: in the validator, in the spec as it is read, built and
// served, over HTTP for a body field and a path parameter, and in the property generators.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import t, { type Test } from 'tap';
import { DEFAULT_SPEC_PATH, loadSpec, type OpenApiDocument } from '../../src/openapi/openapi-spec.js';
import { createAjv, toAjvSchema, withInt64ConstraintsAsText } from '../../src/validation/ajv.js';
import { formatSchemaErrors } from '../../src/validation/error-messages.js';
import { INT64_MAX, INT64_MIN } from '../../src/validation/int64.js';
import { parseJson } from '../../src/validation/strict-json.js';
import { API_KEY, AUTH, buildTestApp, JSON_TYPE } from '../helpers/build-app.js';
import { contractOf, httpTarget, liveChecks, schemaArbitraries } from 'openapi-contract-engine';
import { specWith } from '../helpers/spec.js';
import { petStorePlugin } from 'petstore-contract-plugin';

const TWO_53 = 2n ** 53n;
/** The value as a request carries it: a number while a double holds it exactly, else a bigint. */
const asData = (value: bigint) => (value >= -(2n ** 53n) + 1n && value <= TWO_53 - 1n ? Number(value) : value);

interface Case {
  keyword: string;
  schema: Record<string, unknown>;
  accepted: bigint[];
  /** Each refused value, with what the message must say. */
  refused: [bigint, string][];
}

// At the bounds of the int64 range and around 2^53: each refused value is a double-neighbour of an accepted one.
const CASES: Case[] = [
  {
    keyword: 'minimum',
    schema: { minimum: INT64_MAX - 1n },
    accepted: [INT64_MAX - 1n, INT64_MAX],
    refused: [
      [INT64_MAX - 2n, 'must be >= 9223372036854775806'],
      [INT64_MIN, 'must be >= 9223372036854775806'],
    ],
  },
  {
    keyword: 'maximum',
    schema: { maximum: INT64_MIN + 1n },
    accepted: [INT64_MIN, INT64_MIN + 1n],
    refused: [
      [INT64_MIN + 2n, 'must be <= -9223372036854775807'],
      [INT64_MAX, 'must be <= -9223372036854775807'],
    ],
  },
  {
    keyword: 'exclusiveMinimum',
    schema: { exclusiveMinimum: TWO_53 },
    accepted: [TWO_53 + 1n, INT64_MAX],
    refused: [
      [TWO_53, 'must be > 9007199254740992'],
      [TWO_53 - 1n, 'must be > 9007199254740992'],
    ],
  },
  {
    keyword: 'exclusiveMaximum',
    schema: { exclusiveMaximum: -TWO_53 - 1n },
    accepted: [-TWO_53 - 2n, INT64_MIN],
    refused: [
      [-TWO_53 - 1n, 'must be < -9007199254740993'],
      [-TWO_53, 'must be < -9007199254740993'],
    ],
  },
  {
    keyword: 'multipleOf',
    schema: { multipleOf: 2n ** 62n },
    accepted: [INT64_MIN, 0n, 2n ** 62n, -(2n ** 62n)],
    refused: [
      [INT64_MAX, 'must be a multiple of 4611686018427387904'],
      [2n ** 62n + 1n, 'must be a multiple of 4611686018427387904'],
    ],
  },
  {
    keyword: 'multipleOf (a fraction)',
    schema: { multipleOf: 1.5 },
    accepted: [0n, 3n, INT64_MAX - 1n, -3n],
    refused: [
      [1n, 'must be a multiple of 1.5'],
      [INT64_MAX, 'must be a multiple of 1.5'],
    ],
  },
  {
    keyword: 'enum',
    schema: { enum: [INT64_MIN, INT64_MAX, TWO_53 + 1n, 0] },
    accepted: [INT64_MIN, INT64_MAX, TWO_53 + 1n, 0n],
    refused: [
      [TWO_53, 'must be one of: -9223372036854775808, 9223372036854775807, 9007199254740993, 0'],
      [INT64_MAX - 1n, 'must be one of:'],
    ],
  },
  {
    keyword: 'const',
    schema: { const: INT64_MAX },
    accepted: [INT64_MAX],
    refused: [
      [INT64_MAX - 1n, 'must be 9223372036854775807'],
      [INT64_MIN, 'must be 9223372036854775807'],
    ],
  },
  {
    keyword: 'minimum and exclusiveMaximum (fractions)',
    schema: { minimum: 0.5, exclusiveMaximum: 2.5 },
    accepted: [1n, 2n],
    refused: [
      [0n, 'must be >= 0.5'],
      [3n, 'must be < 2.5'],
    ],
  },
];

const int64 = (constraints: Record<string, unknown>) => ({ type: 'integer', format: 'int64', ...constraints });

t.test(
  'the validator applies each keyword exactly, and the message names the keyword as the spec writes it',
  async (t) => {
    const ajv = createAjv();
    for (const { keyword, schema, accepted, refused } of CASES) {
      const validate = ajv.compile(toAjvSchema({ type: 'object', properties: { n: int64(schema) } }));
      for (const value of accepted) t.ok(validate({ n: asData(value) }), `${keyword}: ${value} accepted`);
      for (const [value, message] of refused) {
        t.notOk(validate({ n: asData(value) }), `${keyword}: ${value} refused`);
        t.match(
          formatSchemaErrors(validate.errors as never, 'body').message,
          `body.n ${message}`,
          `${keyword}: ${value} says why`,
        );
      }
    }
    const validate = ajv.compile(toAjvSchema({ type: 'object', properties: { n: int64({ minimum: 0 }) } }));
    t.notOk(validate({ n: INT64_MAX + 1n }));
    t.equal(
      formatSchemaErrors(validate.errors as never, 'body').message,
      'body.n must be an integer from -9223372036854775808 to 9223372036854775807',
      'outside int64 the range is what is wrong',
    );
    t.notOk(validate({ n: 2 ** 53 }), 'a double past 2^53 may already have lost digits');
  },
);

t.test('a multipleOf written with a negative exponent (3e-7) is read exactly too', async (t) => {
  const validate = createAjv().compile(toAjvSchema({ type: 'object', properties: { n: int64({ multipleOf: 3e-7 }) } }));
  t.ok(validate({ n: asData(INT64_MAX - 1n) }), 'n / 3e-7 is whole when 3 divides n');
  t.ok(validate({ n: 3 }));
  t.notOk(validate({ n: asData(INT64_MAX) }));
  t.notOk(validate({ n: 1 }));
  t.match(formatSchemaErrors(validate.errors as never, 'body').message, 'body.n must be a multiple of 3e-7');
});

t.test('an int64 schema whose constraints cannot hold is refused when it is compiled', async (t) => {
  const ajv = createAjv();
  t.throws(() => ajv.compile(toAjvSchema(int64({ multipleOf: 0 }))), /multipleOf must be greater than 0/);
  t.throws(() => toAjvSchema(int64({ enum: 5 })), /enum must be a list/);
  t.throws(() => toAjvSchema(int64({ minimum: 'one' })), /minimum must be a number, not "one"/);
  const listed = ajv.compile(toAjvSchema(int64({ enum: [1.5, 2] })));
  t.ok(listed(2));
  t.notOk(listed(1), 'an enum value that is no integer matches no integer');
  const only = ajv.compile(toAjvSchema(int64({ const: 1.5 })));
  t.notOk(only(1), 'const 1.5 allows no integer');
  t.notOk(only(2), 'const 1.5 allows no integer');
});

t.test(
  'as glue copies the spec (JSON.stringify), the constraints travel as exact text and come back the same',
  async (t) => {
    const schema = {
      type: 'object',
      properties: { n: int64({ minimum: INT64_MIN + 1n, enum: [INT64_MAX, 1], example: INT64_MAX }) },
    };
    const copied = JSON.parse(JSON.stringify(withInt64ConstraintsAsText(schema)));
    t.same(copied.properties.n, {
      type: 'integer',
      format: 'int64',
      // eslint-disable-next-line no-loss-of-precision -- what JSON.parse makes of the spec's example
      example: 9223372036854775807,
      'x-int64': { minimum: '-9223372036854775807', enum: ['9223372036854775807', '1'] },
    });
    const validate = createAjv().compile(toAjvSchema(copied));
    t.ok(validate({ n: INT64_MAX }));
    t.notOk(validate({ n: INT64_MAX - 1n }));
    t.notOk(validate({ n: INT64_MIN }));
  },
);

t.test(
  'the spec is read exactly: big integers as bigint, from YAML, from the built JSON, and served at /docs/json',
  async (t) => {
    const text = readFileSync(DEFAULT_SPEC_PATH, 'utf8').replace(
      /( {4}CategoryId:\n {6}type: integer\n {6}format: int64\n)/,
      '$1      minimum: -9223372036854775807\n      exclusiveMaximum: 9223372036854775807\n      multipleOf: 2\n',
    );
    const dir = t.testdir({ 'openapi.yaml': text });
    const read = loadSpec(join(dir, 'openapi.yaml'));
    const categoryId = (spec: OpenApiDocument) => spec.components.schemas['CategoryId'] as Record<string, unknown>;
    t.same(categoryId(read), {
      type: 'integer',
      format: 'int64',
      description: categoryId(loadSpec()).description,
      minimum: -9223372036854775807n,
      exclusiveMaximum: 9223372036854775807n,
      multipleOf: 2,
    });
    t.equal(
      typeof (read.components.schemas['PetName'] as { maxLength: unknown }).maxLength,
      'number',
      'small integers stay numbers',
    );

    const built = spawnSync(
      process.execPath,
      [join(import.meta.dirname, '..', '..', 'scripts', 'build-spec.js'), dir, join(dir, 'openapi.yaml')],
      { encoding: 'utf8' },
    );
    t.equal(built.status, 0, built.stderr);
    const json = readFileSync(join(dir, 'openapi.json'), 'utf8');
    t.match(json, '"minimum":-9223372036854775807,"exclusiveMaximum":9223372036854775807,"multipleOf":2');
    t.same(loadSpec(join(dir, 'openapi.json')), read, 'the built JSON reads back as the same document');

    const { app } = await buildTestApp(t, { spec: read });
    const served = await app.inject({ method: 'GET', url: '/docs/json' });
    t.equal(served.statusCode, 200);
    t.match(served.body, '"minimum":-9223372036854775807,"exclusiveMaximum":9223372036854775807');
    t.same((parseJson(served.body) as OpenApiDocument).components.schemas['CategoryId'], categoryId(read));
    t.match(
      (await app.inject({ method: 'GET', url: '/docs/yaml' })).body,
      /minimum: -9223372036854775807\n\s+exclusiveMaximum: 9223372036854775807\n/,
    );
  },
);

/**
 * openapi.yaml with `constraints` on CategoryId (a body field, served back) and on getPet's petId
 * (a path parameter; not on PetId, which the service assigns from 1 up).
 */
const constrained = (constraints: Record<string, unknown>) =>
  specWith((spec) => {
    Object.assign(spec.components.schemas['CategoryId'] as object, constraints);
    const [petId] = (spec.paths['/pets/{petId}']!.get as unknown as { parameters: { schema: object }[] }).parameters;
    petId!.schema = int64(constraints);
  });

t.test('over HTTP, a body field and a path parameter keep each keyword at the int64 bounds', async (t) => {
  for (const { keyword, schema, accepted, refused } of CASES) {
    await t.test(keyword, async (t) => {
      const { app } = await buildTestApp(t, { spec: constrained(schema) });
      for (const value of accepted) {
        const created = await app.inject({
          method: 'POST',
          url: '/v1/pets',
          headers: { ...AUTH, ...JSON_TYPE },
          payload: `{"name":"Rex","categoryId":${value}}`,
        });
        t.equal(created.statusCode, 201, `categoryId ${value}`);
        t.match(created.body, `"categoryId":${value}}`, 'stored and answered exactly');
        const read = await app.inject({ method: 'GET', url: `/v1/pets/${value}`, headers: AUTH });
        t.ok([200, 404].includes(read.statusCode), `petId ${value}: valid (${read.statusCode})`);
      }
      for (const [value, message] of refused) {
        const created = await app.inject({
          method: 'POST',
          url: '/v1/pets',
          headers: { ...AUTH, ...JSON_TYPE },
          payload: `{"name":"Rex","categoryId":${value}}`,
        });
        t.equal(created.statusCode, 400, `categoryId ${value}`);
        t.match(created.json().message, `body.categoryId ${message}`);
        const read = await app.inject({ method: 'GET', url: `/v1/pets/${value}`, headers: AUTH });
        t.equal(read.statusCode, 400, `petId ${value}`);
        t.match(read.json().message, `path parameter petId ${message}`);
      }
    });
  }
});

t.test(
  'the property generators honour each keyword: valid values pass, each broken one is refused for it',
  async (t) => {
    for (const { keyword, schema, accepted } of CASES) {
      const spec = constrained(schema);
      const { validValue, brokenValue } = schemaArbitraries(spec);
      const validate = createAjv().compile(toAjvSchema({ ...int64(schema) }));
      const values = fc.sample(validValue({ $ref: '#/components/schemas/CategoryId' }), {
        seed: 1,
        numRuns: 200,
      }) as bigint[];
      t.ok(
        values.every((value) => validate(asData(value))),
        `${keyword}: every generated value is valid`,
      );
      if (accepted.length > 1) t.ok(new Set(values).size > 1, `${keyword}: and they vary`);
      const broken = fc.sample(brokenValue({ $ref: '#/components/schemas/CategoryId' }), { seed: 1, numRuns: 200 });
      t.ok(
        broken.every(({ value }) => typeof value !== 'bigint' || !validate(asData(value))),
        `${keyword}: every broken value is invalid`,
      );
      const rules = new Set(broken.map(({ rule }) => rule));
      if ('multipleOf' in schema)
        t.ok(
          [...rules].some((rule) => rule.startsWith('not a multiple of')),
          `${keyword}: values that are no multiple`,
        );
      if ('enum' in schema || 'const' in schema)
        t.ok(rules.has('not one of the allowed values'), `${keyword}: values not allowed`);
    }
  },
);

/** The checks npm run contract runs, with requests generated from `spec`, against the service built from it. */
async function contractHolds(t: Test, spec: OpenApiDocument) {
  const { app } = await buildTestApp(t, { spec });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const target = httpTarget({ urls: [new URL(`http://127.0.0.1:${port}/v1`)], basePath: '/v1', timeoutMs: 10_000 });
  const checks = liveChecks(target, {
    readOnly: false,
    runId: 'int64',
    maxPages: 100,
    contract: contractOf(spec),
    apiKey: API_KEY,
    plugin: petStorePlugin(),
  });
  for (const { name, property } of checks.properties)
    await fc.assert(property, { seed: 1, numRuns: 40 }).then(() => t.pass(name));
  for (const { name, check } of checks.readBacks) t.ok(await check(), name);
  t.ok(checks.writes() > 0, 'pets were created and read back');
}

t.test('the contract holds for specs with the keywords on an int64 body field, at the bounds', async (t) => {
  // Not on petId: getPet must read every id the service assigns, which a constraint there would refuse.
  for (const { keyword, schema } of CASES) {
    await t.test(keyword, (t) =>
      contractHolds(
        t,
        specWith((spec) => void Object.assign(spec.components.schemas['CategoryId'] as object, schema)),
      ),
    );
  }
});

t.test('an example beyond 2^53 does not stop the service', async (t) => {
  const spec = specWith((spec) => Object.assign(spec.components.schemas['PetId'] as object, { example: INT64_MAX }));
  const { app } = await buildTestApp(t, { spec });
  t.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH })).statusCode, 200);
  t.match((await app.inject({ method: 'GET', url: '/docs/json' })).body, '"example":9223372036854775807');
});
