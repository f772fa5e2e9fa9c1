import { join } from 'node:path';
import t from 'tap';
import { PROJECT_ROOT, projectRootFrom } from '../../src/project-root.js';
import { DEFAULT_SPEC_PATH } from '../../src/openapi/openapi-spec.js';

t.test('the root is the nearest folder with a package.json, at any depth below it', async (t) => {
  const root = t.testdir({ 'package.json': '{}', src: { spec: {} }, 'dist-test': { src: { spec: {} } } });
  t.equal(projectRootFrom(join(root, 'src', 'openapi')), root);
  t.equal(projectRootFrom(join(root, 'dist-test', 'src', 'openapi')), root);
  t.equal(projectRootFrom(root), root);
});

t.test('a folder with no package.json above it has no root', async (t) => {
  t.throws(() => projectRootFrom('/'), /no package\.json in \/ or any folder above it/);
});

t.test("this project's root holds openapi.yaml, which the service reads by default", async (t) => {
  t.equal(DEFAULT_SPEC_PATH, join(PROJECT_ROOT, 'openapi.yaml'));
  t.equal(projectRootFrom(process.cwd()), PROJECT_ROOT, 'npm test runs from the root');
});
