import t from 'tap';
import { createMemoryPetStore } from '../../src/store/memory-pet-store.js';
import { buildTestApp } from '../helpers/build-app.js';
import { checkErrorBody } from '../helpers/contract.js';

t.test('liveness and readiness answer without a key, outside /v1', async (t) => {
  const { app } = await buildTestApp(t);
  for (const [url, body] of [
    ['/health/live', { status: 'ok' }],
    ['/health/ready', { status: 'ready' }],
  ] as const) {
    const response = await app.inject({ method: 'GET', url });
    t.equal(response.statusCode, 200, url);
    t.same(JSON.parse(response.body), body, url);
    t.equal(response.headers['cache-control'], 'no-store', `${url}: never cached`);
  }
});

t.test('readiness says 503, in the Error shape with Retry-After, while the store cannot serve', async (t) => {
  let ready = false;
  const store = { ...createMemoryPetStore(), ready: async () => ready };
  const { app } = await buildTestApp(t, { store });
  const refused = await app.inject({ method: 'GET', url: '/health/ready' });
  checkErrorBody(t, refused, 503, 'SERVICE_UNAVAILABLE');
  t.equal(refused.headers['retry-after'], '2');
  t.equal((await app.inject({ method: 'GET', url: '/health/live' })).statusCode, 200, 'alive all the same');
  ready = true;
  t.equal((await app.inject({ method: 'GET', url: '/health/ready' })).statusCode, 200, 'ready again');
});
