// The service as an operator runs it, scraped by a real Prometheus server: after a known sequence of
// requests, PromQL gives the exact counts per operation, status and client, and the deprecated
// calls per client, on both stores; random unknown paths add one series, not one each; no key
// appears in the metrics or the logs. The alerting rules under deploy/ pass promtool.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import t, { type Test } from 'tap';
import { unnamedClientOf } from '../../src/auth/api-clients.js';
import { startTestDatabase } from '../helpers/postgres.js';
import { PROMTOOL, startPrometheus, whyNoPrometheus, type Prometheus } from '../helpers/prometheus.js';
import { startServer, type Running } from '../helpers/server-process.js';

// Four test processes on two cores, a Prometheus and servers of their own: more than tap's default.
t.setTimeout(150_000);

const MOBILE = `mobile-${randomBytes(12).toString('hex')}`;
const BILLING = `billing-${randomBytes(12).toString('hex')}`;
const UNNAMED = `unnamed-${randomBytes(12).toString('hex')}`;
const API_KEYS = `mobile-app:${MOBILE},billing:${BILLING},${UNNAMED}`;

interface Instance {
  name: string;
  server: Running;
  base: string;
  metrics: string;
}

async function startInstance(t: Test, name: string, env: Record<string, string> = {}): Promise<Instance> {
  const server = await startServer({ API_KEYS, METRICS_PORT: '0', ...env });
  t.teardown(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
  });
  const metricsPort = /metrics at http:\/\/127\.0\.0\.1:(\d+)\/metrics/.exec(server.output())?.[1];
  if (metricsPort === undefined) throw new Error(`no metrics port in: ${server.output()}`);
  return { name, server, base: `http://127.0.0.1:${server.port}`, metrics: `127.0.0.1:${metricsPort}` };
}

/** The known sequence: 14 requests, 5 of them authenticated calls of the deprecated getPet. */
async function knownRequests({ base }: Instance): Promise<void> {
  const call = async (method: string, path: string, key?: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    await response.arrayBuffer();
    return response.status;
  };
  const created = [];
  for (const name of ['Rex', 'Tom', 'Kit'])
    created.push(await call('POST', '/v1/pets', MOBILE, { name, categoryId: 1 }));
  const responses = [
    ...created,
    await call('POST', '/v1/pets', MOBILE, { name: 'Rex' }),
    await call('GET', '/v1/pets?limit=2', MOBILE),
    await call('GET', '/v1/pets?status=sold', MOBILE),
    await call('GET', '/v1/pets/1', MOBILE),
    await call('GET', '/v1/pets/1', MOBILE),
    await call('GET', '/v1/pets/999', MOBILE),
    await call('GET', '/v1/pets/2', BILLING),
    await call('GET', '/v1/pets', BILLING),
    await call('GET', '/v1/pets/3', UNNAMED),
    await call('GET', '/v1/pets'),
    await call('GET', '/v1/pets/1', `${MOBILE}x`),
  ];
  if (responses.join() !== '201,201,201,400,200,200,200,200,404,200,200,200,401,401')
    throw new Error(`unexpected answers ${responses.join()}`);
}

const byLabels = (samples: { labels: Record<string, string>; value: number }[], names: string[]) =>
  Object.fromEntries(samples.map(({ labels, value }) => [names.map((name) => labels[name]).join(' '), value]));

async function checkCounts(t: Test, prometheus: Prometheus, instance: Instance) {
  const where = `job="petstore", instance="${instance.metrics}"`;
  await prometheus.until(`sum(http_server_request_duration_seconds_count{${where}})`, 14);
  const labels = ['http_request_method', 'http_route', 'http_response_status_code', 'operation_id'];
  t.same(
    byLabels(
      await prometheus.query(`sum by (${labels.join(', ')}) (http_server_request_duration_seconds_count{${where}})`),
      labels,
    ),
    {
      'POST /v1/pets 201 createPet': 3,
      'POST /v1/pets 400 createPet': 1,
      'GET /v1/pets 200 listPets': 3,
      'GET /v1/pets 401 listPets': 1,
      'GET /v1/pets/{petId} 200 getPet': 4,
      'GET /v1/pets/{petId} 404 getPet': 1,
      'GET /v1/pets/{petId} 401 getPet': 1,
    },
    `${instance.name}: every request, by method, route, status and operation`,
  );
  t.same(
    byLabels(
      await prometheus.query(`sum by (operation_id, client) (petstore_deprecated_operation_requests_total{${where}})`),
      ['operation_id', 'client'],
    ),
    { 'getPet mobile-app': 3, 'getPet billing': 1, [`getPet ${unnamedClientOf(UNNAMED)}`]: 1 },
    `${instance.name}: deprecated calls per client; the call with a wrong key is not one`,
  );
  const p99 = (await prometheus.value(
    `histogram_quantile(0.99, sum by (le) (http_server_request_duration_seconds_bucket{${where}, operation_id="createPet"}))`,
  ))!;
  t.ok(p99 > 0 && p99 <= 10, `${instance.name}: a p99 from the buckets, in seconds (${p99})`);
  t.ok((await prometheus.value(`process_resident_memory_bytes{${where}}`))! > 0, 'runtime metrics');
  t.equal(
    (await prometheus.value(`nodejs_eventloop_lag_p99_seconds{${where}} >= 0`)) !== undefined,
    true,
    'event-loop delay',
  );
}

async function checkNoSecrets(t: Test, instance: Instance) {
  const text = await (await fetch(`http://${instance.metrics}/metrics`)).text();
  // Request lines are written in blocks, at the latest a second after they were logged.
  for (
    const deadline = Date.now() + 10_000;
    !instance.server.output().includes('"status":401') && Date.now() < deadline;
  ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const logs = instance.server.output();
  for (const key of [MOBILE, BILLING, UNNAMED]) {
    t.notMatch(text, key, `${instance.name}: no key in the metrics`);
    t.notMatch(logs, key, `${instance.name}: no key in the logs`);
  }
  t.notMatch(text, /Rex|Tom|Kit|limit=|status=sold/, 'no pet field or query in the metrics');
  t.match(logs, /"client":"mobile-app"/, 'request lines name the client');
}

t.test('the alerting rules are valid and pass their unit tests', async (t) => {
  if (whyNoPrometheus(t) !== undefined) return;
  const run = (args: string[]) => execFileSync(PROMTOOL, args, { cwd: 'deploy/prometheus', encoding: 'utf8' });
  t.match(run(['check', 'rules', 'alerts.yml']), /SUCCESS: 8 rules found/);
  t.match(run(['test', 'rules', 'alerts.test.yml']), /SUCCESS/);
  t.match(run(['check', 'config', 'prometheus.yml']), /is valid prometheus config file syntax/);
});

t.test('Prometheus scrapes exact counts per operation, status and client, in memory and on PostgreSQL', async (t) => {
  if (whyNoPrometheus(t) !== undefined) return;
  const memory = await startInstance(t, 'in memory');
  const database = await startTestDatabase(t);
  const postgres =
    database === undefined
      ? undefined
      : await startInstance(t, 'PostgreSQL', { DATABASE_URL: await database.freshSchema() });
  const instances = postgres === undefined ? [memory] : [memory, postgres];
  const prometheus = await startPrometheus(
    t,
    instances.map(({ metrics }) => metrics),
  );
  await prometheus.until(`count(up{job="petstore"} == 1)`, instances.length);

  for (const instance of instances) await knownRequests(instance);
  for (const instance of instances) await checkCounts(t, prometheus, instance);

  if (postgres !== undefined) {
    const where = `instance="${postgres.metrics}"`;
    const {
      'expire-orders ': sweeps,
      'list-endpoints ': looks,
      ...statements
    } = byLabels(
      await prometheus.query(
        `sum by (db_operation_name, error_type) (db_client_operation_duration_seconds_count{${where}})`,
      ),
      ['db_operation_name', 'error_type'],
    );
    // The sweep of expired orders runs each second: how many times depends on how long the test ran.
    t.ok(Number(sweeps) >= 1, `the orders' sweep ran (${String(sweeps)} times), each a statement of its own`);
    // So does the look for webhook endpoints added through the API.
    t.ok(Number(looks) >= 1, `the webhook endpoints were read (${String(looks)} times), each a statement of its own`);
    t.same(
      statements,
      {
        'create-pet ': 3,
        'list-pets ': 2,
        'list-pets-by-status ': 1,
        'get-pet ': 5,
        'adopt-key-records ': 1,
        'purge-idempotency-keys ': 1,
        'purge-change-keys ': 1,
        'purge-order-keys ': 1,
        'purge-pet-events ': 1,
      },
      'one statement per operation that reached the store, by name, and the adoption and purges an instance runs once its schema is current',
    );
    t.equal(await prometheus.value(`db_client_connection_max{${where}}`), 10, 'DATABASE_POOL_MAX');
    t.equal(
      (await prometheus.value(`sum(db_client_connection_count{${where}})`)) !== undefined,
      true,
      'pool connections by state',
    );
    t.equal(
      await prometheus.value(`db_client_connection_pending_requests{${where}}`),
      0,
      'nothing waits for a connection at rest',
    );
  }
  for (const instance of instances) await checkNoSecrets(t, instance);

  // Every path no route matches shares one label set: the first adds its 19 series (16 buckets,
  // +Inf, sum and count), a hundred random ones after it add none.
  const series = `count({__name__=~"http_server_request_duration_seconds.*|petstore_.*", instance="${memory.metrics}"})`;
  const unknown = async (count: number) => {
    for (let request = 0; request < count; request++) {
      const path = `/${randomBytes(6).toString('hex')}/${request % 2 === 0 ? 'v1/' : ''}${randomBytes(4).toString('hex')}?q=${request}`;
      await (await fetch(`${memory.base}${path}`, { headers: { authorization: `Bearer ${MOBILE}` } })).arrayBuffer();
    }
  };
  const known = (await prometheus.value(series))!;
  await unknown(1);
  await prometheus.until(`sum(http_server_request_duration_seconds_count{instance="${memory.metrics}"})`, 15);
  t.equal(await prometheus.value(series), known + 19, 'the first unknown path: one new label set');
  await unknown(100);
  await prometheus.until(`sum(http_server_request_duration_seconds_count{instance="${memory.metrics}"})`, 115);
  t.equal(await prometheus.value(series), known + 19, 'a hundred random unknown paths after it: no new series');
  t.equal(
    await prometheus.value(
      `sum(http_server_request_duration_seconds_count{instance="${memory.metrics}", http_route="", http_response_status_code="404"})`,
    ),
    101,
  );
});
