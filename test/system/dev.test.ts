// npm run dev as a maintainer uses it, in a copy of the project: the service comes up with a key kept
// in .api-key; a spec edit (a new optional query parameter) is served after the rebuild; a handler
// that does not compile, or a spec that does not parse, is reported while the last good build keeps
// serving, and the fix is served; saves during a rebuild are served in order.
// test/system/dev-service.test.ts: the service dying under the watcher, and the key across runs.
import { mkdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { freePort } from 'throwaway-postgres';
import {
  BUILD_FAILED,
  copyProject,
  SERVING,
  servedAfter,
  startDev,
  statusOf,
  withSortParameter,
} from '../helpers/dev-watcher.js';

t.setTimeout(600_000);

t.test('npm run dev regenerates, type-checks and restarts on every change, and never dies on an error', async (t) => {
  const copy = copyProject(t);
  // As on a fresh clone: no client build under src/ yet (one appears below).
  rmSync(join(copy, 'src', 'client', 'dist'), { recursive: true, force: true });
  const port = await freePort();
  const dev = startDev(t, copy, port);

  await dev.printed(SERVING);
  const key = readFileSync(join(copy, '.api-key'), 'utf8').trim();
  t.equal(statSync(join(copy, '.api-key')).mode & 0o777, 0o600, 'the key is written once, readable by its owner only');
  t.equal(await statusOf(port, '/v1/pets', key), 200, 'the service serves with the key in .api-key');
  t.equal(
    await statusOf(port, '/v1/pets?sort=asc', key),
    400,
    'before the edit, an unknown query parameter is refused',
  );

  // A new optional query parameter, as an editor saves it.
  const spec = readFileSync(join(copy, 'openapi.yaml'), 'utf8');
  const edited = withSortParameter(spec);
  await servedAfter(dev, () => writeFileSync(join(copy, 'openapi.yaml'), edited));
  t.equal(await statusOf(port, '/v1/pets?sort=asc', key), 200, 'the new parameter is served after the rebuild');
  t.equal(await statusOf(port, '/v1/pets?sort=desc', key), 400, 'and validated against its schema');
  t.match(
    readFileSync(join(copy, 'generated', 'openapi.d.ts'), 'utf8'),
    /sort\?: "asc"/,
    'generated/ was regenerated from the edit',
  );
  t.equal(readFileSync(join(copy, '.api-key'), 'utf8').trim(), key, 'the key is the same after the restart');

  // A handler that does not compile: reported, and the last good build keeps serving.
  const handler = join(copy, 'src', 'handlers', 'get-pet.ts');
  const source = readFileSync(handler, 'utf8');
  writeFileSync(handler, source.replace('return found.pet;', 'return { ...found.pet, name: 42 };'));
  await dev.printed(BUILD_FAILED);
  await dev.printed(
    /get-pet\.ts\(\d+,\d+\): error TS1360: .* does not satisfy the expected type .OperationHandler<"getPet">/,
  );
  t.equal(await statusOf(port, '/v1/pets?sort=asc', key), 200, 'the last good build still serves');
  // The fix, saved with a new folder under src/, which is watched from then on.
  await servedAfter(dev, () => {
    writeFileSync(handler, source);
    mkdirSync(join(copy, 'src', 'scratch'));
  });
  t.equal(await statusOf(port, '/v1/pets', key), 200, 'the fixed build serves');
  // What npm test in another terminal writes under src/ (the client's build) is no edit: the service
  // being current, a rebuild would serve again within a fraction of this second.
  const served = dev.count(SERVING);
  mkdirSync(join(copy, 'src', 'client', 'dist'));
  writeFileSync(join(copy, 'src', 'client', 'dist', 'index.js'), '');
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  t.equal(dev.count(SERVING), served, "the client's build under src/ starts no rebuild");

  // A spec that does not parse (saved with that folder removed): the parser's message, and the service goes on.
  rmdirSync(join(copy, 'src', 'scratch'));
  writeFileSync(join(copy, 'openapi.yaml'), `${edited}  : not yaml: [\n`);
  await dev.printed(/generate: openapi\.yaml: /);
  await dev.printed(/dev: openapi\.yaml did not generate \(above\); the last good build keeps serving/);
  t.equal(await statusOf(port, '/v1/pets?sort=asc', key), 200, 'the last good build still serves');

  // Two saves during one rebuild make one more rebuild after it, which serves the last of them.
  const before = dev.count(SERVING);
  writeFileSync(join(copy, 'openapi.yaml'), spec);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  writeFileSync(join(copy, 'openapi.yaml'), edited);
  await dev.printed(SERVING, before + 2);
  t.equal(await statusOf(port, '/v1/pets?sort=asc', key), 200, 'the last save is what is served');

  dev.child.kill('SIGINT');
  t.equal(await dev.exited, 0, 'Ctrl-C stops the watcher');
  await t.rejects(fetch(`http://127.0.0.1:${port}/health/live`), 'and the service with it');
});
