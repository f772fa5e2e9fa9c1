// The service as shipped against what a user would write by hand (issue 49): CPU per request, user
// plus system time of every thread of each server process, in fresh processes each round, the five
// servers taking turns at going first. Medians of the rounds, with their spread (lowest–highest):
// a difference of a tenth needs many rounds on a machine whose processes differ by that much.
import type { Loads } from './load.js';
import type { BenchOptions } from './options.js';
import { median, round } from './statistics.js';
import { stop, type ServerName, type Servers } from './servers.js';
import type { Workload, Workloads } from './workloads.js';

/** The workloads the hand-written app serves: a page, a filtered page, a pet by id, a create. */
const COMPARED_WORKLOADS = ['list 20', 'list 100, 1% status', 'get random id', 'create'];
/**
 * shipped: the service as npm start runs it (request logs into a file, metrics, fair share);
 * service: the same with logs and metrics off; logged: logs on, metrics off.
 */
const COMPARED = ['shipped', 'service', 'logged', 'handWritten', 'handWrittenLogged'] as const;
type ComparedServer = (typeof COMPARED)[number];
const SERVER_OF: Record<ComparedServer, ServerName> = {
  shipped: 'serviceMetrics',
  service: 'service',
  logged: 'serviceLogged',
  handWritten: 'handWritten',
  handWrittenLogged: 'handWrittenLogged',
};

/** CPU per request over the rounds: the median, and the lowest and highest round. */
export interface Spread {
  median: number;
  low: number;
  high: number;
}

export interface ComparisonRow {
  workload: string;
  cpu: Record<ComparedServer, Spread>;
}

export function createComparison(
  { comparisonRounds, duration, sizes }: BenchOptions,
  { start }: Servers,
  { probe, warmUp, load }: Loads,
  { WORKLOADS }: Workloads,
) {
  const workloads = WORKLOADS.filter((workload) => COMPARED_WORKLOADS.includes(workload.name));
  const pets = Math.min(...sizes);

  async function measureComparison(): Promise<{ pets: number; rounds: number; rows: ComparisonRow[] }> {
    const samples = workloads.map(
      () => Object.fromEntries(COMPARED.map((name) => [name, [] as number[]])) as Record<ComparedServer, number[]>,
    );
    for (let index = 0; index < comparisonRounds; index++) {
      const servers = Object.fromEntries(
        await Promise.all(COMPARED.map(async (name) => [name, await start(SERVER_OF[name], pets)] as const)),
      ) as Record<ComparedServer, Awaited<ReturnType<typeof start>>>;
      const order = COMPARED.map((_, position) => COMPARED[(position + index) % COMPARED.length]!);
      try {
        for (const [position, workload] of workloads.entries()) {
          for (const name of order) {
            await probe(servers[name], workload, pets);
            await warmUp(servers[name], workload, pets);
          }
          for (const name of order)
            samples[position]![name].push((await load(servers[name], workload, pets, duration)).cpuPerRequest);
        }
      } finally {
        for (const server of Object.values(servers)) await stop(server);
      }
    }
    const rows = workloads.map((workload: Workload, position) => {
      const cpu = Object.fromEntries(
        COMPARED.map((name) => {
          const list = samples[position]![name];
          return [name, { median: median(list), low: Math.min(...list), high: Math.max(...list) }];
        }),
      ) as Record<ComparedServer, Spread>;
      console.error(
        `  ${round(pets)} pets, ${workload.name}: as shipped ÷ hand-written ${(cpu.shipped.median / cpu.handWritten.median).toFixed(2)}, ` +
          `÷ hand-written with logger ${(cpu.shipped.median / cpu.handWrittenLogged.median).toFixed(2)}, logs on ÷ off ${(cpu.logged.median / cpu.service.median).toFixed(2)}`,
      );
      return { workload: workload.name, cpu };
    });
    return { pets, rounds: comparisonRounds, rows };
  }

  function comparisonReport({
    pets: size,
    rounds,
    rows,
  }: {
    pets: number;
    rounds: number;
    rows: ComparisonRow[];
  }): string {
    const µs = ({ median: middle, low, high }: Spread) =>
      `${round(middle * 1e6, 1)} (${round(low * 1e6, 1)}–${round(high * 1e6, 1)})`;
    const ratio = (a: Spread, b: Spread) => (a.median / b.median).toFixed(2);
    return [
      `**The service as shipped against a fastify app written by hand** (${round(size)} pets, ${rounds} rounds of fresh processes taking turns; CPU µs per request, user plus system time of every thread: the median, and the lowest–highest round). As shipped: request logs into a file, metrics and fair share on, as \`npm start\` runs it. Hand-written: fastify, JSON schemas, a \`Map\` of pets, logger off, or \`logger: true\` into a file (\`scripts/bench/hand-written-server.ts\`).`,
      '',
      '| workload | as shipped | hand-written | hand-written, `logger: true` | as shipped ÷ hand-written | as shipped ÷ `logger: true` | service, logs off | service, logs on | logs on ÷ off |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...rows.map(
        ({ workload, cpu }) =>
          `| ${workload} | ${µs(cpu.shipped)} | ${µs(cpu.handWritten)} | ${µs(cpu.handWrittenLogged)} | ${ratio(cpu.shipped, cpu.handWritten)} | ${ratio(cpu.shipped, cpu.handWrittenLogged)} | ${µs(cpu.service)} | ${µs(cpu.logged)} | ${ratio(cpu.logged, cpu.service)} |`,
      ),
    ].join('\n');
  }

  return { measureComparison, comparisonReport };
}
