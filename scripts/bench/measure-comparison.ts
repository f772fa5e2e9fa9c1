// The service as shipped against what a user would write by hand (issues 49 and 58): CPU per
// request, user plus system time of every thread of each server process, in fresh processes each
// round, the servers taking turns at going first. Medians of the rounds, with their spread
// (lowest–highest): a difference of a tenth needs many rounds on a machine whose processes differ
// by that much. Each layer of the service is a server of its own, so that each goal of issue 58
// reads as one ratio of two medians.
import type { Loads } from './load.js';
import type { BenchOptions } from './options.js';
import { median, round } from './statistics.js';
import { stop, type ServerName, type Servers } from './servers.js';
import type { Workload, Workloads } from './workloads.js';

/** The workloads the hand-written app serves: a page, a filtered page, a pet by id, a create. */
const COMPARED_WORKLOADS = ['list 20', 'list 100, 1% status', 'get random id', 'create'];
/**
 * npmStart: the service as a user runs it (`npm start`: request logs, metrics, fair share on); serverJs: what
 * npm start runs, `node dist/server.js`, started directly;
 * shipped: the same started by the bench, so that logs on ÷ off leaves npm out; logsOff: metrics and
 * fair share on, no request log (LOG_LEVEL=warn); bare: every optional part off.
 */
const COMPARED = ['npmStart', 'serverJs', 'shipped', 'logsOff', 'bare', 'handWritten', 'handWrittenLogged'] as const;
type ComparedServer = (typeof COMPARED)[number];
const SERVER_OF: Record<ComparedServer, ServerName> = {
  npmStart: 'npmStart',
  serverJs: 'serverJs',
  shipped: 'serviceMetrics',
  logsOff: 'serviceQuiet',
  bare: 'serviceBare',
  handWritten: 'handWritten',
  handWrittenLogged: 'handWrittenLogged',
};

/** Issue 58's goals: each a ratio of two servers' medians, and the most it may be. */
const GOALS = [
  { name: 'floor: all optional parts off ÷ hand-written', of: 'bare', over: 'handWritten', most: 1.1 },
  { name: 'metrics and fair share: logs off ÷ all off', of: 'logsOff', over: 'bare', most: 1.05 },
  { name: 'request logs: logs on ÷ off', of: 'shipped', over: 'logsOff', most: 1.1 },
  { name: 'as shipped (npm start) ÷ hand-written', of: 'npmStart', over: 'handWritten', most: 1.3 },
  { name: 'as shipped (npm start) ÷ hand-written, `logger: true`', of: 'npmStart', over: 'handWrittenLogged', most: 1 },
] as const satisfies readonly { name: string; of: ComparedServer; over: ComparedServer; most: number }[];

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
        `  ${round(pets)} pets, ${workload.name}: ` +
          GOALS.map(({ of, over }) => `${of} ÷ ${over} ${(cpu[of].median / cpu[over].median).toFixed(2)}`).join(', '),
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
    const met = (row: ComparisonRow, goal: (typeof GOALS)[number]) =>
      row.cpu[goal.of].median / row.cpu[goal.over].median <= goal.most ? 'met' : 'missed';
    return [
      `**The service as shipped against a fastify app written by hand** (${round(size)} pets, ${rounds} rounds of fresh processes taking turns; CPU µs per request, user plus system time of every thread: the median, and the lowest–highest round). As shipped: \`npm start\` (request logs into a file, metrics and fair share on); "in the bench" is the same service started by the bench (\`scripts/bench/service-server.ts\`). Hand-written: fastify, JSON schemas, a \`Map\` of pets, logger off, or \`logger: true\` into a file (\`scripts/bench/hand-written-server.ts\`).`,
      '',
      '| workload | hand-written | hand-written, `logger: true` | as shipped, `npm start` | `node dist/server.js` | as shipped, in the bench | logs off | all optional parts off |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      ...rows.map(
        ({ workload, cpu }) =>
          `| ${workload} | ${µs(cpu.handWritten)} | ${µs(cpu.handWrittenLogged)} | ${µs(cpu.npmStart)} | ${µs(cpu.serverJs)} | ${µs(cpu.shipped)} | ${µs(cpu.logsOff)} | ${µs(cpu.bare)} |`,
      ),
      '',
      `| goal (ratio of medians) | at most | ${rows.map(({ workload }) => workload).join(' | ')} |`,
      `|---|---:|${rows.map(() => '---:|').join('')}`,
      ...GOALS.map(
        (goal) =>
          `| ${goal.name} | ${goal.most.toFixed(2)} | ${rows.map((row) => `${ratio(row.cpu[goal.of], row.cpu[goal.over])} (${met(row, goal)})`).join(' | ')} |`,
      ),
      `| npm start ÷ \`node dist/server.js\` (what npm itself costs) | | ${rows.map((row) => ratio(row.cpu.npmStart, row.cpu.serverJs)).join(' | ')} |`,
    ].join('\n');
  }

  return { measureComparison, comparisonReport };
}
