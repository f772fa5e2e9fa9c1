// npm run compat holds the service built from a spec to every released version of the interface
// (docs/releases/). Here it runs in-process on edited copies of openapi.yaml: it must catch each
// edit that breaks a released client, and accept each that does not. The edits are the ones a
// developer could make on purpose; none of them is caught by a test written for the current spec.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { stringify } from 'yaml';
import { loadReleases, RELEASES_DIR, runCompat } from '#tools/compat';
import { loadSpec, type OpenApiDocument } from '../../src/openapi/openapi-spec.js';
import { beforeSunsets } from '../helpers/build-app.js';
import { specWith } from '../helpers/spec.js';

// Runs serve a few hundred requests each on 127.0.0.1, over twenty operations since 1.7.0: two
// minutes or more on two busy cores.
t.setTimeout(240_000);
const CASES = ['--seed', '1', '--cases', '60'];

const getPet = loadSpec().paths['/pets/{petId}']!.get!;
const SUNSET = getPet['x-sunset'] as string;
const released = loadReleases();

const dirs = new WeakMap<Test, string>();
/** The test's own directory, made once (tap removes it after the test). */
function dirOf(t: Test, fixture: Parameters<Test['testdir']>[0] = {}): string {
  if (!dirs.has(t)) dirs.set(t, t.testdir(fixture));
  return dirs.get(t)!;
}

/** Runs the gate on `spec` (written to a file of the test's own), and returns its exit status and output. */
async function gate(
  t: Test,
  spec: OpenApiDocument,
  extra: string[] = [],
  options: Parameters<typeof runCompat>[2] = {},
) {
  const file = join(dirOf(t), 'openapi.json');
  writeFileSync(file, JSON.stringify(spec));
  const lines: string[] = [];
  // Unless a test sets the time, the gate runs a day before the first sunset at the latest, so that
  // the edits before it are judged as they are today whatever day the test runs.
  const at = extra.includes('--at') ? [] : ['--at', new Date(beforeSunsets()).toISOString()];
  const status = await runCompat(
    ['--spec', file, ...CASES, ...at, ...extra],
    { log: (line) => lines.push(line), error: (line) => lines.push(line) },
    options,
  );
  return { status, output: lines.join('\n') };
}

/** getPet taken out of the spec as a developer would: its method of the path, and the links that lead to it. */
const withoutGetPet = (spec: OpenApiDocument) => {
  delete spec.paths['/pets/{petId}']!.get;
  for (const response of [spec.paths['/pets']!.get!.responses['200'], spec.paths['/pets']!.post!.responses['201']] as {
    links?: Record<string, { operationId: string }>;
  }[]) {
    for (const [name, link] of Object.entries(response.links ?? {}))
      if (link.operationId === 'getPet') delete response.links![name];
    if (Object.keys(response.links ?? {}).length === 0) delete response.links;
  }
};

const limitOf = (spec: OpenApiDocument) =>
  (
    spec.paths['/pets']!.get as unknown as { parameters: { name: string; schema: { maximum: number } }[] }
  ).parameters.find((parameter) => parameter.name === 'limit')!.schema;
const schemas = (spec: OpenApiDocument) =>
  spec.components.schemas as Record<
    string,
    { required: string[]; enum: string[]; properties: Record<string, unknown> }
  >;

t.test('the released versions: 1.0.0 is among them, and each names its own version', async (t) => {
  t.ok(
    released.some((release) => release.version === '1.0.0'),
    '1.0.0 is released',
  );
  for (const release of released) t.equal(release.spec.info.version, release.version, release.file);
});

t.test('openapi.yaml as it is keeps every released version', async (t) => {
  const report = join(dirOf(t), 'compat.xml');
  const { status, output } = await gate(t, loadSpec(), ['--report', `junit=${report}`]);
  t.equal(status, 0, output);
  t.match(
    readFileSync(report, 'utf8'),
    /<testsuites name="npm run compat"[^>]* failures="0"/,
    'a JUnit report, every case passed',
  );
  for (const release of released) t.match(output, `${release.version} (${release.file})`);
  t.match(output, /summary: every released version is kept; seed 1;/);
});

t.test('it catches each edit that breaks a released client', async (t) => {
  const breaking: [string, (spec: OpenApiDocument) => void, RegExp][] = [
    // Its path stays, for updatePet and deletePet: a GET there is 405.
    ['getPet removed before its sunset', withoutGetPet, /"operationId":"getPet"[\s\S]*METHOD_NOT_ALLOWED/],
    [
      'status made required in NewPet',
      (spec) => schemas(spec)['NewPet']!.required.push('status'),
      /"operationId":"createPet"[\s\S]*body\.status is required/,
    ],
    [
      "limit's maximum lowered to 50",
      (spec) => void (limitOf(spec).maximum = 50),
      /"operationId":"listPets"[\s\S]*query parameter limit must be <= 50/,
    ],
    [
      'a PetStatus value removed',
      (spec) => void (schemas(spec)['PetStatus']!.enum = ['available', 'pending']),
      /"status\\":\\"sold\\"[\s\S]*must be one of: available, pending/,
    ],
    [
      'a Pet field renamed',
      (spec) => {
        const pet = schemas(spec)['Pet']!;
        pet.properties = Object.fromEntries(
          Object.entries(pet.properties).map(([name, schema]) => [name === 'categoryId' ? 'category' : name, schema]),
        );
        pet.required = pet.required.map((name) => (name === 'categoryId' ? 'category' : name));
      },
      /"operationId":"createPet"/,
    ],
    // Keys issued for 1.0.0 carry its roles (pets:read, pets:write): one that 1.0.0 does not name fails them.
    [
      'listPets made to need a role 1.0.0 does not name',
      (spec) => void (spec.paths['/pets']!.get!.security = [{ bearerAuth: ['pets:audit'] }]),
      /"operationId":"listPets"[\s\S]*403 \{"code":"INSUFFICIENT_SCOPE"/,
    ],
  ];
  for (const [edit, change, shown] of breaking) {
    await t.test(edit, async (t) => {
      const { status, output } = await gate(t, specWith(change));
      t.equal(status, 1, 'a breaking change');
      t.match(output, /^FAIL /m, 'a check fails');
      t.match(output, shown, 'the report shows the request and what broke');
      t.match(output, /Counterexample: /, 'the shrunk case');
      t.match(output, /\{ seed: 1, path: "[\d:]+"/, 'the seed and path to replay it');
      t.match(output, /reproduce: curl -i --globoff -X [A-Z]+ 'http:\/\/127\.0\.0\.1:\d+\/v1\/pets/, 'a curl line');
      t.notMatch(output, /Bearer [A-Za-z0-9_-]{32}/, 'no live key: curl reads it from the environment');
      t.match(
        output,
        `summary: a breaking change for clients of ${released.map((release) => release.version).join(', ')}; seed 1;`,
        'the clients of every release',
      );
    });
  }
});

t.test('it accepts edits that keep every released client working', async (t) => {
  await t.test('a new optional query parameter that the service handles', async (t) => {
    // Pages are in ascending id order already; the parameter lets a client say so.
    const spec = specWith((spec) => {
      const parameters = (spec.paths['/pets']!.get as unknown as { parameters: unknown[] }).parameters;
      parameters.push({
        name: 'order',
        in: 'query',
        required: false,
        description: 'The order of a page.',
        schema: { type: 'string', enum: ['ascending'], default: 'ascending' },
      });
    });
    const { status, output } = await gate(t, spec);
    t.equal(status, 0, output);
  });

  await t.test('a new operation', async (t) => {
    const spec = specWith((spec) => {
      const listPets = spec.paths['/pets']!.get!;
      spec.paths['/categories'] = {
        get: {
          operationId: 'listCategories',
          responses: {
            '200': {
              description: 'The categories.',
              content: {
                'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/CategoryId' } } },
              },
            },
            '401': listPets.responses['401']!,
          },
        },
      };
    });
    const { status, output } = await gate(t, spec, [], { handlers: () => ({ listCategories: async () => [] }) });
    t.equal(status, 0, output);
  });

  await t.test(
    'getPet removed from the spec at its sunset: 405 (404 without its path) is what its clients may get then',
    async (t) => {
      const spec = specWith(withoutGetPet);
      const { status, output } = await gate(t, spec, ['--at', SUNSET]);
      t.equal(status, 0, output);
      t.match(output, /getPet may answer as retired/);
      const early = await gate(t, spec, ['--at', new Date(Date.parse(`${SUNSET}T00:00:00Z`) - 1000).toISOString()]);
      t.equal(early.status, 1, 'a second before the sunset it is still a breaking change');
    },
  );

  await t.test('getPet kept in the spec past its sunset: its 410 is what its clients may get', async (t) => {
    const { status, output } = await gate(t, loadSpec(), ['--at', '2031-01-01']);
    t.equal(status, 0, output);
  });

  await t.test('a brownout the spec announces: its 410 is scheduled and announced', async (t) => {
    const spec = specWith((spec) =>
      Object.assign(spec.paths['/pets/{petId}']!.get!, {
        'x-brownouts': [{ start: '2030-06-01T14:00:00Z', end: '2030-06-01T15:00:00Z' }],
      }),
    );
    const inside = await gate(t, spec, ['--at', '2030-06-01T14:30:00Z']);
    t.equal(inside.status, 0, inside.output);
  });
});

t.test(
  'roles added to the operations of a release that named none keep its clients: their keys carry every role',
  async (t) => {
    const dir = dirOf(t, { releases: {} });
    // The 1.0.0 release as it was before roles: no operation names any.
    const before = structuredClone(released.find((release) => release.version === '1.0.0')!.spec);
    for (const item of Object.values(before.paths))
      for (const operation of Object.values(item)) delete operation.security;
    writeFileSync(join(dir, 'releases', 'openapi-1.0.0.yaml'), stringify(before));
    const { status, output } = await gate(t, loadSpec(), ['--releases', join(dir, 'releases')]);
    t.equal(status, 0, output);
    t.match(output, /summary: every released version is kept/);
  },
);

t.test('what a sunset is not: moving it earlier than a release announced breaks that release', async (t) => {
  const spec = specWith((spec) => Object.assign(spec.paths['/pets/{petId}']!.get!, { 'x-sunset': '2029-12-05' }));
  const { status, output } = await gate(t, spec, ['--at', '2030-01-01']);
  t.equal(status, 1, 'the service answers 410 a year before the sunset 1.0.0 announced');
  t.match(output, /OPERATION_GONE/);
});

t.test('when it cannot run, it says why and exits 2', async (t) => {
  const dir = dirOf(t, { empty: {}, misnamed: {}, stray: { 'notes.yaml': 'openapi: 3.1.0\n' } });
  copyFileSync(join(RELEASES_DIR, 'openapi-1.0.0.yaml'), join(dir, 'misnamed', 'openapi-1.0.1.yaml'));
  for (const [what, args, message] of [
    ['no released version', ['--releases', join(dir, 'empty')], /no released version in .*npm run compat -- record/],
    [
      'a release whose file and info.version disagree',
      ['--releases', join(dir, 'misnamed')],
      /openapi-1\.0\.1\.yaml: its info\.version is 1\.0\.0, not 1\.0\.1/,
    ],
    [
      'a YAML file not named as a release',
      ['--releases', join(dir, 'stray')],
      /notes\.yaml: a release is named openapi-MAJOR\.MINOR\.PATCH\.yaml/,
    ],
    ['a time that is not RFC 3339', ['--at', 'next tuesday'], /--at must be an RFC 3339 date-time or a date/],
    ['an unknown option', ['--url', 'http://127.0.0.1:1/v1'], /Unknown option '--url'/],
  ] as const) {
    const { status, output } = await gate(t, loadSpec(), [...args]);
    t.equal(status, 2, what);
    t.match(output, message, what);
  }
  const dangling = await gate(
    t,
    specWith((spec) => delete spec.paths['/pets/{petId}']),
  );
  t.equal(dangling.status, 2, 'a spec whose links lead nowhere');
  t.match(dangling.output, /compat: openapi\.json: listPets 200 link FirstPet: no operation getPet/);
  const unserved = specWith(
    (spec) =>
      void (spec.paths['/categories'] = {
        get: { operationId: 'listCategories', responses: { '200': { description: 'x' } } },
      }),
  );
  const { status, output } = await gate(t, unserved);
  t.equal(status, 2, 'a spec the service cannot start from');
  t.match(output, /the service does not start from openapi\.json: .*no handler for operationId listCategories/);
});

t.test('--help says what each option does, and runs nothing', async (t) => {
  const lines: string[] = [];
  t.equal(await runCompat(['--help'], { log: (line) => lines.push(line), error: (line) => lines.push(line) }), 0);
  for (const option of ['--spec', '--releases', '--seed', '--cases', '--at', '--report'])
    t.match(lines.join('\n'), option);
});
