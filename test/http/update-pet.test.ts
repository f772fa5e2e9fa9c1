import t from 'tap';
import { API_KEY, AUTH, OTHER_API_KEY, buildTestApp, postPet } from '../helpers/build-app.js';
import { checkContract } from '../helpers/contract.js';

const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' };

const patch = (petId: string, body: unknown, headers: Record<string, string> = {}) => ({
  method: 'PATCH' as const,
  url: `/v1/pets/${petId}`,
  headers: { ...AUTH, ...MERGE_PATCH, ...headers },
  payload: typeof body === 'string' ? body : JSON.stringify(body),
});

t.test('a pet is sold: 200 with the pet as stored, and a new ETag', async (t) => {
  const { app } = await buildTestApp(t);
  const created = await app.inject(postPet({ name: 'Rex', categoryId: 3, status: 'available' }));
  const first = created.headers['etag'] as string;
  t.match(first, /^"[!#-~]+"$/, 'a new pet has a strong tag');
  const response = await app.inject(patch('1', { status: 'sold' }, { 'if-match': first }));
  t.equal(response.statusCode, 200);
  t.same(checkContract(t, response, 'updatePet'), { id: 1, name: 'Rex', categoryId: 3, status: 'sold' });
  const second = response.headers['etag'];
  t.not(second, first, 'a new tag after the change');
  const read = await app.inject({ method: 'GET', url: '/v1/pets/1', headers: AUTH });
  t.same(read.json(), { id: 1, name: 'Rex', categoryId: 3, status: 'sold' });
  t.equal(read.headers['etag'], second, 'getPet gives the same tag');
  const sold = await app.inject({ method: 'GET', url: '/v1/pets?status=sold', headers: AUTH });
  t.same(sold.json(), [{ id: 1, name: 'Rex', categoryId: 3, status: 'sold' }], 'listed under its new status');
  t.equal(sold.headers['pet-etags'], second, 'with its tag in Pet-ETags');
  t.same(
    (await app.inject({ method: 'GET', url: '/v1/pets?status=available', headers: AUTH })).json(),
    [],
    'and no longer under its old one',
  );
});

t.test('a merge patch: members left out stay, status null removes the status', async (t) => {
  const { app } = await buildTestApp(t);
  await app.inject(postPet({ name: 'Rex', categoryId: 3, status: 'pending' }));
  const renamed = await app.inject(
    patch('1', '{"name":"Rexy","categoryId":9223372036854775807,"status":null}', { 'if-match': '*' }),
  );
  t.equal(renamed.statusCode, 200);
  t.equal(renamed.body, '{"id":1,"name":"Rexy","categoryId":9223372036854775807}', 'exact int64, no status');
  checkContract(t, renamed, 'updatePet');
  const unchanged = await app.inject(patch('1', {}, { 'if-match': renamed.headers['etag'] as string }));
  t.equal(unchanged.statusCode, 200, 'an empty patch');
  t.equal(unchanged.headers['etag'], renamed.headers['etag'], 'changes nothing: the same version');
  const same = await app.inject(patch('1', { name: 'Rexy' }, { 'if-match': renamed.headers['etag'] as string }));
  t.equal(same.headers['etag'], renamed.headers['etag'], 'values it has already: the same version');
});

t.test('If-Match: required, compared strongly, a list matches any of its tags', async (t) => {
  const { app } = await buildTestApp(t);
  const current = (await app.inject(postPet({ name: 'Rex', categoryId: 3 }))).headers['etag'] as string;
  const missing = await app.inject(patch('1', { status: 'sold' }));
  t.equal(missing.statusCode, 428);
  t.match(checkContract(t, missing, 'updatePet'), { code: 'PRECONDITION_REQUIRED', message: /If-Match/ });
  for (const tag of ['"2"', `W/${current}`, '"x"', '""']) {
    const stale = await app.inject(patch('1', { status: 'sold' }, { 'if-match': tag }));
    t.equal(stale.statusCode, 412, tag);
    t.match(checkContract(t, stale, 'updatePet'), {
      code: 'PRECONDITION_FAILED',
      message: `Pet 1 changed since you read it: If-Match ${tag} is not its current entity tag ${current}; read it again and retry with its ETag.`,
    });
    t.equal(stale.headers['etag'], current, 'the 412 carries the current tag');
  }
  const listed = await app.inject(patch('1', { status: 'sold' }, { 'if-match': `"7", ${current}` }));
  t.equal(listed.statusCode, 200, 'one of a list matches');
  for (const malformed of ['1', '"1', 'W/1', '*, "1"', '"1" "2"']) {
    const response = await app.inject(patch('1', { status: 'sold' }, { 'if-match': malformed }));
    t.equal(response.statusCode, 400, malformed);
    t.match(checkContract(t, response, 'updatePet'), { code: 'VALIDATION_FAILED', message: /if-match/ });
  }
  t.same(
    (await app.inject({ method: 'GET', url: '/v1/pets/1', headers: AUTH })).json(),
    { id: 1, name: 'Rex', categoryId: 3, status: 'sold' },
    'only the matching change was made',
  );
});

t.test('a body that is not a patch of a pet gets 400 naming the member', async (t) => {
  const { app } = await buildTestApp(t);
  const created = await app.inject(postPet({ name: 'Rex', categoryId: 3 }));
  const cases: [unknown, RegExp][] = [
    [{ name: null }, /body\.name/],
    [{ categoryId: null }, /body\.categoryId/],
    [{ id: 2 }, /unknown field 'id'/],
    [{ colour: 'brown' }, /unknown field 'colour'/],
    [{ status: 'lost' }, /body\.status/],
    [{ name: '' }, /body\.name/],
    [[], /body/],
  ];
  for (const [body, message] of cases) {
    const response = await app.inject(patch('1', body, { 'if-match': '*' }));
    t.equal(response.statusCode, 400, JSON.stringify(body));
    t.match(checkContract(t, response, 'updatePet'), { code: 'VALIDATION_FAILED', message });
  }
  t.equal(
    (await app.inject({ method: 'GET', url: '/v1/pets/1', headers: AUTH })).headers['etag'],
    created.headers['etag'],
    'nothing changed',
  );
});

t.test('a patch sent as application/json gets 415 with Accept-Patch', async (t) => {
  const { app } = await buildTestApp(t);
  await app.inject(postPet({ name: 'Rex', categoryId: 3 }));
  for (const type of ['application/json', 'text/plain', 'application/merge-patch+json; charset=latin1']) {
    const response = await app.inject(patch('1', { status: 'sold' }, { 'if-match': '*', 'content-type': type }));
    t.equal(response.statusCode, 415, type);
    t.match(checkContract(t, response, 'updatePet'), {
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: `Content-Type ${type} is not supported; send the body as UTF-8 application/merge-patch+json.`,
    });
    t.equal(response.headers['accept-patch'], 'application/merge-patch+json');
  }
  const utf8 = await app.inject(
    patch('1', { status: 'sold' }, { 'if-match': '*', 'content-type': 'Application/Merge-Patch+JSON; charset=UTF-8' }),
  );
  t.equal(utf8.statusCode, 200, 'the media type in any case, with charset utf-8');
});

t.test('a tag matches only the pet it was issued for, and only in the store that issued it', async (t) => {
  const { app } = await buildTestApp(t);
  const rex = await app.inject(postPet({ name: 'Rex', categoryId: 3 }));
  const tom = await app.inject(postPet({ name: 'Tom', categoryId: 3 }));
  t.not(rex.headers['etag'], tom.headers['etag'], 'two new pets, two tags');
  const misapplied = await app.inject(patch('2', { status: 'sold' }, { 'if-match': rex.headers['etag'] as string }));
  t.equal(misapplied.statusCode, 412, "Rex's tag sent for Tom, at the same version");
  t.equal(misapplied.headers['etag'], tom.headers['etag'], "with Tom's tag");
  const listed = await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH });
  t.equal(listed.headers['pet-etags'], `${rex.headers['etag']}, ${tom.headers['etag']}`, 'Pet-ETags, in page order');

  // Another store (a restarted service): the same pets at the same versions, other tags.
  const { app: restarted } = await buildTestApp(t);
  await restarted.inject(postPet({ name: 'Rex', categoryId: 3 }));
  const old = await restarted.inject(patch('1', { status: 'sold' }, { 'if-match': rex.headers['etag'] as string }));
  t.equal(old.statusCode, 412, 'a tag of the store before the restart matches nothing');
  t.not(old.headers['etag'], rex.headers['etag']);
});

t.test('a pet that is not there gets 404, whatever If-Match says', async (t) => {
  const { app } = await buildTestApp(t);
  for (const tag of ['*', '"1-00000000"']) {
    const response = await app.inject(patch('1', { status: 'sold' }, { 'if-match': tag }));
    t.equal(response.statusCode, 404, tag);
    t.match(checkContract(t, response, 'updatePet'), { code: 'PET_NOT_FOUND', message: 'No pet has id 1.' });
  }
});

t.test(
  'Idempotency-Key: a retry replays the first answer, not a 412; another request with the key gets 422',
  async (t) => {
    const { app } = await buildTestApp(t, { apiKeys: [API_KEY, OTHER_API_KEY] });
    const created = await app.inject(postPet({ name: 'Rex', categoryId: 3 }));
    const key = { 'if-match': created.headers['etag'] as string, 'idempotency-key': '"sell-rex"' };
    const first = await app.inject(patch('1', { status: 'sold' }, key));
    t.equal(first.statusCode, 200);
    t.notOk(first.headers['idempotent-replayed']);
    await app.inject(patch('1', { name: 'Later' }, { 'if-match': '*' }));
    const retry = await app.inject(patch('1', '{ "status" : "sold" }', { ...key, 'idempotency-key': 'sell-rex' }));
    t.equal(retry.statusCode, 200, 'the same request (the bare key form, other spacing)');
    t.equal(retry.headers['idempotent-replayed'], 'true');
    t.equal(retry.headers['etag'], first.headers['etag'], "the first answer's tag");
    t.same(checkContract(t, retry, 'updatePet'), first.json(), "the first answer's pet");
    const other = await app.inject(patch('1', { status: 'pending' }, key));
    t.equal(other.statusCode, 422);
    t.match(checkContract(t, other, 'updatePet'), {
      code: 'IDEMPOTENCY_KEY_REUSED',
      message:
        'This Idempotency-Key was already used for another updatePet request (pet 1); send a new key for a new request.',
    });
    const otherClient = await app.inject(
      patch('1', { status: 'sold' }, { ...key, authorization: `Bearer ${OTHER_API_KEY}` }),
    );
    t.equal(otherClient.statusCode, 412, "another API key's key is a new key: checked like any request");
  },
);

t.test('a PATCH without a body gets 400 BODY_REQUIRED naming merge-patch+json, the type it takes', async (t) => {
  const { app } = await buildTestApp(t);
  const created = await app.inject(postPet('{"name":"Rex","categoryId":1}'));
  const { id } = created.json();
  for (const headers of [{ 'if-match': '*' }, { 'if-match': '*', ...MERGE_PATCH }]) {
    const response = await app.inject({ method: 'PATCH', url: `/v1/pets/${id}`, headers: { ...AUTH, ...headers } });
    t.equal(response.statusCode, 400);
    const body = checkContract(t, response, 'updatePet');
    t.equal(body.code, 'BODY_REQUIRED');
    t.match(body.message, 'Content-Type: application/merge-patch+json');
    t.notMatch(body.message, 'application/json)');
  }
});
