import t from 'tap';
import { AUTH, buildTestApp, postPet } from '../helpers/build-app.js';
import { checkContract } from '../helpers/contract.js';

const remove = (petId: string, headers: Record<string, string> = {}) => ({
  method: 'DELETE' as const,
  url: `/v1/pets/${petId}`,
  headers: { ...AUTH, ...headers },
});

t.test('a pet is removed: 204, then gone from every operation; its id is never reused', async (t) => {
  const { app } = await buildTestApp(t);
  const tag = (await app.inject(postPet({ name: 'Rex', categoryId: 3, status: 'sold' }))).headers['etag'] as string;
  await app.inject(postPet({ name: 'Tom', categoryId: 4 }));
  const response = await app.inject(remove('1', { 'if-match': tag }));
  t.equal(response.statusCode, 204);
  t.equal(response.body, '');
  checkContract(t, response, 'deletePet');
  t.equal((await app.inject({ method: 'GET', url: '/v1/pets/1', headers: AUTH })).statusCode, 404, 'getPet');
  t.equal((await app.inject(remove('1', { 'if-match': '*' }))).statusCode, 404, 'deletePet');
  const update = await app.inject({
    method: 'PATCH',
    url: '/v1/pets/1',
    headers: { ...AUTH, 'content-type': 'application/merge-patch+json', 'if-match': tag },
    payload: '{}',
  });
  t.equal(update.statusCode, 404, 'updatePet, even with the tag it had');
  t.same(
    (await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH })).json(),
    [{ id: 2, name: 'Tom', categoryId: 4 }],
    'listPets',
  );
  t.same(
    (await app.inject({ method: 'GET', url: '/v1/pets?status=sold', headers: AUTH })).json(),
    [],
    'listPets by its status',
  );
  t.equal((await app.inject(postPet({ name: 'Kit', categoryId: 5 }))).json().id, 3, 'a new pet gets a new id');
});

t.test('If-Match: required; a stale tag keeps the pet', async (t) => {
  const { app } = await buildTestApp(t);
  await app.inject(postPet({ name: 'Rex', categoryId: 3 }));
  const missing = await app.inject(remove('1'));
  t.equal(missing.statusCode, 428);
  t.equal(checkContract(t, missing, 'deletePet').code, 'PRECONDITION_REQUIRED');
  const stale = await app.inject(remove('1', { 'if-match': '"2"' }));
  t.equal(stale.statusCode, 412);
  t.equal(checkContract(t, stale, 'deletePet').code, 'PRECONDITION_FAILED');
  t.equal((await app.inject({ method: 'GET', url: '/v1/pets/1', headers: AUTH })).statusCode, 200, 'still there');
  t.equal((await app.inject(remove('1', { 'if-match': '*' }))).statusCode, 204, "'*': whatever version it has");
});

t.test('a body is refused: deletePet takes none', async (t) => {
  const { app } = await buildTestApp(t);
  await app.inject(postPet({ name: 'Rex', categoryId: 3 }));
  const response = await app.inject({
    ...remove('1', { 'if-match': '*', 'content-type': 'application/json' }),
    payload: '{}',
  });
  t.equal(response.statusCode, 400);
  t.equal(checkContract(t, response, 'deletePet').code, 'BODY_NOT_ALLOWED');
});

t.test(
  'Idempotency-Key: a retried removal gets its 204 again, not a 404; another pet with the key gets 422',
  async (t) => {
    const { app } = await buildTestApp(t);
    const rex = await app.inject(postPet({ name: 'Rex', categoryId: 3 }));
    await app.inject(postPet({ name: 'Tom', categoryId: 4 }));
    const key = { 'if-match': rex.headers['etag'] as string, 'idempotency-key': '"remove-rex"' };
    t.equal((await app.inject(remove('1', key))).statusCode, 204);
    const retry = await app.inject(remove('1', key));
    t.equal(retry.statusCode, 204);
    t.equal(retry.headers['idempotent-replayed'], 'true');
    checkContract(t, retry, 'deletePet');
    const other = await app.inject(remove('2', key));
    t.equal(other.statusCode, 422);
    t.match(checkContract(t, other, 'deletePet'), {
      code: 'IDEMPOTENCY_KEY_REUSED',
      message: /deletePet request \(pet 1\)/,
    });
    t.equal((await app.inject({ method: 'GET', url: '/v1/pets/2', headers: AUTH })).statusCode, 200, 'pet 2 kept');
  },
);
