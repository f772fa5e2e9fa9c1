// Instructions per request, counted by valgrind's callgrind in fresh server processes: a count that
// is the same whatever else the machine is doing (docs/performance/method.md, "Method").
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Loads } from './load.js';
import { STEP_LIMIT_MS, WARM_UP_FACTOR, type BenchOptions } from './options.js';
import { ratio, round } from './statistics.js';
import { stop, threadStates, type Server, type ServerName, type Servers } from './servers.js';
import type { Workload, Workloads } from './workloads.js';

export interface InstructionRow {
  pets: number;
  workload: string;
  service: number;
  baseline: number;
  serviceLogged: number;
  /** serviceLogged with metrics on. */
  serviceMetrics: number;
  /** The get workload only. */
  baselineWithHeaders?: number;
}

export const replacedNote = (count: number) =>
  count === 0
    ? ''
    : `; ${count} process${count === 1 ? '' : 'es'} that failed a step under valgrind replaced by fresh ones`;
const COUNT_ATTEMPTS = 3;

/** The instruction counts of a run; `replaced()` is how many processes failed a step and were replaced so far. */
export function createCounter(
  { sizes, instructionRequests, instructionRounds }: BenchOptions,
  { start }: Servers,
  { fire, probe }: Loads,
  { COUNTED, GET_WORKLOAD }: Workloads,
) {
  /** Processes counted under valgrind that failed a step and were replaced by fresh ones (countInstructionsOf). */
  let replacedProcesses = 0;

  /**
   * Instructions the server (all its threads, user space) executes per served request: callgrind's
   * counts over `instructionRequests` requests on one connection, after WARM_UP_FACTOR times as many to
   * warm up. A process gives the same count whatever else the machine is doing; processes differ only
   * by which of V8's modes they settle in (see countInstructions).
   */
  async function instructionsPerRequest(
    { server, name, dir }: { server: Server; name: ServerName; dir: string },
    workload: Workload,
    pets: number,
  ): Promise<number> {
    const run = async () =>
      (await fire(server, workload, pets, { amount: instructionRequests, connections: 1 }))['2xx'];
    await probe(server, workload, pets);
    // The warm-up runs without instrumentation, about eight times faster.
    for (let index = 0; index < WARM_UP_FACTOR; index++) await run();
    await callgrindControl(['--instr=on'], server);
    await callgrindControl(['--zero'], server);
    const responded = await run();
    const before = dumpsOf(dir, name, server.pid);
    await callgrindControl(['--dump'], server);
    await callgrindControl(['--instr=off'], server);
    const dump = dumpsOf(dir, name, server.pid).find((file) => !before.includes(file));
    const instructions =
      dump === undefined ? undefined : /^summary: (\d+)/m.exec(readFileSync(join(dir, dump), 'utf8'))?.[1];
    if (instructions === undefined) throw new Error(`callgrind wrote no count for ${name} (${workload.name})`);
    return Number(instructions) / responded;
  }

  /**
   * A fresh process of server `name` under callgrind: its instructions per request for each workload.
   * Every step here has a limit, and a process that fails one (a request given 503 once hung
   * whole runs: docs/performance.md) is replaced by a fresh one, up to COUNT_ATTEMPTS in all. Each
   * count comes from a fresh process anyway, so the replacement measures the same thing; the report
   * says how many were replaced.
   */
  async function countInstructionsOf(
    dir: string,
    name: ServerName,
    workloads: Workload[],
    { pets, env = {}, nodeFlags = [] }: { pets: number; env?: Record<string, string>; nodeFlags?: readonly string[] },
  ): Promise<number[]> {
    for (let attempt = 1; ; attempt++) {
      let server: Server | undefined;
      try {
        server = await start(name, pets, { callgrindDir: dir, env, nodeFlags });
        const counts: number[] = [];
        for (const workload of workloads)
          counts.push(await instructionsPerRequest({ server, name, dir }, workload, pets));
        return counts;
      } catch (error) {
        if (attempt === COUNT_ATTEMPTS)
          throw new Error(
            `${name} under valgrind, attempt ${attempt} of ${COUNT_ATTEMPTS}: ${(error as Error).message}`,
          );
        replacedProcesses++;
        console.error(
          `bench: ${name} under valgrind: ${(error as Error).message}; counting again in a fresh process (attempt ${attempt + 1} of ${COUNT_ATTEMPTS})`,
        );
      } finally {
        if (server !== undefined) await stop(server);
      }
    }
  }

  /**
   * Per size, `instructionRounds` rounds, each with a fresh pair of processes run side by side (valgrind
   * keeps each to one core). Each count is the lowest over the rounds: a process of either server may
   * settle, for its whole life, in a mode where one object literal in Node's process.nextTick is built
   * by a runtime call, ~30,000 instructions more per request (docs/performance.md).
   */
  async function countInstructions(): Promise<InstructionRow[]> {
    const dir = mkdtempSync(join(tmpdir(), 'bench-callgrind-'));
    const countAll = (name: ServerName, pets: number, workloads = COUNTED) =>
      countInstructionsOf(dir, name, workloads, { pets });
    try {
      const rows: InstructionRow[] = [];
      for (const pets of sizes) {
        const counts: Record<
          'service' | 'baseline' | 'serviceLogged' | 'serviceMetrics' | 'baselineWithHeaders',
          number[][]
        > = {
          service: [],
          baseline: [],
          serviceLogged: [],
          serviceMetrics: [],
          baselineWithHeaders: [],
        };
        for (let index = 0; index < instructionRounds; index++) {
          const [service, baseline, serviceLogged, serviceMetrics, withHeaders] = await Promise.all([
            countAll('service', pets),
            countAll('baseline', pets),
            countAll('serviceLogged', pets),
            countAll('serviceMetrics', pets),
            GET_WORKLOAD === undefined ? Promise.resolve([]) : countAll('baselineWithHeaders', pets, [GET_WORKLOAD]),
          ]);
          counts.service.push(service);
          counts.baseline.push(baseline);
          counts.serviceLogged.push(serviceLogged);
          counts.serviceMetrics.push(serviceMetrics);
          counts.baselineWithHeaders.push(withHeaders);
        }
        COUNTED.forEach((workload, position) => {
          const lowest = (name: keyof typeof counts, at = position) =>
            Math.min(...counts[name].map((round) => round[at]!));
          const row = {
            pets,
            workload: workload.name,
            service: lowest('service'),
            baseline: lowest('baseline'),
            serviceLogged: lowest('serviceLogged'),
            serviceMetrics: lowest('serviceMetrics'),
            ...(workload === GET_WORKLOAD ? { baselineWithHeaders: lowest('baselineWithHeaders', 0) } : {}),
          };
          rows.push(row);
          console.error(
            `  ${round(pets)} pets, ${workload.name}: instructions/request ratio ${ratio(row.service, row.baseline)}, logs on ÷ off ${ratio(row.serviceLogged, row.service)}, ` +
              `metrics on ÷ off ${ratio(row.serviceMetrics, row.serviceLogged)}`,
          );
        });
      }
      return rows;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  return { countInstructions, countInstructionsOf, replaced: () => replacedProcesses };
}

export type Counter = ReturnType<typeof createCounter>;

const execFileAsync = promisify(execFile);

async function callgrindControl(args: string[], server: Server): Promise<void> {
  try {
    await execFileAsync('callgrind_control', [...args, String(server.pid)], {
      timeout: STEP_LIMIT_MS,
      killSignal: 'SIGKILL',
    });
  } catch (error) {
    const { killed, message } = error as Error & { killed?: boolean };
    const what = killed === true ? `no answer in ${STEP_LIMIT_MS / 1000} s` : message.split('\n')[0];
    throw new Error(
      `callgrind_control ${args.join(' ')} ${server.pid}: ${what} (server threads: ${threadStates(server.pid)})`,
    );
  }
}

const dumpsOf = (dir: string, name: ServerName, pid: number) =>
  readdirSync(dir).filter((file) => file.startsWith(`${name}.${pid}.`));
