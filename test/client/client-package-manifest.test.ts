// The client's package (src/client/package.json), as npm pack -w petstore-client packs it: versioned with
// the API it calls, with nothing of the server's.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { loadSpec } from '../../src/openapi/openapi-spec.js';
import { PROJECT_ROOT } from '../../src/project-root.js';

const folder = join(PROJECT_ROOT, 'src', 'client');
const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as Record<string, unknown>;

t.test("the client's package is the API's version, depends on nothing and has its README", async (t) => {
  t.equal(
    manifest['version'],
    loadSpec().info.version,
    "src/client/package.json's version is openapi.yaml's info.version",
  );
  t.equal(manifest['name'], 'petstore-client');
  t.equal(manifest['dependencies'], undefined, 'no dependencies');
  t.equal(manifest['devDependencies'], undefined);
  t.ok(existsSync(join(folder, 'README.md')), 'a README of its own');
  t.same(
    manifest['files'],
    [
      'dist/src/client/*.js',
      'dist/src/client/*.js.map',
      'dist/src/client/*.d.ts',
      'dist/generated/*.js',
      'dist/generated/*.js.map',
      'dist/generated/*.d.ts',
      'README.md',
    ],
    "only its modules, declarations, source maps and README are packed (not its tests, nor tsc -b's build info)",
  );
});
