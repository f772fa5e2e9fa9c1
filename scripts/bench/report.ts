// The benchmark's report: markdown tables of a run, printed, and with --write-docs written between
// the markers of docs/performance.md.
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { replacedNote } from './instructions.js';
import type { Sample } from './load.js';
import type { MemoryMeasurements, Observed, ObservabilityRow, Row } from './measure-memory.js';
import type { Compared } from './servers.js';
import { commandLine, WARM_UP_FACTOR, type BenchOptions } from './options.js';
import { median, ratio, round } from './statistics.js';
import type { InstructionRow } from './instructions.js';

/** The report of a run with these options; `replacedSoFar` counts the processes replaced under valgrind. */
export function createReport(options: BenchOptions, replacedSoFar: () => number) {
  const { sizes, rounds, startupRounds, instructionRequests, instructionRounds, selfCheck } = options;

  function report({ rows, startup, rss, instructionRows, observability }: MemoryMeasurements): string {
    const largest = Math.max(...sizes);
    const perPet = (name: Compared) => (rss[name].get(largest)! - rss[name].get(0)!) / largest;
    const cpuOf = (pets: number, workload: string) =>
      rows.find((row) => row.pets === pets && row.workload.startsWith(workload))?.service.cpuPerRequest;
    const filtered = (pets: number) => cpuOf(pets, 'list 100')!;
    const middlePage = (pets: number) => cpuOf(pets, 'page of 100')!;
    // Only stores of 10,000 pets or more hold 100 pets of the 1% status; a smaller one responses fewer.
    const fullResponse = sizes.filter((pets) => pets >= 10_000 && pets < largest);
    const flatFrom = fullResponse.length > 0 ? Math.min(...fullResponse) : Math.min(...sizes);
    const lines = [
      ...(selfCheck
        ? ['SELF-CHECK: both columns are the baseline app; every ratio shows the noise floor of this machine.', '']
        : []),
      `Command: \`${commandLine(options)}\``,
      `Machine: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}. ${rounds} rounds, each with fresh server processes: req/s and p99 are medians over the rounds; CPU is the user+system time of the server process's threads (each one's /proc schedstat) per answered request, the lowest over the rounds. "Logs on" is the service logging every request as \`npm start\` does (LOG_LEVEL=info, asynchronous destination, into a file); the other service columns have LOG_LEVEL off.`,
      '',
      '| pets | workload | req/s service | req/s baseline | ratio | p99 ms service | p99 ms baseline | CPU µs/req service | CPU µs/req baseline | CPU ratio | CPU µs/req logs on | logs on ÷ off |',
      '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...rows.map(({ pets, workload, service, baseline, serviceLogged }) =>
        tableRow([
          ...comparedCells(pets, workload, service, baseline),
          round(serviceLogged.cpuPerRequest * 1e6, 1),
          ratio(serviceLogged.cpuPerRequest, service.cpuPerRequest),
        ]),
      ),
      '',
      ...(cpuOf(largest, 'list 100') === undefined
        ? []
        : [
            `- Filtered list (100 of the 1% "sold"), service CPU per request at ${round(largest)} pets ÷ at ${round(flatFrom)}: ${ratio(filtered(largest), filtered(flatFrom))}` +
              (Math.min(...sizes) < 10_000
                ? ` (at ${round(Math.min(...sizes))} pets only ${round(Math.floor(Math.min(...sizes) / 100))} have the status, so that answer is shorter and not comparable)`
                : ''),
          ]),
      ...(cpuOf(largest, 'page of 100') === undefined
        ? []
        : [
            `- Page of 100 from the middle (after a cursor), service CPU per request at ${round(largest)} pets ÷ at ${round(Math.min(...sizes))}: ${ratio(middlePage(largest), middlePage(Math.min(...sizes)))}`,
          ]),
      `- Resident memory per stored pet at ${round(largest)} pets ((RSS full − RSS empty) ÷ pets, after a GC): service ${round(perPet('service'))} B, baseline ${round(perPet('baseline'))} B`,
      `- Start-up, spawn to first 200 (median of ${startupRounds}): service ${round(median(startup.service))} ms, baseline ${round(median(startup.baseline))} ms, ratio ${ratio(median(startup.service), median(startup.baseline))}`,
      '',
      `Metrics and tracing, at ${round(observability.pets)} pets: CPU per request of the service with METRICS_PORT=off and no tracing, with metrics on (recorded, and served on a port of their own, as \`npm start\` runs by default), and exporting a span per request over OTLP/HTTP (protobuf, to a receiver in the benchmark process); all three log every request as \`npm start\` does; the lowest over ${rounds} rounds of fresh processes.`,
      '',
      '| workload | CPU µs/req metrics off | CPU µs/req metrics on | metrics on ÷ off | CPU µs/req tracing on | tracing on ÷ off |',
      '|---|---:|---:|---:|---:|---:|',
      ...observability.rows.map(({ workload, cpu }) =>
        tableRow([
          workload,
          round(cpu.serviceLogged * 1e6, 1),
          round(cpu.serviceMetrics * 1e6, 1),
          ratio(cpu.serviceMetrics, cpu.serviceLogged),
          round(cpu.serviceTraced * 1e6, 1),
          ratio(cpu.serviceTraced, cpu.serviceLogged),
        ]),
      ),
      ...(instructionRows.length === 0
        ? []
        : [
            '',
            `Instructions per request, counted by valgrind's callgrind (all threads, user space; ${round(instructionRequests)} requests on one connection after ${round(WARM_UP_FACTOR * instructionRequests)} to warm up; the lowest over ${instructionRounds} fresh processes of each server${replacedNote(replacedSoFar())}):`,
            '',
            "| pets | workload | instructions/req service | instructions/req baseline | ratio | baseline sending getPet's 3 headers | ratio to that | instructions/req logs on | logs on ÷ off | instructions/req logs and metrics on | metrics on ÷ off |",
            '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
            ...instructionRows.map(
              ({
                pets,
                workload,
                service,
                baseline,
                serviceLogged,
                serviceMetrics,
                baselineWithHeaders: withHeaders,
              }) =>
                `| ${round(pets)} | ${workload} | ${round(service)} | ${round(baseline)} | ${ratio(service, baseline)} | ` +
                (withHeaders === undefined ? '– | – |' : `${round(withHeaders)} | ${ratio(service, withHeaders)} |`) +
                ` ${round(serviceLogged)} | ${ratio(serviceLogged, service)} | ${round(serviceMetrics)} | ${ratio(serviceMetrics, serviceLogged)} |`,
            ),
          ]),
    ];
    return lines.join('\n');
  }

  /**
   * The summary table (docs/performance.md, first section): per size and workload, what the service costs against plain
   * fastify, and what logs cost.
   */
  function shortTable(
    rows: Row[],
    instructionRows: InstructionRow[],
    observability: { pets: number; rows: ObservabilityRow[] },
  ): string {
    const spread = (of: (cpu: Record<Observed, number>) => number) => {
      const ratios = observability.rows.map(({ cpu }) => of(cpu) / cpu.serviceLogged);
      return `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
    };
    const instructions = (pets: number, workload: string) =>
      instructionRows.find((row) => row.pets === pets && row.workload === workload);
    const counted = instructionRows.length > 0;
    return [
      `Command: \`${commandLine(options)}\` (${cpus().length} cores, Node ${process.version}); the full report is in docs/performance.md.`,
      '',
      `| pets | workload | req/s | CPU µs/req | CPU ÷ plain fastify |${counted ? ' instructions ÷ plain fastify |' : ''} CPU logs on ÷ off |${counted ? ' instructions logs on ÷ off |' : ''}`,
      `|---:|---|---:|---:|---:|${counted ? '---:|' : ''}---:|${counted ? '---:|' : ''}`,
      ...rows.map(({ pets, workload, service, baseline, serviceLogged }) => {
        const counts = instructions(pets, workload);
        return (
          `| ${round(pets)} | ${workload} | ${round(service.rps)} | ${round(service.cpuPerRequest * 1e6, 1)} | ${ratio(service.cpuPerRequest, baseline.cpuPerRequest)} |` +
          (counted ? ` ${counts === undefined ? '–' : ratio(counts.service, counts.baseline)} |` : '') +
          ` ${ratio(serviceLogged.cpuPerRequest, service.cpuPerRequest)} |` +
          (counted ? ` ${counts === undefined ? '–' : ratio(counts.serviceLogged, counts.service)} |` : '')
        );
      }),
      '',
      `Metrics on ÷ METRICS_PORT=off (both logging as npm start does), CPU per request at ${round(observability.pets)} pets: ${spread((cpu) => cpu.serviceMetrics)} over the workloads; exporting a span per request over OTLP: ${spread((cpu) => cpu.serviceTraced)}.`,
    ].join('\n');
  }

  return { report, shortTable };
}

/**
 * The cells both load tables start with: size, workload, then req/s, p99 and CPU of the service against the baseline.
 */
export function comparedCells(pets: number, workload: string, service: Sample, baseline: Sample): string[] {
  return [
    round(pets),
    workload,
    round(service.rps),
    round(baseline.rps),
    ratio(service.rps, baseline.rps),
    round(service.p99, 1),
    round(baseline.p99, 1),
    round(service.cpuPerRequest * 1e6, 1),
    round(baseline.cpuPerRequest * 1e6, 1),
    ratio(service.cpuPerRequest, baseline.cpuPerRequest),
  ];
}

export const tableRow = (cells: string[]) => `| ${cells.join(' | ')} |`;

export function writeBetweenMarkers(
  file: string,
  marker:
    | 'bench'
    | 'bench-postgres'
    | 'bench-summary'
    | 'bench-postgres-summary'
    | 'bench-fairness'
    | 'bench-events'
    | 'bench-orders'
    | 'bench-changes'
    | 'bench-replicas'
    | 'bench-hand-written',
  text: string,
) {
  const content = readFileSync(file, 'utf8');
  const start = `<!-- ${marker}:start -->`;
  const end = `<!-- ${marker}:end -->`;
  if (!content.includes(start) || !content.includes(end)) throw new Error(`${file} has no ${start} … ${end} section`);
  writeFileSync(
    file,
    `${content.slice(0, content.indexOf(start) + start.length)}\n${text}\n${content.slice(content.indexOf(end))}`,
  );
  console.error(`bench: ${file} updated (${marker})`);
}
