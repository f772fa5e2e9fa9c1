// Quotas as a client meets them, in process: the documented 429 with Retry-After and the RateLimit
// fields, per client and by default; counted in the metrics; no log line per refused request.
import t from 'tap';
import { keyTableOf } from '../../src/auth/key-table.js';
import { rolesOf } from '../../src/auth/roles.js';
import { createQuotas } from '../../src/limits/quotas.js';
import { createRateLimiter, REJECTION_DELAY_MS } from '../../src/limits/rate-limiter.js';
import { createServiceMetrics } from '../../src/metrics/service-metrics.js';
import { API_KEY, buildTestApp, OTHER_API_KEY } from '../helpers/build-app.js';
import { checkContract } from '../helpers/contract.js';
import { specCopy } from '../helpers/spec.js';

const list = (key: string) => ({
  method: 'GET' as const,
  url: '/v1/pets',
  headers: { authorization: `Bearer ${key}` },
});
const HOUR = 3600;

t.test(
  'over its quota a client gets the documented 429, with Retry-After and the RateLimit fields; others keep theirs',
  async (t) => {
    const table = keyTableOf(
      [
        { client: 'reporting', key: API_KEY },
        { client: 'app', key: OTHER_API_KEY },
      ],
      rolesOf(specCopy()),
      {
        default: { requests: 3, windowSeconds: HOUR },
        clients: new Map([['reporting', { requests: 2, windowSeconds: HOUR }]]),
      },
    );
    const metrics = createServiceMetrics({ runtime: false });
    // Rejections sent at once (the service waits REJECTION_DELAY_MS; the benchmark measures them so).
    const { app, logs } = await buildTestApp(t, { apiKeys: { table }, metrics, rejectionDelayMs: 0 });
    t.equal((await app.inject(list(API_KEY))).statusCode, 200);
    t.equal((await app.inject(list(API_KEY))).statusCode, 200);
    const refused = await app.inject(list(API_KEY));
    t.equal(refused.statusCode, 429);
    t.same(refused.json(), {
      code: 'TOO_MANY_REQUESTS',
      message: `This client has used its quota of 2 requests per ${HOUR} s; retry after 1800 s (Retry-After).`,
      status: 429,
    });
    t.equal(refused.headers['retry-after'], '1800', 'half an hour: one request of two an hour');
    t.equal(refused.headers['ratelimit-policy'], `"client";q=2;w=${HOUR}`);
    t.equal(refused.headers['ratelimit'], '"client";r=0;t=1800');
    checkContract(t, refused, 'listPets');

    for (let index = 0; index < 3; index++)
      t.equal((await app.inject(list(OTHER_API_KEY))).statusCode, 200, 'another client has its own, the default');
    const byDefault = await app.inject({
      method: 'POST',
      url: '/v1/pets',
      headers: { authorization: `Bearer ${OTHER_API_KEY}`, 'content-type': 'application/json' },
      payload: '{"name":"Rex","categoryId":1}',
    });
    t.equal(byDefault.statusCode, 429, 'every operation counts against it');
    t.equal(byDefault.headers['ratelimit-policy'], `"default";q=3;w=${HOUR}`);
    checkContract(t, byDefault, 'createPet');

    const counted = (await metrics.registry.getSingleMetric('petstore_rate_limited_requests_total')!.get()).values;
    t.same(
      counted.map(({ labels, value }) => ({ ...labels, value })),
      [
        { client: 'reporting', reason: 'quota', value: 1 },
        { client: 'app', reason: 'quota', value: 1 },
      ],
    );
    t.equal(
      logs()
        .split('\n')
        .filter((line) => line.includes('"statusCode":429') || line.includes('"status":429')).length,
      0,
      'no line per refused request',
    );
    t.match(logs(), /"statusCode":200|"status":200/, 'the admitted ones are logged');
  },
);

t.test('the rejections are summed up in the log, a line per client and reason, not one per request', async (t) => {
  const lines: Record<string, unknown>[] = [];
  const log = { warn: (fields: Record<string, unknown>, message: string) => void lines.push({ ...fields, message }) };
  const policy = { default: { requests: 1, windowSeconds: HOUR }, clients: new Map() };
  const limiter = createRateLimiter({
    quotas: createQuotas(() => 1),
    policy: () => policy,
    log: log as never,
    logEveryMs: 20,
  });
  t.teardown(() => limiter.close());
  const request = { client: 'flood', rateLimited: false } as never;
  const sent: unknown[] = [];
  const reply: Record<string, (value?: unknown) => unknown> = {};
  Object.assign(reply, {
    code: () => reply,
    headers: () => reply,
    type: () => reply,
    send: (body: unknown) => void sent.push(body),
  });
  t.equal(limiter.limit(request, reply as never), false, 'the first is admitted');
  let refused = 0;
  for (let index = 0; index < 50; index++) if (limiter.limit(request, reply as never)) refused += 1;
  t.equal(refused, 50);
  t.equal(sent.length, 0, 'not yet answered: a rejection waits REJECTION_DELAY_MS');
  await new Promise((resolve) => setTimeout(resolve, REJECTION_DELAY_MS + 50));
  t.equal(sent.length, 50, 'then each is answered');
  t.same(lines, [
    {
      client: 'flood',
      reason: 'quota',
      refused: 50,
      message: 'refused 50 requests of client flood in the last 0.02 s (quota)',
    },
  ]);
});
