// npm run dev when its service cannot run: killed under the watcher, or unable to listen. The
// watcher says so, reports what fails meanwhile, and starts it again on the next save; the key in
// .api-key is kept across runs. test/system/dev.test.ts: spec edits and build errors.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { freePort } from 'throwaway-postgres';
import { copyProject, SERVING, servedAfter, startDev, statusOf } from '../helpers/dev-watcher.js';

t.setTimeout(600_000);

t.test(
  'npm run dev: a service that dies or cannot listen is reported, and started again by the next save',
  async (t) => {
    const copy = copyProject(t);
    const port = await freePort();
    const dev = startDev(t, copy, port);
    await dev.printed(SERVING);
    const key = readFileSync(join(copy, '.api-key'), 'utf8').trim();
    t.equal(await statusOf(port, '/v1/pets', key), 200);

    process.kill(dev.servicePid()!, 'SIGKILL');
    await dev.printed(/dev: the service exited \(SIGKILL\); fix the cause and save a file to start it again/);
    const handler = join(copy, 'src', 'handlers', 'get-pet.ts');
    const source = readFileSync(handler, 'utf8');
    writeFileSync(handler, source.replace('return found.pet;', 'return { ...found.pet, name: 42 };'));
    await dev.printed(/dev: the build failed \(above\); no service is running/);
    const spec = readFileSync(join(copy, 'openapi.yaml'), 'utf8');
    writeFileSync(join(copy, 'openapi.yaml'), `${spec}  : not yaml: [\n`);
    await dev.printed(/dev: openapi\.yaml did not generate \(above\); no service is running/);
    await servedAfter(dev, () => {
      writeFileSync(join(copy, 'openapi.yaml'), spec);
      writeFileSync(handler, source);
    });
    t.equal(await statusOf(port, '/v1/pets', key), 200, 'the fixes start it again');
    dev.child.kill('SIGTERM');
    t.equal(await dev.exited, 0, 'SIGTERM stops the watcher, and the service with it');

    // Started again with its port taken: the service exits, the watcher says so and goes on.
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    t.teardown(() => blocker.close());
    const again = startDev(t, copy, port);
    await again.printed(/dev: the service exited \(1\); fix the cause and save a file to start it again/);
    t.equal(readFileSync(join(copy, '.api-key'), 'utf8').trim(), key, 'the key is kept across runs of the watcher');
    again.child.kill('SIGINT');
    t.equal(await again.exited, 0, 'Ctrl-C stops it');
  },
);
