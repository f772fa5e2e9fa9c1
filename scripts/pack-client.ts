// `npm run pack:client`: builds the typed client package (src/client/, with its package.json,
// README and tsconfig, on generated/client-api.ts) and packs that folder as
// petstore-client-<version>.tgz in the project's root. The package's version is the API's, which
// npm run generate writes into its package.json: a stale one stops it. It has no dependencies: none
// of the server's reach a consumer. The tarball's path is the last line of the output.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/project-root.js';
import { DEFAULT_SPEC_PATH } from '../src/openapi/openapi-spec.js';
import { CLIENT_MANIFEST, clientManifest } from './generate/client-manifest.js';

const PACKAGE = join(PROJECT_ROOT, 'src', 'client');
if (readFileSync(join(PROJECT_ROOT, CLIENT_MANIFEST), 'utf8') !== clientManifest(DEFAULT_SPEC_PATH)) {
  console.error(`pack:client: ${CLIENT_MANIFEST} is not at openapi.yaml's info.version: run npm run generate`);
  process.exit(1);
}

execFileSync(
  process.execPath,
  [join(PROJECT_ROOT, 'node_modules', 'typescript-7', 'lib', 'tsc.js'), '-b', join(PACKAGE, 'tsconfig.json')],
  { stdio: 'inherit' },
);
const packed = execFileSync('npm', ['pack', '--pack-destination', PROJECT_ROOT, '--loglevel', 'error'], {
  cwd: PACKAGE,
  encoding: 'utf8',
})
  .trim()
  .split('\n')
  .at(-1)!;
console.log(join(PROJECT_ROOT, packed));
