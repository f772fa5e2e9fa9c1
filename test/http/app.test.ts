import type { AddressInfo } from 'node:net';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { API_KEY, AUTH } from '../helpers/build-app.js';
import { inFlightCreate } from '../helpers/in-flight-request.js';

t.test('builds a working app from keys alone: fresh in-memory store, no logger', async (t) => {
  const app = await buildApp({ apiKeys: [API_KEY] });
  t.teardown(() => app.close());
  t.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH })).body, '[]');
});

t.test('logger options without a stream make a pino logger to standard output, at their level', async (t) => {
  const app = await buildApp({ apiKeys: [API_KEY], logger: { level: 'silent' } });
  t.teardown(() => app.close());
  t.equal(app.log.level, 'silent');
  t.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH })).statusCode, 200);
});

t.test('a request in flight at close is answered, and its connection then closed', async (t) => {
  const app = await buildApp({ apiKeys: [API_KEY] });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const request = inFlightCreate((app.server.address() as AddressInfo).port, API_KEY);
  await request.headRead;
  const closed = app.close();
  request.finish();
  const response = await request.closed;
  await closed;
  t.match(response, /^HTTP\/1.1 201 Created\r\n/);
  t.match(response, /\r\nconnection: close\r\n/i);
});
