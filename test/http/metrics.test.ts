// The Prometheus metrics in process: what each request, deprecated call, replay and outage records,
// and that no label carries anything a client chose. test/system/prometheus.test.ts scrapes the running
// service with a real Prometheus server.
import t from 'tap';
import { unnamedClientOf } from '../../src/auth/api-clients.js';
import { ServiceUnavailable } from '../../src/errors/api-errors.js';
import { listenForMetrics } from '../../src/metrics/metrics-server.js';
import { createServiceMetrics, DURATION_BUCKETS, type ServiceMetrics } from '../../src/metrics/service-metrics.js';
import { createMemoryPetStore } from '../../src/store/memory-pet-store.js';
import { composeInstruments } from '../../src/store/postgres/statement-instrument.js';
import { API_KEY, AUTH, OTHER_API_KEY, buildTestApp, postPet } from '../helpers/build-app.js';

type Value = { labels: Record<string, string | number>; value: number; metricName?: string };

async function valuesOf(metrics: ServiceMetrics, name: string): Promise<Value[]> {
  const metric = metrics.registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric ${name}`);
  return ((await metric.get()) as { values: Value[] }).values;
}

/** The request counts (the histogram's _count) by their labels, as "method route status operation". */
async function requestCounts(metrics: ServiceMetrics): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const { labels, value, metricName } of await valuesOf(metrics, 'http_server_request_duration_seconds')) {
    if (metricName !== 'http_server_request_duration_seconds_count') continue;
    counts[
      `${labels['http_request_method']} ${labels['http_route']} ${labels['http_response_status_code']} ${labels['operation_id']}`
    ] = value;
  }
  return counts;
}

t.test('every answer is counted by method, route template, status and operation', async (t) => {
  const metrics = createServiceMetrics({ runtime: false });
  const { app } = await buildTestApp(t, { metrics });
  await app.inject(postPet({ name: 'Rex', categoryId: 1 }));
  await app.inject(postPet({ name: 'Tom', categoryId: 2 }));
  await app.inject({ method: 'GET', url: '/v1/pets?limit=5&status=sold', headers: AUTH });
  await app.inject({ method: 'GET', url: '/v1/pets/1', headers: AUTH });
  await app.inject({ method: 'GET', url: '/v1/pets/99', headers: AUTH });
  await app.inject({ method: 'GET', url: '/v1/pets' });
  for (const path of ['/v1/nothing', '/v1/pets/1/toys', `/${API_KEY}`])
    await app.inject({ method: 'GET', url: path, headers: AUTH });
  await app.inject({ method: 'DELETE', url: '/v1/pets', headers: AUTH });
  await app.inject({ method: 'PROPFIND', url: '/v1/pets', headers: AUTH });
  await app.inject({ method: 'GET', url: '/health/live' });
  t.same(await requestCounts(metrics), {
    'POST /v1/pets 201 createPet': 2,
    'GET /v1/pets 200 listPets': 1,
    'GET /v1/pets/{petId} 200 getPet': 1,
    'GET /v1/pets/{petId} 404 getPet': 1,
    'GET /v1/pets 401 listPets': 1,
    'GET  404 ': 3,
    'DELETE /v1/pets 405 ': 1,
    '_OTHER  404 ': 1,
    'GET /health/live 200 ': 1,
  });
  const values = await valuesOf(metrics, 'http_server_request_duration_seconds');
  const created = values.filter(({ labels }) => labels['operation_id'] === 'createPet');
  const sum = created.find(({ metricName }) => metricName === 'http_server_request_duration_seconds_sum')!.value;
  t.ok(sum > 0 && sum < 10, 'durations in seconds');
  const text = await metrics.registry.metrics();
  t.notMatch(text, API_KEY, 'no key in any label');
  t.notMatch(text, /Rex|sold|limit=|nothing|toys/, 'no pet field, query or path a client chose');
});

t.test('the histogram counts each observation in the first bucket that holds it, cumulatively', async (t) => {
  const metrics = createServiceMetrics({ runtime: false });
  const record = metrics.requestRecorder('/v1/pets', 'listPets');
  for (const seconds of [0.00003, 0.0001, 0.0004, 0.003, 12]) record('GET', 200, seconds);
  const values = await valuesOf(metrics, 'http_server_request_duration_seconds');
  const bucketValues = values
    .filter(({ metricName }) => metricName?.endsWith('_bucket'))
    .map(({ labels, value }) => [String(labels['le']), value] as const);
  t.same(
    bucketValues.map(([le]) => le),
    [...DURATION_BUCKETS, '+Inf'].map(String),
    'every bound in order, then +Inf',
  );
  const buckets = Object.fromEntries(bucketValues);
  t.match(buckets, { '0.0001': 2, '0.00025': 2, '0.0005': 3, '0.001': 3, '0.0025': 3, '0.005': 4, '10': 4, '+Inf': 5 });
  t.equal(values.find(({ metricName }) => metricName?.endsWith('_count'))!.value, 5);
  t.equal(values.find(({ metricName }) => metricName?.endsWith('_sum'))!.value, 0.00003 + 0.0001 + 0.0004 + 0.003 + 12);
  const text = await metrics.registry.metrics();
  t.match(text, '# TYPE http_server_request_duration_seconds histogram');
  t.match(
    text,
    // prom-client writes le first; Prometheus reads labels in any order.
    'http_server_request_duration_seconds_bucket{le="0.0005",http_request_method="GET",http_route="/v1/pets",http_response_status_code="200",operation_id="listPets"} 3',
  );
  t.match(
    text,
    'http_server_request_duration_seconds_count{http_request_method="GET",http_route="/v1/pets",http_response_status_code="200",operation_id="listPets"} 5',
  );
});

t.test('authenticated calls of the deprecated operation are counted per client', async (t) => {
  const metrics = createServiceMetrics({ runtime: false });
  const { app } = await buildTestApp(t, { metrics, apiKeys: [{ client: 'mobile-app', key: API_KEY }, OTHER_API_KEY] });
  await app.inject(postPet({ name: 'Rex', categoryId: 1 }));
  for (let call = 0; call < 3; call++) await app.inject({ method: 'GET', url: '/v1/pets/1', headers: AUTH });
  await app.inject({ method: 'GET', url: '/v1/pets/2', headers: { authorization: `Bearer ${OTHER_API_KEY}` } });
  await app.inject({ method: 'GET', url: '/v1/pets/x', headers: { authorization: `Bearer ${OTHER_API_KEY}` } });
  await app.inject({ method: 'GET', url: '/v1/pets/1' });
  await app.inject({ method: 'GET', url: '/v1/pets/1', headers: { authorization: `Bearer ${API_KEY}x` } });
  await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH });
  t.same(
    (await valuesOf(metrics, 'petstore_deprecated_operation_requests_total')).map(({ labels, value }) => ({
      ...labels,
      value,
    })),
    [
      { operation_id: 'getPet', client: 'mobile-app', value: 3 },
      { operation_id: 'getPet', client: unnamedClientOf(OTHER_API_KEY), value: 2 },
    ],
    'whatever the answer (404, 400 included), but never without a valid key, and only getPet',
  );
});

t.test('replays of an Idempotency-Key and answers 503 for the database are counted', async (t) => {
  const metrics = createServiceMetrics({ runtime: false });
  const store = createMemoryPetStore();
  const { app } = await buildTestApp(t, {
    metrics,
    store: { ...store, list: () => Promise.reject(new ServiceUnavailable()) },
  });
  const keyed = postPet({ name: 'Rex', categoryId: 1 }, { 'idempotency-key': 'k-1' });
  for (let attempt = 0; attempt < 3; attempt++) t.equal((await app.inject(keyed)).statusCode, 201);
  const change = {
    method: 'DELETE' as const,
    url: '/v1/pets/1',
    headers: { ...AUTH, 'if-match': '*', 'idempotency-key': 'k-2' },
  };
  for (let attempt = 0; attempt < 2; attempt++)
    t.equal((await app.inject(change)).statusCode, 204, 'a change retried: replayed too');
  await app.inject(postPet({ name: 'Tom', categoryId: 1, status: 'available' }));
  const order = {
    method: 'POST' as const,
    url: '/v1/store/orders',
    headers: { ...AUTH, 'content-type': 'application/json', 'idempotency-key': 'k-3' },
    payload: '{"petId":2}',
  };
  for (let attempt = 0; attempt < 2; attempt++)
    t.equal((await app.inject(order)).statusCode, 201, 'an order retried: replayed too');
  t.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH })).statusCode, 503);
  t.same(
    (await valuesOf(metrics, 'petstore_idempotent_replays_total')).map(({ value }) => value),
    [4],
  );
  t.same(
    (await valuesOf(metrics, 'petstore_database_unavailable_responses_total')).map(({ value }) => value),
    [1],
  );
});

t.test('statements are timed by name and outcome; the pool is read at each scrape', async (t) => {
  const metrics = createServiceMetrics({ runtime: false });
  t.equal(await metrics.statementInstrument('get-pet', async () => 'row'), 'row');
  await t.rejects(
    metrics.statementInstrument('list-pets', () =>
      Promise.reject(Object.assign(new Error('gone'), { code: 'ECONNREFUSED' })),
    ),
  );
  await t.rejects(metrics.statementInstrument('list-pets', () => Promise.reject(new Error('syntax'))));
  const counts = (await valuesOf(metrics, 'db_client_operation_duration_seconds'))
    .filter(({ metricName }) => metricName === 'db_client_operation_duration_seconds_count')
    .map(({ labels, value }) => ({ ...labels, value }));
  t.same(counts, [
    { db_system_name: 'postgresql', db_operation_name: 'get-pet', error_type: '', value: 1 },
    { db_system_name: 'postgresql', db_operation_name: 'list-pets', error_type: 'unavailable', value: 1 },
    { db_system_name: 'postgresql', db_operation_name: 'list-pets', error_type: 'error', value: 1 },
  ]);
  const pool = { totalCount: 7, idleCount: 3, waitingCount: 2 };
  metrics.observePool(pool, 10);
  const text = async () => metrics.registry.metrics();
  t.match(
    await text(),
    /db_client_connection_count\{db_client_connection_state="used"\} 4\n.*db_client_connection_count\{db_client_connection_state="idle"\} 3/s,
  );
  t.match(await text(), /db_client_connection_pending_requests 2\n/);
  t.match(await text(), /db_client_connection_max 10\n/);
  pool.idleCount = 7;
  t.match(await text(), /db_client_connection_state="used"\} 0\n/, 'read again at the next scrape');
});

t.test('the runtime metrics of prom-client come with them', async (t) => {
  const text = await createServiceMetrics().registry.metrics();
  for (const name of [
    'process_cpu_seconds_total',
    'process_resident_memory_bytes',
    'nodejs_heap_size_used_bytes',
    'nodejs_eventloop_lag_p99_seconds',
    'nodejs_gc_duration_seconds',
  ]) {
    t.match(text, `# TYPE ${name} `, name);
  }
});

t.test('instruments compose around a statement, the first outermost', async (t) => {
  const order: string[] = [];
  const named =
    (name: string) =>
    async <T>(statement: string, run: () => Promise<T>) => {
      order.push(`${name} ${statement}`);
      const result = await run();
      order.push(`${name} done`);
      return result;
    };
  t.equal(composeInstruments([undefined, undefined]), undefined);
  const only = named('only');
  t.equal(composeInstruments([undefined, only]), only);
  const both = composeInstruments([named('outer'), undefined, named('inner')])!;
  t.equal(await both('get-pet', async () => order.push('run')), 3);
  t.same(order, ['outer get-pet', 'inner get-pet', 'run', 'inner done', 'outer done']);
});

t.test('the metrics listener serves GET /metrics and nothing else', async (t) => {
  const metrics = createServiceMetrics({ runtime: false });
  metrics.requestRecorder('/v1/pets', 'listPets')('GET', 200, 0.001);
  const server = await listenForMetrics(metrics.registry, '127.0.0.1', 0);
  t.teardown(() => server.close());
  const url = `http://127.0.0.1:${server.port}`;
  const scrape = await fetch(`${url}/metrics?x=1`);
  t.equal(scrape.status, 200);
  t.equal(scrape.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  t.match(await scrape.text(), 'http_server_request_duration_seconds_count{');
  const head = await fetch(`${url}/metrics`, { method: 'HEAD' });
  t.equal(head.status, 200);
  t.equal(await head.text(), '');
  for (const [method, path] of [
    ['GET', '/'],
    ['GET', '/v1/pets'],
    ['POST', '/metrics'],
  ] as const) {
    t.equal((await fetch(`${url}${path}`, { method })).status, 404, `${method} ${path}`);
  }
  const { Gauge } = await import('prom-client');
  new Gauge({
    name: 'broken',
    help: 'fails to collect',
    registers: [metrics.registry],
    collect: () => Promise.reject(new Error('no reading')),
  });
  const failed = await fetch(`${url}/metrics`);
  t.equal(failed.status, 500);
  t.match(await failed.text(), 'no reading');
});

t.test('a port in use is refused at start', async (t) => {
  const registry = createServiceMetrics({ runtime: false }).registry;
  const first = await listenForMetrics(registry, '127.0.0.1', 0);
  t.teardown(() => first.close());
  await t.rejects(listenForMetrics(registry, '127.0.0.1', first.port), { code: 'EADDRINUSE' });
});

t.test('webhook deliveries by endpoint and result, and the age of the oldest undelivered event', async (t) => {
  const metrics = createServiceMetrics({ runtime: false });
  metrics.webhooks.delivered('shop.example/hooks', 'delivered');
  metrics.webhooks.delivered('shop.example/hooks', 'failed');
  metrics.webhooks.delivered('shop.example/hooks', 'failed');
  metrics.webhooks.backlog('shop.example/hooks', 12.5);
  const text = await metrics.registry.metrics();
  t.match(text, /petstore_webhook_deliveries_total\{endpoint="shop.example\/hooks",result="failed"\} 2/);
  t.match(text, /petstore_webhook_deliveries_total\{endpoint="shop.example\/hooks",result="delivered"\} 1/);
  t.match(text, /petstore_webhook_oldest_undelivered_seconds\{endpoint="shop.example\/hooks"\} 12.5/);
});
