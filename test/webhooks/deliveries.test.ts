// The webhooks' deliveries against a real HTTP receiver on loopback, with the in-memory store: what
// each delivery carries and how it is signed, the order and the types, a lease held elsewhere, a
// close under way, a secret rotated under load, and the webhooks file. Retries and failures:
// delivery-failures.test.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import t from 'tap';
import { createMemoryPetStore } from '../../src/store/memory-pet-store.js';
import { endpointsFromFile } from '../../src/webhooks/endpoints.js';
import { webhooksFileEndpoints } from '../../src/webhooks/webhooks-file.js';
import { parseJson } from '../../src/validation/strict-json.js';
import { contractOf } from 'openapi-contract-engine';
import { specCopy } from '../helpers/spec.js';
import { until } from '../helpers/until.js';
import { deliver, endpoint, endpointsYaml, fixedEndpoints, receiver, SECRET } from '../helpers/webhook-receiver.js';

const spec = contractOf(specCopy());

t.test("each event is POSTed once, in feed order, signed as Standard Webhooks, its body the spec's", async (t) => {
  const { url, received } = await receiver(t);
  const { store, results, backlog } = deliver(t, createMemoryPetStore(), fixedEndpoints([endpoint(url)]));
  await until('the endpoint is registered', () => backlog.size > 0);
  const rex = await store.create({ name: 'Rex', categoryId: 9007199254740993n, status: 'available' });
  await store.update(rex.id, { status: 'sold' }, [1]);
  await store.remove(rex.id, '*');
  // Received, and their responses read back by the deliverer (each counted once it is).
  await until('three deliveries', () => received.length === 3 && results.length === 3);
  const verifier = new Webhook(SECRET);
  const bodies = received.map(({ headers, body }) => {
    t.equal(headers['content-type'], 'application/json');
    t.equal((parseJson(body) as { id: string }).id, headers['webhook-id'], 'webhook-id is the event id');
    t.match(headers['webhook-signature'], /^v1,[A-Za-z0-9+/]{43}=$/);
    t.ok(Math.abs(Number(headers['webhook-timestamp']) - Date.now() / 1000) < 10, 'timestamp: now, in seconds');
    t.doesNotThrow(
      () => verifier.verify(body, headers as Record<string, string>),
      'verifies with the standardwebhooks package',
    );
    return parseJson(body) as { type: string; version: number; pet?: unknown };
  });
  t.same(
    bodies.map(({ type, version }) => [type, version]),
    [
      ['pet.created', 1],
      ['pet.updated', 2],
      ['pet.deleted', 3],
    ],
  );
  t.match(received[0]!.body, /"categoryId":9007199254740993\b/, 'int64 exactly');
  for (const { body } of received)
    t.same(spec.deliveryViolations(body), [], "the body the spec's webhooks declare for its type");
  t.match(
    spec.deliveryViolations(received[2]!.body.replace('"pet.deleted"', '"pet.created"')),
    [/pet.created delivery does not match/],
    'a created event without its pet breaks it',
  );
  t.throws(
    () =>
      new Webhook(`whsec_${Buffer.alloc(32, 8).toString('base64')}`).verify(
        received[0]!.body,
        received[0]!.headers as Record<string, string>,
      ),
    'another secret does not verify',
  );
  t.same(
    results,
    [
      ['127.0.0.1:' + new URL(url).port + '/hooks', 'delivered'],
      ...Array(2).fill(['127.0.0.1:' + new URL(url).port + '/hooks', 'delivered']),
    ],
    'metrics by endpoint, without the query',
  );
});

t.test('an endpoint takes only its types; a new endpoint starts after the newest event', async (t) => {
  const { url, received } = await receiver(t);
  const memory = createMemoryPetStore();
  await memory.create({ name: 'before', categoryId: 1 });
  const { store, backlog } = deliver(t, memory, fixedEndpoints([endpoint(url, '    events: [pet.deleted]\n')]));
  await until('registered', () => backlog.size > 0);
  const pet = await store.create({ name: 'Rex', categoryId: 1 });
  await store.update(pet.id, { name: 'Rexy' }, '*');
  await store.remove(pet.id, '*');
  await until('one delivery', () => received.length === 1);
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.same(
    received.map(({ body }) => (parseJson(body) as { type: string }).type),
    ['pet.deleted'],
  );
});

t.test(
  'an endpoint leased to another instance is left to it; one behind the retention skips to what is kept',
  async (t) => {
    const { url, received } = await receiver(t);
    const memory = createMemoryPetStore({ maxEvents: 2 });
    await memory.deliveries.claim(endpoint(url).key, 'another instance', 60_000);
    const { store, backlog } = deliver(t, memory, fixedEndpoints([endpoint(url)]));
    for (let index = 0; index < 4; index++) await store.create({ name: `pet ${index}`, categoryId: index });
    await new Promise((resolve) => setTimeout(resolve, 1200));
    t.equal(received.length, 0, 'the other instance delivers it');
    t.equal(backlog.get(endpoint(url).label), 0, 'and reports its backlog');
    await memory.deliveries.release(endpoint(url).key, 'another instance');
    await until('the kept events delivered', () => received.length === 2, 5000);
    t.same(
      received.map(({ body }) => (parseJson(body) as { pet: { name: string } }).pet.name),
      ['pet 2', 'pet 3'],
      'the two the feed keeps',
    );
    const { skipped } = (await memory.deliveries.read([endpoint(url).key])).get(endpoint(url).key)!;
    t.equal(skipped, 2, 'the two dropped before it accepted them are counted as skipped');
  },
);

t.test('the webhooks file: every mistake named by its place, never with the secret', async (t) => {
  const cases: [string, RegExp][] = [
    ['endpoints: [', /line 1: not valid YAML/],
    ['', /^WEBHOOKS_FILE x: expected a mapping/],
    ['endpoints:', /endpoints must be a list/],
    ['endpoints:\n  - url: https://a.example', /entry 1: secret is required/],
    ['hooks: []', /expected a mapping with the one field endpoints/],
    ['endpoints: 3', /endpoints must be a list/],
    ['endpoints:\n  - 3', /entry 1 must be a mapping/],
    ['endpoints:\n  - url: https://a.example\n    secret: x\n    name: y', /entry 1: unknown field "name"/],
    ['endpoints:\n  - secret: s', /entry 1: url is required/],
    ['endpoints:\n  - url: ftp://a.example\n    secret: s', /entry 1: url is required, an http/],
    ['endpoints:\n  - url: "https://u:p@a.example"\n    secret: s', /without user or password/],
    ['endpoints:\n  - url: not a url\n    secret: s', /entry 1: url is required/],
    [`endpoints:\n  - url: https://a.example\n    secret: whsec_c2hvcnQ=`, /entry 1: secret is required: whsec_/],
    [`endpoints:\n  - url: https://a.example\n    secret: ${SECRET.slice(6)}`, /entry 1: secret is required/],
    [
      `endpoints:\n  - url: https://a.example\n    secret: whsec_${Buffer.alloc(80).toString('base64')}`,
      /24 to 64 random bytes/,
    ],
    [
      `endpoints:\n  - url: https://a.example\n    secret: ${SECRET}\n  - url: https://a.example\n    secret: ${SECRET}`,
      /line 4: entry 2: url is the url of an earlier entry/,
    ],
    [
      `endpoints:\n  - url: https://a.example\n    secret: ${SECRET}\n    events: []`,
      /events must be a list of at least one/,
    ],
    [
      `endpoints:\n  - url: https://a.example\n    secret: ${SECRET}\n    events: [pet.sold]`,
      /events holds "pet.sold"; the types are pet.created, pet.updated, pet.deleted/,
    ],
    [
      `endpoints:\n  - url: https://a.example\n    secret: ${SECRET}\n    events: [[pet.created]]`,
      /events holds undefined/,
    ],
    [
      `endpoints:\n  - url: https://a.example\n    secret: ${SECRET}\n    secrets: [${SECRET}]`,
      /entry 1: secret and secrets both given/,
    ],
    [`endpoints:\n  - url: https://a.example\n    secrets: []`, /entry 1: secrets must be a list of 1 to 3/],
    [
      `endpoints:\n  - url: https://a.example\n    secrets: [${SECRET}, ${SECRET}, ${SECRET}, ${SECRET}]`,
      /entry 1: secrets must be a list of 1 to 3/,
    ],
    [`endpoints:\n  - url: https://a.example\n    secrets: ${SECRET}`, /entry 1: secrets must be a list/],
    [
      `endpoints:\n  - url: https://a.example\n    secrets: [${SECRET}, whsec_c2hvcnQ=]`,
      /entry 1: secrets item 2 is not whsec_/,
    ],
    [`endpoints:\n  - url: https://a.example\n    secrets: [[${SECRET}]]`, /entry 1: secrets item 1 is not whsec_/],
    [
      `endpoints:\n  - url: https://a.example\n    secrets: [${SECRET}, ${SECRET}]`,
      /entry 1: secrets holds the same secret twice/,
    ],
    [`endpoints:\n  - id: a b\n    url: https://a.example\n    secret: ${SECRET}`, /entry 1: id must be 1 to 64/],
    [`endpoints:\n  - id: 7\n    url: https://a.example\n    secret: ${SECRET}`, /entry 1: id must be/],
    [
      `endpoints:\n  - id: a\n    url: https://a.example\n    secret: ${SECRET}\n  - id: a\n    url: https://b.example\n    secret: ${SECRET}`,
      /line 5: entry 2: id a is the id of an earlier entry/,
    ],
  ];
  for (const [text, message] of cases) {
    t.throws(() => webhooksFileEndpoints(text, 'WEBHOOKS_FILE x'), { message }, text);
    try {
      webhooksFileEndpoints(text, 'x');
    } catch (error) {
      const secret = /secret: (\S+)/.exec(text)?.[1];
      if (secret !== undefined && secret.length >= 8)
        t.notOk((error as Error).message.includes(secret), 'no secret in the message');
    }
  }
  t.same(webhooksFileEndpoints('endpoints: []', 'x'), [], 'none');
  const shared = webhooksFileEndpoints(
    `endpoints:\n  - url: https://a.example\n    secret: ${SECRET}\n    events: &pets [pet.created]\n  - url: https://b.example\n    secret: ${SECRET}\n    events: *pets\n`,
    'x',
  );
  t.same(
    shared.map((endpoint) => [...endpoint.events!]),
    [['pet.created'], ['pet.created']],
    'entries share an event list through a YAML alias',
  );
  const [one] = webhooksFileEndpoints(endpointsYaml('https://a.example/h?token=t'), 'x');
  t.equal(one!.label, 'a.example/h', 'its label leaves the query out');
  t.not(
    one!.digest,
    webhooksFileEndpoints(endpointsYaml('https://a.example/h?token=t', '    events: [pet.created]\n'), 'x')[0]!.digest,
    'another entry, another digest',
  );
});

t.test('the webhooks file is read again when it changes; an unusable one keeps the endpoints in use', async (t) => {
  const file = join(tmpdir(), `webhooks-reload-${process.pid}-${Date.now()}.yaml`);
  t.throws(() => endpointsFromFile(file), /WEBHOOKS_FILE .* cannot be read \(ENOENT\)/);
  writeFileSync(file, 'endpoints: []');
  const reloads: unknown[] = [];
  const endpoints = endpointsFromFile(file, { onReload: (result) => reloads.push(result) }, 20);
  t.teardown(() => endpoints.close());
  let changed = 0;
  endpoints.onChange(() => changed++);
  t.ok(endpoints.reload(), 'unchanged: nothing to do');
  t.same(reloads, []);
  // The watcher takes its first look after it starts: a change is one after that.
  await new Promise((resolve) => setTimeout(resolve, 100));
  writeFileSync(file, endpointsYaml('https://a.example/h'));
  await until('read again', () => endpoints.current().length === 1).catch((error: Error) => {
    throw new Error(`${error.message}: ${JSON.stringify(reloads)} ${readFileSync(file, 'utf8')}`);
  });
  writeFileSync(file, 'endpoints: [');
  t.notOk(endpoints.reload());
  t.equal(endpoints.current().length, 1, 'kept');
  t.match(reloads, [
    { ok: true, endpoints: 1 },
    { ok: false, reason: /not valid YAML/ },
  ]);
  t.ok(changed >= 1);
});

t.test('closing abandons a delivery under way without counting it against the endpoint', async (t) => {
  const { url, received } = await receiver(t, () => 'hang');
  const memory = createMemoryPetStore();
  const { store, deliveries, results } = deliver(t, memory, fixedEndpoints([endpoint(url)]), { timeoutMs: 10_000 });
  await new Promise((resolve) => setTimeout(resolve, 50));
  await store.create({ name: 'one', categoryId: 1 });
  await until('the delivery is under way', () => received.length === 1);
  const began = performance.now();
  await deliveries.close();
  t.ok(performance.now() - began < 2000, 'close does not wait for the endpoint');
  t.same(results, [], 'no attempt recorded');
  t.same(
    await memory.deliveries.claim(endpoint(url).key, 'the next instance', 1000),
    { position: 0, attempt: 0, dueAt: 0, stoppedEntry: '', generation: 0, skipped: 0, lastAttempt: undefined },
    'the next instance sends it again, as a first attempt',
  );
});

t.test(
  'a secret rotated under load: every delivery verifies with the old and with the new secret, none twice',
  async (t) => {
    const NEW = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    // Slow responses, so that the edit lands while a delivery is under way.
    const { url, received } = await receiver(t, () => ({ status: 200, afterMs: 30 }));
    const file = join(tmpdir(), `webhooks-rotate-${process.pid}-${Date.now()}.yaml`);
    writeFileSync(file, endpointsYaml(url));
    const endpoints = endpointsFromFile(file, {}, 20);
    t.teardown(() => endpoints.close());
    const { store, backlog, results } = deliver(t, createMemoryPetStore(), endpoints);
    await until('registered', () => backlog.size > 0);
    const create = async (count: number) => {
      for (let index = 0; index < count; index++) {
        await store.create({ name: `pet ${index}`, categoryId: index });
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    await create(10);
    writeFileSync(file, `endpoints:\n  - url: ${url}\n    secrets: [${NEW}, ${SECRET}]\n`);
    await create(10);
    await until('twenty delivered', () => results.filter(([, result]) => result === 'delivered').length === 20, 10_000);
    await until('the new entry in use', () => received.at(-1)!.headers['webhook-signature']!.includes(' '));
    await create(1);
    await until('the last one delivered', () => results.length === 21);
    const ids = received.map(({ headers }) => headers['webhook-id']);
    t.equal(new Set(ids).size, ids.length, `${ids.length} deliveries, no event twice (no failure, no kill)`);
    t.same(
      results.filter(([, result]) => result !== 'delivered'),
      [],
      'no attempt failed',
    );
    const old = new Webhook(SECRET);
    const renewed = new Webhook(NEW);
    const rotating = received.filter(({ headers }) => headers['webhook-signature']!.includes(' '));
    t.ok(rotating.length >= 1, `${rotating.length} deliveries signed during the rotation`);
    for (const { headers, body } of received)
      t.doesNotThrow(() => old.verify(body, headers as Record<string, string>), 'the old secret verifies');
    for (const { headers, body } of rotating) {
      t.match(headers['webhook-signature'], /^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/, 'two signatures');
      t.doesNotThrow(() => renewed.verify(body, headers as Record<string, string>), 'the new secret verifies');
    }
  },
);
