import t from 'tap';
import { AUTH, JSON_TYPE, buildTestApp, postPet } from '../helpers/build-app.js';
import { checkContract } from '../helpers/contract.js';

t.test('creates a pet and assigns increasing ids', async (t) => {
  const { app } = await buildTestApp(t);
  const first = await app.inject(postPet({ name: 'Rex', categoryId: 3, status: 'available' }));
  t.equal(first.statusCode, 201);
  t.same(checkContract(t, first, 'createPet'), { id: 1, name: 'Rex', categoryId: 3, status: 'available' });
  const second = await app.inject(postPet({ name: 'Tom', categoryId: 4 }));
  t.same(checkContract(t, second, 'createPet'), { id: 2, name: 'Tom', categoryId: 4 });
});

t.test("201 carries the new pet's Location, where it reads back", async (t) => {
  const { app } = await buildTestApp(t);
  await app.inject(postPet({ name: 'Rex', categoryId: 3 }));
  const created = await app.inject(postPet({ name: 'Tom', categoryId: 4 }));
  t.equal(created.headers['location'], '/v1/pets/2');
  const read = await app.inject({ method: 'GET', url: String(created.headers['location']), headers: AUTH });
  t.same(JSON.parse(read.body), JSON.parse(created.body), 'the Location serves the created pet');
});

t.test('a status left out stays absent: no default is invented', async (t) => {
  const { app } = await buildTestApp(t);
  const response = await app.inject(postPet({ name: 'Tom', categoryId: 1 }));
  t.notOk('status' in checkContract(t, response, 'createPet'));
});

t.test('int64 categoryIds round-trip exactly at both ends of the range', async (t) => {
  const { app } = await buildTestApp(t);
  for (const categoryId of ['9223372036854775807', '-9223372036854775808', '9007199254740993', '0']) {
    const response = await app.inject(postPet(`{"name":"Big","categoryId":${categoryId}}`));
    t.equal(response.statusCode, 201, categoryId);
    checkContract(t, response, 'createPet');
    t.match(response.body, `"categoryId":${categoryId}}`, `${categoryId} comes back unchanged`);
    const read = await app.inject({ method: 'GET', url: `/v1/pets/${JSON.parse(response.body).id}`, headers: AUTH });
    t.match(read.body, `"categoryId":${categoryId}`);
  }
});

t.test('integers written with a fraction or exponent keep their exact value', async (t) => {
  const { app } = await buildTestApp(t);
  const response = await app.inject(postPet('{"name":"Exp","categoryId":1.5e1}'));
  t.equal(response.statusCode, 201);
  t.equal(checkContract(t, response, 'createPet').categoryId, 15);
});

t.test('names at their length bounds are stored exactly as sent', async (t) => {
  const { app } = await buildTestApp(t);
  for (const name of ['x', 'é'.repeat(100), '  padded  ', '🐕'.repeat(100)]) {
    const response = await app.inject(postPet({ name, categoryId: 1 }));
    t.equal(response.statusCode, 201, `name of ${[...name].length} characters`);
    t.equal(checkContract(t, response, 'createPet').name, name);
  }
});

t.test(
  'a name with U+0000 or an unpaired surrogate is refused, not altered; paired surrogates are characters',
  async (t) => {
    const { app } = await buildTestApp(t);
    for (const name of ['Rex\u0000', '\ud800', 'a\udfffb', '\ude00\ud83d']) {
      const response = await app.inject(postPet(`{"name":${JSON.stringify(name)},"categoryId":1}`));
      t.equal(response.statusCode, 400, JSON.stringify(name));
      t.match(checkContract(t, response, 'createPet').message, /^body\.name must match pattern/, JSON.stringify(name));
    }
    const escaped = await app.inject(postPet('{"name":"\\u0000","categoryId":1}'));
    t.equal(escaped.statusCode, 400, 'also when escaped in the JSON text');
    const paired = await app.inject(postPet('{"name":"\\ud83d\\ude00 Rex","categoryId":1}'));
    t.equal(checkContract(t, paired, 'createPet').name, '\u{1F600} Rex', 'an escaped pair is the character it encodes');
    t.same(
      JSON.parse((await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH })).body).map(
        (pet: { name: string }) => pet.name,
      ),
      ['\u{1F600} Rex'],
      'nothing refused was stored',
    );
  },
);

const invalidBodies: [string, string, RegExp][] = [
  [
    'categoryId as a string',
    '{"name":"Rex","categoryId":"5"}',
    /body\.categoryId must be an integer from -9223372036854775808 to 9223372036854775807/,
  ],
  ['name as a number', '{"name":5,"categoryId":5}', /body\.name must be a string/],
  ['missing name', '{"categoryId":5}', /body\.name is required/],
  ['missing categoryId', '{"name":"Rex"}', /body\.categoryId is required/],
  ['unknown field', '{"name":"Rex","categoryId":5,"colour":"red"}', /body has unknown field 'colour'/],
  ['prototype key', '{"name":"Rex","categoryId":5,"__proto__":{"x":1}}', /body has unknown field '__proto__'/],
  ['empty name', '{"name":"","categoryId":5}', /body\.name must have at least 1 characters/],
  [
    'name too long',
    JSON.stringify({ name: 'x'.repeat(101), categoryId: 5 }),
    /body\.name must have at most 100 characters/,
  ],
  [
    'unknown status',
    '{"name":"Rex","categoryId":5,"status":"lost"}',
    /body\.status must be one of: available, pending, sold/,
  ],
  ['null status', '{"name":"Rex","categoryId":5,"status":null}', /body\.status must be a string/],
  ['fractional categoryId', '{"name":"Rex","categoryId":1.5}', /body\.categoryId must be an integer/],
  [
    'fraction a double would round to 1',
    '{"name":"Rex","categoryId":1.0000000000000001}',
    /body\.categoryId must be an integer/,
  ],
  [
    'categoryId above int64',
    '{"name":"Rex","categoryId":9223372036854775808}',
    /body\.categoryId must be an integer from/,
  ],
  [
    'categoryId below int64',
    '{"name":"Rex","categoryId":-9223372036854775809}',
    /body\.categoryId must be an integer from/,
  ],
  ['huge exponent', '{"name":"Rex","categoryId":1e400}', /body\.categoryId must be an integer from/],
  ['boolean categoryId', '{"name":"Rex","categoryId":true}', /body\.categoryId must be an integer/],
  ['an array body', '[{"name":"Rex","categoryId":5}]', /body must be a JSON object/],
  ['a null body', 'null', /body must be a JSON object/],
  ['a string body', '"Rex"', /body must be a JSON object/],
];

t.test('invalid bodies get 400 VALIDATION_FAILED naming the offending part', async (t) => {
  const { app } = await buildTestApp(t);
  for (const [what, payload, message] of invalidBodies) {
    const response = await app.inject(postPet(payload));
    t.equal(response.statusCode, 400, what);
    const body = checkContract(t, response, 'createPet');
    t.equal(body.code, 'VALIDATION_FAILED', what);
    t.match(body.message, message, what);
  }
  const list = await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH });
  t.same(JSON.parse(list.body), [], 'nothing invalid was stored');
});

t.test('every problem in a body is reported at once', async (t) => {
  const { app } = await buildTestApp(t);
  const response = await app.inject(postPet('{"name":5,"categoryId":"x","extra":1}'));
  const { message } = checkContract(t, response, 'createPet');
  t.match(message, /unknown field 'extra'/);
  t.match(message, /body\.name must be a string/);
  t.match(message, /body\.categoryId must be an integer/);
});

t.test('malformed JSON gets 400 INVALID_JSON', async (t) => {
  const { app } = await buildTestApp(t);
  for (const payload of [
    '{"name":"Rex"',
    '{name:"Rex"}',
    '{"name":"Rex","categoryId":5}x',
    '{"name":"Rex","name":"Tom","categoryId":5}',
  ]) {
    const response = await app.inject(postPet(payload));
    t.equal(response.statusCode, 400, payload);
    const body = checkContract(t, response, 'createPet');
    t.equal(body.code, 'INVALID_JSON', payload);
    t.match(body.message, /^The body is not valid JSON: .+/);
  }
});

t.test('a missing body gets 400 BODY_REQUIRED', async (t) => {
  const { app } = await buildTestApp(t);
  const cases = [
    { method: 'POST' as const, url: '/v1/pets', headers: AUTH },
    { method: 'POST' as const, url: '/v1/pets', headers: { ...AUTH, ...JSON_TYPE } },
    {
      method: 'POST' as const,
      url: '/v1/pets',
      headers: { ...AUTH, ...JSON_TYPE, 'transfer-encoding': 'chunked' },
      payload: '  ',
    },
  ];
  for (const request of cases) {
    const response = await app.inject(request);
    t.equal(response.statusCode, 400);
    const body = checkContract(t, response, 'createPet');
    t.equal(body.code, 'BODY_REQUIRED');
    t.match(body.message, /\(Content-Type: application\/json\)/, 'the message names the media type to send');
  }
});

t.test('a body that is not JSON gets 415', async (t) => {
  const { app } = await buildTestApp(t);
  const asText = await app.inject(postPet('{"name":"Rex","categoryId":5}', { 'content-type': 'text/plain' }));
  t.equal(asText.statusCode, 415);
  t.equal(
    checkContract(t, asText, 'createPet').message,
    'Content-Type text/plain is not supported; send the body as UTF-8 application/json.',
  );
  const untyped = await app.inject({ method: 'POST', url: '/v1/pets', headers: AUTH, payload: 'name=Rex' });
  t.equal(untyped.statusCode, 415);
  t.match(checkContract(t, untyped, 'createPet').message, /without a Content-Type header/);
});

t.test('bodies must be UTF-8: other charsets get 415, invalid bytes 400', async (t) => {
  const { app } = await buildTestApp(t);
  const body = '{"name":"Zoë","categoryId":1}';
  for (const contentType of ['application/json; charset=utf-8', 'application/json;charset="UTF-8"']) {
    const response = await app.inject(postPet(body, { 'content-type': contentType }));
    t.equal(response.statusCode, 201, contentType);
    t.equal(checkContract(t, response, 'createPet').name, 'Zoë');
  }
  const latin1 = await app.inject(
    postPet(Buffer.from(body, 'latin1').toString('binary'), { 'content-type': 'application/json; charset=latin1' }),
  );
  t.equal(latin1.statusCode, 415);
  t.match(
    checkContract(t, latin1, 'createPet').message,
    /charset=latin1 is not supported; send the body as UTF-8 application\/json/,
  );
  const invalid = await app.inject({ ...postPet(''), payload: Buffer.from(body, 'latin1') });
  t.equal(invalid.statusCode, 400);
  t.equal(checkContract(t, invalid, 'createPet').message, 'The body is not valid JSON: it is not valid UTF-8.');
});

t.test('an oversized body gets 413', async (t) => {
  const { app } = await buildTestApp(t);
  const response = await app.inject(postPet({ name: 'x'.repeat(20_000), categoryId: 1 }));
  t.equal(response.statusCode, 413);
  t.equal(checkContract(t, response, 'createPet').code, 'PAYLOAD_TOO_LARGE');
});

t.test('query parameters are not accepted on createPet', async (t) => {
  const { app } = await buildTestApp(t);
  const response = await app.inject({ ...postPet({ name: 'Rex', categoryId: 1 }), url: '/v1/pets?dryRun=true' });
  t.equal(response.statusCode, 400);
  t.match(checkContract(t, response, 'createPet').message, /unknown query parameter 'dryRun'/);
});

t.test('authentication comes before any other check', async (t) => {
  const { app } = await buildTestApp(t);
  const unauthenticated = [
    { payload: '{"name":5}', headers: JSON_TYPE },
    { payload: '{"name":', headers: JSON_TYPE },
    { payload: 'hello', headers: { 'content-type': 'text/plain' } },
    { payload: 'x'.repeat(20_000), headers: JSON_TYPE },
    { headers: {} },
  ];
  for (const request of unauthenticated) {
    const response = await app.inject({ method: 'POST', url: '/v1/pets?bad=1', ...request });
    t.equal(response.statusCode, 401);
    t.equal(checkContract(t, response, 'createPet').code, 'UNAUTHORIZED');
  }
});
