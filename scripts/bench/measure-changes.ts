// Changes with and without an Idempotency-Key on PostgreSQL (issue 57), as the typed client sends
// them: 64 callers round-robin over three instances of the service on one database, If-Match: *,
// each keyed request a key of its own (a first try). Updates name a random one of 500 pets;
// removals take the seeded pets in turn, each once. Every load runs with PostgreSQL's own commit
// latency and with 1 ms more (commit_delay), as a networked disk or a synchronous standby adds.
import type autocannon from 'autocannon';
import { spreadLoad } from './load.js';
import type { BenchOptions } from './options.js';
import type { BenchDatabase } from './postgres-database.js';
import { stop, type Server, type Servers } from './servers.js';
import { median, ratio, round } from './statistics.js';

const INSTANCES = 3;
const CALLERS = 64;
const UPDATED_PETS = 500;
/** More pets than a load of removals can take, warm-up included (at most about 7,000 a second on 2 cores). */
const seededFor = (seconds: number) => UPDATED_PETS + Math.ceil(seconds * 12_000);
const COMMIT_DELAYS_MS = [0, 1];
const LOADS = ['update', 'update, keyed', 'remove', 'remove, keyed', 'create, keyed'] as const;
type LoadName = (typeof LOADS)[number];

export interface ChangeCell {
  commitDelayMs: number;
  load: LoadName;
  rps: number;
  p50: number;
  p99: number;
}

/** What each load sends: its method, and a request maker that gives each a pet, and a key if keyed. */
function requestsOf(load: LoadName, AUTH: Record<string, string>, unique: () => string): autocannon.Request[] {
  const keyed = load.endsWith('keyed');
  const key = <Headers extends object>(headers: Headers) =>
    keyed ? { ...headers, 'idempotency-key': `"${unique()}"` } : headers;
  if (load.startsWith('create'))
    return [
      {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Rex', categoryId: 3, status: 'available' }),
        setupRequest: (request) => ({ ...request, path: '/v1/pets', headers: key(request.headers ?? {}) }),
      },
    ];
  if (load.startsWith('update'))
    return [
      {
        method: 'PATCH',
        headers: { ...AUTH, 'content-type': 'application/merge-patch+json', 'if-match': '*' },
        setupRequest: (request) => ({
          ...request,
          path: `/v1/pets/${1 + Math.floor(Math.random() * UPDATED_PETS)}`,
          headers: key(request.headers ?? {}),
          body: `{"name":"${unique()}"}`,
        }),
      },
    ];
  let next = UPDATED_PETS;
  return [
    {
      method: 'DELETE',
      headers: { ...AUTH, 'if-match': '*' },
      setupRequest: (request) => ({ ...request, path: `/v1/pets/${++next}`, headers: key(request.headers ?? {}) }),
    },
  ];
}

/** `requests` from CALLERS connections over the servers for `seconds`: responses per second, p50 and p99 in ms. */
async function fire(
  servers: readonly Server[],
  requests: autocannon.Request[],
  { seconds, label, warmUp = false }: { seconds: number; label: string; warmUp?: boolean },
) {
  // A warm-up may end before its first response, as load.ts's do: fresh instances on a busy machine.
  const result = await spreadLoad(servers, { requests }, { clients: CALLERS, seconds, label, warmUp });
  return { rps: result['2xx'] / (result.duration || seconds), p50: result.latency.p50, p99: result.latency.p99 };
}

export async function measureChanges(
  database: BenchDatabase,
  { rounds, duration }: Pick<BenchOptions, 'rounds' | 'duration'>,
  { AUTH, start }: Pick<Servers, 'AUTH' | 'start'>,
): Promise<ChangeCell[]> {
  const cells: ChangeCell[] = [];
  let sent = 0;
  const prefix = `bench-changes-${process.pid}-${Date.now()}`;
  const unique = () => `${prefix}-${++sent}`;
  for (const commitDelayMs of COMMIT_DELAYS_MS) {
    const samples = new Map<LoadName, { rps: number; p50: number; p99: number }[]>();
    for (let index = 0; index < rounds; index++) {
      // In a turned order each round, so that drift hits every load alike.
      const order = LOADS.map((_, position) => LOADS[(position + index) % LOADS.length]!);
      for (const load of order) {
        const url = await database.prepare('bench_changes', seededFor(Math.min(1, duration) + Math.max(1, duration)), {
          commit_delay: commitDelayMs * 1000,
          commit_siblings: 0,
        });
        const servers = await Promise.all(
          Array.from({ length: INSTANCES }, () => start('service', 0, { env: { DATABASE_URL: url } })),
        );
        try {
          const requests = requestsOf(load, AUTH, unique);
          await fire(servers, requests, { seconds: Math.min(1, duration), label: `${load} (warm-up)`, warmUp: true });
          // At least a second: a shorter window holds too few responses for a p99.
          const sample = await fire(servers, requests, { seconds: Math.max(1, duration), label: load });
          samples.set(load, [...(samples.get(load) ?? []), sample]);
        } finally {
          for (const server of servers) await stop(server);
        }
      }
    }
    for (const load of LOADS) {
      const list = samples.get(load)!;
      const of = (field: 'rps' | 'p50' | 'p99') => median(list.map((sample) => sample[field]));
      const cell = { commitDelayMs, load, rps: of('rps'), p50: of('p50'), p99: of('p99') };
      cells.push(cell);
      console.error(
        `  PostgreSQL changes, commit +${commitDelayMs} ms, ${load}: ${round(cell.rps)}/s, p50 ${cell.p50} ms, p99 ${cell.p99} ms`,
      );
    }
  }
  return cells;
}

/** The table of keyed changes beside unkeyed ones, with issue 57's goals. */
export function changesReport(cells: readonly ChangeCell[]): string {
  const lines = [
    `Changes with and without an Idempotency-Key on PostgreSQL: ${CALLERS} callers round-robin over ${INSTANCES} instances on one database, If-Match: *, each keyed request a new key; updates of ${UPDATED_PETS} pets, removals each of another pet (medians over the rounds). "Commit +1 ms": commit_delay = 1000 µs, commit_siblings = 0.`,
    '',
    '| commit | load | answers/s | p50 ms | p99 ms | throughput ÷ update | p99 ÷ update |',
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  const goals: string[] = [];
  for (const commitDelayMs of COMMIT_DELAYS_MS) {
    const of = (load: LoadName) => cells.find((cell) => cell.commitDelayMs === commitDelayMs && cell.load === load)!;
    const update = of('update');
    const commit = commitDelayMs === 0 ? 'local disk' : `+${commitDelayMs} ms`;
    for (const load of LOADS) {
      const cell = of(load);
      lines.push(
        `| ${commit} | ${load} | ${round(cell.rps)} | ${round(cell.p50, 1)} | ${round(cell.p99, 1)} | ${ratio(cell.rps, update.rps)} | ${ratio(cell.p99, update.p99)} |`,
      );
    }
    const met = (['update, keyed', 'remove, keyed'] as const).every(
      (load) => of(load).rps >= update.rps / 2 && of(load).p99 <= update.p99 * 2,
    );
    goals.push(`${commit}: ${met ? 'met' : 'missed'}`);
  }
  lines.push(
    '',
    `- Keyed updates and removals at least half the throughput of unkeyed updates, p99 at most twice theirs: ${goals.join('; ')}.`,
  );
  return lines.join('\n');
}
