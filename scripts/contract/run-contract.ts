// npm run contract, as a function: parses the arguments, checks the target, reports, and returns
// the exit status (0 when every check holds, 1 on a violation, 2 when it could not run). The tests
// run it in-process against misbehaving servers; scripts/contract.ts is the command.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { basePathOf } from '../../src/spec/openapi-spec.js';
import { spec } from '../../test/helpers/contract.js';
import { ContractViolation } from '../../test/properties/api-properties.js';
import type { ApiRequest } from '../../test/properties/api-requests.js';
import { httpTarget, NoAnswer, type Target } from '../../test/properties/http-target.js';
import { liveChecks, namePrefix } from '../../test/properties/live-properties.js';

const KEY_VARIABLE = 'CONTRACT_API_KEY';
const USAGE = `usage: npm run contract -- --url <base URL ending in ${basePathOf(spec)}> [options]

Sends the requests the property tests generate from openapi.yaml (valid ones, ones that break one
rule, ones without a valid key) to a running deployment, and checks every answer against
openapi.yaml. The API key comes from ${KEY_VARIABLE} or --key-file, never from the command line.

  --url <url>          base URL of the API, ending in ${basePathOf(spec)}; repeat it for several
                       instances of one deployment: requests go to each in turn
  --key-file <file>    read the API key from this file (else ${KEY_VARIABLE})
  --seed <integer>     seed of the generated requests (default: random; printed, to repeat a run)
  --cases <n>          generated cases, split over the checks (default 300)
  --timeout-ms <ms>    an answer not complete by then is a violation (default 10000)
  --read-only          no createPet at all, valid or not: safe against production
  --max-pages <n>      pages of listPets read per walk when reading created pets back (default 1000)
  --report junit=<file>  also write a JUnit XML report there, for CI dashboards
  --help               this text

Pets it creates are named "contract-check <run id> …" (the run id is printed).
Exit status: 0 when every check holds, 1 on a violation, 2 when it could not run.`;

/** Why the run could not start: exit status 2. */
class CannotRun extends Error {}
function cannotRun(message: string): never {
  throw new CannotRun(message);
}

export interface ContractOutput {
  log(line: string): void;
  error(line: string): void;
}

export async function runContract(argv: string[], env: NodeJS.ProcessEnv, output: ContractOutput = console): Promise<number> {
  try {
    return await run(argv, env, output);
  } catch (error) {
    if (!(error instanceof CannotRun)) throw error;
    output.error(`contract: ${error.message}`);
    return 2;
  }
}

async function run(argv: string[], env: NodeJS.ProcessEnv, console: ContractOutput): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        url: { type: 'string', multiple: true },
        'key-file': { type: 'string' },
        seed: { type: 'string' },
        cases: { type: 'string', default: '300' },
        'timeout-ms': { type: 'string', default: '10000' },
        'read-only': { type: 'boolean', default: false },
        'max-pages': { type: 'string', default: '1000' },
        report: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    cannotRun(`${(error as Error).message}\n${USAGE}`);
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const integer = (name: string, text: string, min: number) => {
    if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) < min) cannotRun(`--${name} must be an integer of at least ${min}\n${USAGE}`);
    return Number(text);
  };
  const urls = (values.url ?? []).map((text) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      cannotRun(`--url ${text} is not a URL`);
    }
    if (!/^https?:$/.test(url.protocol) || !url.pathname.replace(/\/$/, '').endsWith(basePathOf(spec)) || url.search !== '') {
      cannotRun(`--url ${text} must be an http(s) URL whose path ends in ${basePathOf(spec)}, without a query`);
    }
    return url;
  });
  if (urls.length === 0) cannotRun(`--url is required\n${USAGE}`);
  const seed = values.seed === undefined ? randomBytes(4).readUInt32BE() % 2 ** 31 : integer('seed', values.seed, -(2 ** 31));
  const cases = integer('cases', values.cases, 1);
  const timeoutMs = integer('timeout-ms', values['timeout-ms'], 1);
  const maxPages = integer('max-pages', values['max-pages'], 1);
  const junit = values.report === undefined ? undefined : /^junit=(.+)$/.exec(values.report)?.[1];
  if (values.report !== undefined && junit === undefined) cannotRun(`--report must be junit=<file>`);

  let apiKey: string;
  if (values['key-file'] !== undefined) {
    try {
      apiKey = readFileSync(values['key-file'], 'utf8').trim();
    } catch (error) {
      cannotRun(`cannot read --key-file: ${(error as Error).message}`);
    }
  } else {
    apiKey = env[KEY_VARIABLE] ?? '';
  }
  if (apiKey === '') cannotRun(`no API key: set ${KEY_VARIABLE}, or give --key-file`);

  const target = httpTarget({ urls, apiKey, timeoutMs });
  const mask = (text: string) => text.split(apiKey).join('<key>');

  // Before anything is counted: every target answers, and accepts the key.
  for (const [index] of urls.entries()) {
    const probe: ApiRequest = { operationId: 'listPets', method: 'GET', url: `${basePathOf(spec)}/pets?limit=1`, headers: { authorization: `Bearer ${apiKey}` } };
    const url = target.urlOf(probe, index);
    try {
      const answer = await target.send({ ...probe, url: url.toString() });
      if (answer.statusCode === 401) cannotRun(`${url} refused the API key (401): check ${KEY_VARIABLE} or --key-file`);
    } catch (error) {
      cannotRun(error instanceof NoAnswer ? `cannot reach the target: ${mask(error.message)}` : mask(String(error)));
    }
  }

  const runId = randomBytes(4).toString('hex');
  const checks = liveChecks(target, { readOnly: values['read-only'], runId, maxPages });
  console.log(`contract: ${urls.join(', ')}; seed ${seed}; ${cases} cases; run ${runId}${values['read-only'] ? '; read-only' : ''}`);

  interface Outcome {
    name: string;
    cases?: number;
    seconds: number;
    failure?: string;
    note?: string;
  }
  const outcomes: Outcome[] = [];
  const started = performance.now();

  for (const [index, { name, property }] of checks.properties.entries()) {
    const numRuns = Math.floor(cases / checks.properties.length) + (index < cases % checks.properties.length ? 1 : 0);
    const begun = performance.now();
    const result = await fc.check(property, { seed, numRuns });
    const seconds = (performance.now() - begun) / 1000;
    outcomes.push({ name, cases: result.numRuns, seconds, ...(result.failed ? { failure: await failureReport(result) } : {}) });
  }

  if (checks.created().length > 0) {
    const name = 'what a create answered reads back equal, through getPet and through listPets pages';
    const begun = performance.now();
    try {
      const { note } = await checks.readBack();
      outcomes.push({ name, seconds: (performance.now() - begun) / 1000, ...(note === undefined ? {} : { note }) });
    } catch (error) {
      outcomes.push({ name, seconds: (performance.now() - begun) / 1000, failure: `seed ${seed}\n${violationReport(error)}` });
    }
  }

  const failed = outcomes.filter((outcome) => outcome.failure !== undefined);
  for (const { name, cases: count, failure, note } of outcomes) {
    console.log(`${failure === undefined ? 'ok  ' : 'FAIL'} ${name}${count === undefined ? '' : `: ${count} cases`}${note === undefined ? '' : ` (${note})`}`);
  }
  for (const { name, failure } of failed) console.log(`\n--- ${name}\n${failure}`);
  const { sent, rateLimited } = target.counts();
  const createdCount = checks.created().length;
  console.log(
    `\nsummary: ${failed.length === 0 ? 'every check holds' : `${failed.length} of ${outcomes.length} checks violated`}; seed ${seed}; ${sent} requests` +
      `${rateLimited > 0 ? ` (${rateLimited} answered 429 and retried after Retry-After)` : ''}; ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
      `${createdCount} pets created${createdCount > 0 ? `, named "${namePrefix(runId)}…"` : ''}`,
  );
  if (junit !== undefined) writeFileSync(junit, junitReport(outcomes));
  return failed.length === 0 ? 0 : 1;

  async function failureReport(result: fc.RunDetails<unknown>): Promise<string> {
    // fast-check's report: the seed and path to replay, the shrunk counterexample, the error.
    const report = mask(await fc.asyncDefaultReportMessage(result) ?? '');
    return `${report}\n${violationReport(result.errorInstance)}`;
  }

  /** The violation and a curl line that repeats its request, with the key read from the environment. */
  function violationReport(error: unknown, withMessage = true): string {
    const message = withMessage ? `${mask(error instanceof Error ? error.message : String(error))}\n` : '';
    if (!(error instanceof ContractViolation)) return message.trimEnd();
    return `${message}reproduce: ${curlOf(target, error.request)}`;
  }

  function curlOf(target: Target, generated: ApiRequest): string {
    const request = target.withKey(generated);
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
    return `"${text.replace(/[\\"$`]/g, '\\$&').split(apiKey).join(`\${${KEY_VARIABLE}}`)}"`;
  }
  /** Bash's $'…' quoting, which carries any byte. */
  function ansiQuoted(bytes: Buffer): string {
    const escaped = [...bytes].map((byte) => (byte >= 0x20 && byte < 0x7f && byte !== 0x27 && byte !== 0x5c ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`));
    return `$'${escaped.join('')}'`;
  }

  function junitReport(outcomes: Outcome[]): string {
    const xml = (text: string) =>
      text.replace(/[&<>"]/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[character]!).replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD]/gu, '?');
    const total = outcomes.reduce((sum, outcome) => sum + outcome.seconds, 0);
    return [
      '<?xml version="1.0" encoding="UTF-8"?>',
      `<testsuites name="npm run contract" tests="${outcomes.length}" failures="${failed.length}" time="${total.toFixed(3)}">`,
      `  <testsuite name="${xml(`contract against ${urls.join(', ')} (seed ${seed})`)}" tests="${outcomes.length}" failures="${failed.length}" time="${total.toFixed(3)}">`,
      ...outcomes.map(({ name, seconds, failure }) =>
        failure === undefined
          ? `    <testcase classname="contract" name="${xml(name)}" time="${seconds.toFixed(3)}"/>`
          : `    <testcase classname="contract" name="${xml(name)}" time="${seconds.toFixed(3)}">\n      <failure message="${xml(failure.split('\n')[0]!)}">${xml(failure)}</failure>\n    </testcase>`,
      ),
      '  </testsuite>',
      '</testsuites>',
      '',
    ].join('\n');
  }
}
