import { Writable } from 'node:stream';
import t from 'tap';
import { RequestLog } from '../src/logging/request-log.js';
import { API_KEY, AUTH, buildTestApp, postPet } from './helpers/build-app.js';

t.test('one line per answered request: method, path, status, time, request id and operation', async (t) => {
  // At info, as npm start runs.
  const lines: string[] = [];
  const stream = new Writable({ write: (chunk, _encoding, done) => void (lines.push(String(chunk)), done()) });
  const { app: logged } = await buildTestApp(t, { logger: { level: 'info', stream, redact: ['req.headers.authorization'] } });
  await logged.inject(postPet({ name: 'Rex', categoryId: 1 }));
  await logged.inject({ method: 'GET', url: '/v1/pets?limit=5&status=sold', headers: AUTH });
  await logged.inject({ method: 'GET', url: '/v1/pets/9', headers: { authorization: `Bearer ${API_KEY}x` } });
  await logged.inject({ method: 'GET', url: '/v1/nothing', headers: AUTH });
  const entries = lines.map((line) => JSON.parse(line));
  t.same(
    entries.map(({ msg, method, path, status, operationId }) => ({ msg, method, path, status, operationId })),
    [
      { msg: 'request completed', method: 'POST', path: '/v1/pets', status: 201, operationId: 'createPet' },
      { msg: 'request completed', method: 'GET', path: '/v1/pets', status: 200, operationId: 'listPets' },
      { msg: 'request completed', method: 'GET', path: '/v1/pets/9', status: 401, operationId: 'getPet' },
      { msg: 'request completed', method: 'GET', path: '/v1/nothing', status: 404, operationId: undefined },
    ],
    'one line each, the query left out',
  );
  t.ok(entries.every((entry) => typeof entry.reqId === 'string' && typeof entry.responseTime === 'number' && entry.responseTime >= 0), 'with request id and response time');
  t.notMatch(lines.join(''), API_KEY, 'no key, right or wrong, reaches the log');
  t.notMatch(lines.join(''), /authorization/i, 'no Authorization header');
});

t.test('no request lines below info', async (t) => {
  const lines: string[] = [];
  const stream = new Writable({ write: (chunk, _encoding, done) => void (lines.push(String(chunk)), done()) });
  const { app } = await buildTestApp(t, { logger: { level: 'warn', stream } });
  await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH });
  t.same(lines, []);
});

t.test('an answer that fails while it is sent is logged as an error, with its request', async (t) => {
  const entries: { fields: Record<string, unknown>; message: string }[] = [];
  const log = { error: (fields: Record<string, unknown>, message: string) => void entries.push({ fields, message }) };
  const request = { log, url: '/v1/pets?limit=1', method: 'GET', routeOptions: { schema: { operationId: 'listPets' } } };
  const failure = new Error('socket hang up');
  new RequestLog().requestCompleted(failure, request as never, { statusCode: 200, elapsedTime: 1.234 } as never);
  t.same(entries, [
    { message: 'request failed while answering', fields: { method: 'GET', path: '/v1/pets', status: 200, responseTime: 1.23, operationId: 'listPets', err: failure } },
  ]);
});
