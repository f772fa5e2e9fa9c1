// The benchmark's command line (npm run bench -- …), read and checked once, and written back out as
// the command that reproduces a run.
import { parseArgs } from 'node:util';

export interface BenchOptions {
  sizes: number[];
  rounds: number;
  /**
   * Rounds of the comparison with the hand-written app (scripts/bench/measure-comparison.ts): at least 7 for a median
   * that holds.
   */
  comparisonRounds: number;
  duration: number;
  connections: number;
  startupRounds: number;
  /** Also count instructions per request under valgrind (callgrind). */
  instructions: boolean;
  instructionRequests: number;
  instructionRounds: number;
  /** With `instructions`, count only the workloads whose name contains one of these (comma-separated). */
  instructionWorkloads: string | undefined;
  /** Only the workloads whose name contains one of these (comma-separated). */
  workloads: string | undefined;
  stores: string[];
  /** Runs the baseline against a second baseline in place of the service: the ratios show the noise floor. */
  selfCheck: boolean;
  /** Only the fair-share scenario (--fairness). */
  fairnessOnly: boolean;
  /** Only the comparison with the hand-written app (--comparison). */
  comparisonOnly: boolean;
  writeDocs: boolean;
}

// Below ~16,000 requests V8 is still compiling the request path: counts after 2,000 were up to 4x the
// steady state, and most of it was the optimizing compiler's own work (docs/performance.md).
export const WARM_UP_FACTOR = 16;
// autocannon checks whether a run is over on its sampling tick (a second by default), so no run
// lasted under a second: a smoke run's 140 loads and the instruction counts' warm-ups spent over
// three minutes waiting on it. Only the per-tick statistics, which nothing here reads, change.
export const SAMPLE_INTERVAL_MS = 20;
// A step that waits on another process (a server starting, a request, callgrind_control) gives up
// after this long instead of waiting for ever: under valgrind a server takes ~20 s to start and a
// request well under one, so this is only reached by a process that is stuck.
export const STEP_LIMIT_MS = 180_000;

const USAGE =
  'usage: npm run bench -- [--sizes 1000,100000] [--rounds 3] [--comparison-rounds 7] [--duration 3] [--connections 10] [--startup-rounds 5] [--instructions [--instruction-requests 1000] [--instruction-rounds 3] [--instruction-workloads get]] [--stores memory,postgres] [--workloads list] [--fairness | --comparison] [--self-check | --write-docs]';

/** The options of a count under valgrind alone (the gate, bench:profile): the in-memory store at `pets`. */
export function countingOptions(pets: number, requests: string, rounds = '1'): BenchOptions {
  const store = ['--stores', 'memory', '--sizes', String(pets)];
  return readOptions(['--instructions', '--instruction-requests', requests, '--instruction-rounds', rounds, ...store]);
}

/** The options of `args`; a usage error exits with status 2, saying what is wrong. */
export function readOptions(args: string[]): BenchOptions {
  const usage = (problem: string): never => {
    console.error(`bench: ${problem}\n${USAGE}`);
    process.exit(2);
  };
  const { values } = parse(args, usage);
  if (values['self-check'] && values['write-docs'])
    usage('--self-check measures noise, not the service; it does not write docs/performance.md');
  if ((values.workloads !== undefined || values.fairness || values.comparison) && values['write-docs'])
    usage('a partial run (--workloads, --fairness, --comparison) does not write docs/performance.md');
  const options: BenchOptions = {
    sizes: values.sizes.split(',').map(Number),
    rounds: Number(values.rounds),
    comparisonRounds: Number(values['comparison-rounds']),
    duration: Number(values.duration),
    connections: Number(values.connections),
    startupRounds: Number(values['startup-rounds']),
    instructions: values.instructions,
    instructionRequests: Number(values['instruction-requests']),
    instructionRounds: Number(values['instruction-rounds']),
    instructionWorkloads: values['instruction-workloads'],
    workloads: values.workloads,
    stores: values.stores.split(','),
    selfCheck: values['self-check'],
    fairnessOnly: values.fairness,
    comparisonOnly: values.comparison,
    writeDocs: values['write-docs'],
  };
  const {
    sizes,
    rounds,
    comparisonRounds,
    duration,
    connections,
    startupRounds,
    instructionRequests,
    instructionRounds,
    stores,
  } = options;
  if (
    [
      ...sizes,
      rounds,
      comparisonRounds,
      duration,
      connections,
      startupRounds,
      instructionRequests,
      instructionRounds,
    ].some((value) => !(value >= 0) || Number.isNaN(value)) ||
    rounds < 1 ||
    comparisonRounds < 1 ||
    instructionRounds < 1 ||
    stores.length === 0 ||
    stores.some((store) => store !== 'memory' && store !== 'postgres')
  ) {
    usage('a setting is out of range');
  }
  return options;
}

/** The command that reproduces a run, every setting written out. */
export function commandLine({
  sizes,
  rounds,
  comparisonRounds,
  duration,
  connections,
  stores,
  instructions,
  instructionRequests,
  instructionRounds,
  instructionWorkloads,
  selfCheck,
}: BenchOptions): string {
  return (
    `npm run bench -- --sizes ${sizes.join(',')} --rounds ${rounds} --comparison-rounds ${comparisonRounds} --duration ${duration} --connections ${connections}` +
    `${stores.join(',') === 'memory,postgres' ? '' : ` --stores ${stores.join(',')}`}` +
    `${instructions ? ` --instructions --instruction-requests ${instructionRequests} --instruction-rounds ${instructionRounds}${instructionWorkloads === undefined ? '' : ` --instruction-workloads '${instructionWorkloads}'`}` : ''}${selfCheck ? ' --self-check' : ''}`
  );
}

/** The command line read as parseArgs reads it; an unknown option or a missing value is a usage error. */
function parse(args: string[], usage: (problem: string) => never) {
  try {
    return parseArgs({
      args,
      options: {
        sizes: { type: 'string', default: '1000,100000,1000000' },
        rounds: { type: 'string', default: '5' },
        'comparison-rounds': { type: 'string', default: '7' },
        duration: { type: 'string', default: '4' },
        connections: { type: 'string', default: '10' },
        'startup-rounds': { type: 'string', default: '5' },
        'write-docs': { type: 'boolean', default: false },
        'self-check': { type: 'boolean', default: false },
        // The fair-share scenario alone (scripts/bench/measure-fairness.ts).
        fairness: { type: 'boolean', default: false },
        // The comparison with the hand-written app alone (scripts/bench/measure-comparison.ts).
        comparison: { type: 'boolean', default: false },
        // This many requests, after WARM_UP_FACTOR times as many to warm up, in this many fresh processes.
        instructions: { type: 'boolean', default: false },
        'instruction-requests': { type: 'string', default: '1000' },
        'instruction-rounds': { type: 'string', default: '3' },
        // Every server under valgrind pays each counted workload's warm-up, so a smoke run counts one.
        'instruction-workloads': { type: 'string' },
        // To see one change's cost quickly.
        workloads: { type: 'string' },
        // The in-memory store (every table) and PostgreSQL (its own table, on a throwaway cluster from
        // Debian's server binaries; left out, with the reason, when there are none).
        stores: { type: 'string', default: 'memory,postgres' },
      },
    });
  } catch (error) {
    return usage((error as Error).message);
  }
}
