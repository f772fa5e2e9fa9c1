// npm run contract, as a function: parses the arguments, checks the target, reports, and returns
// the exit status (0 when every check holds, 1 on a violation, 2 when it could not run). The tests
// run it in-process against misbehaving servers; scripts/contract.ts is the command.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { basename } from 'node:path';
import { loadSpec } from '../../src/openapi/openapi-spec.js';
import {
  type ApiRequest,
  basePathOf,
  type Contract,
  contractOf,
  httpTarget,
  liveChecks,
  type LiveChecks,
  namePrefix,
  NoResponse,
  type Operation,
  pathParametersOf,
  requiredScopesOf,
  ownedSchemaNames,
  type OwnerOutcome,
  scopeChecks,
  type ScopeOutcome,
} from 'openapi-contract-engine';
import { PET_STORE_ERRORS, PET_STORE_QUERY, petStorePlugin } from 'petstore-contract-plugin';
import {
  cannotRun,
  exitStatusOf,
  junitReport,
  printCounts,
  printOutcomes,
  RUN_OPTIONS,
  runChecks,
  runSettings,
  type Output,
} from './run-checks.js';

const KEY_VARIABLE = 'CONTRACT_API_KEY';
const LIMITED_KEY_VARIABLE = 'CONTRACT_LIMITED_API_KEY';
const OTHER_KEY_VARIABLE = 'CONTRACT_OTHER_API_KEY';
const spec = loadSpec();
const USAGE = `usage: npm run contract -- --url <base URL ending in ${basePathOf(spec)}> [options]

Sends the requests the property tests generate from openapi.yaml (valid ones, ones that break one
rule, ones without a valid key) to a running deployment, and checks every answer against
openapi.yaml. The API key comes from ${KEY_VARIABLE} or --key-file, never from the command line.

  --url <url>          base URL of the API, ending in ${basePathOf(spec)}; repeat it for several
                       instances of one deployment: requests go to each in turn
  --key-file <file>    read the API key from this file (else ${KEY_VARIABLE})
  --limited-key-file <file>  a second key, lacking a role: every operation needing a role it
                       lacks must answer the documented 403 (else ${LIMITED_KEY_VARIABLE}; without
                       either, the 403s are not checked, and the summary says so)
  --other-key-file <file>  a key of another client: where openapi.yaml marks objects owned
                       (x-owner), none this run made may be read, moved or listed with it: each
                       such operation must answer the documented 404 (else ${OTHER_KEY_VARIABLE};
                       without either, ownership is not checked, and the summary says so)
  --seed <integer>     seed of the generated requests (default: random; printed, to repeat a run)
  --cases <n>          generated cases, split over the checks (default 300)
  --timeout-ms <ms>    an answer not complete by then is a violation (default 10000)
  --spec <file>        check against this document instead of openapi.yaml (a deployment
                       that runs another version of the spec)
  --read-only          only operations of safe methods (GET, HEAD, OPTIONS), valid or not:
                       nothing is created or changed, safe against production
  --max-pages <n>      pages of listPets read per walk when reading created pets back (default 1000)
  --without-plugin     only the engine's generic checks, derived from the document alone: not
                       the Pet Store plug-in's (scripts/contract/pet-store/), whose checks are
                       named [pet-store] in the output (the run still knows the cursor, the long
                       poll and the error codes, which no document can say)
  --report junit=<file>  also write a JUnit XML report there, for CI dashboards
  --help               this text

Pets it creates are named "contract-check <run id> …" (the run id is printed). An operation past the
sunset its document announces, or inside one of its brownout windows, may answer the documented 410
OPERATION_GONE, and is not held to a 2xx.
Exit status: 0 when every check holds, 1 on a violation, 2 when it could not run.`;

export type ContractOutput = Output;

export interface ContractOptions {
  /** The target's clock, for the calendar its document announces (Date.now): a test's service may run on its own. */
  clock?: () => number;
}

export function runContract(
  argv: string[],
  env: NodeJS.ProcessEnv,
  output: ContractOutput = console,
  options: ContractOptions = {},
): Promise<number> {
  return exitStatusOf('contract', output, () => run(argv, env, output, options));
}

async function run(
  argv: string[],
  env: NodeJS.ProcessEnv,
  console: ContractOutput,
  { clock = Date.now }: ContractOptions,
): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        url: { type: 'string', multiple: true },
        'key-file': { type: 'string' },
        'limited-key-file': { type: 'string' },
        'other-key-file': { type: 'string' },
        ...RUN_OPTIONS,
        'read-only': { type: 'boolean', default: false },
        spec: { type: 'string' },
        'max-pages': { type: 'string', default: '1000' },
        'without-plugin': { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    cannotRun(`${(error as Error).message}\n${USAGE}`);
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const { seed, cases, timeoutMs, junit, integer } = runSettings(values, USAGE);
  let contract: Contract = contractOf(spec);
  if (values.spec !== undefined) {
    try {
      contract = contractOf(loadSpec(values.spec), basename(values.spec));
    } catch (error) {
      cannotRun(`--spec ${values.spec}: ${(error as Error).message}`);
    }
  }
  const basePath = basePathOf(contract.spec);
  const urls = (values.url ?? []).map((text) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      cannotRun(`--url ${text} is not a URL`);
    }
    if (!/^https?:$/.test(url.protocol) || !url.pathname.replace(/\/$/, '').endsWith(basePath) || url.search !== '') {
      cannotRun(`--url ${text} must be an http(s) URL whose path ends in ${basePath}, without a query`);
    }
    return url;
  });
  if (urls.length === 0) cannotRun(`--url is required\n${USAGE}`);
  const maxPages = integer('max-pages', values['max-pages'], 1);

  const { apiKey, limitedKey, otherKey } = readKeys(values, env);

  const target = httpTarget({ urls, basePath, timeoutMs });
  const mask = (text: string) =>
    text
      .split(apiKey)
      .join('<key>')
      .split(limitedKey || apiKey)
      .join('<limited key>')
      .split(otherKey || apiKey)
      .join('<other key>');

  if (contract.operations.length === 0) cannotRun(`${contract.name} defines no operation`);
  await probe(target, contract, { targets: urls.length, basePath }, { apiKey, mask });

  const runId = randomBytes(4).toString('hex');
  let checks: LiveChecks;
  try {
    checks = liveChecks(target, {
      readOnly: values['read-only'],
      runId,
      maxPages,
      contract,
      apiKey,
      clock,
      // Without the plug-in's checks, the run still knows what no document can say of the Pet
      // Store: its cursor and long poll, and how its rejections are worded.
      plugin: values['without-plugin']
        ? { name: 'pet-store-words', query: PET_STORE_QUERY, errors: PET_STORE_ERRORS }
        : petStorePlugin(),
    });
  } catch (error) {
    cannotRun(`${(error as Error).message} (npm run lint -- spec says more)`);
  }
  console.log(
    `contract: ${urls.join(', ')} against ${contract.name}; seed ${seed}; ${cases} cases; run ${runId}${values['read-only'] ? '; read-only' : ''}`,
  );

  const started = performance.now();
  const outcomes = await runChecks(checks, { seed, cases, target, apiKey, keyVariable: KEY_VARIABLE });
  const failed = outcomes.filter((outcome) => outcome.failure !== undefined);
  printOutcomes(outcomes, console);
  printCounts(checks.counts(), console, target.counts().rateLimitedBy);
  const scopes =
    limitedKey === ''
      ? undefined
      : await scopeChecks(target, contract, limitedKey, {
          readOnly: values['read-only'],
          seed,
          query: PET_STORE_QUERY,
          errors: PET_STORE_ERRORS,
        });
  const scopeFailures = printScopes(scopes, contract, console, mask);
  const owners = otherKey === '' || values['read-only'] ? undefined : await checks.ownership(otherKey, seed);
  const ownerFailures = printOwners(owners, contract, console, { mask, readOnly: values['read-only'] });
  const { sent, rateLimited } = target.counts();
  const written = checks.writes();
  console.log(
    `\nsummary: ${failed.length + scopeFailures + ownerFailures === 0 ? 'every check holds' : `${failed.length + scopeFailures + ownerFailures} of ${outcomes.length + (scopes?.length ?? 0) + (owners?.length ?? 0)} checks violated`}; seed ${seed}; ${sent} requests` +
      `${rateLimited > 0 ? ` (${rateLimited} answered 429 and retried after Retry-After)` : ''}; ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
      `${written} writes answered 2xx${written > 0 ? `, names beginning "${namePrefix(runId)}"` : ''}`,
  );
  if (junit !== undefined)
    writeFileSync(
      junit,
      junitReport('npm run contract', [{ name: `contract against ${urls.join(', ')} (seed ${seed})`, outcomes }]),
    );
  return failed.length + scopeFailures + ownerFailures === 0 ? 0 : 1;
}

/** The ownership checks, one line each, or why there were none; returns how many were violated. */
function printOwners(
  owners: OwnerOutcome[] | undefined,
  contract: Contract,
  console: ContractOutput,
  { mask, readOnly }: { mask: (text: string) => string; readOnly: boolean },
): number {
  const owned = [...ownedSchemaNames(contract.spec)];
  if (owners === undefined) {
    if (owned.length > 0)
      console.log(
        readOnly
          ? `\nownership (${owned.join(', ')}): not checked in a read-only run, which makes no object`
          : `\nownership (${owned.join(', ')}): not checked: give a key of another client in ${OTHER_KEY_VARIABLE} or --other-key-file`,
      );
    return 0;
  }
  console.log(`\nownership (${owned.join(', ')}), with another client's key:`);
  for (const { operationId, result, objects, violation } of owners) {
    if (result === 'checked') console.log(`  ok   ${operationId}: none of ${objects} of the run's objects reached`);
    else if (result === 'held') console.log(`  --   ${operationId}: not checked, the other key lacks its role (403)`);
    else if (result === 'unreached') console.log(`  --   ${operationId}: not checked, the run made no object it names`);
    else console.log(`  FAIL ${operationId}: ${mask(violation!.message)}`);
  }
  return owners.filter((owner) => owner.result === 'violated').length;
}

/** The 403 checks, one line each, or why there were none; returns how many were violated. */
function printScopes(
  scopes: ScopeOutcome[] | undefined,
  contract: Contract,
  console: ContractOutput,
  mask: (text: string) => string,
): number {
  const needing = contract.operations.filter((operation) => requiredScopesOf(operation, contract.spec).length > 0);
  if (scopes === undefined) {
    if (needing.length > 0) {
      console.log(
        `\n403 insufficient_scope: not checked (${needing.map((operation) => operation.operationId).join(', ')} need roles): give a key lacking a role in ${LIMITED_KEY_VARIABLE} or --limited-key-file`,
      );
    }
    return 0;
  }
  console.log('\n403 insufficient_scope, with the limited key:');
  for (const { operationId, roles, result, status, violation } of scopes) {
    const needs = `needs ${roles.join(', ')}`;
    if (result === 'checked') console.log(`  ok   ${operationId} (${needs}): the documented 403`);
    else if (result === 'held')
      console.log(
        `  --   ${operationId} (${needs}): not checked, the limited key has ${roles.join(', ')} (answered ${status})`,
      );
    else console.log(`  FAIL ${operationId} (${needs}): ${mask(violation!.message)}`);
  }
  return scopes.filter((scope) => scope.result === 'violated').length;
}

/** The key the requests carry, and the limited one of the 403 checks ('' without one). */
function readKeys(
  values: {
    'key-file'?: string | undefined;
    'limited-key-file'?: string | undefined;
    'other-key-file'?: string | undefined;
  },
  env: NodeJS.ProcessEnv,
): { apiKey: string; limitedKey: string; otherKey: string } {
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
  let limitedKey = env[LIMITED_KEY_VARIABLE] ?? '';
  if (values['limited-key-file'] !== undefined) {
    try {
      limitedKey = readFileSync(values['limited-key-file'], 'utf8').trim();
    } catch (error) {
      cannotRun(`cannot read --limited-key-file: ${(error as Error).message}`);
    }
  }
  let otherKey = env[OTHER_KEY_VARIABLE] ?? '';
  if (values['other-key-file'] !== undefined) {
    try {
      otherKey = readFileSync(values['other-key-file'], 'utf8').trim();
    } catch (error) {
      cannotRun(`cannot read --other-key-file: ${(error as Error).message}`);
    }
  }
  return { apiKey, limitedKey, otherKey };
}

/**
 * Before anything is counted: every target responds, and accepts the key. It is asked with an
 * operation of the spec, a GET whose path names nothing if there is one; any response but 401 will do.
 */
async function probe(
  target: ReturnType<typeof httpTarget>,
  contract: Contract,
  { targets, basePath }: { targets: number; basePath: string },
  { apiKey, mask }: { apiKey: string; mask: (text: string) => string },
) {
  const plain = (operation: Operation) =>
    Number(operation.method === 'get' && pathParametersOf(operation.path).length === 0);
  const probing = [...contract.operations].sort((a, b) => plain(b) - plain(a))[0]!;
  for (let index = 0; index < targets; index++) {
    const path = `${basePath}${probing.path.replace(/\{[^}]+\}/g, '1')}`;
    const probe: ApiRequest = {
      operationId: probing.operationId,
      method: probing.method.toUpperCase(),
      url: path,
      headers: { authorization: `Bearer ${apiKey}` },
    };
    const url = target.urlOf(probe, index);
    try {
      const response = await target.send({ ...probe, url: url.toString() });
      if (response.statusCode === 401)
        cannotRun(`${url} refused the API key (401): check ${KEY_VARIABLE} or --key-file`);
    } catch (error) {
      cannotRun(error instanceof NoResponse ? `cannot reach the target: ${mask(error.message)}` : mask(String(error)));
    }
  }
}
