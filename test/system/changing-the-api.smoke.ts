// The README's "Changing the API", command by command, in a copy of the project: replacePet added to
// openapi.yaml with a link from createPet's 201, generated/ regenerated, the compiler naming the
// handler to write, the handler written and listed; then npm test (its build and spec lint included)
// on every suite that reads the spec's operations passes with no test edited (operation lists,
// statuses, Allow values and the like are read from the spec); the service started from that
// build, npm run contract (which sends replacePet valid requests and counts its 2xx) and npm run
// compat (a new operation breaks no released client).
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { stringify } from 'yaml';
import { copyProject } from '../helpers/dev-watcher.js';
import { keysFileEnv, startServer } from '../helpers/server-process.js';
import { withReplacePet } from '../helpers/replace-pet.js';

// Each step is a tsc or tsx run in the copy: a few seconds each on 2 cores, more under coverage.
t.setTimeout(600_000);

const HANDLER = `import { PetNotFound } from '../errors/api-errors.js';
import type { PetStore } from '../store/pet-store.js';
import type { OperationHandler, Pet } from '../types/api.js';

// This walkthrough keeps changes beside the store; a real one adds a store method (README, step 5).
export function replacePet(store: PetStore) {
  const changed = new Map<string, Pet>();
  return (async (request) => {
    const { petId } = request.params;
    const pet = changed.get(String(petId)) ?? (await store.get(petId))?.pet ?? null;
    if (pet === null) throw new PetNotFound(String(petId));
    const updated = { ...pet, ...request.body };
    changed.set(String(petId), updated);
    return updated;
  }) satisfies OperationHandler<'replacePet'>;
}
`;

const KEY = 'walkthrough-key-0123456789abcdef';
// What adding an operation changes, in npm test: in CI this is also Node 26's run of the HTTP and store suites.
const SPEC_DRIVEN = [
  'dist-test/test/batches/http-1-of-2.test.js',
  'dist-test/test/batches/http-2-of-2.test.js',
  'dist-test/test/batches/store-1-of-2.test.js',
  'dist-test/test/batches/store-2-of-2.test.js',
  'dist-test/test/batches/client.test.js',
  'dist-test/test/contract/contract.test.js',
  'dist-test/test/contract/contract-postgres.test.js',
  'dist-test/test/contract/properties.test.js',
  'dist-test/test/contract/properties-postgres.test.js',
];

t.test("adding replacePet as the README's 'Changing the API' says: each command does what it says", async (t) => {
  const copy = copyProject(t, [
    'test',
    'docs',
    '.spectral.yaml',
    'redocly.yaml',
    '.taprc',
    'eslint.config.js',
    '.prettierrc.json',
    '.prettierignore',
  ]);
  const npm = async (args: string[], env: Record<string, string> = {}) =>
    promisify(execFile)('npm', ['run', '-s', ...args], {
      cwd: copy,
      env: { ...process.env, ...env },
      maxBuffer: 16 * 1024 * 1024,
    }).then(
      ({ stdout, stderr }) => ({ code: 0, output: `${stdout}${stderr}` }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        output: `${error.stdout}${error.stderr}`,
      }),
    );

  // 1. The spec: the operation, its schemas, a link from createPet's 201; a new info.version.
  writeFileSync(join(copy, 'openapi.yaml'), stringify(withReplacePet()));
  // 2. generated/.
  const generated = await npm(['generate']);
  t.equal(generated.code, 0, generated.output);
  t.match(readFileSync(join(copy, 'generated', 'openapi.d.ts'), 'utf8'), /replacePet: \{/, 'generated/ has replacePet');
  // 3. The compiler names the file to write.
  const missing = await npm(['build']);
  t.not(missing.code, 0, 'the type check fails');
  t.match(
    missing.output,
    /openapi\.yaml has replacePet without a handler: write src\/handlers\/replace-pet\.ts and add it to src\/handlers\/index\.ts/,
  );
  // 4. The handler, and its line in the index.
  writeFileSync(join(copy, 'src', 'handlers', 'replace-pet.ts'), HANDLER);
  const index = join(copy, 'src', 'handlers', 'index.ts');
  const source = readFileSync(index, 'utf8');
  t.ok(source.includes('    getPet: getPet(store),\n'), 'the index lists getPet, to put replacePet after');
  writeFileSync(
    index,
    source
      .replace(
        "import { getPet } from './get-pet.js';\n",
        "import { getPet } from './get-pet.js';\nimport { replacePet } from './replace-pet.js';\n",
      )
      .replace('    getPet: getPet(store),\n', '    getPet: getPet(store),\n    replacePet: replacePet(store),\n'),
  );
  const typed = await npm(['build']);
  t.equal(typed.code, 0, typed.output);
  // 7. npm test (its build, generated/ check and spec lint included) on the suites that read the operations from
  //    the spec: the HTTP suites (wiring, keys, limits, routes), the store suite, the contract and property tests
  //    and the typed client. Each passes with replacePet in the spec, none of them edited. The rest of npm test
  //    (the modules' own tests, the engine's parts, the webhooks) reads no operation list.
  const tested = await npm(['test', '--', ...SPEC_DRIVEN]);
  t.equal(tested.code, 0, tested.code === 0 ? 'npm test passed' : tested.output.slice(-20_000));
  for (const file of SPEC_DRIVEN) t.match(tested.output, new RegExp(`^ok \\d+ - ${file}`, 'm'), `${file} ran`);
  // Under tap, the inner run writes raw TAP, its comments escaped (\#).
  t.notMatch(tested.output, /^\s*not ok /m, 'no test failed');
  t.notMatch(tested.output, /\\?# (SKIP|TODO)/, 'none skipped');
  for (const status of [200, 400, 401, 404, 413, 415, 500, 503])
    t.match(
      tested.output,
      new RegExp(`ok \\d+ - replacePet answers ${status} as documented`),
      `the contract tests made replacePet's ${status}`,
    );
  // The service, as npm test built it.
  const server = await startServer(keysFileEnv(t, [KEY]), copy, [], join(copy, 'dist', 'server.js'));
  t.teardown(() => void server.child.kill('SIGKILL'));

  // npm run contract against it: replacePet is sent valid requests, with ids from the link, and responds with 2xx.
  const contract = await npm(
    ['contract', '--', '--url', `http://127.0.0.1:${server.port}/v1`, '--seed', '5', '--cases', '120'],
    { CONTRACT_API_KEY: KEY },
  );
  t.equal(contract.code, 0, contract.output);
  t.match(
    contract.output,
    /^ {2}PUT \/pets\/\{petId\} +replacePet +\d+ sent +\d+ valid +[1-9]\d* answered 2xx$/m,
    'replacePet: valid requests, answered 2xx',
  );
  // resendWebhookEvent and setWebhookPosition are named, not failed: only reads link to them, and a run
  // writes only to what it created.
  t.match(
    contract.output,
    /^ok {3}every operation answered a valid request with a 2xx, but for resendWebhookEvent \(POST [^)]*\): only reads \(listWebhookDeliveries\) link to it, and a run writes only to what it created; setWebhookPosition \(POST [^)]*\): only reads \(listWebhookEndpoints\) link to it, and a run writes only to what it created$/m,
  );

  // 8. The gate: a new operation breaks no released client.
  const compat = await npm(['compat', '--', '--seed', '5', '--cases', '120']);
  t.equal(compat.code, 0, compat.output);
  t.match(compat.output, /summary: every released version is kept/);
});
