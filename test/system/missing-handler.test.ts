// An operation of the spec without a handler, as a user who adds one to openapi.yaml first meets it:
// npm start's build fails naming the operationId and the file to write, with no stack trace.
// (At start-up, the same gap names the same file: test/http/operation-routes.test.ts.)
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { copyProject } from '../helpers/dev-watcher.js';

t.setTimeout(120_000);

t.test(
  'npm start with a handler missing: the build names the operation and the file, then stops without a stack',
  async (t) => {
    const copy = copyProject(t);
    const index = join(copy, 'src', 'handlers', 'index.ts');
    const source = readFileSync(index, 'utf8');
    t.ok(source.includes('    getPet: getPet(store),\n'), 'getPet is among the handlers');
    writeFileSync(
      index,
      source.replace('    getPet: getPet(store),\n', '').replace("import { getPet } from './get-pet.js';\n", ''),
    );
    const failed = await promisify(execFile)(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: copy }).then(
      () => undefined,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    t.equal(failed?.code, 1, 'exit status 1');
    const output = `${failed?.stdout}${failed?.stderr}`;
    t.match(
      output,
      /openapi\.yaml has getPet without a handler: write src\/handlers\/get-pet\.ts and add it to src\/handlers\/index\.ts/,
    );
    t.match(output, /The build failed \(above\): fix what it names\.\n$/);
    t.notMatch(output, /^\s+at /m, 'no stack trace');
    t.notMatch(output, /node:internal|Node\.js v/, "nor Node's report of an uncaught error");
  },
);
