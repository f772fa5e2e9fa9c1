// npm run lint -- spec [file]: openapi.yaml (or another file) checked three ways at once: its lifecycle
// markers (./lifecycle.ts, the service's own reader), Spectral's rules (.spectral.yaml) and
// Redocly's. Each one's output is printed whole, in that order; the exit status is 1 when any of
// them found a problem, 2 when the file cannot be read. npm test runs the compiled copy
// (node dist-test/scripts/lint/lint.js), which starts in a fifth of tsx's time.
import { execFile } from 'node:child_process';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_SPEC_PATH } from '../../src/openapi/openapi-spec.js';
import { PROJECT_ROOT } from '../../src/project-root.js';
import { lifecycleReport, unreadable } from './lifecycle.js';

const run = promisify(execFile);
const bin = (name: string) => join(PROJECT_ROOT, 'node_modules', '.bin', name);
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };

/** A linter's output and whether it passed (its exit status 0). */
async function tool(command: string, args: string[]): Promise<{ output: string; passed: boolean }> {
  return run(bin(command), args, { cwd: PROJECT_ROOT, env, maxBuffer: 16 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ output: `${stdout}${stderr}`, passed: true }),
    // The message is "Command failed: <command>" and what it wrote to stderr.
    (error: { stdout: string; message: string }) => ({ output: `${error.stdout}${error.message}\n`, passed: false }),
  );
}

const file = process.argv[2] === undefined ? DEFAULT_SPEC_PATH : resolve(process.argv[2]);
const problem = unreadable([file]);
if (problem !== undefined) {
  console.error(`npm run lint -- spec: ${problem}`);
  process.exit(2);
}
// Named from the project's root, as the linters are run there: `openapi.yaml` in their findings.
const named = relative(PROJECT_ROOT, file);
const spectral = tool('spectral', ['lint', '--fail-severity=hint', '--ruleset', '.spectral.yaml', named]);
const redocly = tool('redocly', ['lint', '--format=stylish', named]);
const lifecycle = lifecycleReport([file]);
for (const line of lifecycle.lines) console.log(line);
let passed = lifecycle.found === 0;
for (const result of [await spectral, await redocly]) {
  process.stdout.write(result.output);
  passed &&= result.passed;
}
process.exitCode = passed ? 0 : 1;
