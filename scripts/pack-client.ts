// `npm run pack:client`: builds the typed client (src/client/ on generated/client-api.ts) into
// dist-client/ and packs it as petstore-client-<version>.tgz in the project's root, <version> being
// openapi.yaml's info.version. It has no dependencies: none of the server's reach a consumer.
// The tarball's path is the last line of the output.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/project-root.js';
import { loadSpec } from '../src/openapi/openapi-spec.js';

const OUT = join(PROJECT_ROOT, 'dist-client');
const spec = loadSpec();

rmSync(OUT, { recursive: true, force: true });
execFileSync(process.execPath, [join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(PROJECT_ROOT, 'tsconfig.client.json')], { stdio: 'inherit' });

const manifest = {
  name: 'petstore-client',
  version: spec.info.version,
  description: `Typed client of the ${spec.info.title} (API version ${spec.info.version}): exact int64 as bigint, every page, safe retries, deprecation warnings.`,
  type: 'module',
  exports: { '.': { types: './src/client/index.d.ts', default: './src/client/index.js' } },
  types: './src/client/index.d.ts',
  files: ['src', 'generated', 'README.md'],
  engines: { node: '>=20.19' },
  sideEffects: false,
};
writeFileSync(join(OUT, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);

// The package's README is the project README's section about the client.
const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
const section = /^## Using the client\n[\s\S]*?(?=^## )/m.exec(readme)?.[0];
if (section === undefined) throw new Error('README.md has no "## Using the client" section for the package');
writeFileSync(join(OUT, 'README.md'), `# petstore-client\n\n${section.replace(/^## Using the client\n+/, '')}`);

const packed = execFileSync('npm', ['pack', '--pack-destination', PROJECT_ROOT, '--loglevel', 'error'], { cwd: OUT, encoding: 'utf8' }).trim().split('\n').at(-1)!;
console.log(join(PROJECT_ROOT, packed));
