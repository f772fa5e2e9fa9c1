// The client package's version is the API's: src/client/package.json is hand-written but for its
// `version`, which npm run generate sets to openapi.yaml's info.version (and generate:check holds
// it to), so that the spec stays the one place the version is written.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/project-root.js';
import { loadSpec } from '../../src/openapi/openapi-spec.js';

export const CLIENT_MANIFEST = join('src', 'client', 'package.json');

/** src/client/package.json as it should be: as it is, with the spec's version. */
export function clientManifest(specPath: string): string {
  const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, CLIENT_MANIFEST), 'utf8')) as Record<string, unknown>;
  return `${JSON.stringify({ ...manifest, version: loadSpec(specPath).info.version }, null, 2)}\n`;
}
