// The in-memory store's measurements: start-up, memory per pet, load with logs off and on, what
// metrics and tracing cost, and (with --instructions) instructions per request.
import type { Counter, InstructionRow } from './instructions.js';
import type { Loads, Sample } from './load.js';
import type { BenchOptions } from './options.js';
import { ratio, round, summary } from './statistics.js';
import { startOtlpSink, stop, type Compared, type Servers } from './servers.js';
import type { Workloads } from './workloads.js';

/** The parts of a run that the measurements use: its servers, loads, workloads and counter. */
export interface BenchParts {
  servers: Servers;
  loads: Loads;
  workloads: Workloads;
  counter: Counter;
}

/** Which server goes first in round `index`: they take turns, so drift in the machine hits both alike. */
export const orderOf = (index: number) =>
  index % 2 === 0 ? (['service', 'baseline'] as const) : (['baseline', 'service'] as const);
/** The same for the three servers of the CPU table. */
export const LOADED = ['service', 'baseline', 'serviceLogged'] as const;
export type Loaded = (typeof LOADED)[number];
const loadOrderOf = (index: number): Loaded[] =>
  LOADED.map((_, position) => LOADED[(position + index) % LOADED.length]!);

export interface Row {
  pets: number;
  workload: string;
  service: Sample;
  baseline: Sample;
  serviceLogged: Sample;
}

export const OBSERVED = ['serviceLogged', 'serviceMetrics', 'serviceTraced'] as const;
export type Observed = (typeof OBSERVED)[number];
export interface ObservabilityRow {
  workload: string;
  /** The service logging as npm start does, with METRICS_PORT=off and no tracing; with metrics; and exporting spans. */
  cpu: Record<Observed, number>;
}

/** What the in-memory store's measurements give the report. */
export interface MemoryMeasurements {
  rows: Row[];
  startup: Record<Compared, number[]>;
  rss: Record<Compared, Map<number, number>>;
  instructionRows: InstructionRow[];
  observability: { pets: number; rows: ObservabilityRow[] };
}

export function createMemoryMeasurements(
  { sizes, rounds, duration, startupRounds, instructions }: BenchOptions,
  {
    servers: { start, startupTime },
    loads: { probe, warmUp, load },
    workloads: { WORKLOADS },
    counter: { countInstructions },
  }: BenchParts,
) {
  /** Every in-memory measurement: start-up, memory, load (logs off and on), and instructions when asked for. */
  async function measureMemoryStore(): Promise<MemoryMeasurements> {
    const startup: Record<Compared, number[]> = { service: [], baseline: [] };
    for (let index = 0; index < startupRounds; index++) {
      for (const name of orderOf(index)) {
        startup[name].push(await startupTime(name));
      }
    }

    const rss: Record<Compared, Map<number, number>> = { service: new Map(), baseline: new Map() };
    for (const pets of [0, Math.max(...sizes)]) {
      for (const name of ['service', 'baseline'] as const) {
        const server = await start(name, pets, { measureMemory: true });
        rss[name].set(pets, server.rss);
        await stop(server);
      }
    }

    const rows: Row[] = [];
    for (const pets of sizes) {
      const samples = WORKLOADS.map((): Record<Loaded, Sample[]> => ({ service: [], baseline: [], serviceLogged: [] }));
      // A fresh pair of processes each round: two processes running the same code can differ by 10–30%
      // in CPU per request for their whole life (docs/performance.md), so one pair would decide a size alone.
      for (let index = 0; index < rounds; index++) {
        const servers = {
          service: await start('service', pets),
          baseline: await start('baseline', pets),
          serviceLogged: await start('serviceLogged', pets),
        };
        const order = loadOrderOf(index);
        for (const [position, workload] of WORKLOADS.entries()) {
          for (const name of order) {
            await probe(servers[name], workload, pets);
            await warmUp(servers[name], workload, pets);
          }
          for (const name of order) samples[position]![name].push(await load(servers[name], workload, pets, duration));
        }
        await stop(servers.service);
        await stop(servers.baseline);
        await stop(servers.serviceLogged);
      }
      for (const [position, workload] of WORKLOADS.entries()) {
        const [service, baseline, serviceLogged] = LOADED.map((name) => summary(samples[position]![name])) as [
          Sample,
          Sample,
          Sample,
        ];
        const row = { pets, workload: workload.name, service, baseline, serviceLogged };
        rows.push(row);
        console.error(
          `  ${round(pets)} pets, ${workload.name}: CPU/request ratio ${ratio(service.cpuPerRequest, baseline.cpuPerRequest)}, ` +
            `logs on ÷ off ${ratio(serviceLogged.cpuPerRequest, service.cpuPerRequest)}`,
        );
      }
    }

    const observability = await measureObservability(Math.min(...sizes));
    const instructionRows = instructions ? await countInstructions() : [];
    return { rows, startup, rss, instructionRows, observability };
  }

  /**
   * What metrics and tracing cost: CPU per request of the service with metrics off, on (as npm start
   * runs by default), and exporting a span per request over OTLP; fresh processes each round, in turn.
   * All three log every request as npm start does: without a logger, Fastify adds no response
   * listeners, and the first thing to time requests would pay for them (~3,000 instructions).
   */
  async function measureObservability(pets: number): Promise<{ pets: number; rows: ObservabilityRow[] }> {
    const { endpoint, sink } = await startOtlpSink();
    try {
      const samples = WORKLOADS.map((): Record<Observed, Sample[]> => ({
        serviceLogged: [],
        serviceMetrics: [],
        serviceTraced: [],
      }));
      for (let index = 0; index < rounds; index++) {
        const servers = {
          serviceLogged: await start('serviceLogged', pets),
          serviceMetrics: await start('serviceMetrics', pets),
          serviceTraced: await start('serviceTraced', pets, { env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } }),
        };
        const order = OBSERVED.map((_, position) => OBSERVED[(position + index) % OBSERVED.length]!);
        for (const [position, workload] of WORKLOADS.entries()) {
          for (const name of order) {
            await probe(servers[name], workload, pets);
            await warmUp(servers[name], workload, pets);
          }
          for (const name of order) samples[position]![name].push(await load(servers[name], workload, pets, duration));
        }
        for (const server of Object.values(servers)) await stop(server);
      }
      const rows = WORKLOADS.map((workload, position) => {
        const cpu = Object.fromEntries(
          OBSERVED.map((name) => [name, summary(samples[position]![name]).cpuPerRequest]),
        ) as Record<Observed, number>;
        console.error(
          `  ${round(pets)} pets, ${workload.name}: metrics on ÷ off ${ratio(cpu.serviceMetrics, cpu.serviceLogged)}, tracing on ÷ off ${ratio(cpu.serviceTraced, cpu.serviceLogged)}`,
        );
        return { workload: workload.name, cpu };
      });
      return { pets, rows };
    } finally {
      sink.close();
    }
  }

  return { measureMemoryStore };
}
