// Stopping without dropping a request. In-process: where the resets a proxy saw at each instance's
// exit come from (http.Server#close destroys a connection whose request has not been read yet),
// and closeListener, which leaves it to be served. As a process: SIGTERM drains (readiness 503,
// Connection: close, still serving), then closes; SIGINT skips the drain; a second signal exits.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { closeListener } from '../../src/shutdown.js';
import { API_KEY } from '../helpers/build-app.js';
import { inFlightCreate } from '../helpers/in-flight-request.js';
import { startServer } from '../helpers/server-process.js';

t.setTimeout(120_000);

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A keep-alive connection that has had one request served, and what comes back on it after. */
async function keptAlive(port: number) {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  let first: () => void;
  const responded = new Promise<void>((resolve) => (first = resolve));
  socket.on('data', (chunk) => {
    received += chunk;
    if (received.endsWith('answered')) first();
  });
  const ended = new Promise<string>((resolve) => {
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    socket.on('close', () => resolve(received));
  });
  request(socket);
  await responded;
  received = '';
  return { socket, ended };
}

const request = (socket: Socket) => socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
/**
 * A server that responds "answered", closing the connection once `closing()` says so (as the service does while it
 * drains).
 */
const responding = (closing = () => false) =>
  createServer((_request, response) =>
    (closing() ? response.setHeader('connection', 'close') : response).end('answered'),
  );

t.test(
  "a connection still in the kernel's accept queue is reset when the listener closes: what no process can answer",
  async (t) => {
    // A proxy connects and writes at once; the kernel completes the handshake before the process
    // accepts. Here another process connects and writes while this one's event loop is held (as
    // under load), then the listener closes before it could accept.
    const server = responding();
    const port = await listening(server);
    const client = spawn(process.execPath, ['-e', CLIENT, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let outcome = '';
    client.stdout.on('data', (chunk) => (outcome += chunk));
    const exited = new Promise((resolve) => client.on('exit', resolve));
    await new Promise((resolve) => client.stdout.once('data', resolve));
    const until = Date.now() + 500;
    while (Date.now() < until);
    server.close();
    await exited;
    t.equal(
      outcome.trim(),
      'writing\nECONNRESET',
      'reset: the request was written, never read (nginx retries it elsewhere when that is safe)',
    );
  },
);

// Connects, writes a request, and prints what became of it: an error code, or what came back.
const CLIENT = `
const socket = require('node:net').connect(Number(process.argv[1]), '127.0.0.1', () => {});
process.stdout.write('writing\\n');
socket.write('GET / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n');
let received = '';
socket.on('data', (chunk) => (received += chunk));
socket.on('error', (error) => { process.stdout.write(error.code); process.exit(0); });
socket.on('close', () => { process.stdout.write('closed: ' + received); process.exit(0); });
setTimeout(() => { process.stdout.write('no outcome: ' + received); process.exit(0); }, 5000);
`;

t.test(
  'http.Server#close destroys an idle keep-alive connection, though its client may be sending on it',
  async (t) => {
    const server = responding();
    const port = await listening(server);
    const { socket, ended } = await keptAlive(port);
    server.close();
    request(socket);
    const outcome = await ended;
    t.ok(['', 'ECONNRESET', 'EPIPE'].includes(outcome), `never answered (${JSON.stringify(outcome)})`);
  },
);

t.test('closeListener stops accepting, and lets each connection it has end after its answer', async (t) => {
  let closing = false;
  const server = responding(() => closing);
  const port = await listening(server);
  const { socket, ended } = await keptAlive(port);
  closing = true;
  const closed = closeListener(server, 10_000);
  await t.rejects(
    new Promise((resolve, reject) => connect(port, '127.0.0.1').on('connect', resolve).on('error', reject)),
    { code: 'ECONNREFUSED' },
    'no new connection',
  );
  request(socket);
  t.match(await ended, /^HTTP\/1\.1 200 OK[\s\S]*answered$/, 'the request on the kept connection is answered');
  t.equal(await closed, 'ended', 'resolved once the connection ended');
});

t.test('closeListener gives up waiting after its time limit', async (t) => {
  const server = responding();
  const port = await listening(server);
  const { socket } = await keptAlive(port);
  t.equal(await closeListener(server, 100), 'timeout');
  socket.destroy();
});

/** A request written in two parts, so that it is in flight across a signal; resolves with the raw response. */
t.test(
  'SIGTERM: a drain in which the instance serves, not ready, closing each connection; then it closes',
  async (t) => {
    const server = await startServer({ API_KEYS: API_KEY, SHUTDOWN_DRAIN_MS: '1500' });
    const base = `http://127.0.0.1:${server.port}`;
    t.equal((await fetch(`${base}/health/ready`)).status, 200);
    const keepAlive = await fetch(`${base}/v1/pets`, { headers: { authorization: `Bearer ${API_KEY}` } });
    t.equal(keepAlive.headers.get('connection'), 'keep-alive', 'before: connections are kept');
    await keepAlive.arrayBuffer();
    const inFlight = inFlightCreate(server.port, API_KEY);
    await inFlight.headRead;

    server.child.kill('SIGTERM');
    await sleep(300);
    const ready = await fetch(`${base}/health/ready`);
    t.equal(ready.status, 503, 'not ready at once');
    t.same(await ready.json(), {
      code: 'SERVICE_UNAVAILABLE',
      message: 'This instance is shutting down; send requests to another one.',
      status: 503,
    });
    t.equal((await fetch(`${base}/health/live`)).status, 200, 'still alive');
    const served = await fetch(`${base}/v1/pets`, { headers: { authorization: `Bearer ${API_KEY}` } });
    t.equal(served.status, 200, 'still serving');
    t.equal(served.headers.get('connection'), 'close', 'every answer closes its connection');
    await served.arrayBuffer();

    await sleep(1500);
    await t.rejects(fetch(`${base}/health/live`), 'after the drain the listener is closed');
    inFlight.finish();
    t.match(
      await inFlight.closed,
      /^HTTP\/1\.1 201 Created[\s\S]*connection: close[\s\S]*\{"id":1,"name":"Rex","categoryId":1\}$/i,
      'a request in flight across the drain is answered',
    );
    t.equal(await server.exited, 0);
    const log = server.output();
    const at = (message: string) => log.indexOf(message);
    t.ok(
      at('"drainMs":1500') >= 0 && at('draining: /health/ready responds with 503') >= 0,
      'the log says when draining starts, and for how long',
    );
    t.ok(at('"msg":"drained"') > at('draining:'), 'and when it ends');
    t.ok(
      at('closing gracefully') > at('"msg":"drained"') && at('"msg":"closed"') > at('closing gracefully'),
      'then the close',
    );
  },
);

t.test('SIGINT skips the drain', async (t) => {
  const server = await startServer({ API_KEYS: API_KEY, SHUTDOWN_DRAIN_MS: '60000' });
  const started = Date.now();
  server.child.kill('SIGINT');
  t.equal(await server.exited, 0);
  t.ok(Date.now() - started < 30_000, 'gone well before the drain would have ended');
  t.notMatch(server.output(), 'draining');
  t.match(server.output(), /"signal":"SIGINT".*closing gracefully/);
});

t.test('a second signal exits at once', async (t) => {
  const server = await startServer({ API_KEYS: API_KEY, SHUTDOWN_DRAIN_MS: '60000' });
  server.child.kill('SIGTERM');
  await sleep(300);
  t.equal((await fetch(`http://127.0.0.1:${server.port}/health/ready`)).status, 503, 'draining');
  server.child.kill('SIGTERM');
  t.equal(await server.exited, 1);
  t.match(server.output(), 'second SIGTERM, exiting');
});
