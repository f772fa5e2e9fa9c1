// The client as a consumer gets it: `npm pack -w petstore-client` builds it (its prepack) and
// writes the tarball, which installs into an empty project with nothing of the server's,
// type-checks a consumer under `strict` (bigint fields, NewPet and the query typed from the spec),
// and runs against the real service.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { PROJECT_ROOT } from '../../src/project-root.js';
import { loadSpec } from '../../src/openapi/openapi-spec.js';
import { API_KEY, buildTestApp } from '../helpers/build-app.js';

const run = promisify(execFile);
const getPet = loadSpec().paths['/pets/{petId}']!.get!;
t.setTimeout(300_000);

const CONSUMER_TS = `import { createClient, PetstoreError, responseOf, type NewPet, type Pet } from 'petstore-client';

const client = createClient({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'key', maxRetries: 1, logger: { warn: () => {} } });

export async function use(): Promise<bigint> {
  const pet: Pet = await client.createPet({ name: 'Rex', categoryId: 9007199254740993n }, { idempotencyKey: 'order-1' });
  const id: bigint = pet.id;
  const category: bigint = pet.categoryId;
  const small: NewPet = { name: 'Tom', categoryId: 3, status: 'sold' };
  await client.createPet(small);
  // @ts-expect-error categoryId is required
  await client.createPet({ name: 'Rex' });
  // @ts-expect-error an unknown status
  await client.createPet({ name: 'Rex', categoryId: 1, status: 'lost' });
  // @ts-expect-error nor in the query
  client.listPets({ status: 'lost' });
  // @ts-expect-error limit is a number
  client.listPets({ limit: '5' });
  // @ts-expect-error an id is a bigint, not a string
  const text: string = pet.id;
  for await (const each of client.listPets({ status: 'available', limit: 10 })) {
    const eachId: bigint = each.id;
    void eachId;
  }
  for await (const page of client.listPets().pages()) {
    const items: Pet[] = page.items;
    const next: string | undefined = page.next;
    void items, next;
  }
  const read = await client.getPet(id);
  const replayed: boolean | undefined = responseOf(read)?.replayed;
  try {
    await client.getPet(1);
  } catch (error) {
    if (error instanceof PetstoreError) {
      const status: number = error.status;
      const code: 'PET_NOT_FOUND' | 'OPERATION_GONE' | 'VALIDATION_FAILED' | (typeof error.code) = error.code;
      // @ts-expect-error code is one of the spec's codes
      const other: 'NOT_A_CODE' = error.code;
      void status, code, other;
    }
  }
  void text, replayed;
  return category;
}
`;

const CONSUMER_JS = `import { createClient, responseOf } from 'petstore-client';
const [baseUrl, apiKey] = process.argv.slice(2);
const warnings = [];
const client = createClient({ baseUrl, apiKey, logger: { warn: (line) => warnings.push(line) } });
const pet = await client.createPet({ name: 'Rex', categoryId: 9223372036854775807n });
const again = await client.createPet({ name: 'Rex', categoryId: 9223372036854775807n }, { idempotencyKey: 'k' });
const replay = await client.createPet({ name: 'Rex', categoryId: 9223372036854775807n }, { idempotencyKey: 'k' });
const ids = [];
for await (const each of client.listPets({ limit: 1 })) ids.push(String(each.id));
await client.getPet(pet.id);
console.log(JSON.stringify({ categoryId: String(pet.categoryId), type: typeof pet.id, ids, replayed: responseOf(replay).replayed, same: again.id === replay.id, warnings: warnings.length }));
`;

t.test(
  'npm pack -w petstore-client packs a client that installs alone, type-checks under strict and talks to the service',
  async (t) => {
    const packs = mkdtempSync(join(tmpdir(), 'petstore-client-pack-'));
    t.teardown(() => rmSync(packs, { recursive: true, force: true }));
    const packed = await run(
      'npm',
      ['pack', '-w', 'petstore-client', '--pack-destination', packs, '--loglevel', 'error'],
      {
        cwd: PROJECT_ROOT,
        env: { ...process.env, _TAPJS_PROCESSINFO_COVERAGE_: '0' },
      },
    );
    const tarball = join(packs, packed.stdout.trim().split('\n').at(-1)!);
    const version = loadSpec().info.version;
    t.equal(
      tarball,
      join(packs, `petstore-client-${version}.tgz`),
      'the last line names the tarball, after the API version',
    );
    t.teardown(() => rmSync(tarball, { force: true }));

    const consumer = mkdtempSync(join(tmpdir(), 'petstore-consumer-'));
    t.teardown(() => rmSync(consumer, { recursive: true, force: true }));
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    // Offline: the client has no dependencies to fetch.
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel', 'error', tarball], {
      cwd: consumer,
    });
    const installed = readdirSync(join(consumer, 'node_modules')).filter((name) => !name.startsWith('.'));
    t.same(installed, ['petstore-client'], "nothing but the client is installed: none of the server's dependencies");
    const shipped = readdirSync(join(consumer, 'node_modules', 'petstore-client'), {
      recursive: true,
      encoding: 'utf8',
    }).filter((name) => !/\.(js|js\.map|d\.ts)$/.test(name) && !/^dist(\/(src|generated)(\/client)?)?$/.test(name));
    t.same(
      shipped.sort(),
      ['README.md', 'package.json'],
      'modules, declarations, source maps, README and manifest: no tests, nothing else',
    );
    const manifest = JSON.parse(
      readFileSync(join(consumer, 'node_modules', 'petstore-client', 'package.json'), 'utf8'),
    );
    t.match(manifest, {
      name: 'petstore-client',
      version,
      type: 'module',
      exports: { '.': { types: './dist/src/client/index.d.ts' } },
    });
    t.equal(manifest.dependencies, undefined, 'no dependencies at all');
    const declarations = readFileSync(
      join(consumer, 'node_modules', 'petstore-client', 'dist', 'generated', 'client-api.d.ts'),
      'utf8',
    );
    t.ok(
      declarations.includes(
        `@deprecated since ${getPet['x-deprecated-at'] as string}; removed on ${getPet['x-sunset'] as string} (its sunset), after which it fails with 410 OPERATION_GONE. ` +
          `Use ${getPet['x-replaced-by'] as string} (\`GET /pets\`) instead.`,
      ),
      'getPet is @deprecated, with the sunset and the replacement from the spec',
    );
    t.match(
      readFileSync(join(consumer, 'node_modules', 'petstore-client', 'README.md'), 'utf8'),
      /^# petstore-client\n\nThe project ships a typed client/,
      'the package has its README',
    );

    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          lib: ['es2022', 'dom', 'dom.iterable'],
          types: [],
          exactOptionalPropertyTypes: true,
          noUnusedLocals: false,
        },
        files: ['consumer.ts'],
      }),
    );
    // A consumer may compile with TypeScript 5 (the typescript package here) or 7 (typescript-7, which
    // builds this project): both accept the declarations.
    for (const [compiler, tsc] of [
      ['TypeScript 5', join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc')],
      ['TypeScript 7', join(PROJECT_ROOT, 'node_modules', 'typescript-7', 'lib', 'tsc.js')],
    ] as const) {
      writeFileSync(join(consumer, 'consumer.ts'), CONSUMER_TS);
      const checked = await run(process.execPath, [tsc, '-p', consumer]).then(
        () => '',
        (error: { stdout: string }) => error.stdout,
      );
      t.equal(checked, '', `${compiler}: the consumer type-checks under strict, each @ts-expect-error met`);
      // The same consumer with one line broken: the check is real.
      writeFileSync(
        join(consumer, 'consumer.ts'),
        CONSUMER_TS.replace('const eachId: bigint = each.id;', 'const eachId: number = each.id;'),
      );
      const broken = await run(process.execPath, [tsc, '-p', consumer]).then(
        () => '',
        (error: { stdout: string }) => error.stdout,
      );
      t.match(
        broken,
        /consumer\.ts\(\d+,\d+\): error TS2322: Type 'bigint' is not assignable to type 'number'/,
        `${compiler}: a broken consumer fails`,
      );
    }

    // A day before getPet's sunset, whatever the day the test runs.
    const { app } = await buildTestApp(t, {
      clock: () => Date.parse(`${getPet['x-sunset'] as string}T00:00:00Z`) - 86_400_000,
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    writeFileSync(join(consumer, 'consumer.mjs'), CONSUMER_JS);
    const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`;
    const ran = await run(process.execPath, ['consumer.mjs', baseUrl, API_KEY], { cwd: consumer });
    t.same(
      JSON.parse(ran.stdout),
      { categoryId: '9223372036854775807', type: 'bigint', ids: ['1', '2'], replayed: true, same: true, warnings: 1 },
      'the installed package runs against the service',
    );
  },
);
