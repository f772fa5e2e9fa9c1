// Runs src/server.ts as a real process: configuration, listening, the one-off key, graceful shutdown.
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { API_KEY } from '../helpers/build-app.js';
import { inFlightCreate } from '../helpers/in-flight-request.js';
import { startServer as start } from '../helpers/server-process.js';

async function listPets(port: number, key: string) {
  const response = await fetch(`http://127.0.0.1:${port}/v1/pets`, { headers: { authorization: `Bearer ${key}` } });
  return response.status;
}

/** The README's walk of an order: a pet, an order for it, then the order completed; each status. */
async function orderWalk(port: number, key: string): Promise<number[]> {
  const send = (method: string, path: string, body?: unknown) =>
    fetch(`http://127.0.0.1:${port}/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const pet = await send('POST', '/pets', { name: 'Tom', categoryId: 4, status: 'available' });
  const order = await send('POST', '/store/orders', { petId: ((await pet.json()) as { id: number }).id });
  const { id } = (await order.json()) as { id: number };
  const completed = await send('POST', `/store/orders/${id}/complete`);
  return [pet.status, order.status, completed.status];
}

// Five server processes start in this file, each loading the service through tsx: 10 s on an idle
// machine, 45 s when CI ran it beside three other test files on two cores.
t.setTimeout(150_000);

t.test('serves with the keys from API_KEYS and closes gracefully on SIGTERM', async (t) => {
  const server = await start({ API_KEYS: `${API_KEY},other-key-0123456789` });
  t.equal(await listPets(server.port, API_KEY), 200);
  t.equal(await listPets(server.port, 'other-key-0123456789'), 200);
  t.equal(await listPets(server.port, 'not-a-key-0123456789'), 401);
  t.same(
    await orderWalk(server.port, API_KEY),
    [201, 201, 403],
    "an API_KEYS key holds the customer's roles, no operator's",
  );
  server.child.kill('SIGTERM');
  t.equal(await server.exited, 0);
  t.match(server.output(), /"signal":"SIGTERM".*closing gracefully/);
  t.notMatch(server.output(), API_KEY, 'keys never reach the log');
  const requests = server
    .output()
    .split('\n')
    .filter((line) => line.includes('"request completed"'))
    .map((line) => JSON.parse(line));
  t.same(
    requests.map(({ method, path, status, operationId }) => ({ method, path, status, operationId })),
    [
      ...[200, 200, 401].map((status) => ({ method: 'GET', path: '/v1/pets', status, operationId: 'listPets' })),
      { method: 'POST', path: '/v1/pets', status: 201, operationId: 'createPet' },
      { method: 'POST', path: '/v1/store/orders', status: 201, operationId: 'placeOrder' },
      { method: 'POST', path: '/v1/store/orders/1/complete', status: 403, operationId: 'completeOrder' },
    ],
    'one line per request, all written before the exit',
  );
});

t.test('a request in flight when SIGINT arrives is still answered', async (t) => {
  const server = await start({ API_KEYS: API_KEY });
  const request = inFlightCreate(server.port, API_KEY);
  await request.headRead;
  server.child.kill('SIGINT');
  // The rest of the body after the signal has been taken.
  await new Promise((resolve) => setTimeout(resolve, 200));
  request.finish();
  const response = await request.closed;
  t.match(response, /^HTTP\/1.1 201 Created/);
  t.match(response, /\{"id":1,"name":"Rex","categoryId":1\}$/);
  t.equal(await server.exited, 0);
});

t.test('without API_KEYS it makes a one-off key, kept in a private file, never logged', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-'));
  const server = await start({}, dir);
  const file = join(dir, '.api-key');
  const key = readFileSync(file, 'utf8').trim();
  t.equal(statSync(file).mode & 0o777, 0o600, 'only the owner can read it');
  t.match(key, /^[A-Za-z0-9_-]{43}$/, '256 random bits');
  t.equal(await listPets(server.port, key), 200);
  t.same(await orderWalk(server.port, key), [201, 201, 200], "the README's walk completes an order: every role");
  t.match(server.output(), `generated a one-off API key for this run only, in ${file}`);
  t.notMatch(server.output(), key);
  server.child.kill('SIGTERM');
  await server.exited;

  const again = await start({}, dir);
  t.not(readFileSync(file, 'utf8').trim(), key, 'each start makes a new key');
  again.child.kill('SIGTERM');
  await again.exited;
});

t.test('invalid settings stop start-up with the reason', async (t) => {
  const server = start({ API_KEYS: 'short-key' });
  await t.rejects(server, /exited with 1: petstore: cannot start: API_KEYS entry 1 is not a usable key/);
  await t.rejects(start({ API_KEYS: API_KEY, PORT: 'eighty' }), /PORT must be an integer/);
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => taken.close(resolve)));
  const { port } = taken.address() as AddressInfo;
  await t.rejects(
    start({ API_KEYS: API_KEY, METRICS_PORT: String(port) }),
    new RegExp(
      `metrics cannot listen on 127\\.0\\.0\\.1:${port} \\(METRICS_PORT; off turns metrics off\\): .*EADDRINUSE`,
    ),
  );
});
