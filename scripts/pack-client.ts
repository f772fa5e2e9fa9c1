// `npm run pack:client`: builds the typed client package (src/client/, with its package.json,
// README and tsconfig, on generated/client-api.ts) and packs that folder as
// petstore-client-<version>.tgz in the project's root. The package's version is the API's, openapi.yaml's
// info.version: a package.json that says otherwise stops it. It has no dependencies: none of the
// server's reach a consumer. The tarball's path is the last line of the output.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/project-root.js';
import { loadSpec } from '../src/openapi/openapi-spec.js';

const PACKAGE = join(PROJECT_ROOT, 'src', 'client');
const { version } = loadSpec().info;
const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as { version: string };
if (manifest.version !== version) {
  console.error(`pack:client: src/client/package.json is version ${manifest.version}, openapi.yaml's info.version is ${version}: the client is versioned with the API it calls, so set both alike`);
  process.exit(1);
}

rmSync(join(PACKAGE, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(PACKAGE, 'tsconfig.json')], { stdio: 'inherit' });
const packed = execFileSync('npm', ['pack', '--pack-destination', PROJECT_ROOT, '--loglevel', 'error'], { cwd: PACKAGE, encoding: 'utf8' }).trim().split('\n').at(-1)!;
console.log(join(PROJECT_ROOT, packed));
