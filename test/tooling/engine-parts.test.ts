// The contract engine's parts at their edges, where the runs over openapi.yaml do not go:
// - the links it refuses to follow, each named where it stands;
// - next links that are absent or malformed;
// - the clock of a spec that announces no sunset;
// - code points fast-check shrinks from values it did not draw;
// - the live target's responses that are not JSON, its 429s and its unreachable URLs;
// - schemas and parameters the generators cannot draw from, refused when they are built;
// - each kind of step of the model's sequences, as a failure report prints it;
// - what the document contract says of responses no running service here gives.
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import t from 'tap';
import {
  contractOf,
  createValidator,
  httpTarget,
  linkedValues,
  linksOf,
  nextTarget,
  NoResponse,
  requestGenerators,
  retryAfterMs,
  schemaArbitraries,
} from 'openapi-contract-engine';
import { keptNextPage } from 'petstore-contract-plugin';
import { clockBeforeSunsets } from 'petstore-contract-plugin';
import { apiProperties, createSubject, memoryStoreUnderTest, type Subject } from '../model/in-process.js';
import { createAjv } from '../../src/validation/ajv.js';
import { PROJECT_ROOT } from '../../src/project-root.js';
import type { OpenApiDocument } from '../../src/openapi/openapi-spec.js';
import { specCopy, specWith } from '../helpers/spec.js';

type Link = Record<string, unknown>;
/** openapi.yaml with createPet's 201 link to getPet replaced by `link`. */
const withLink = (link: Link): OpenApiDocument =>
  specWith((spec) => {
    const created = spec.paths['/pets']!.post!.responses['201'] as { links: Record<string, Link> };
    created.links = { GetPetById: link };
  });

t.test('a link the engine cannot follow stops it, naming the link and why', async (t) => {
  const where = 'spec.yaml: createPet 201 link GetPetById';
  const cases: [string, Link, string][] = [
    [
      'by operationRef',
      { operationRef: '#/paths/~1pets~1{petId}/get', parameters: { petId: '$response.body#/id' } },
      'only links by operationId are followed',
    ],
    [
      'to no operation',
      { operationId: 'readPet', parameters: { petId: '$response.body#/id' } },
      'no operation readPet',
    ],
    [
      'with a requestBody that is not an object',
      { operationId: 'getPet', parameters: { petId: '$response.body#/id' }, requestBody: '$response.body' },
      'requestBody: only an object of $response.body#/… expressions is followed',
    ],
    [
      'with a requestBody for an operation that takes none',
      {
        operationId: 'getPet',
        parameters: { petId: '$response.body#/id' },
        requestBody: { petId: '$response.body#/id' },
      },
      'the target takes no request body',
    ],
    [
      'with a requestBody member from a constant',
      { operationId: 'createPet', requestBody: { name: 'Rex' } },
      'requestBody.name: only $response.body#/… expressions are followed, not "Rex"',
    ],
    [
      'to a parameter the path lacks',
      { operationId: 'getPet', parameters: { 'path.id': '$response.body#/id' } },
      'getPet has no path parameter path.id',
    ],
    [
      'from a header',
      { operationId: 'getPet', parameters: { petId: '$response.header.Location' } },
      'petId: only $response.body#/… expressions are followed, not "$response.header.Location"',
    ],
    [
      'from a constant',
      { operationId: 'getPet', parameters: { petId: 7 } },
      'petId: only $response.body#/… expressions are followed, not 7',
    ],
    ['filling nothing', { operationId: 'getPet' }, 'the link fills no parameter'],
    [
      'to a header the operation lacks',
      {
        operationId: 'getPet',
        parameters: { petId: '$response.body#/id', 'header.If-Match': '$response.header.ETag' },
      },
      'getPet has no header parameter header.If-Match',
    ],
    [
      'to a header from the body',
      {
        operationId: 'updatePet',
        parameters: { petId: '$response.body#/id', 'header.If-Match': '$response.body#/id' },
      },
      'header.If-Match: only $response.header.… expressions fill a header, not "$response.body#/id"',
    ],
  ];
  for (const [what, link, reason] of cases)
    t.throws(() => linksOf(withLink(link), 'spec.yaml'), { message: `${where}: ${reason}` }, what);

  // A link by reference, and `path.`-qualified: followed like any other.
  const referenced = specWith((spec) => {
    (spec.components as Record<string, unknown>)['links'] = {
      ThePet: { operationId: 'getPet', parameters: { 'path.petId': '$response.body#/id' } },
    };
    (spec.paths['/pets']!.post!.responses['201'] as { links: Record<string, Link> }).links = {
      GetPetById: { $ref: '#/components/links/ThePet' },
    };
  });
  const link = linksOf(referenced, 'spec.yaml').find(({ from }) => from === 'createPet')!;
  t.same(link, {
    from: 'createPet',
    status: '201',
    name: 'GetPetById',
    to: 'getPet',
    parameters: [{ name: 'petId', pointer: ['id'] }],
    headers: [],
    body: [],
  });
  t.same(linkedValues(link, { id: 7 }), { petId: 7 });
  // A member of the target's body (placeOrder's petId), from the response's body.
  const ordered = linksOf(
    specWith(() => undefined),
    'spec.yaml',
  ).find(({ to }) => to === 'placeOrder')!;
  t.same(ordered.body, [{ name: 'petId', pointer: ['id'] }], "placeOrder's petId from createPet's id");
  t.same(linkedValues(ordered, { id: 7 }), { 'body.petId': 7 }, 'given as body.petId');
  t.equal(linkedValues(link, { name: 'Rex' }), undefined, 'a body without the member: nothing to follow');
  t.equal(linkedValues(link, null), undefined, 'no body: nothing to follow');
  const escaped = linksOf(
    withLink({ operationId: 'getPet', parameters: { petId: '$response.body#/a~1b/c~0d' } }),
    'spec.yaml',
  ).find(({ from }) => from === 'createPet')!;
  t.same(
    linkedValues(escaped, { 'a/b': { 'c~d': '9' } }),
    { petId: '9' },
    'a pointer with escaped segments (RFC 6901)',
  );

  // A header from a response's header (an ETag into If-Match), named in lower case.
  const tagged = linksOf(
    withLink({
      operationId: 'updatePet',
      parameters: { petId: '$response.body#/id', 'header.If-Match': '$response.header.ETag' },
    }),
    'spec.yaml',
  ).find(({ from }) => from === 'createPet')!;
  t.same(tagged.headers, [{ name: 'if-match', from: 'etag' }]);
  t.same(linkedValues(tagged, { id: 7 }, { etag: '"3"' }), { 'header.if-match': '"3"', petId: 7 });
  t.equal(linkedValues(tagged, { id: 7 }, {}), undefined, 'an answer without the header: nothing to follow');
});

t.test('a next link is read only as rel="next", and kept only with the same path, limit and status', async (t) => {
  t.equal(nextTarget(undefined), undefined);
  t.equal(nextTarget(null), undefined);
  t.equal(nextTarget('</v1/pets?limit=5&after=x>; rel="next"'), '/v1/pets?limit=5&after=x');
  t.equal(nextTarget('</v1/pets?limit=5&after=x>; rel="prev"'), undefined, 'another relation');
  t.equal(nextTarget('/v1/pets?limit=5&after=x'), undefined, 'not a link');
  const from = 'http://127.0.0.1/v1/pets?limit=5&status=sold';
  t.equal(keptNextPage(undefined, from, { limit: 5, status: 'sold' }), undefined, 'no link');
  t.equal(
    keptNextPage('<?limit=5&status=sold&after=x>; rel="next"', from, { limit: 5, status: 'sold' })?.href,
    'http://127.0.0.1/v1/pets?limit=5&status=sold&after=x',
    'resolved as a client resolves it',
  );
  t.equal(
    keptNextPage('</v1/pets?limit=6&status=sold&after=x>; rel="next"', from, { limit: 5, status: 'sold' }),
    undefined,
    'another limit',
  );
  t.equal(
    keptNextPage('</v1/pets?limit=5&after=x>; rel="next"', from, { limit: 5, status: 'sold' }),
    undefined,
    'the status dropped',
  );
  t.equal(
    keptNextPage('</v1/other?limit=5&status=sold&after=x>; rel="next"', from, { limit: 5, status: 'sold' }),
    undefined,
    'another path',
  );
  t.ok(
    keptNextPage('</v1/pets?limit=5&after=x>; rel="next"', 'http://127.0.0.1/v1/pets?limit=5', {
      limit: 5,
      status: undefined,
    }),
    'no status, none added',
  );
});

t.test(
  'the clock stops a day before the first sunset a spec announces, and is the real one when it announces none',
  async (t) => {
    const none = specWith((spec) => {
      for (const operation of Object.values(spec.paths['/pets/{petId}']!)) {
        for (const marker of ['deprecated', 'x-deprecated-at', 'x-sunset', 'x-replaced-by', 'x-brownouts'])
          delete (operation as unknown as Record<string, unknown>)[marker];
      }
    });
    t.equal(clockBeforeSunsets(none), Date.now);
    const sunsets = specWith((spec) => {
      const getPet = spec.paths['/pets/{petId}']!.get as unknown as Record<string, unknown>;
      getPet['x-deprecated-at'] = '2000-01-01';
      getPet['x-sunset'] = '2001-01-02';
      delete getPet['x-brownouts'];
    });
    t.equal(
      clockBeforeSunsets(sunsets)(),
      Date.parse('2001-01-01T00:00:00Z'),
      'a sunset past: stopped the day before it',
    );
  },
);

t.test(
  'the live target: any path, answers that are not JSON, a 429 retried and then given back, and no answer at all',
  async (t) => {
    let tooMany = 0;
    const server = createServer((request, response) => {
      if (request.url === '/v1/busy') {
        tooMany += 1;
        response.writeHead(429, { 'retry-after': '0' }).end();
      } else response.writeHead(200, { 'content-type': 'text/plain' }).end(`not JSON: ${request.url}`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.teardown(() => void server.close());
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const target = httpTarget({ urls: [new URL(base)], basePath: '/v1', timeoutMs: 5000 });

    const plain = await target.send({ operationId: 'listPets', method: 'GET', url: '/pets', headers: {} });
    t.same(
      [plain.statusCode, plain.body, plain.json],
      [200, 'not JSON: /v1/pets', undefined],
      'a URL outside the base path is put under it; a body that is not JSON has no json',
    );
    const busy = await target.send({ operationId: 'listPets', method: 'GET', url: '/v1/busy', headers: {} });
    t.equal(busy.statusCode, 429, 'still 429 after its retries: given back as it is');
    t.equal(tooMany, 11, 'sent once and retried ten times');
    t.same(target.counts().rateLimitedBy, new Map([['listPets', 10]]));

    const refused = httpTarget({ urls: [new URL('https://127.0.0.1:1/v1')], basePath: '/v1', timeoutMs: 5000 });
    const unreachable = await refused
      .send({ operationId: 'listPets', method: 'GET', url: '/v1/pets', headers: {} })
      .catch((error: unknown) => error);
    t.type(unreachable, NoResponse, 'nothing listening, over HTTPS: no answer');
    t.match((unreachable as Error).message, /^GET https:\/\/127\.0\.0\.1:1\/v1\/pets: connect ECONNREFUSED/);

    t.equal(retryAfterMs('2'), 2000, 'seconds');
    t.equal(retryAfterMs(undefined), 1000, 'absent: a second');
    t.equal(retryAfterMs('soon'), 1000, 'unreadable: a second');
    t.equal(retryAfterMs(new Date(Date.now() - 60_000).toUTCString()), 1000, 'a date past: a second');
    t.ok(retryAfterMs(new Date(Date.now() + 30_000).toUTCString()) > 25_000, 'an HTTP date: until then');
    t.equal(retryAfterMs('86400'), 60_000, 'a day: a minute at most');
  },
);

t.test('strings of a format: valid ones are of it for the engine and the service, broken ones are not', async (t) => {
  const { validValue, brokenValue } = schemaArbitraries(specCopy());
  const engine = createValidator();
  const service = createAjv();
  for (const format of ['date-time', 'date', 'uuid']) {
    const schema = { type: 'string', format };
    const [engineTakes, serviceTakes] = [engine.compile(schema), service.compile(schema)];
    const valid = fc.sample(validValue(schema), { seed: 3, numRuns: 300 });
    t.same(
      valid.filter((value) => !engineTakes(value) || !serviceTakes(value)),
      [],
      `${format}: 300 valid values, each of the format for both validators`,
    );
    const broken = fc.sample(brokenValue(schema), { seed: 3, numRuns: 300 });
    const notOfFormat = broken.filter(({ rule }) => rule === `not a ${format}`).map(({ value }) => value);
    t.ok(notOfFormat.length > 100, `${format}: ${notOfFormat.length} of 300 broken values are "not a ${format}"`);
    t.same(
      notOfFormat.filter((value) => engineTakes(value) || serviceTakes(value)),
      [],
      `${format}: none of them is of the format for either validator`,
    );
  }
  t.throws(() => validValue({ type: 'string', format: 'email' }), {
    message: 'schema-arbitraries does not generate strings of format email',
  });
});

t.test(
  'numbers: valid ones inside their bounds, broken ones just outside, for the engine and the service',
  async (t) => {
    const { validValue, brokenValue } = schemaArbitraries(specCopy());
    const service = createAjv();
    const cases: [Record<string, unknown>, (value: number) => boolean][] = [
      [{ type: 'number' }, () => true],
      [{ type: 'number', minimum: 0.5, exclusiveMaximum: 10 }, (value) => value >= 0.5 && value < 10],
      // Of two bounds on one side the tighter holds, inclusive or not.
      [
        { type: 'number', minimum: 1, exclusiveMinimum: 2, maximum: 5, exclusiveMaximum: 9 },
        (value) => value > 2 && value <= 5,
      ],
      [
        { type: 'number', minimum: 3, exclusiveMinimum: 2, maximum: 9, exclusiveMaximum: 4 },
        (value) => value >= 3 && value < 4,
      ],
    ];
    for (const [schema, inside] of cases) {
      const takes = service.compile(schema);
      const valid = fc.sample(validValue(schema), { seed: 5, numRuns: 300 }) as number[];
      t.same(
        valid.filter((value) => !Number.isFinite(value) || !inside(value) || !takes(value)),
        [],
        `${JSON.stringify(schema)}: 300 valid values, finite, inside, taken by the service`,
      );
      const broken = fc.sample(brokenValue(schema), { seed: 5, numRuns: 300 });
      t.same(
        broken.filter(({ value }) => takes(value)),
        [],
        `${JSON.stringify(schema)}: the service takes none of 300 broken values`,
      );
      t.same(
        broken.filter(({ value, rule }) => (rule === 'wrong JSON type') === (typeof value === 'number')),
        [],
        'a wrong JSON type is never a number, and a number is broken only by its bounds',
      );
    }
    t.throws(() => validValue({ type: 'number', multipleOf: 0.1 }), {
      message: 'schema-arbitraries does not generate numbers with multipleOf (0.1)',
    });
  },
);

t.test('a schema or parameter the generators cannot draw from is refused when they are built, naming it', async (t) => {
  const { validValue } = schemaArbitraries(specCopy());
  t.throws(() => validValue({ type: 'integer', format: 'int64', minimum: 5, maximum: 4 }), {
    message:
      'schema-arbitraries: the integer schema {"type":"integer","format":"int64","minimum":5,"maximum":4} allows no value',
  });
  t.throws(
    () => validValue({ type: 'integer', format: 'int32', enum: [1, 2], minimum: 3 }),
    { message: /the integer schema .* allows no value$/ },
    'an enum with no value in range',
  );
  t.throws(
    () => validValue({ type: 'integer' }),
    { message: 'integer format undefined is not generated' },
    'an integer without its width',
  );
  t.throws(() => validValue({ type: 'array' }), { message: 'schema-arbitraries cannot generate type array' });

  const arrayBody = specWith((spec) => {
    const newPet = (spec.components as { schemas: Record<string, { properties: Record<string, unknown> }> }).schemas[
      'NewPet'
    ]!;
    newPet.properties['name'] = { type: 'array' };
  });
  const withArrayName = contractOf(arrayBody);
  const { validRequest } = requestGenerators(withArrayName, 'k'.repeat(32));
  t.throws(
    () => validRequest(withArrayName.operation('createPet')),
    { message: 'createPet: schema-arbitraries cannot generate type array' },
    'named by its operation',
  );

  const objectQuery = specWith((spec) => {
    (spec.paths['/pets']!.get as unknown as { parameters: unknown[] }).parameters.push({
      name: 'filter',
      in: 'query',
      schema: { type: 'object', properties: {} },
    });
  });
  const withObjectQuery = contractOf(objectQuery);
  const { brokenRequest } = requestGenerators(withObjectQuery, 'k'.repeat(32));
  t.throws(() => brokenRequest(withObjectQuery.operation('listPets')), {
    message: 'filter: only integer, number, boolean, enum and string parameters are generated',
  });
});

t.test("when the model's property fails, its report names each step of the sequences that ran", async (t) => {
  const subject = await createSubject(memoryStoreUnderTest());
  t.teardown(() => subject.close());
  let resets = 0;
  // The store breaks at the tenth case: the report then shows the nine sequences before it.
  const breaking: Subject = {
    ...subject,
    resetStore: (pets) => (++resets === 10 ? Promise.reject(new Error('the store broke')) : subject.resetStore(pets)),
  };
  const result = await fc.check(apiProperties(breaking)[0]!.property, {
    seed: 3,
    numRuns: 10,
    endOnFailure: true,
    verbose: fc.VerbosityLevel.VeryVerbose,
  });
  t.ok(result.failed, 'it fails');
  const report = await fc.asyncDefaultReportMessage(result);
  const steps: [string, RegExp][] = [
    ['createPet', /createPet \{"name":/],
    ['listPets', /listPets \/v1\/pets/],
    ['a next link followed', /follow next link #\d+/],
    ['every page walked', /walk every page from \/v1\/pets/],
    ['getPet', /getPet (\/v1\/pets\/|stored pet #\d+)/],
    ['a broken request', /broken: [^,]+: (GET|POST) \/v1\/pets/],
    ['a request without a valid key', /unauthorized: (GET|POST) \/v1\/pets/],
    ['a keyed create', /createPet by client [01] with Idempotency-Key /],
    ['a keyed create retried', /retry recorded key #\d+/],
    ['a broken keyed create', /broken createPet with Idempotency-Key /],
  ];
  for (const [what, step] of steps) t.match(report, step, what);
  t.match(String(result.errorInstance), /the store broke/, 'and why it failed');

  // Responds that are not JSON come back with no json, as from a deployment.
  const page = await subject.send({ operationId: 'docs', method: 'GET', url: '/docs/yaml', headers: {} });
  t.same([page.statusCode, page.json], [200, undefined]);
  // The in-memory store under test, swapped for a fresh one at each reset, says what the store has.
  const { store } = memoryStoreUnderTest();
  t.ok('create' in store && !('no such method' in store), 'in: as the store it stands for');
});

t.test(
  'the document contract names an operation it does not have, a body that is not JSON and an Error that is not one',
  async (t) => {
    const contract = contractOf(specCopy(), 'spec.yaml');
    // Not an operationId a spec of this project could hold: the walkthrough adds operations to it.
    t.throws(() => contract.operation('no such operation'), { message: 'no operation no such operation in spec.yaml' });
    const headers = { 'content-type': 'application/json; charset=utf-8' };
    t.same(
      contract
        .violations({ statusCode: 200, headers, body: '[{"id":1,' }, 'listPets')
        .map((problem) => problem.replace(/\(.*\)/, '(…)')),
      ['listPets 200 body is not JSON (…): [{"id":1,'],
    );
    t.same(
      contract
        .violations({ statusCode: 200, headers: {}, body: 'nothing' }, 'listPets')
        .map((problem) => problem.replace(/\(.*\)/, '(…)')),
      ['listPets 200 content type is undefined', 'listPets 200 body is not JSON (…): nothing'],
      'both, the content type first',
    );
    t.same(contract.errorViolations({ code: 'PET_NOT_FOUND', message: 'No pet 7.', status: 404 }), []);
    t.match(contract.errorViolations({ code: 'PET_NOT_FOUND', status: 404 }), [
      /^not an Error of spec\.yaml: .*message/,
    ]);
  },
);

t.test('a contract is compiled once per document, and no edit of the caller reaches it', async (t) => {
  const spec = specCopy();
  const contract = contractOf(spec, 'spec.yaml');
  t.equal(contractOf(specCopy(), 'spec.yaml'), contract, 'the same document gets the same contract');
  t.equal(
    requestGenerators(contract, 'key'),
    requestGenerators(contractOf(specCopy(), 'spec.yaml'), 'key'),
    'and the same generators',
  );
  t.not(contractOf(specCopy(), 'other.yaml'), contract, 'another name, another contract (its reports name it)');
  const error = { code: 'PET_NOT_FOUND', message: 'No pet.', status: 404 };
  t.same(contract.errorViolations(error), []);
  (spec.components.schemas['Error'] as unknown as { required: string[] }).required.push('detail');
  t.same(contract.errorViolations(error), [], 'the caller edited its object after the call: the contract is unchanged');
  const edited = contractOf(spec, 'spec.yaml');
  t.not(edited, contract, 'the edited document is another contract');
  t.match(edited.errorViolations(error).join(), /detail/, 'which holds the edit');
});

t.test("the engine's sources name nothing only the Pet Store knows: its error codes, its query", async (t) => {
  const { components } = specCopy() as unknown as {
    components: { schemas: { Error: { properties: { code: { enum: string[] } } } } };
  };
  const words = [
    ...components.schemas.Error.properties.code.enum,
    ...['cursor', 'after', 'wait'].map((name) => `'${name}'`),
  ];
  const engine = join(PROJECT_ROOT, 'src', 'contract');
  const sources = readdirSync(engine).filter((name) => name.endsWith('.ts'));
  t.ok(sources.length > 20, `${sources.length} source files read`);
  for (const name of sources) {
    const text = readFileSync(join(engine, name), 'utf8');
    t.same(
      words.filter((word) => text.includes(word)),
      [],
      `${name}: the plug-in's words (petstore-contract-plugin's PET_STORE_ERRORS, PET_STORE_QUERY)`,
    );
  }
});
