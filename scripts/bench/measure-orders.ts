// What an order costs on PostgreSQL (issue 56): a place and its completion, against a create, on one
// service instance over one database, in the same rounds. Each order holds a pet seeded available
// (one of many, never the same twice), then completes; CPU per request counts the service process
// and every process of the database cluster.
import pg from 'pg';
import { createLoads, type DatabaseSample } from './load.js';
import type { BenchOptions } from './options.js';
import type { BenchDatabase } from './postgres-database.js';
import { stop, type Servers } from './servers.js';
import { median, ratio, round } from './statistics.js';
import { createWorkload, type Workload } from './workloads.js';

export interface OrderCosts {
  create: DatabaseSample;
  order: DatabaseSample;
}

const NAME = 'bench_orders';
// More available pets than a round of orders can hold (about 2,000 orders a second on 2 cores).
const AVAILABLE = 100_000;

/** place, then complete the order it served, each on a pet of its own: ids 1… of the seeded pets. */
export function orderWorkload(AUTH: Record<string, string>): Workload {
  let next = 0;
  return {
    name: 'order (place, then complete)',
    path: '/v1/store/orders',
    options: () => ({
      requests: [
        {
          method: 'POST',
          headers: { ...AUTH, 'content-type': 'application/json' },
          setupRequest: (request) => ({ ...request, body: `{"petId":${++next}}` }),
          onResponse: (_status, body, context) => {
            (context as Record<string, unknown>)['order'] = /"id":(\d+)/.exec(body)?.[1];
          },
        },
        {
          method: 'POST',
          headers: AUTH,
          setupRequest: (request, context) => ({
            ...request,
            path: `/v1/store/orders/${String((context as Record<string, unknown>)['order'])}/complete`,
          }),
        },
      ],
    }),
  };
}

export async function measureOrderCosts(
  database: BenchDatabase,
  options: BenchOptions,
  { AUTH, start }: Pick<Servers, 'AUTH' | 'start'>,
): Promise<OrderCosts> {
  const { rounds, duration } = options;
  const { warmUp, loadWithDatabase } = createLoads(options, AUTH);
  const samples = { create: [] as DatabaseSample[], order: [] as DatabaseSample[] };
  for (let index = 0; index < rounds; index++) {
    const url = await database.prepare(NAME, 0);
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      await pool.query(
        `INSERT INTO pets (name, category_id, status) SELECT 'pet ' || i, 1, 'available' FROM generate_series(1, $1) i`,
        [AVAILABLE],
      );
      await pool.query('VACUUM ANALYZE pets');
    } finally {
      await pool.end();
    }
    const server = await start('service', 0, { env: { DATABASE_URL: url } });
    try {
      const order = orderWorkload(AUTH);
      const create = createWorkload(AUTH);
      // In turn, one first in even rounds and the other in odd ones, so that drift hits both alike.
      const pair =
        index % 2 === 0
          ? ([
              ['create', create],
              ['order', order],
            ] as const)
          : ([
              ['order', order],
              ['create', create],
            ] as const);
      for (const [name, workload] of pair) {
        await warmUp(server, workload, 0);
        samples[name].push(
          await loadWithDatabase(server, workload, { pets: 0, seconds: duration }, { database, name: NAME }),
        );
      }
    } finally {
      await stop(server);
    }
  }
  const of = (list: DatabaseSample[]): DatabaseSample => ({
    rps: median(list.map((sample) => sample.rps)),
    p99: median(list.map((sample) => sample.p99)),
    cpuPerRequest: median(list.map((sample) => sample.cpuPerRequest)),
    statementsPerRequest: median(list.map((sample) => sample.statementsPerRequest)),
    databaseCpuPerRequest: median(list.map((sample) => sample.databaseCpuPerRequest)),
  });
  const costs = { create: of(samples.create), order: of(samples.order) };
  console.error(
    `  PostgreSQL orders: CPU per request, order ÷ create ${ratio(total(costs.order), total(costs.create))}`,
  );
  return costs;
}

/** Service and database CPU of one request. */
const total = (sample: DatabaseSample) => sample.cpuPerRequest + sample.databaseCpuPerRequest;

/** The table of orders against creates, with the goal of issue 56. */
export function orderCostsReport({ create, order }: OrderCosts): string {
  const row = (name: string, sample: DatabaseSample) =>
    `| ${name} | ${round(sample.rps)} | ${round(sample.p99, 1)} | ${round(sample.cpuPerRequest * 1e6, 1)} | ${round(sample.databaseCpuPerRequest * 1e6, 1)} | ${round(total(sample) * 1e6, 1)} | ${round(sample.statementsPerRequest, 2)} |`;
  return [
    "Orders on PostgreSQL: a place and its completion (each a request, each one PL/pgSQL call under the write lock) against a create, on one instance over one database, in the same rounds (medians). CPU is the service process's plus the whole cluster's, per answered request.",
    '',
    '| workload | req/s | p99 ms | service CPU µs/req | DB CPU µs/req | CPU µs/req | statements/req |',
    '|---|---:|---:|---:|---:|---:|---:|',
    row('create', create),
    row('order (place, then complete)', order),
    '',
    `- An order request costs ${ratio(total(order), total(create))}× a create in CPU (goal: at most 2.5×); a whole order, place and completion, ${ratio(2 * total(order), total(create))}×.`,
  ].join('\n');
}
