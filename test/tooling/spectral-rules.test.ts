// The project's own lint rules: `npm run lint -- spec` refuses lifecycle markers the service would
// refuse at start-up, a sunset announced with less than the notice we give (by x-stability) and an
// x-stability that is not one of ours (scripts/lint/lifecycle.ts, with the service's reader), and
// links the contract checks could not follow, and security requirements naming roles without the
// 403 they call for (.spectral.yaml, scripts/spectral/). Edited copies of
// openapi.yaml go through both, in one Spectral run.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { stringify } from 'yaml';
import { lintLifecycle } from '#tools/lint';
import { PROJECT_ROOT } from '../../src/project-root.js';
import { specWith } from '../helpers/spec.js';

const run = promisify(execFile);
const RULE = 'petstore-lifecycle';
const withStability = (stability: unknown, markers: Record<string, unknown> = {}) =>
  specWith((spec) => Object.assign(spec.paths['/pets/{petId}']!.get!, { 'x-stability': stability }, markers));
const createPetLink = (link: Record<string, unknown>) =>
  specWith((spec) => {
    const created = spec.paths['/pets']!.post!.responses['201'] as { links: Record<string, unknown> };
    created.links['GetPetById'] = link;
  });
const getPetMarkers = (markers: Record<string, unknown>) =>
  specWith((spec) => {
    const getPet = spec.paths['/pets/{petId}']!.get! as unknown as Record<string, unknown>;
    for (const [marker, value] of Object.entries(markers)) {
      if (value === undefined) delete getPet[marker];
      else getPet[marker] = value;
    }
  });

const cases: [string, ReturnType<typeof specWith>, string | string[] | undefined, string?][] = [
  ['openapi.yaml as it is', getPetMarkers({}), undefined],
  [
    'brownouts in order',
    getPetMarkers({
      'x-brownouts': [
        { start: '2030-06-01T14:00:00Z', end: '2030-06-01T15:00:00Z' },
        { start: '2030-09-01T14:00:00Z', end: '2030-09-02T14:00:00Z' },
      ],
    }),
    undefined,
  ],
  [
    'no deprecation date',
    getPetMarkers({ 'x-deprecated-at': undefined }),
    'a deprecated operation needs x-deprecated-at (YYYY-MM-DD)',
  ],
  [
    'a sunset that is not a date',
    getPetMarkers({ 'x-sunset': 'December 2030' }),
    'x-sunset must be a date, YYYY-MM-DD',
  ],
  [
    'a sunset too soon after the deprecation',
    getPetMarkers({ 'x-sunset': '2027-05-20' }),
    'x-sunset must come at least 180 days after x-deprecated-at',
  ],
  [
    'an unknown replacement',
    getPetMarkers({ 'x-replaced-by': 'findPets' }),
    'x-replaced-by must name an operation whose path has no parameters',
  ],
  [
    'a brownout that is not a window',
    getPetMarkers({ 'x-brownouts': [null] }),
    ['start', 'end'].map(
      (field) => `x-brownouts[0].${field} must be an RFC 3339 date-time in UTC, such as 2030-06-01T14:00:00Z`,
    ),
  ],
  [
    'brownouts that are not a list',
    getPetMarkers({ 'x-brownouts': { start: '2030-06-01T14:00:00Z' } }),
    'x-brownouts must be a list of {start, end}',
  ],
  [
    'a brownout not in UTC',
    getPetMarkers({ 'x-brownouts': [{ start: '2030-06-01T14:00:00+02:00', end: '2030-06-01T15:00:00Z' }] }),
    'x-brownouts[0].start must be an RFC 3339 date-time in UTC, such as 2030-06-01T14:00:00Z',
  ],
  [
    'a brownout that ends before it starts',
    getPetMarkers({ 'x-brownouts': [{ start: '2030-06-01T15:00:00Z', end: '2030-06-01T14:00:00Z' }] }),
    'x-brownouts[0] must start before it ends',
  ],
  [
    'a brownout before the deprecation',
    getPetMarkers({ 'x-brownouts': [{ start: '2026-01-01T00:00:00Z', end: '2026-01-02T00:00:00Z' }] }),
    'x-brownouts[0] starts before x-deprecated-at',
  ],
  [
    'a brownout past the sunset',
    getPetMarkers({ 'x-brownouts': [{ start: '2030-12-04T00:00:00Z', end: '2030-12-05T00:00:01Z' }] }),
    'x-brownouts[0] ends after x-sunset',
  ],
  [
    'brownouts that overlap',
    getPetMarkers({
      'x-brownouts': [
        { start: '2030-06-01T14:00:00Z', end: '2030-06-01T16:00:00Z' },
        { start: '2030-06-01T15:00:00Z', end: '2030-06-01T17:00:00Z' },
      ],
    }),
    'x-brownouts[0] and x-brownouts[1] overlap',
  ],
  [
    'markers on an operation that is not deprecated',
    specWith((spec) => Object.assign(spec.paths['/pets']!.get!, { 'x-sunset': '2031-01-01' })),
    'x-sunset needs deprecated: true',
  ],
  [
    'a beta operation, sunset 30 days after its deprecation',
    withStability('beta', { 'x-sunset': '2026-12-22' }),
    undefined,
  ],
  [
    'a beta operation, sunset 29 days after',
    withStability('beta', { 'x-sunset': '2026-12-21' }),
    'x-sunset must come at least 30 days after x-deprecated-at (x-stability beta)',
  ],
  [
    'an experimental operation, sunset the day after',
    withStability('experimental', { 'x-sunset': '2026-11-23' }),
    undefined,
  ],
  [
    'an x-stability of our own making',
    withStability('alpha'),
    'x-stability must be one of experimental, beta, stable, not "alpha"',
  ],
  [
    'a link to no operation',
    createPetLink({ operationId: 'readPet', parameters: { petId: '$response.body#/id' } }),
    "a link's operationId must name an operation of this document, not readPet",
    'petstore-link-targets',
  ],
  [
    'a link to a parameter that is not there',
    createPetLink({ operationId: 'getPet', parameters: { id: '$response.body#/id' } }),
    'getPet has no path parameter id',
    'petstore-link-targets',
  ],
  [
    'a role on an operation that does not document 403',
    specWith((spec) => delete spec.paths['/pets']!.post!.responses['403']),
    'createPet names roles in its security requirement, so it must document 403 (#/components/responses/Forbidden)',
    'petstore-security-roles',
  ],
  [
    'a security scheme that is not defined',
    specWith((spec) => (spec.paths['/pets']!.get!.security = [{ apiKeyAuth: ['pets:read'] }])),
    'security names apiKeyAuth, which components.securitySchemes does not define',
    'petstore-security-roles',
  ],
  [
    'an operation that does not document 429',
    specWith((spec) => delete spec.paths['/pets']!.get!.responses['429']),
    "every operation must document 429: $ref '#/components/responses/TooManyRequests'",
    'petstore-too-many-requests',
  ],
  [
    'a new role, with its 403',
    specWith((spec) => (spec.paths['/pets']!.get!.security = [{ bearerAuth: ['pets:audit'] }])),
    undefined,
  ],
  [
    'a link that fills a body member from a constant',
    createPetLink({ operationId: 'placeOrder', requestBody: { petId: 7 } }),
    "petId: a link's value comes from the answer's body, $response.body#/…",
    'petstore-link-targets',
  ],
  [
    'a link from a header',
    createPetLink({ operationId: 'getPet', parameters: { petId: '$response.header.Location' } }),
    "petId: a link's value comes from the answer's body, $response.body#/…",
    'petstore-link-targets',
  ],
];

t.test(
  'npm run lint -- spec refuses lifecycle markers, stability markers and links that cannot be kept, and only those',
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-spectral-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const files = await Promise.all(
      cases.map(async ([, spec], index) => {
        const file = join(dir, `case-${index}.yaml`);
        await writeFile(file, stringify(spec));
        return file;
      }),
    );
    // Spectral exits 1 when it finds anything; its JSON report is what is read.
    const { stdout } = await run('node_modules/.bin/spectral', [
      'lint',
      '--quiet',
      '--format',
      'json',
      '--ruleset',
      '.spectral.yaml',
      ...files,
    ]).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    const results = JSON.parse(stdout) as { code: string; message: string; source: string }[];
    for (const [index, [what, , expected, rule = RULE]] of cases.entries()) {
      const lifecycle = lintLifecycle(files[index]!).map(({ message }) => ({
        code: RULE,
        message,
        source: files[index]!,
      }));
      const found = [...lifecycle, ...results.filter((result) => result.source.endsWith(`case-${index}.yaml`))];
      if (expected === undefined) t.same(found, [], `${what}: no finding at all`);
      else
        t.same(
          found.map(({ code, message }) => ({ code, message })),
          [expected].flat().map((message) => ({ code: rule, message })),
          `${what}: ${String(expected)}`,
        );
    }
  },
);

t.test('the lifecycle lint as npm run lint -- spec runs it: each problem at its line, and exit 1', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'petstore-lifecycle-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const good = join(dir, 'good.yaml');
  const bad = join(dir, 'bad.yaml');
  await writeFile(good, stringify(getPetMarkers({})));
  await writeFile(bad, stringify(getPetMarkers({ 'x-sunset': '2027-05-20', 'x-brownouts': 'soon' })));
  const lint = fileURLToPath(new URL('../../scripts/lint/lifecycle.js', import.meta.url));
  const { stdout: quiet } = await run(process.execPath, [lint, good]);
  t.equal(quiet, '', 'nothing to say of openapi.yaml as it is, and exit 0');
  const { stdout: project } = await run(process.execPath, [lint], { cwd: PROJECT_ROOT });
  t.equal(project, '', 'without a file, openapi.yaml');
  const one = join(dir, 'one.yaml');
  await writeFile(one, stringify(getPetMarkers({ 'x-replaced-by': 'getPet' })));
  const single = await run(process.execPath, [lint, one]).then(
    () => ({ stdout: '' }),
    (error: { stdout: string }) => error,
  );
  t.match(
    single.stdout,
    /getPet: x-replaced-by must name an operation whose path has no parameters\n1 lifecycle problem\n$/,
  );
  const failed = await run(process.execPath, [lint, good, bad]).then(
    () => ({ code: 0, stdout: '' }),
    (error: { code: number; stdout: string }) => error,
  );
  t.equal(failed.code, 1);
  const lines = failed.stdout.trim().split('\n');
  t.match(
    lines[0],
    new RegExp(
      `^${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+ error petstore-lifecycle getPet: x-sunset must come at least 180 days after x-deprecated-at$`,
    ),
  );
  t.match(lines[1], /:\d+:\d+ error petstore-lifecycle getPet: x-brownouts must be a list of \{start, end\}$/);
  t.equal(lines[2], '2 lifecycle problems');
  const [, line] = /:(\d+):/.exec(lines[0]!)!;
  t.match(
    (await readFile(bad, 'utf8')).split('\n')[Number(line) - 1],
    /x-sunset: 2027-05-20/,
    'the line is the one holding the marker',
  );
  const missing = await run(process.execPath, [lint, good, join(dir, 'missing.yaml')]).then(
    () => ({ code: 0, stdout: '', stderr: '' }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  t.same(
    [missing.code, missing.stdout, missing.stderr],
    [2, '', `cannot read ${join(dir, 'missing.yaml')}: ENOENT\n`],
    'a file it cannot read: said in a line, exit 2, nothing linted',
  );
});

t.test(
  'npm run lint -- spec: the three linters on one file, each one heard, exit 1 when any finds a problem',
  async (t) => {
    const lint = fileURLToPath(new URL('../../scripts/lint/lint.js', import.meta.url));
    const clean = await run(process.execPath, [lint], { cwd: tmpdir() });
    t.match(
      clean.stdout,
      /No results with a severity of 'hint' or higher found!/,
      "Spectral's verdict on openapi.yaml, run from any folder",
    );
    t.match(clean.stdout, /openapi\.yaml: validated in/, "and Redocly's");

    const dir = await mkdtemp(join(tmpdir(), 'petstore-lint-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const bad = join(dir, 'bad.yaml');
    const spec = createPetLink({ operationId: 'readPet', parameters: { petId: '$response.body#/id' } });
    Object.assign(spec.paths['/pets/{petId}']!.get!, { 'x-sunset': '2027-05-20' });
    await writeFile(bad, stringify(spec));
    const failed = await run(process.execPath, [lint, bad]).then(
      () => ({ code: 0, stdout: '' }),
      (error: { code: number; stdout: string }) => error,
    );
    t.equal(failed.code, 1, 'exit 1');
    t.match(
      failed.stdout,
      /error petstore-lifecycle getPet: x-sunset must come at least 180 days after x-deprecated-at\n1 lifecycle problem\n/,
      'the lifecycle lint first',
    );
    t.match(failed.stdout, /readPet/, "then Spectral's finding on the link");
    t.match(failed.stdout, /bad\.yaml/, 'naming the file');
    const missing = await run(process.execPath, [lint, join(dir, 'missing.yaml')]).then(
      () => ({ code: 0, stdout: '', stderr: '' }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    t.same(
      [missing.code, missing.stdout, missing.stderr],
      [2, '', `npm run lint -- spec: cannot read ${join(dir, 'missing.yaml')}: ENOENT\n`],
      'a file it cannot read: said in a line, exit 2, no linter run',
    );
  },
);
