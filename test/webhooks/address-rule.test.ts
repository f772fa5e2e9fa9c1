// The address rule of the API's endpoints (OWASP API7): a URL at a loopback, private, link-local or
// metadata address, by literal or by what its name resolves to, is refused with 400 naming the rule
// unless WEBHOOK_ALLOW_PRIVATE_URLS is on; and a delivery checks again as it connects, so a name
// that resolves to such an address by then (DNS rebinding) is never sent to.
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import t from 'tap';
import type { FastifyBaseLogger } from 'fastify';
import { createMemoryPetStore } from '../../src/store/memory-pet-store.js';
import { lookupOutside, refusedAddress, urlBreaksRule } from '../../src/webhooks/address-rule.js';
import { deliveredEndpoints, endpointOfStored } from '../../src/webhooks/api-endpoints.js';
import { attempt } from '../../src/webhooks/attempt.js';
import { standInStore } from '../helpers/stand-in-store.js';
import { AUTH, buildTestApp, JSON_TYPE } from '../helpers/build-app.js';
import { checkContract } from '../helpers/contract.js';
import { until } from '../helpers/until.js';
import { receiver, SECRET } from '../helpers/webhook-receiver.js';

const REFUSED = [
  ['127.0.0.1', 'loopback'],
  ['127.255.0.9', 'loopback'],
  ['0.0.0.0', 'this host'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.254', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'link-local (cloud metadata)'],
  ['::1', 'loopback'],
  ['::', 'this host'],
  ['fd00:ec2::254', 'private (unique local)'],
  ['fc00::1', 'private (unique local)'],
  ['fe80::1', 'link-local'],
  ['::ffff:127.0.0.1', 'loopback'],
] as const;
const ALLOWED = ['93.184.216.34', '172.32.0.1', '172.15.255.255', '11.0.0.1', '2606:2800:220:1::1', '::ffff:8.8.8.8'];

t.test('the ranges refused, each named; public addresses pass', async (t) => {
  for (const [address, name] of REFUSED)
    t.match(
      refusedAddress(address),
      new RegExp(`^${address.replaceAll('.', '\\.')} is a ${name.replace(/[()]/g, '\\$&')} address \\(`),
      address,
    );
  for (const address of ALLOWED) t.equal(refusedAddress(address), undefined, address);
});

t.test('a URL breaks the rule by its literal address, or by what its name resolves to', async (t) => {
  const resolve = async (host: string) =>
    host === 'inside.example'
      ? [
          { address: '93.184.216.34', family: 4 },
          { address: '10.0.0.5', family: 4 },
        ]
      : host === 'outside.example'
        ? [{ address: '93.184.216.34', family: 4 }]
        : Promise.reject(new Error('ENOTFOUND'));
  t.match(await urlBreaksRule(new URL('http://[::1]:8080/h'), resolve), /^::1 is a loopback address/);
  t.match(await urlBreaksRule(new URL('http://inside.example/h'), resolve), /^inside\.example resolves to 10\.0\.0\.5/);
  t.equal(await urlBreaksRule(new URL('http://outside.example/h'), resolve), undefined);
  t.equal(await urlBreaksRule(new URL('http://nowhere.example/h'), resolve), undefined, 'checked again at delivery');
  t.match(await urlBreaksRule(new URL('http://localhost:3000/h')), /^localhost resolves to .* loopback address/);
});

t.test('without WEBHOOK_ALLOW_PRIVATE_URLS, the API refuses such a URL with 400 naming the rule', async (t) => {
  const { app } = await buildTestApp(t);
  const create = (url: string) =>
    app.inject({
      method: 'POST',
      url: '/v1/webhook-endpoints',
      headers: { ...AUTH, ...JSON_TYPE },
      payload: { url },
    });
  for (const url of [
    'http://127.0.0.1:3000/hooks',
    'http://localhost:3000/hooks',
    'http://[::1]/hooks',
    'https://10.0.0.7/hooks',
    'https://172.20.1.1/hooks',
    'https://192.168.0.10/hooks',
    'http://169.254.169.254/latest/meta-data',
    'http://[fd00:ec2::254]/',
    'http://[fe80::1]/',
  ]) {
    const response = await create(url);
    t.equal(response.statusCode, 400, url);
    checkContract(t, response, 'createWebhookEndpoint');
    t.match(response.json(), {
      code: 'VALIDATION_FAILED',
      message:
        /^body\.url: .* address .*; webhook endpoints may not point at loopback, private, link-local or metadata/,
    });
  }
  for (const [url, message] of [
    ['ftp://files.example/h', /must be an http:\/\/ or https:\/\/ URL, not ftp:/],
    ['https://user:pass@hooks.example/h', /must not hold a user or password/],
  ] as const)
    t.match((await create(url)).json(), { status: 400, message }, url);
  const created = await create('https://hooks.example/pets');
  t.equal(created.statusCode, 201, 'a name that does not resolve here is taken: each delivery checks it');
  const { id } = created.json() as { id: string };
  const moved = await app.inject({
    method: 'PATCH',
    url: `/v1/webhook-endpoints/${id}`,
    headers: { ...AUTH, 'content-type': 'application/merge-patch+json', 'if-match': '*' },
    payload: { url: 'http://192.168.1.1/' },
  });
  t.equal(moved.statusCode, 400, 'nor changed to one');
  t.match(moved.json(), { message: /192\.168\.1\.1 is a private address/ });
});

t.test('with WEBHOOK_ALLOW_PRIVATE_URLS on, a loopback receiver is taken', async (t) => {
  const { app } = await buildTestApp(t, { webhookApi: { allowPrivateUrls: true } });
  const response = await app.inject({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    headers: { ...AUTH, ...JSON_TYPE },
    payload: { url: 'http://127.0.0.1:3000/hooks' },
  });
  t.equal(response.statusCode, 201);
});

t.test('a delivery checks again as it connects: a literal or a name at such an address is never sent to', async (t) => {
  const { url, received } = await receiver(t);
  const context = { fetch: globalThis.fetch, now: Date.now, timeoutMs: 2000, closing: new AbortController().signal };
  const signers = [{ webhook: new Webhook(SECRET), expiresAt: null }];
  const body = {
    id: 'ffffffff-1',
    type: 'pet.deleted' as const,
    petId: 1,
    version: 2,
    occurredAt: new Date().toISOString(),
  };
  const at = (address: string) => {
    const stored = {
      id: 'ep_x',
      url: address,
      events: null,
      description: null,
      disabled: false,
      secrets: [{ secret: SECRET, expiresAt: null }],
      version: 1,
      createdAt: 0,
    };
    return { guarded: endpointOfStored(stored, true), open: endpointOfStored(stored, false) };
  };
  const literal = await attempt(context, at(url).guarded, signers, body);
  t.match(literal, { result: 'failed', reason: /^not sent: 127\.0\.0\.1 is a loopback address/ });
  const byName = await attempt(context, at(url.replace('127.0.0.1', 'localhost')).guarded, signers, body);
  t.match(byName, { result: 'failed', reason: /^not sent: localhost: 127\.0\.0\.1 is a loopback address/ });
  t.equal(received.length, 0, 'neither reached the receiver');
  const unknown = await attempt(context, at('http://petstore-nowhere.invalid/h').guarded, signers, body);
  t.match(unknown, { result: 'failed', reason: /^not reached \(ENOTFOUND\)/ }, 'a name that does not resolve');
  t.match(await attempt(context, at(url).open, signers, body), { result: 'delivered', status: 204 }, 'the rule lifted');
  t.equal(received.length, 1);
});

t.test('endpoints of the API unreadable for a while: those read last are delivered to, and it says so', async (t) => {
  const lines: string[] = [];
  const log = pino(
    { level: 'info' },
    { write: (line: string) => void lines.push(line) },
  ) as unknown as FastifyBaseLogger;
  let failing = true;
  const memory = createMemoryPetStore();
  const store = standInStore({}).webhookEndpoints;
  const endpoints = deliveredEndpoints({
    file: undefined,
    store: {
      ...store,
      list: () => (failing ? Promise.reject(new Error('database away')) : memory.webhookEndpoints.list()),
    },
    log,
    guarded: true,
    pollMs: 10,
  });
  t.teardown(() => endpoints.close());
  let changes = 0;
  endpoints.onChange(() => changes++);
  await until('the failure logged', () => lines.some((line) => line.includes('cannot read the endpoints of the API')));
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.equal(lines.filter((line) => line.includes('cannot read')).length, 1, 'said once');
  await memory.webhookEndpoints.add('ep_a', {
    url: 'https://a.example/h',
    events: null,
    description: null,
    disabled: false,
    secrets: [{ secret: SECRET, expiresAt: null }],
  });
  failing = false;
  await until('read again', () => endpoints.current().length === 1);
  t.ok(lines.some((line) => line.includes('can be read again')));
  t.equal(changes, 1, 'one change told');
  t.match(endpoints.current()[0], { id: 'ep_a', source: 'api', key: 'api:ep_a', guarded: true });
});

t.test("the connection's lookup: one address when asked for one, none inside the ranges", async (t) => {
  const fake = ((_host: string, _options: object, callback: (...args: unknown[]) => void) =>
    callback(null, [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ])) as unknown as Parameters<typeof lookupOutside>[3];
  const one = await new Promise<unknown[]>((resolve) =>
    lookupOutside('outside.example', {}, (...args) => resolve(args), fake),
  );
  t.same(one, [null, '93.184.216.34', 4], 'the first, as net.connect asks without all');
  const all = await new Promise<unknown[]>((resolve) =>
    lookupOutside('outside.example', { all: true }, (...args) => resolve(args), fake),
  );
  t.same(all[1], [
    { address: '93.184.216.34', family: 4 },
    { address: '2606:2800:220:1::1', family: 6 },
  ]);
  const failed = await new Promise<unknown[]>((resolve) =>
    lookupOutside('petstore-nowhere.invalid', { all: true }, (...args) => resolve(args)),
  );
  t.match(failed[0], { code: 'ENOTFOUND' }, 'a name that does not resolve: its error');
});
