// The webhooks' deliveries against a real HTTP receiver on loopback, with the in-memory store, when
// an endpoint or the store fails: the retries and their schedule, 410 and a schedule run out,
// timeouts, a refused port, Retry-After, and the ledger or the feed failing for a moment. In a file
// of their own, beside deliveries.test.ts: most of their time is waiting on timers.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { createMemoryPetStore } from '../../src/store/memory-pet-store.js';
import type { PetStore } from '../../src/store/pet-store.js';
import { retryAfterOf } from '../../src/webhooks/attempt.js';
import { retryDelayMs } from '../../src/webhooks/deliveries.js';
import { DEFAULT_RETRY_DELAYS_S } from '../../src/webhooks/schedule.js';
import { endpointsFromFile } from '../../src/webhooks/endpoints.js';
import { parseJson } from '../../src/validation/strict-json.js';
import { until } from '../helpers/until.js';
import { deliver, endpoint, endpointsYaml, fixedEndpoints, receiver, SECRET } from '../helpers/webhook-receiver.js';

t.test('a failure is retried on the schedule, holding later events back; then they come in order', async (t) => {
  const { url, received } = await receiver(t, (n) => (n < 2 ? 500 : 200));
  const { store, results, backlog, logs } = deliver(t, createMemoryPetStore(), fixedEndpoints([endpoint(url)]));
  await until('registered', () => backlog.size > 0);
  await store.create({ name: 'one', categoryId: 1 });
  await store.create({ name: 'two', categoryId: 2 });
  await until('four attempts', () => received.length === 4 && results.length === 4);
  const ids = received.map(({ body }) => (parseJson(body) as { pet: { name: string } }).pet.name);
  t.same(ids, ['one', 'one', 'one', 'two'], 'the first retried twice, the second after it');
  t.same(
    results.map(([, result]) => result),
    ['failed', 'failed', 'delivered', 'delivered'],
  );
  t.equal(received[0]!.headers['webhook-id'], received[2]!.headers['webhook-id'], 'a retry has the same webhook-id');
  t.match(logs(), /"reason":"responded with 500".*a delivery failed; retrying/);
  t.notMatch(logs(), new RegExp(SECRET.slice(6, 20)), 'no secret in the logs');
});

t.test('410 stops the endpoint until its entry changes; then it resumes where it stopped', async (t) => {
  const { url, received } = await receiver(t, (n) => (n === 0 ? 410 : n < 3 ? 200 : 500));
  const file = join(tmpdir(), `webhooks-${process.pid}-${Date.now()}.yaml`);
  writeFileSync(file, endpointsYaml(url));
  const endpoints = endpointsFromFile(file, {}, 20);
  t.teardown(() => endpoints.close());
  const { store, results, logs, backlog } = deliver(t, createMemoryPetStore(), endpoints);
  await new Promise((resolve) => setTimeout(resolve, 100));
  await store.create({ name: 'one', categoryId: 1 });
  await until('the 410', () => results.length === 1);
  await store.create({ name: 'two', categoryId: 2 });
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.equal(received.length, 1, 'nothing more while stopped');
  t.match(logs(), /responded with 410 Gone; no more deliveries until its entry changes/);
  writeFileSync(file, endpointsYaml(url, '    events: [pet.created, pet.updated, pet.deleted]\n'));
  await until('both delivered after the change', () => received.length === 3, 8000);
  t.same(
    received.slice(1).map(({ body }) => (parseJson(body) as { pet: { name: string } }).pet.name),
    ['one', 'two'],
    'from the event that was refused',
  );
  // Refused from now on, the endpoint falls behind; taken out of the file, it holds nothing back here.
  await store.create({ name: 'three', categoryId: 3 });
  await until('a backlog', () => (backlog.get(endpoint(url).label) ?? 0) > 0, 5000);
  writeFileSync(file, 'endpoints: []');
  await until('the endpoint removed reports no backlog', () => backlog.get(endpoint(url).label) === 0, 5000);
});

t.test('a schedule run out stops the endpoint; timeouts and unreachable endpoints are failures', async (t) => {
  const { url, received } = await receiver(t, () => 'hang');
  // A port nothing listens on: one a server had, closed.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const nobody = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/nobody`;
  await new Promise((resolve) => closed.close(resolve));
  // Port 1 is one fetch refuses to call at all ("bad port"): not reached either.
  const { store, results, logs } = deliver(
    t,
    createMemoryPetStore(),
    fixedEndpoints([endpoint(url), endpoint(nobody), endpoint('http://127.0.0.1:1/refused')]),
    { timeoutMs: 100 },
  );
  await new Promise((resolve) => setTimeout(resolve, 50));
  await store.create({ name: 'one', categoryId: 1 });
  await until('three attempts each', () => results.length === 9, 8000).catch((error: Error) => {
    throw new Error(`${error.message}: ${JSON.stringify(results)} ${logs()}`);
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.equal(received.length, 3, 'the first and two retries, then no more');
  t.ok(results.every(([, result]) => result === 'failed'));
  t.match(logs(), /no response within 100 ms/);
  t.match(logs(), /not reached \(ECONNREFUSED\)/);
  t.match(logs(), /not reached \(fetch failed\)/);
  t.match(logs(), /the retry schedule ran out/);
});

t.test('an attempt times out though garbage collections run while it waits (nodejs/node#57736)', async (t) => {
  // On Node 20 a timeout signal that only AbortSignal.any refers to can be collected before it
  // fires; the attempt then waits for ever. Collections forced every 10 ms showed it every time.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const { url } = await receiver(t, () => 'hang');
  const { store, results, logs } = deliver(t, createMemoryPetStore(), fixedEndpoints([endpoint(url)]), {
    timeoutMs: 100,
    retryDelaysMs: [],
  });
  const collections = setInterval(gc, 10);
  t.teardown(() => clearInterval(collections));
  await new Promise((resolve) => setTimeout(resolve, 50));
  await store.create({ name: 'one', categoryId: 1 });
  await until('the attempt fails', () => results.length === 1, 3000);
  t.same(
    results.map(([, result]) => result),
    ['failed'],
  );
  t.match(logs(), /no response within 100 ms/);
});

t.test('the ledger or the feed failing for a moment delays deliveries, and loses none', async (t) => {
  const { url, received } = await receiver(t);
  const memory = createMemoryPetStore();
  let claimFails = 1;
  let readFails = 1;
  const flaky: PetStore = {
    ...memory,
    listEvents: (after, limit) =>
      readFails-- > 0 ? Promise.reject(new Error('database away')) : memory.listEvents(after, limit),
    deliveries: {
      ...memory.deliveries,
      claim: (...args) =>
        claimFails-- > 0 ? Promise.reject(new Error('database away')) : memory.deliveries.claim(...args),
    },
  };
  await memory.create({ name: 'first', categoryId: 1 });
  const { logs } = deliver(t, flaky, fixedEndpoints([endpoint(url)]));
  // After both failures (a pause of a second each): the endpoint then starts after 'first'.
  await until('both failures met', () => claimFails < 0 && readFails < 0, 5000);
  await memory.create({ name: 'second', categoryId: 2 });
  await until('delivered', () => received.length === 1, 8000);
  t.equal((parseJson(received[0]!.body) as { pet: { name: string } }).pet.name, 'second');
  t.match(logs(), /cannot read where deliveries stand; retrying/);
  t.match(logs(), /cannot deliver now; retrying/);
});

t.test(
  '429, 502, 503 and 504 are retried like any failure; Retry-After is waited for, up to the longest step',
  async (t) => {
    const statuses = [429, 502, 503, 504];
    const { url } = await receiver(t, (n) => (n < statuses.length ? statuses[n]! : 200));
    const { store, results, backlog } = deliver(t, createMemoryPetStore(), fixedEndpoints([endpoint(url)]), {
      retryDelaysMs: [20, 20, 20, 20],
    });
    await until('registered', () => backlog.size > 0);
    await store.create({ name: 'one', categoryId: 1 });
    await until('delivered at the fifth attempt', () => results.length === 5);
    t.same(
      results.map(([, result]) => result),
      ['failed', 'failed', 'failed', 'failed', 'delivered'],
    );

    const slow = await receiver(t, (n) =>
      n === 0
        ? { status: 503, headers: { 'retry-after': '1' } }
        : n === 1
          ? { status: 429, headers: { 'retry-after': '3600' } }
          : 200,
    );
    const paced = deliver(t, createMemoryPetStore(), fixedEndpoints([endpoint(slow.url)]), {
      retryDelaysMs: [20, 20, 1500],
    });
    await until('registered', () => paced.backlog.size > 0);
    await paced.store.create({ name: 'one', categoryId: 1 });
    await until('delivered at the third attempt', () => slow.received.length === 3, 8000);
    const [first, second, third] = slow.received.map(({ at }) => at) as [number, number, number];
    t.ok(second - first >= 950, `a 503 asking for 1 s: retried ${second - first} ms later, not 20 ms`);
    t.ok(third - second >= 1400, `a 429 asking for an hour: retried after the longest step (${third - second} ms)`);
    t.ok(third - second < 3000, 'and no later');
  },
);

t.test(
  'each wait is drawn between half its step and all of it (equal jitter); Retry-After in seconds or a date',
  (t) => {
    const steps = [1000, 60_000];
    t.equal(
      retryDelayMs(steps, 0, undefined, () => 0),
      500,
    );
    t.equal(
      retryDelayMs(steps, 1, undefined, () => 0.5),
      45_000,
    );
    t.ok(retryDelayMs(steps, 1, undefined, () => 0.999_999) < 60_000);
    const draws = Array.from({ length: 1000 }, () => retryDelayMs(steps, 1, undefined));
    t.ok(Math.min(...draws) >= 30_000, 'never less than half the step');
    t.ok(Math.min(...draws) < 33_000 && Math.max(...draws) > 57_000, 'spread over the upper half');
    t.equal(
      retryDelayMs(steps, 0, 5000, () => 0.5),
      5000,
      'Retry-After longer than the draw is waited for',
    );
    t.equal(
      retryDelayMs(steps, 0, 86_400_000, () => 0.5),
      60_000,
      'up to the longest step',
    );
    t.equal(retryAfterOf('120', 0), 120_000);
    t.equal(retryAfterOf('Thu, 01 Jan 1970 00:01:00 GMT', 30_000), 30_000);
    t.equal(retryAfterOf('Thu, 01 Jan 1970 00:00:00 GMT', 30_000), 0, 'a date passed: now');
    t.equal(retryAfterOf('soon', 0), undefined);
    t.equal(retryAfterOf('-5', 0), undefined);
    t.equal(retryAfterOf(null, 0), undefined);
    t.end();
  },
);

t.test('10,000 schedules drawn through the real function: none of the default ends before 3 days', (t) => {
  const steps = DEFAULT_RETRY_DELAYS_S.map((seconds) => seconds * 1000);
  const spanOf = (random?: () => number) =>
    steps.reduce((span, _step, attempt) => span + retryDelayMs(steps, attempt, undefined, random), 0);
  const days = (ms: number) => ms / 86_400_000;
  const spans = Array.from({ length: 10_000 }, () => spanOf());
  const shortest = days(Math.min(...spans));
  t.ok(shortest >= 3, `the shortest of 10,000 spans: ${shortest.toFixed(2)} days`);
  t.ok(days(Math.max(...spans)) <= 6.15, `the longest: ${days(Math.max(...spans)).toFixed(2)} days`);
  // The ends of the range, as docs/events.md states them: every draw at its lowest, and at its highest.
  t.equal(days(spanOf(() => 0)).toFixed(2), '3.07', 'the shortest span there can be');
  t.equal(days(spanOf(() => 0.999_999_999)).toFixed(2), '6.15', 'the longest');
  t.end();
});
