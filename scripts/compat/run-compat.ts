// npm run compat, as a function: builds the service from the current spec, serves it on 127.0.0.1,
// and holds it to every released version of the interface. For each version it sends the requests
// that version's clients may send, generated from that version's document, and checks each response
// against that document, with the checks of npm run contract. Returns the exit status: 0 when
// every version is kept, 1 on a breaking change, 2 when it could not run.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp, type AppOptions } from '../../src/app.js';
import { rolesOf } from '../../src/auth/roles.js';
import { basePathOf, DEFAULT_SPEC_PATH, loadSpec, type OpenApiDocument } from '../../src/openapi/openapi-spec.js';
import { isLowered, lifecyclesOf } from '../../src/openapi/lifecycle.js';
import { createMemoryPetStore } from '../../src/store/memory-pet-store.js';
import type { PetStore } from '../../src/store/pet-store.js';
import { contractOf, httpTarget, linksOf, liveChecks, type SpecLink } from 'openapi-contract-engine';
import {
  cannotRun,
  exitStatusOf,
  junitReport,
  printCounts,
  printOutcomes,
  RUN_OPTIONS,
  runChecks,
  runSettings,
  type Outcome,
  type Output,
} from '../contract/run-checks.js';
import { petStorePlugin } from 'petstore-contract-plugin';
import { loadReleases, RELEASES_DIR, type Release } from './releases.js';
import { oneWebhookEndpoint } from '../../src/webhooks/discard-endpoint.js';

const USAGE = `usage: npm run compat -- [options]

Builds the service from openapi.yaml (in memory, on 127.0.0.1) and checks it against every released
version of the interface in docs/releases/: the requests each version's clients may send, generated
from that version's document, with every answer checked against that document. Any violation is a
breaking change. After an operation's sunset (as that version announced it), its clients may get
410, or 404 once the operation is gone from the spec.

  --spec <file>        build the service from this document instead of openapi.yaml
  --releases <dir>     the released versions (default docs/releases)
  --at <time>          run the service's clock at this instant, RFC 3339 or YYYY-MM-DD (default: now)
  --seed <integer>     seed of the generated requests (default: random; printed, to repeat a run)
  --cases <n>          generated cases per released version, split over the checks (default 300)
  --timeout-ms <ms>    an answer not complete by then is a violation (default 10000)
  --report junit=<file>  also write a JUnit XML report there, for CI dashboards
  --help               this text

Exit status: 0 when every released version is kept, 1 on a breaking change, 2 when it could not run.`;

const KEY_VARIABLE = 'COMPAT_API_KEY';

export interface CompatOptions {
  /**
   * Handlers for operations the spec under test adds (the gate's own tests of proposed edits), on the service's store.
   */
  handlers?: (store: PetStore) => NonNullable<AppOptions['handlers']>;
}

export function runCompat(argv: string[], output: Output = console, options: CompatOptions = {}): Promise<number> {
  return exitStatusOf('compat', output, () => run(argv, output, options));
}

async function run(argv: string[], console: Output, { handlers }: CompatOptions): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        spec: { type: 'string', default: DEFAULT_SPEC_PATH },
        releases: { type: 'string', default: RELEASES_DIR },
        at: { type: 'string' },
        ...RUN_OPTIONS,
      },
    }));
  } catch (error) {
    cannotRun(`${(error as Error).message}\n${USAGE}`);
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const { seed, cases, timeoutMs, junit } = runSettings(values, USAGE);
  const at = values.at === undefined ? undefined : instantOf(values.at);

  let spec: OpenApiDocument;
  let releases: Release[];
  try {
    spec = loadSpec(values.spec);
    releases = loadReleases(values.releases);
  } catch (error) {
    cannotRun((error as Error).message);
  }
  if (releases.length === 0)
    cannotRun(`no released version in ${values.releases}: record one with npm run compat -- record`);
  const now = () => at ?? Date.now();
  const apiKey = randomBytes(24).toString('base64url');
  const specName = basename(values.spec);
  console.log(
    `compat: the service built from ${specName} (version ${spec.info.version}) against ${releases.map((release) => release.version).join(', ')}; ` +
      `seed ${seed}; ${cases} cases each; at ${new Date(now()).toISOString()}`,
  );

  // A version released before the spec wrote a link down still has the ids its operations respond.
  let currentLinks: SpecLink[];
  try {
    currentLinks = linksOf(spec, specName);
  } catch (error) {
    cannotRun(`${(error as Error).message} (npm run lint -- spec says more)`);
  }
  const suites: { version: string; name: string; outcomes: Outcome[] }[] = [];
  const started = performance.now();
  let sent = 0;
  for (const release of releases) {
    // A fresh service for each version, as a deployment its clients would meet.
    let app;
    try {
      const store = createMemoryPetStore();
      app = await buildApp({
        apiKeys: [{ client: 'compat', key: apiKey, ...releasedRoles(release.spec, spec) }],
        spec,
        store,
        clock: now,
        webhooks: oneWebhookEndpoint('compat'),
        // The most holds a deployment may allow a client, which no run reaches: the cap is a
        // deployment's limit, as a quota is, not an answer a version's clients meet on every call
        // (docs/compatibility.md, "1.5.0: a security fix to roles and orders").
        orderHoldsPerClient: 1000,
        ...(handlers === undefined ? {} : { handlers: handlers(store) }),
      });
      await app.listen({ host: '127.0.0.1', port: 0 });
    } catch (error) {
      cannotRun(`the service does not start from ${specName}: ${(error as Error).message}`);
    }
    try {
      const { port } = app.server.address() as AddressInfo;
      const basePath = basePathOf(release.spec);
      const target = httpTarget({ urls: [new URL(`http://127.0.0.1:${port}${basePath}`)], basePath, timeoutMs });
      const retired = retiredAt(now(), release.spec, spec);
      const notSent = new Set(
        [...lifecyclesOf(release.spec, release.file).values()]
          .filter(({ stability }) => stability === 'experimental')
          .map(({ operationId }) => operationId),
      );
      const checks = liveChecks(target, {
        readOnly: false,
        runId: randomBytes(4).toString('hex'),
        maxPages: 1000,
        contract: contractOf(release.spec, release.file),
        apiKey,
        released: { retired, notSent, links: currentLinks },
        plugin: petStorePlugin(),
      });
      console.log(
        `\n${release.version} (${release.file})${retired.size > 0 ? `: ${[...retired].join(', ')} may answer as retired` : ''}` +
          `${notSent.size > 0 ? `; experimental there, so not held: ${[...notSent].join(', ')}` : ''}`,
      );
      const outcomes = [
        stabilityKept(release, spec),
        ...(await runChecks(checks, { seed, cases, target, apiKey, keyVariable: KEY_VARIABLE })),
      ];
      printOutcomes(outcomes, console);
      printCounts(checks.counts(), console);
      suites.push({
        version: release.version,
        name: `${specName} against released ${release.version} (seed ${seed})`,
        outcomes,
      });
      sent += target.counts().sent;
    } finally {
      await app.close();
    }
  }

  const broken = suites.filter((suite) => suite.outcomes.some((outcome) => outcome.failure !== undefined));
  console.log(
    `\nsummary: ${broken.length === 0 ? `every released version is kept` : `a breaking change for clients of ${broken.map((suite) => suite.version).join(', ')}`}; ` +
      `seed ${seed}; ${sent} requests; ${((performance.now() - started) / 1000).toFixed(1)} s` +
      (broken.length === 0
        ? ''
        : `\nThe curl lines need the service built from ${specName} on that port, with ${KEY_VARIABLE} among its API_KEYS.`),
  );
  if (junit !== undefined) writeFileSync(junit, junitReport('npm run compat', suites));
  return broken.length === 0 ? 0 : 1;
}

/**
 * A release's promise about each operation may grow and never shrink: an operation stable there
 * stays stable, a beta one stays beta or becomes stable (docs/compatibility.md). An operation
 * gone from the spec is judged by its responses (its sunset), not here.
 */
function stabilityKept(release: Release, current: OpenApiDocument): Outcome {
  const now = lifecyclesOf(current);
  const lowered = [...lifecyclesOf(release.spec, release.file).values()].flatMap(
    ({ operationId, stability: before }) => {
      const after = now.get(operationId)?.stability;
      return after !== undefined && isLowered(before, after)
        ? [`${operationId} is ${before} in ${release.version} and ${after} now`]
        : [];
    },
  );
  return {
    name: 'no operation is less stable than this version made it',
    seconds: 0,
    ...(lowered.length > 0
      ? {
          failure: `${lowered.join('\n')}\nA release's x-stability is a promise to its clients: it may grow (experimental → beta → stable), never shrink.`,
        }
      : {}),
  };
}

function instantOf(text: string): number {
  const instant = /^\d{4}-\d{2}-\d{2}$/.test(text)
    ? Date.parse(`${text}T00:00:00Z`)
    : /^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:\d{2})$/.test(text)
      ? Date.parse(text)
      : Number.NaN;
  if (Number.isNaN(instant)) cannotRun(`--at must be an RFC 3339 date-time or a date (YYYY-MM-DD), not ${text}`);
  return instant;
}

/**
 * The operations of a released version its clients can no longer count on at `now`: past the
 * sunset that version announced, or inside a brownout window the current spec announces (a
 * scheduled, announced failure, which is what a brownout is for).
 */
function retiredAt(now: number, released: OpenApiDocument, current: OpenApiDocument): Set<string> {
  const retired = new Set<string>();
  for (const { operationId, deprecation } of lifecyclesOf(released).values()) {
    const sunset = deprecation?.sunset?.at;
    if (sunset !== undefined && now >= sunset) retired.add(operationId);
  }
  for (const { operationId, deprecation } of lifecyclesOf(current).values()) {
    if (deprecation?.brownouts.some(({ start, end }) => now >= start && now < end)) retired.add(operationId);
  }
  return retired;
}

/**
 * The roles of the key the gate calls with: those the released version names (its clients' keys
 * were issued with them), or every role when it names none (keys before roles carried them all).
 * A current operation that needs a role outside them responds to its valid requests with 403, which fails
 * the gate: adding a new role to a released operation breaks the keys issued for that release.
 */
function releasedRoles(released: OpenApiDocument, current: OpenApiDocument): { roles: readonly string[] } {
  const named = rolesOf(released).named;
  const known = rolesOf(current).named;
  return { roles: named.length === 0 ? known : named.filter((role) => known.includes(role)) };
}
