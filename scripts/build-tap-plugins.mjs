// npm ci's last step (postinstall): builds tap with the plugins .taprc asks for. Otherwise tap
// rebuilds itself during its first run and runs that run's test files with its default plugins (a
// TypeScript loader and module mocks in front of every import): the first npm test on a fresh clone
// took 92 s, the next 73 s. Plain JavaScript: it runs before anything is built. Nothing to do where
// tap is not installed (an install without devDependencies).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const tap = join(import.meta.dirname, '..', 'node_modules', 'tap', 'dist', 'esm', 'run.mjs');
if (existsSync(tap)) execFileSync(process.execPath, [tap, 'build'], { stdio: 'inherit' });
