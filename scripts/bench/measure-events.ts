// The change feed's measurements on PostgreSQL: what recording events costs creates (the same
// load with migration 5's triggers on and off, in alternating rounds of one run), and how soon a
// follower long-polling listPetEvents sees a change after it was acknowledged: on the instance that
// served the write (woken at once) and on another one (found by its poll).
import pg from 'pg';
import { createLoad } from './load.js';
import type { BenchOptions } from './options.js';
import type { BenchDatabase } from './postgres-database.js';
import { median, round } from './statistics.js';
import { cpuSeconds, stop, type Server, type Servers } from './servers.js';

const CLIENTS = [16, 64];
/** Creates the follower waits for: 100 per second of --duration (300 in a full run), at least 50. */
const followedCreates = (duration: number) => Math.max(50, Math.min(300, Math.round(duration * 100)));
const CREATE_EVERY_MS = 20;

export interface EventsCostCell {
  clients: number;
  events: 'on' | 'off';
  createsPerSecond: number;
  p99: number;
  serviceCpuPerCreate: number;
  databaseCpuPerCreate: number;
}

export interface FollowerLatency {
  where: 'same instance' | 'another instance';
  creates: number;
  p50: number;
  p99: number;
  max: number;
}

const BODY = JSON.stringify({ name: 'Rex', categoryId: 3, status: 'available' });

export function createEventsMeasurements({ rounds, duration }: BenchOptions, { AUTH, start }: Servers) {
  /** Creates per second with the event triggers on and off, alternating which goes first each round. */
  async function measureEventsCost(database: BenchDatabase): Promise<EventsCostCell[]> {
    const samples = new Map<string, Omit<EventsCostCell, 'clients' | 'events'>[]>();
    for (let index = 0; index < rounds; index++) {
      for (const events of index % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
        const url = await database.prepare('bench_events', 0);
        if (events === 'off') {
          const pool = new pg.Pool({ connectionString: url, max: 1 });
          for (const trigger of ['pets_created', 'pets_updated', 'pets_deleted'])
            await pool.query(`ALTER TABLE pets DISABLE TRIGGER ${trigger}`);
          await pool.end();
        }
        const server = await start('service', 0, { env: { DATABASE_URL: url } });
        try {
          for (const clients of CLIENTS) {
            await loadOf(AUTH, server, { clients, seconds: Math.min(1, duration), warmUp: true });
            const serviceBefore = cpuSeconds(server.pid);
            const databaseBefore = database.cpuSeconds();
            const { creates, seconds, p99 } = await loadOf(AUTH, server, { clients, seconds: duration });
            const key = `${clients} ${events}`;
            samples.set(key, [
              ...(samples.get(key) ?? []),
              {
                createsPerSecond: creates / seconds,
                p99,
                serviceCpuPerCreate: (cpuSeconds(server.pid) - serviceBefore) / creates,
                databaseCpuPerCreate: (database.cpuSeconds() - databaseBefore) / creates,
              },
            ]);
          }
        } finally {
          await stop(server);
        }
      }
    }
    return costCells(samples);
  }

  /**
   * A follower long-polls one instance (wait=30) while creates, one every 20 ms, are sent to the
   * same instance or to another on the same database; each create's latency is from its 201 to the
   * follower's response holding its event.
   */
  async function measureFollowerLatency(database: BenchDatabase): Promise<FollowerLatency[]> {
    const results: FollowerLatency[] = [];
    const url = await database.prepare('bench_follow', 0);
    const servers = [
      await start('service', 0, { env: { DATABASE_URL: url } }),
      await start('service', 0, { env: { DATABASE_URL: url } }),
    ];
    try {
      for (const where of ['same instance', 'another instance'] as const) {
        const writer = servers[0]!;
        const reader = where === 'same instance' ? servers[0]! : servers[1]!;
        const seen = new Map<string, number>();
        const acknowledged = new Map<string, number>();
        const following = new AbortController();
        const base = `http://127.0.0.1:${reader.port}/v1/pet-events`;
        // From the end of the feed as it stands, read without waiting (a long poll there waited its
        // whole 30 s for a change that no one was making); then followed with long polls.
        let next = `${base}?wait=0&limit=1000`;
        for (;;) {
          const response = await fetch(next, { headers: AUTH });
          const events = (await response.json()) as unknown[];
          next = new URL(/<([^>]+)>/.exec(response.headers.get('link')!)![1]!, base).href;
          if (events.length === 0) break;
        }
        next = next.replace('wait=0', 'wait=30');
        const follower = (async () => {
          while (!following.signal.aborted) {
            const response = await fetch(next, { headers: AUTH, signal: following.signal }).catch(() => undefined);
            if (response === undefined) return;
            const events = (await response.json()) as { petId: number }[];
            const at = performance.now();
            for (const event of events) seen.set(String(event.petId), at);
            next = new URL(/<([^>]+)>/.exec(response.headers.get('link')!)![1]!, base).href;
          }
        })();
        for (let index = 0; index < followedCreates(duration); index++) {
          const response = await fetch(`http://127.0.0.1:${writer.port}/v1/pets`, {
            method: 'POST',
            headers: { ...AUTH, 'content-type': 'application/json' },
            body: BODY,
          });
          const { id } = (await response.json()) as { id: number };
          acknowledged.set(String(id), performance.now());
          await new Promise((resolve) => setTimeout(resolve, CREATE_EVERY_MS));
        }
        const deadline = performance.now() + 10_000;
        while (seen.size < acknowledged.size && performance.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 20));
        following.abort();
        await follower;
        if (seen.size < acknowledged.size)
          throw new Error(`the follower saw ${seen.size} of ${acknowledged.size} creates within 10 s of the last`);
        // Seen before the writer read its 201 (both on this process's loop): no wait at all.
        const latencies = [...acknowledged].map(([id, at]) => Math.max(0, seen.get(id)! - at)).sort((a, b) => a - b);
        const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!;
        const result = { where, creates: latencies.length, p50: at(0.5), p99: at(0.99), max: latencies.at(-1)! };
        results.push(result);
        console.error(
          `  PostgreSQL follower, ${where}: a change seen p50 ${round(result.p50, 1)} ms, p99 ${round(result.p99, 1)} ms, max ${round(result.max, 1)} ms after its 201`,
        );
      }
    } finally {
      for (const server of servers) await stop(server);
    }
    return results;
  }

  return { measureEventsCost, measureFollowerLatency, eventsReport };
}

function eventsReport(cost: EventsCostCell[], follower: FollowerLatency[]): string {
  if (cost.length === 0 && follower.length === 0) return '';
  const lines = [
    "**The change feed on PostgreSQL.** Creates with the event triggers on and off, one service instance, alternating rounds (medians); and a follower long-polling `listPetEvents` (`wait=30`) while a create is sent every 20 ms, latency from the 201 to the follower's answer holding the event.",
    '',
    '| clients | creates/s with events | creates/s without | throughput cost | p99 ms with / without | service CPU µs/create with / without | database CPU µs/create with / without |',
    '|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const clients of CLIENTS) {
    const on = cost.find((cell) => cell.clients === clients && cell.events === 'on');
    const off = cost.find((cell) => cell.clients === clients && cell.events === 'off');
    if (on === undefined || off === undefined) continue;
    lines.push(
      `| ${clients} | ${round(on.createsPerSecond)} | ${round(off.createsPerSecond)} | ${round((1 - on.createsPerSecond / off.createsPerSecond) * 100, 1)}% | ${round(on.p99, 1)} / ${round(off.p99, 1)} | ${round(on.serviceCpuPerCreate * 1e6, 1)} / ${round(off.serviceCpuPerCreate * 1e6, 1)} | ${round(on.databaseCpuPerCreate * 1e6, 1)} / ${round(off.databaseCpuPerCreate * 1e6, 1)} |`,
    );
  }
  lines.push('', '| follower on | changes | p50 ms | p99 ms | max ms |', '|---|---:|---:|---:|---:|');
  for (const row of follower)
    lines.push(
      `| ${row.where} | ${row.creates} | ${round(row.p50, 1)} | ${round(row.p99, 1)} | ${round(row.max, 1)} |`,
    );
  return lines.join('\n');
}

/** Creates on one server: how many, in how long, and their p99 in ms. */
async function loadOf(
  auth: Record<string, string>,
  server: Server,
  { clients, seconds, warmUp = false }: { clients: number; seconds: number; warmUp?: boolean },
) {
  const {
    creates,
    seconds: taken,
    latencies,
  } = await createLoad(auth, [server], BODY, { clients, seconds, label: 'events cost', warmUp });
  latencies.sort((a, b) => a - b);
  return {
    creates,
    seconds: taken,
    p99: latencies[Math.min(latencies.length - 1, Math.floor(0.99 * latencies.length))] ?? 0,
  };
}

/** The medians of each load's samples, one cell per client count and events on or off. */
function costCells(samples: Map<string, Omit<EventsCostCell, 'clients' | 'events'>[]>): EventsCostCell[] {
  const cells: EventsCostCell[] = [];
  for (const clients of CLIENTS) {
    for (const events of ['on', 'off'] as const) {
      const list = samples.get(`${clients} ${events}`)!;
      const of = (field: keyof (typeof list)[number]) => median(list.map((sample) => sample[field]));
      cells.push({
        clients,
        events,
        createsPerSecond: of('createsPerSecond'),
        p99: of('p99'),
        serviceCpuPerCreate: of('serviceCpuPerCreate'),
        databaseCpuPerCreate: of('databaseCpuPerCreate'),
      });
    }
    const [on, off] = cells.slice(-2) as [EventsCostCell, EventsCostCell];
    console.error(
      `  PostgreSQL events, ${clients} clients: ${round(on.createsPerSecond)} creates/s with events, ${round(off.createsPerSecond)} without (${round((1 - on.createsPerSecond / off.createsPerSecond) * 100, 1)}% less)`,
    );
  }
  return cells;
}
