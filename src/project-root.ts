// The project's root folder, for the files that live beside the code rather than in it (openapi.yaml,
// docs/releases/). Modules run from src/ (tsx), from dist/ (npm run build) and from the compiled
// tests' dist-test/src/ (npm test), each at another depth below it, so it is found, not counted.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest folder at or above `from` that holds a package.json. */
export function projectRootFrom(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    if (dirname(dir) === dir) throw new Error(`no package.json in ${from} or any folder above it`);
    dir = dirname(dir);
  }
  return dir;
}

export const PROJECT_ROOT = projectRootFrom(dirname(fileURLToPath(import.meta.url)));
