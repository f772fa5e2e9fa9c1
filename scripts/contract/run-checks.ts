// Runs live checks (src/contract/live-checks.ts) with a seed and a number of cases, and
// reports what they found as npm run contract and npm run compat both print it: each check ok or
// FAIL, then for each violation fast-check's report (seed, path, shrunk case), the violation, and a
// curl line that repeats its request with the key read from the environment.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import {
  type ApiRequest,
  ContractViolation,
  type LiveChecks,
  type OperationCount,
  type Target,
} from 'openapi-contract-engine';

/** Why a runner could not start: its exit status 2. */
export class CannotRun extends Error {}
export function cannotRun(message: string): never {
  throw new CannotRun(message);
}

/** A runner's exit status: its own, or 2 with the reason when it could not start (CannotRun). */
export async function exitStatusOf(name: string, output: Output, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof CannotRun)) throw error;
    output.error(`${name}: ${error.message}`);
    return 2;
  }
}

/** The options both runners take, as parseArgs declares them. */
export const RUN_OPTIONS = {
  seed: { type: 'string' },
  cases: { type: 'string', default: '300' },
  'timeout-ms': { type: 'string', default: '10000' },
  report: { type: 'string' },
  help: { type: 'boolean', default: false },
} as const;

/** Those options read and checked (a random seed unless one is given), and a reader of other integer options. */
export function runSettings(
  values: { seed?: string | undefined; cases: string; 'timeout-ms': string; report?: string | undefined },
  usage: string,
) {
  const integer = (name: string, text: string, min: number) => {
    if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) < min)
      cannotRun(`--${name} must be an integer of at least ${min}\n${usage}`);
    return Number(text);
  };
  const junit = values.report === undefined ? undefined : /^junit=(.+)$/.exec(values.report)?.[1];
  if (values.report !== undefined && junit === undefined) cannotRun(`--report must be junit=<file>`);
  return {
    seed:
      values.seed === undefined ? randomBytes(4).readUInt32BE() % 2 ** 31 : integer('seed', values.seed, -(2 ** 31)),
    cases: integer('cases', values.cases, 1),
    timeoutMs: integer('timeout-ms', values['timeout-ms'], 1),
    junit,
    integer,
  };
}

export interface Output {
  log(line: string): void;
  error(line: string): void;
}

export interface Outcome {
  name: string;
  cases?: number;
  seconds: number;
  failure?: string;
  note?: string;
}

export interface RunOptions {
  seed: number;
  /** Generated cases, split over the checks. */
  cases: number;
  target: Target;
  apiKey: string;
  /** The environment variable the curl lines read the key from. */
  keyVariable: string;
}

/** Runs every check, reads back what the valid creates made, then removes it; one outcome each. */
export async function runChecks(checks: LiveChecks, options: RunOptions): Promise<Outcome[]> {
  const { seed, cases } = options;
  const reporter = violationReporter(options);
  const outcomes: Outcome[] = [];
  // Before the run writes (where a feed ends now); one that fails fails its check at once.
  const prepared = new Map<string, string>();
  for (const readBack of checks.readBacks) {
    await readBack
      .prepare?.()
      .catch((error: unknown) => void prepared.set(readBack.name, `seed ${seed}\n${reporter.violation(error)}`));
  }
  for (const [index, { name, property }] of checks.properties.entries()) {
    const numRuns = Math.floor(cases / checks.properties.length) + (index < cases % checks.properties.length ? 1 : 0);
    const begun = performance.now();
    const result = await fc.check(property, { seed, numRuns });
    const seconds = (performance.now() - begun) / 1000;
    outcomes.push({
      name,
      cases: result.numRuns,
      seconds,
      ...(result.failed ? { failure: await reporter.failure(result) } : {}),
    });
  }
  // Every operation got a 2xx from a valid request; the counts are printed by printCounts.
  {
    const name = 'every operation answered a valid request with a 2xx';
    const begun = performance.now();
    try {
      const { withNo2xx, unreached } = await checks.coverage(seed);
      outcomes.push({
        // An operation whose resources the target holds none of is named, so that a pass says what it did not reach.
        name: unreached.length === 0 ? name : `${name}, but for ${unreached.join('; ')}`,
        seconds: (performance.now() - begun) / 1000,
        ...(withNo2xx.length > 0 ? { failure: `no 2xx from a valid request for:\n  ${withNo2xx.join('\n  ')}` } : {}),
      });
    } catch (error) {
      outcomes.push({
        name,
        seconds: (performance.now() - begun) / 1000,
        failure: `seed ${seed}\n${reporter.violation(error)}`,
      });
    }
  }
  for (const { name, check } of checks.readBacks) {
    const failure = prepared.get(name);
    if (failure !== undefined) {
      outcomes.push({ name, seconds: 0, failure });
      continue;
    }
    const begun = performance.now();
    try {
      const result = await check();
      if (result !== undefined) outcomes.push({ name, seconds: (performance.now() - begun) / 1000, ...result });
    } catch (error) {
      outcomes.push({
        name,
        seconds: (performance.now() - begun) / 1000,
        failure: `seed ${seed}\n${reporter.violation(error)}`,
      });
    }
  }
  // Last: what the run created and may remove is removed (a deployment keeps none of it).
  const begun = performance.now();
  const { removed, failures } = await checks.cleanup(seed);
  outcomes.push({
    name: `what the run created is removed where the document says how: ${removed} deleted`,
    seconds: (performance.now() - begun) / 1000,
    ...(failures.length > 0 ? { failure: `not deleted:\n  ${failures.join('\n  ')}` } : {}),
  });
  return outcomes;
}

/** Per operation: requests sent, valid ones, and valid ones served with a 2xx. */
export function printCounts(
  counts: readonly OperationCount[],
  output: Output,
  rateLimitedBy: ReadonlyMap<string, number> = new Map(),
) {
  const rows = counts.map((count) => [
    `${count.method} ${count.path}`,
    count.operationId,
    `${count.sent} sent`,
    `${count.valid} valid`,
    `${count.succeeded} answered 2xx`,
  ]);
  const widths = [0, 1, 2, 3, 4].map((column) => Math.max(0, ...rows.map((row) => row[column]!.length)));
  output.log('\nper operation (requests sent; valid ones; valid ones answered 2xx):');
  for (const row of rows)
    output.log(
      `  ${row.map((cell, column) => (column >= 2 ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!))).join('  ')}`,
    );
  if (rateLimitedBy.size > 0) {
    const limited = counts
      .filter((count) => rateLimitedBy.has(count.operationId))
      .map((count) => `${count.operationId} ${rateLimitedBy.get(count.operationId)}`);
    output.log(
      `429 TOO_MANY_REQUESTS (the deployment's limit: each waited for Retry-After and sent again, never a violation): ${limited.join(', ')}`,
    );
  }
}

/** One line per check, then each failure in full. */
export function printOutcomes(outcomes: readonly Outcome[], output: Output) {
  for (const { name, cases: count, failure, note } of outcomes) {
    output.log(
      `${failure === undefined ? 'ok  ' : 'FAIL'} ${name}${count === undefined ? '' : `: ${count} cases`}${note === undefined ? '' : ` (${note})`}`,
    );
  }
  for (const { name, failure } of outcomes.filter((outcome) => outcome.failure !== undefined))
    output.log(`\n--- ${name}\n${failure}`);
}

function violationReporter({ target, apiKey, keyVariable }: RunOptions) {
  const mask = (text: string) => text.split(apiKey).join('<key>');

  /** The violation and a curl line that repeats its request. */
  const violation = (error: unknown): string => {
    /* c8 ignore next -- the checks throw Errors; anything else thrown is shown as it is */
    const message = `${mask(error instanceof Error ? error.message : String(error))}\n`;
    if (!(error instanceof ContractViolation)) return message.trimEnd();
    return `${message}reproduce: ${curlOf(error.request)}`;
  };

  function curlOf(request: ApiRequest): string {
    const url = target.urlOf(request, 0).toString();
    const headers = Object.entries(request.headers).map(([name, value]) => `-H ${doubleQuoted(`${name}: ${value}`)}`);
    const body = request.payload === undefined ? [] : [`--data-binary ${ansiQuoted(Buffer.from(request.payload))}`];
    return ['curl', '-i', '--globoff', '-X', request.method, singleQuoted(url), ...headers, ...body].join(' ');
  }
  function singleQuoted(text: string): string {
    return `'${text.replace(/'/g, `'\\''`)}'`;
  }
  /** Double quotes, so that the key can stay in the shell's environment: "${CONTRACT_API_KEY}". */
  function doubleQuoted(text: string): string {
    return `"${text
      .replace(/[\\"$`]/g, '\\$&')
      .split(apiKey)
      .join(`\${${keyVariable}}`)}"`;
  }
  /** Bash's $'…' quoting, which carries any byte. */
  function ansiQuoted(bytes: Buffer): string {
    const escaped = [...bytes].map((byte) =>
      byte >= 0x20 && byte < 0x7f && byte !== 0x27 && byte !== 0x5c
        ? String.fromCharCode(byte)
        : `\\x${byte.toString(16).padStart(2, '0')}`,
    );
    return `$'${escaped.join('')}'`;
  }

  return {
    violation,
    /** fast-check's report (the seed and path to replay, the shrunk counterexample, the error), then the violation. */
    async failure(result: fc.RunDetails<unknown>): Promise<string> {
      /* c8 ignore next -- fast-check has a report for every failed run; its type allows none */
      return `${mask((await fc.asyncDefaultReportMessage(result)) ?? '')}\n${violation(result.errorInstance)}`;
    },
  };
}

/** A JUnit XML report of one or more suites of outcomes, for CI dashboards. */
export function junitReport(title: string, suites: readonly { name: string; outcomes: readonly Outcome[] }[]): string {
  const xml = (text: string) =>
    text
      .replace(/[&<>"]/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[character]!)
      // eslint-disable-next-line no-control-regex -- the characters XML 1.0 allows, tab and newlines among them
      .replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD]/gu, '?');
  const totals = (outcomes: readonly Outcome[]) => ({
    tests: outcomes.length,
    failures: outcomes.filter((outcome) => outcome.failure !== undefined).length,
    time: outcomes.reduce((sum, outcome) => sum + outcome.seconds, 0),
  });
  const all = totals(suites.flatMap((suite) => suite.outcomes));
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(title)}" tests="${all.tests}" failures="${all.failures}" time="${all.time.toFixed(3)}">`,
    ...suites.flatMap(({ name, outcomes }) => {
      const suite = totals(outcomes);
      return [
        `  <testsuite name="${xml(name)}" tests="${suite.tests}" failures="${suite.failures}" time="${suite.time.toFixed(3)}">`,
        ...outcomes.map(({ name: test, seconds, failure }) =>
          failure === undefined
            ? `    <testcase classname="contract" name="${xml(test)}" time="${seconds.toFixed(3)}"/>`
            : `    <testcase classname="contract" name="${xml(test)}" time="${seconds.toFixed(3)}">\n      <failure message="${xml(failure.split('\n')[0]!)}">${xml(failure)}</failure>\n    </testcase>`,
        ),
        '  </testsuite>',
      ];
    }),
    '</testsuites>',
    '',
  ].join('\n');
}
