// The workspaces are imported by their package names alone: ESLint (eslint.config.js) refuses an
// import into a package's insides from the service, the tools and the tests, and lets a package
// import its own files. Tests use a tool by its entry (#tools/NAME), and nothing else imports a test.
import { ESLint } from 'eslint';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { PROJECT_ROOT } from '../../src/project-root.js';

const eslint = new ESLint({ cwd: PROJECT_ROOT });

/** The messages of the import rule for `code`, linted as if it were the file at `path`. */
async function importProblems(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(PROJECT_ROOT, path) });
  return result!.messages.filter((message) => message.ruleId === 'no-restricted-imports').map(({ message }) => message);
}

t.test('an import into a package from a test, a tool or the service is refused, naming the fix', async (t) => {
  const cases: [string, string][] = [
    ['test/http/deep.test.ts', "import { codePoint } from '../../src/contract/code-points.js';\nvoid codePoint;\n"],
    ['scripts/contract/deep.ts', "import { call } from '../../src/client/call.js';\nvoid call;\n"],
    ['src/routes/deep.ts', "import { call } from '../client/call.js';\nvoid call;\n"],
    [
      'test/helpers/deep.ts',
      "import { codePoint } from 'openapi-contract-engine/dist/code-points.js';\nvoid codePoint;\n",
    ],
  ];
  for (const [path, code] of cases) {
    const problems = await importProblems(path, code);
    t.equal(problems.length, 1, `${path}: refused`);
    t.match(problems[0], /package name|package's entry/, `${path}: the message says what to import instead`);
  }
});

t.test('the package names, and a package importing its own files, pass', async (t) => {
  t.same(
    await importProblems(
      'test/http/ok.test.ts',
      "import { contractOf } from 'openapi-contract-engine';\nvoid contractOf;\n",
    ),
    [],
  );
  t.same(
    await importProblems('scripts/ok.ts', "import { createClient } from 'petstore-client';\nvoid createClient;\n"),
    [],
  );
  t.same(
    await importProblems('src/contract/ok.ts', "import { codePoint } from './code-points.js';\nvoid codePoint;\n"),
    [],
  );
  t.same(await importProblems('src/client/test/ok.test.ts', "import { call } from '../call.js';\nvoid call;\n"), []);
  t.same(
    await importProblems('scripts/ok.ts', "import { runChecks } from './contract/run-checks.js';\nvoid runChecks;\n"),
    [],
    "the tools' own contract/ folder is not the package",
  );
});

t.test('a test uses a tool by its entry, and nothing outside test/ imports a test', async (t) => {
  const refused: [string, string, RegExp][] = [
    [
      'test/tooling/deep.test.ts',
      "import { runCompat } from '../../scripts/compat/run-compat.js';\nvoid runCompat;\n",
      /#tools\/compat/,
    ],
    ['src/routes/deep.ts', "import { API_KEY } from '../../test/helpers/build-app.js';\nvoid API_KEY;\n", /test\//],
    ['scripts/compat/deep.ts', "import { specWith } from '../../test/helpers/spec.js';\nvoid specWith;\n", /test\//],
    ['src/client/deep.ts', "import { specWith } from '../../test/helpers/spec.js';\nvoid specWith;\n", /test\//],
  ];
  for (const [path, code, fix] of refused) {
    const problems = await importProblems(path, code);
    t.equal(problems.length, 1, `${path}: refused`);
    t.match(problems[0], fix, `${path}: the message says what to do`);
  }
  t.same(
    await importProblems('test/tooling/ok.test.ts', "import { runCompat } from '#tools/compat';\nvoid runCompat;\n"),
    [],
  );
});

t.test("the service's build (dist/) holds the service alone: no workspace, and nothing imports one", async (t) => {
  const dist = join(PROJECT_ROOT, 'dist');
  const files = readdirSync(dist, { recursive: true, encoding: 'utf8' });
  t.ok(files.includes('server.js') && files.includes('app.js'), 'the service is there');
  t.same(
    files.filter((name) => /^(contract|client)(\/|$)/.test(name)),
    [],
    'no folder of the engine or the client',
  );
  const importing = files
    .filter((name) => name.endsWith('.js'))
    .filter((name) =>
      /from ['"](openapi-contract-engine|petstore-client|throwaway-postgres)['"]/.test(
        readFileSync(join(dist, name), 'utf8'),
      ),
    );
  t.same(importing, [], 'no module of the service imports a workspace');
});
