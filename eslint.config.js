// ESLint's rules for the code (openapi.yaml has its own linters: npm run lint -- spec). The rules that
// need type information are on only when ESLINT_TYPED=1, as npm run lint (and so .ci/run) sets it:
// they read the whole program through TypeScript, so an editor's ESLint runs without them.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const typed = process.env.ESLINT_TYPED === '1';

const BY_NAME =
  'Import the workspace by its package name (openapi-contract-engine, petstore-client, throwaway-postgres, petstore-contract-plugin).';
// An import into a workspace, by its path or past its package's entry.
const WORKSPACE_IMPORTS = [
  { regex: '(^|/)(src/(contract|client)|scripts/postgres|scripts/contract/pet-store)(/|$)', message: BY_NAME },
  {
    regex: '^(openapi-contract-engine|petstore-client|throwaway-postgres|petstore-contract-plugin)/',
    message: "Import the package's entry alone: what it does not export is its own.",
  },
];

const NOT_TESTS = { regex: '(^|/)test/', message: 'Product code and tools do not import from test/.' };

export default tseslint.config(
  {
    ignores: [
      'generated/',
      'dist/',
      'dist-test/',
      'src/client/dist/',
      'src/contract/dist/',
      'scripts/postgres/dist/',
      'scripts/contract/pet-store/dist/',
      'coverage/',
      '.tap/',
      'test-output/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Prettier keeps code within 120 columns; this keeps comments there too. A string is left
      // whole, so that a message can be found by searching for it.
      'max-len': [
        'error',
        { code: 120, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // A name read before its definition in the same scope (a TDZ error waiting for its path). A
      // function that reads a module constant defined below it runs only after the module loaded.
      '@typescript-eslint/no-use-before-define': [
        'error',
        { functions: false, classes: false, variables: false, typedefs: false },
      ],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-var': 'error',
      // A variable a closure reads before its one assignment stays a let.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // An options object once a function takes more than four arguments (issue 65).
      'max-params': ['error', 4],
    },
  },
  {
    // Product code and tools stay in small pieces (issue 59): a file at most 400 lines, a function
    // at most 120, blank lines and comments not counted. Tests may hold longer tables and suites.
    files: ['src/**', 'scripts/**'],
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 120, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // The workspaces (src/contract/, src/client/, scripts/postgres/, scripts/contract/pet-store/)
    // are imported by their package names alone, as a consumer imports them: nothing outside a
    // package reaches into its files.
    files: ['**/*.ts', '**/*.js', '**/*.mjs'],
    ignores: ['src/contract/**', 'src/client/**', 'scripts/postgres/**', 'scripts/contract/pet-store/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: WORKSPACE_IMPORTS }] },
  },
  {
    // The same from the service's own folders, whose relative paths name two of them without src/
    // (elsewhere, scripts/contract/ is the tools' own folder); and nothing of the tests.
    files: ['src/**'],
    ignores: ['src/contract/**', 'src/client/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^(\\.{1,2}/)+(contract|client)(/|$)', message: BY_NAME },
            NOT_TESTS,
            ...WORKSPACE_IMPORTS,
          ],
        },
      ],
    },
  },
  {
    // Tests hand values of the wrong type to typed APIs on purpose. They use a tool as a user does,
    // by its entry (#tools/NAME, package.json "imports"), never by a path into scripts/.
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)scripts/',
              message: 'Import a tool by its entry: #tools/compat, #tools/contract, #tools/lint or #tools/bench.',
            },
            ...WORKSPACE_IMPORTS,
          ],
        },
      ],
    },
  },
  {
    // Product code and tools never depend on the tests (the service's src/ has its block above).
    files: ['scripts/**', 'src/contract/**', 'src/client/**'],
    ignores: ['**/test/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NOT_TESTS, ...WORKSPACE_IMPORTS] }] },
  },
  ...(typed
    ? [
        {
          // Product code and tools; tests (the workspaces' own, in their test/, too) follow tap's idiom,
          // whose t.test() promises tap itself awaits.
          files: ['src/**/*.ts', 'scripts/**/*.ts'],
          ignores: ['**/test/**'],
          languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
          rules: {
            '@typescript-eslint/no-floating-promises': 'error',
            '@typescript-eslint/no-misused-promises': 'error',
            '@typescript-eslint/await-thenable': 'error',
          },
        },
      ]
    : []),
);
