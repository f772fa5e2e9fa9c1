// The contract engine is a package of its own (an npm workspace): it imports nothing outside its
// folder but Node's built-ins and the dependencies its package.json names, and `npm pack` gives a
// tarball that installs into an empty project and checks an API there.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';

const run = promisify(execFile);
// This file runs from dist/test/.
const ENGINE = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const manifest = JSON.parse(readFileSync(join(ENGINE, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  dependencies: Record<string, string>;
};
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'|import\('([^']+)'\)/g;

/** What the TypeScript files of `folder` (its tests and builds left out) import from outside it. */
function outsideImports(folder: string, dependencies: Record<string, string>): string[] {
  const files = readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter(
    (name) => name.endsWith('.ts') && !/^(dist|test|node_modules)\//.test(name),
  );
  const outside: string[] = [];
  for (const name of files) {
    const text = readFileSync(join(folder, name), 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const specifier = (match[1] ?? match[2])!;
      if (specifier.startsWith('node:')) continue;
      if (specifier.startsWith('.')) {
        if (relative(folder, resolve(folder, dirname(name), specifier)).startsWith('..'))
          outside.push(`${name} imports ${specifier}`);
        continue;
      }
      const packageName = specifier.startsWith('@')
        ? specifier.split('/').slice(0, 2).join('/')
        : specifier.split('/')[0]!;
      if (!(packageName in dependencies)) outside.push(`${name} imports ${specifier}, not a dependency`);
    }
  }
  return outside;
}

t.test('the engine imports nothing outside itself but its declared dependencies', async (t) => {
  t.same(outsideImports(ENGINE, manifest.dependencies), [], "every import is the engine's own, Node's or declared");
});

t.test('an import from outside, or of an undeclared package, is caught', async (t) => {
  const folder = mkdtempSync(join(tmpdir(), 'engine-scan-'));
  t.teardown(() => rmSync(folder, { recursive: true, force: true }));
  writeFileSync(join(folder, 'a.ts'), "import { buildApp } from '../src/app.js';\nimport './b.js';\n");
  writeFileSync(join(folder, 'b.ts'), "export { default } from 'left-pad';\nimport fc from 'fast-check';\n");
  t.same(outsideImports(folder, { 'fast-check': '*' }), [
    'a.ts imports ../src/app.js',
    'b.ts imports left-pad, not a dependency',
  ]);
});

// A document of one operation, and a service that keeps it, or, asked for `broken`, does not.
const DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'Things', version: '1.0.0' },
  servers: [{ url: 'http://127.0.0.1/v1' }],
  paths: {
    '/things': {
      get: {
        operationId: 'listThings',
        parameters: [
          { name: 'limit', in: 'query', schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 10 } },
        ],
        responses: {
          '200': {
            description: 'The things.',
            content: {
              'application/json': {
                schema: {
                  type: 'array',
                  items: { type: 'object', required: ['id'], properties: { id: { type: 'integer', format: 'int64' } } },
                },
              },
            },
          },
        },
      },
    },
  },
};

const CONSUMER = `import fc from 'fast-check';
import { responseChecks, contractOf, ContractViolation, httpTarget, requestGenerators } from '${manifest.name}';
const [base, document] = process.argv.slice(2);
const contract = contractOf(JSON.parse(document), 'things.json');
const { valid } = requestGenerators(contract, 'key').requestsOf();
const { expectContract } = responseChecks(contract);
const target = httpTarget({ urls: [new URL(base)], basePath: '/v1', timeoutMs: 5000 });
const urls = new Set();
let violations = 0;
for (const { request } of fc.sample(fc.oneof(...valid), { seed: 1, numRuns: 20 })) {
  urls.add(request.url);
  const response = await target.send(request);
  try {
    expectContract(request, response);
  } catch (error) {
    if (!(error instanceof ContractViolation)) throw error;
    violations += 1;
  }
}
console.log(JSON.stringify({ urls: urls.size, violations }));
`;

t.test('npm pack gives a tarball that installs into an empty project and checks an API there', async (t) => {
  const packs = mkdtempSync(join(tmpdir(), 'engine-pack-'));
  t.teardown(() => rmSync(packs, { recursive: true, force: true }));
  const packed = await run('npm', ['pack', '--pack-destination', packs, '--loglevel', 'error'], { cwd: ENGINE });
  const tarball = join(packs, packed.stdout.trim().split('\n').at(-1)!);
  t.equal(tarball, join(packs, `${manifest.name}-${manifest.version}.tgz`));

  const consumer = join(packs, 'consumer');
  mkdirSync(consumer);
  // Tests reach nothing beyond loopback, so no registry: the engine's dependencies are this
  // project's installed copies, linked (file:) before the tarball goes in offline.
  const modules = join(ENGINE, '..', '..', 'node_modules');
  const dependencies = Object.fromEntries(
    Object.keys(manifest.dependencies).map((name) => [name, `file:${join(modules, name)}`]),
  );
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies }),
  );
  await run(
    'npm',
    ['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel', 'error', tarball],
    { cwd: consumer },
  );
  const shipped = readdirSync(join(consumer, 'node_modules', manifest.name), { recursive: true, encoding: 'utf8' });
  t.same(
    shipped.filter((name) => !/^dist\/[a-z-]+\.(js|js\.map|d\.ts)$/.test(name)).sort(),
    ['README.md', 'dist', 'package.json'],
    'its modules, declarations and source maps, README and manifest: no tests, no sources',
  );
  writeFileSync(join(consumer, 'consumer.mjs'), CONSUMER);

  for (const broken of [false, true]) {
    const server = createServer((request, response) => {
      response
        .writeHead(200, { 'content-type': 'application/json; charset=utf-8' })
        .end(JSON.stringify([{ id: broken ? 'one' : 1 }]));
      void request;
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    t.teardown(() => void server.close());
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const ran = await run(process.execPath, ['consumer.mjs', base, JSON.stringify(DOCUMENT)], { cwd: consumer });
    const { urls, violations } = JSON.parse(ran.stdout) as { urls: number; violations: number };
    t.ok(urls > 1, `${urls} different requests drawn from the document`);
    t.equal(
      violations,
      broken ? 20 : 0,
      broken ? 'a service that breaks it fails every check' : 'a service that keeps it passes',
    );
  }
});
