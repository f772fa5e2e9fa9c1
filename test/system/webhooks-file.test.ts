// WEBHOOKS_FILE as operators use it, on the built server as a process, in memory: deliveries from
// the start, an endpoint added by SIGHUP, an unusable file at reload (the endpoints in use kept) and
// at start (the process stops, naming the entry), and no secret in any of it.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { API_KEY } from '../helpers/build-app.js';
import { spawnServer, startServer, type Running } from '../helpers/server-process.js';

t.setTimeout(120_000);
const SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
const entry = (url: string) => `  - url: ${url}\n    secret: ${SECRET}\n`;

async function stop(server: Pick<Running, 'child' | 'exited'>): Promise<void> {
  server.child.kill('SIGINT');
  await server.exited;
}

async function until(what: string, check: () => boolean, limitMs: number): Promise<void> {
  const started = performance.now();
  while (!check()) {
    if (performance.now() - started > limitMs) throw new Error(`${what}: not within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

t.test('deliveries from start; SIGHUP adds an endpoint; an unusable file keeps the ones in use', async (t) => {
  const received: string[] = [];
  const receivers = await Promise.all(
    ['a', 'b'].map(async (name) => {
      const server = createServer((request, response) => {
        request.resume();
        request.on('end', () => {
          received.push(`${name} ${String(request.headers['webhook-id'])}`);
          response.writeHead(200).end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      t.teardown(() => new Promise((resolve) => server.close(resolve)));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/${name}`;
    }),
  );
  const file = join(t.testdir(), 'webhooks.yaml');
  writeFileSync(file, `endpoints:\n${entry(receivers[0]!)}`);
  const server = await startServer({ API_KEYS: API_KEY, WEBHOOKS_FILE: file, LOG_LEVEL: 'info', METRICS_PORT: '0' });
  t.teardown(() => stop(server));
  const create = (name: string) =>
    fetch(`http://127.0.0.1:${server.port}/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name, categoryId: 1 }),
    }).then((response) => response.json());

  await new Promise((resolve) => setTimeout(resolve, 200));
  await create('one');
  await until('a receives the first', () => received.length === 1, 5000);

  writeFileSync(file, `endpoints: [`);
  server.child.kill('SIGHUP');
  await until(
    'the unusable file is reported',
    () => server.output().includes('the endpoints in use are kept until it is fixed'),
    5000,
  );
  await create('two');
  await until('a still receives', () => received.filter((line) => line.startsWith('a ')).length === 2, 5000);

  writeFileSync(file, `endpoints:\n${entry(receivers[0]!)}${entry(receivers[1]!)}`);
  server.child.kill('SIGHUP');
  await until('read again', () => server.output().includes('read again: 2 endpoints'), 5000);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await create('three');
  await until(
    'both receive the third',
    () =>
      received.filter((line) => line.startsWith('b ')).length === 1 &&
      received.filter((line) => line.startsWith('a ')).length === 3,
    5000,
  );
  t.pass('b, added by SIGHUP, gets the events from then on; a goes on');
  const metricsPort = /metrics at http:\/\/127\.0\.0\.1:(\d+)\/metrics/.exec(server.output())![1];
  const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const label = (url: string) => new URL(url).host + new URL(url).pathname;
  t.match(
    metrics,
    `petstore_webhook_deliveries_total{endpoint="${label(receivers[0]!)}",result="delivered"} 3`,
    'deliveries counted by endpoint and result',
  );
  t.match(
    metrics,
    `petstore_webhook_oldest_undelivered_seconds{endpoint="${label(receivers[1]!)}"} 0`,
    'nothing waits for b',
  );
  t.notOk(server.output().includes(SECRET.slice(6)), 'no secret in the log');
});

t.test('a file of no endpoints, metrics off: the service serves, and stops cleanly', async (t) => {
  const file = join(t.testdir(), 'webhooks.yaml');
  writeFileSync(file, 'endpoints: []\n');
  const server = await startServer({ API_KEYS: API_KEY, WEBHOOKS_FILE: file, LOG_LEVEL: 'info' });
  const created = await fetch(`http://127.0.0.1:${server.port}/v1/pets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    body: '{"name":"Rex","categoryId":1}',
  });
  t.equal(created.status, 201);
  t.match(server.output(), /webhook endpoints from WEBHOOKS_FILE .* \(0\)/);
  await stop(server);
  t.match(server.output(), /"msg":"closed"/);
});

t.test('an unusable file stops start-up, naming the entry and never the secret', async (t) => {
  const file = join(t.testdir(), 'webhooks.yaml');
  writeFileSync(file, `endpoints:\n  - url: https://a.example/h\n    secret: ${SECRET.slice(0, 20)}\n`);
  const server = spawnServer({ API_KEYS: API_KEY, WEBHOOKS_FILE: file });
  t.equal(await server.exited, 1);
  t.match(
    server.output(),
    /petstore: cannot start: WEBHOOKS_FILE .*webhooks\.yaml line 3: entry 1: secret is required/,
  );
  t.notOk(server.output().includes(SECRET.slice(6, 20)), 'no secret in the message');
});

t.test('a retention shorter than the retries stops start-up, naming both', async (t) => {
  const server = spawnServer({ API_KEYS: API_KEY, EVENTS_RETENTION_HOURS: '72' });
  t.equal(await server.exited, 1);
  t.match(
    server.output(),
    /petstore: cannot start: EVENTS_RETENTION_HOURS \(72 h\) is shorter than the webhook retries' longest span \(147\.58 h, WEBHOOK_RETRY_DELAYS\)/,
  );
});
