import { connect, type Socket } from 'node:net';
import t from 'tap';
import { createClientErrorHandler } from '../../src/errors/client-error-handler.js';

const handleClientError = createClientErrorHandler({ 'x-content-type-options': 'nosniff' });
import { buildTestApp } from '../helpers/build-app.js';

async function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let response = '';
    socket.on('data', (chunk) => (response += chunk));
    socket.on('end', () => resolve(response));
    socket.on('error', reject);
    socket.setTimeout(5000, () => reject(new Error('no answer')));
    socket.write(request);
  });
}

function errorOf(response: string) {
  const [head = '', body = ''] = response.split('\r\n\r\n');
  return {
    statusLine: head.split('\r\n')[0],
    contentType: /content-type: (.*)/i.exec(head)?.[1],
    body: JSON.parse(body),
  };
}

t.test('requests Node cannot parse are answered in the Error shape', async (t) => {
  const { app } = await buildTestApp(t);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };

  const garbage = errorOf(await rawExchange(port, 'NOT HTTP AT ALL\r\n\r\n'));
  t.equal(garbage.statusLine, 'HTTP/1.1 400 Bad Request');
  t.equal(garbage.contentType, 'application/json; charset=utf-8');
  t.same(garbage.body, { code: 'BAD_REQUEST', message: 'The request is not valid HTTP/1.1.', status: 400 });

  const hugeHeaders = errorOf(
    await rawExchange(port, `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
  );
  t.equal(hugeHeaders.statusLine, 'HTTP/1.1 431 Request Header Fields Too Large');
  t.same(hugeHeaders.body, { code: 'HEADERS_TOO_LARGE', message: 'The request headers are too large.', status: 431 });
});

function fakeSocket(writable: boolean) {
  const socket = {
    writable,
    written: '',
    destroyed: false,
    end: (data: string) => void (socket.written += data),
    destroy: () => void (socket.destroyed = true),
  };
  return socket;
}

t.test('a request that times out gets 408 REQUEST_TIMEOUT', async (t) => {
  const socket = fakeSocket(true);
  handleClientError(
    Object.assign(new Error('timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }),
    socket as unknown as Socket,
  );
  t.match(socket.written, /^HTTP\/1.1 408 Request Timeout\r\n/);
  t.match(socket.written, '{"code":"REQUEST_TIMEOUT","message":"The request was not received in time.","status":408}');
  t.match(socket.written, /\r\nx-content-type-options: nosniff\r\n/, 'with the headers every API answer carries');
});

t.test('a reset or closed connection is dropped without an answer', async (t) => {
  for (const [code, writable] of [
    ['ECONNRESET', true],
    ['HPE_INVALID_METHOD', false],
  ] as const) {
    const socket = fakeSocket(writable);
    handleClientError(Object.assign(new Error(code), { code }), socket as unknown as Socket);
    t.equal(socket.written, '');
    t.ok(socket.destroyed);
  }
});
