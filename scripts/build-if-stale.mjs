// npm start's pre-step: builds the service (dist/: the service's part of `npm run build`, without
// the tests and the client) only when what that build reads has changed since the last one: a start
// with a current build responds at once instead of waiting ~2 s for tsc and the served spec. Plain
// JavaScript, since it runs before every start: loading tsx takes ~0.4 s. TypeScript 7's compiler
// (typescript-7; the typescript package is 5.x, whose API the generators use).
// The build's inputs are hashed (content, not modification times, which a checkout rewrites).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const INPUTS = [
  'src',
  'generated',
  'openapi.yaml',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/build-spec.ts',
  'package-lock.json',
];
const STAMP = 'dist/.build-inputs';
const OUTPUTS = ['dist/server.js', 'dist/openapi.json'];
// The workspaces (the client, the contract engine) are no input of the service's.
const SKIPPED = new Set([join('src', 'client'), join('src', 'contract')]);

function files(path) {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => (SKIPPED.has(join(path, name)) ? [] : files(join(path, name))));
}

function inputsHash() {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap(files)) hash.update(`${file}\0`).update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

const before = inputsHash();
const current =
  OUTPUTS.every((file) => existsSync(file)) && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === before;
if (!current) {
  try {
    execFileSync(process.execPath, ['node_modules/typescript-7/lib/tsc.js', '-b', 'tsconfig.build.json'], {
      stdio: 'inherit',
    });
    execFileSync('node_modules/.bin/tsx', ['scripts/build-spec.ts', 'dist'], { stdio: 'inherit' });
  } catch {
    // tsc has printed what is wrong, file and line; a stack of this script would only bury it.
    console.error('\nThe build failed (above): fix what it names.');
    process.exit(1);
  }
  writeFileSync(STAMP, before);
}
