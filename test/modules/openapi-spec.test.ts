import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import {
  basePathOf,
  BUILT_SPEC_PATH,
  DEFAULT_SPEC_PATH,
  SPEC_CACHE_DIR,
  errorCodesOf,
  loadServedSpec,
  loadSpec,
  operationsOf,
  resolveRef,
  toRouteUrl,
  type OpenApiDocument,
} from '../../src/openapi/openapi-spec.js';
import { PROJECT_ROOT } from '../../src/project-root.js';

const spec = loadSpec();

t.test('the spec defines the three operations of the interface document (a team may add more)', async (t) => {
  const defined = operationsOf(spec).map(
    ({ operationId, method, path }) => `${operationId} ${method.toUpperCase()} ${path}`,
  );
  for (const operation of ['listPets GET /pets', 'createPet POST /pets', 'getPet GET /pets/{petId}'])
    t.ok(defined.includes(operation), operation);
});

t.test('both deployments share the /v1 base path', async (t) => {
  t.equal(basePathOf(spec), '/v1');
  t.equal(spec.servers.length, 2);
  const mixed = {
    ...spec,
    servers: [{ url: 'https://a.example/v1' }, { url: 'https://b.example/v2/' }],
  } as OpenApiDocument;
  t.throws(() => basePathOf(mixed), /every server must share one base path; found \/v1, \/v2/);
  t.throws(() => basePathOf({ ...spec, servers: [] }), /found none/);
});

t.test('the documented error codes come from the spec', async (t) => {
  t.ok(errorCodesOf(spec).has('PET_NOT_FOUND'));
  t.notOk(errorCodesOf(spec).has('FST_ERR_VALIDATION'));
});

t.test('spec paths become Fastify route URLs', async (t) => {
  t.equal(toRouteUrl('/pets/{petId}'), '/pets/:petId');
});

t.test('npm run build writes openapi.yaml as JSON, which the built service reads', async (t) => {
  const outDir = t.testdir();
  const build = () =>
    promisify(execFile)(process.execPath, [
      ...process.execArgv,
      fileURLToPath(new URL('../../scripts/build-spec.js', import.meta.url)),
      outDir,
    ]);
  await build();
  const built = join(outDir, 'openapi.json');
  t.same(JSON.parse(readFileSync(built, 'utf8')), spec, 'the same document');
  t.same(loadSpec(built), spec, 'loadSpec reads it as JSON');
  t.same(loadServedSpec(built), spec, 'the service reads the build when there is one');
  // The compiled tests have no build beside the code: the service reads openapi.yaml itself.
  t.notOk(existsSync(BUILT_SPEC_PATH));
  t.same(loadServedSpec(), spec);
  // A build with nothing changed leaves the file as it was (services starting beside it read it);
  // one that finds another document replaces it whole.
  const { ino, mtimeMs } = statSync(built);
  await build();
  t.same({ ino: statSync(built).ino, mtimeMs: statSync(built).mtimeMs }, { ino, mtimeMs }, 'unchanged: not rewritten');
  writeFileSync(built, '{}\n');
  await build();
  t.same(JSON.parse(readFileSync(built, 'utf8')), spec, 'changed: written again');
  t.same(readdirSync(outDir), ['openapi.json'], 'and no temporary file is left');
});

t.test('the build refuses a YAML value that JSON cannot hold, rather than write another document', async (t) => {
  const outDir = t.testdir({ 'spec.yaml': 'openapi: 3.1.0\nx-limit: .inf\n' });
  const build = promisify(execFile)(process.execPath, [
    ...process.execArgv,
    fileURLToPath(new URL('../../scripts/build-spec.js', import.meta.url)),
    outDir,
    join(outDir, 'spec.yaml'),
  ]);
  await t.rejects(build, { code: 1, stderr: /holds a value JSON cannot represent/ });
  t.notOk(existsSync(join(outDir, 'openapi.json')));
});

t.test('resolveRef follows local $ref chains, and says why it cannot follow one', async (t) => {
  const pets = spec.components.schemas['Pets'] as { items: unknown };
  t.equal(resolveRef(spec, pets.items), spec.components.schemas['Pet'], 'a schema reference');
  t.equal(resolveRef(spec, 'not a node'), 'not a node', 'anything else is itself');
  const edited = structuredClone(spec);
  Object.assign(edited.components.schemas, {
    'a/b~c': { type: 'string' },
    Chained: { $ref: '#/components/schemas/Alias' },
    Alias: { $ref: '#/components/schemas/a~1b~0c' },
    Loop: { $ref: '#/components/schemas/Loop' },
  });
  t.same(
    resolveRef(edited, { $ref: '#/components/schemas/Chained' }),
    { type: 'string' },
    'a chain, through an escaped name',
  );
  t.throws(() => resolveRef(edited, { $ref: '#/components/schemas/Loop' }), {
    message: 'openapi.yaml: cannot follow $ref #/components/schemas/Loop (a cycle)',
  });
  t.throws(() => resolveRef(edited, { $ref: 'other.yaml#/Pet' }), {
    message: 'openapi.yaml: cannot follow $ref other.yaml#/Pet (only #/… within the document)',
  });
  t.throws(() => resolveRef(edited, { $ref: '#/components/schemas/Nothing/here' }), {
    message: 'openapi.yaml: $ref #/components/schemas/Nothing/here points at nothing',
  });
});

t.test('loadSpec keeps what it parsed, and every caller gets a copy of its own', async (t) => {
  const dir = t.testdir();
  const file = join(dir, 'spec.yaml');
  writeFileSync(file, readFileSync(DEFAULT_SPEC_PATH, 'utf8'));
  const first = loadSpec(file);
  first.info.title = 'edited by a caller';
  t.not(loadSpec(file).info.title, 'edited by a caller', 'an edit of one copy reaches no other');
  // More documents than are kept: the oldest goes, and reading it again parses it again.
  for (let index = 0; index < 20; index++) {
    writeFileSync(
      join(dir, `${index}.json`),
      JSON.stringify({
        ...JSON.parse(
          JSON.stringify(spec, (_key, value: unknown) => (typeof value === 'bigint' ? Number(value) : value)),
        ),
        info: { title: `copy ${index}`, version: '1.0.0' },
      }),
    );
    t.equal(loadSpec(join(dir, `${index}.json`)).info.title, `copy ${index}`);
  }
  t.equal(loadSpec(file).info.title, spec.info.title, 'read again after it was no longer kept');
  writeFileSync(file, readFileSync(file, 'utf8').replace(`title: ${spec.info.title}`, 'title: changed on disk'));
  t.equal(loadSpec(file).info.title, 'changed on disk', 'a file changed on disk is read as it is now');
});

t.test("the project's YAML documents are kept as JSON, per content; copies elsewhere are not", async (t) => {
  mkdirSync(join(PROJECT_ROOT, 'test-output'), { recursive: true });
  const dir = mkdtempSync(join(PROJECT_ROOT, 'test-output', 'spec-cache-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const name = relative(PROJECT_ROOT, join(dir, 'spec.yaml')).replace(/[^A-Za-z0-9.-]/g, '_');
  const kept = () =>
    existsSync(SPEC_CACHE_DIR) ? readdirSync(SPEC_CACHE_DIR).filter((file) => file.startsWith(`${name}.`)) : [];
  const keptAs = (text: string) =>
    join(SPEC_CACHE_DIR, `${name}.${createHash('sha256').update(text).digest('hex')}.json`);
  const original = readFileSync(DEFAULT_SPEC_PATH, 'utf8');
  const file = join(dir, 'spec.yaml');
  t.teardown(() => kept().forEach((old) => rmSync(join(SPEC_CACHE_DIR, old))));

  const first = original.replace(`title: ${spec.info.title}`, `title: kept ${process.pid}`);
  writeFileSync(file, first);
  t.same(
    loadSpec(file),
    { ...spec, info: { ...spec.info, title: `kept ${process.pid}` } },
    'parsed as the YAML says, int64 bounds exact',
  );
  t.same(kept(), [keptAs(first).slice(SPEC_CACHE_DIR.length + 1)], 'and kept as JSON under its content');

  const second = original.replace(`title: ${spec.info.title}`, `title: kept again ${process.pid}`);
  writeFileSync(
    keptAs(second),
    JSON.stringify({
      ...JSON.parse(readFileSync(keptAs(first), 'utf8')),
      info: { title: 'from the JSON kept', version: '1.0.0' },
    }),
  );
  writeFileSync(file, second);
  t.equal(loadSpec(file).info.title, 'from the JSON kept', 'a content kept before is read from its JSON, not parsed');

  const third = original.replace(`title: ${spec.info.title}`, `title: replaced ${process.pid}`);
  writeFileSync(file, third);
  t.equal(loadSpec(file).info.title, `replaced ${process.pid}`, 'a changed file is parsed again');
  t.same(kept(), [keptAs(third).slice(SPEC_CACHE_DIR.length + 1)], 'and its older JSON goes');

  const infinite = `${third}x-limit: .inf\n`;
  writeFileSync(file, infinite);
  t.equal((loadSpec(file) as unknown as { 'x-limit': number })['x-limit'], Infinity);
  t.notOk(existsSync(keptAs(infinite)), 'a document JSON cannot hold is not kept');

  const unwritable = `${third}x-note: unwritable\n`;
  mkdirSync(`${keptAs(unwritable)}.${process.pid}`, { recursive: true });
  t.teardown(() => rmSync(`${keptAs(unwritable)}.${process.pid}`, { recursive: true, force: true }));
  writeFileSync(file, unwritable);
  t.equal(
    (loadSpec(file) as unknown as { 'x-note': string })['x-note'],
    'unwritable',
    'a cache that cannot be written: parsed all the same',
  );
  t.notOk(existsSync(keptAs(unwritable)));

  const elsewhere = join(t.testdir(), 'spec.yaml');
  writeFileSync(elsewhere, first);
  const before = readdirSync(SPEC_CACHE_DIR).length;
  loadSpec(elsewhere);
  t.equal(
    readdirSync(SPEC_CACHE_DIR).length,
    before,
    "a copy outside the project's own files (a test's folder) is not kept",
  );
});
