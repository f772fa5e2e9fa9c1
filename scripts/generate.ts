// Writes every file in generated/; with --check, fails instead when any of them is stale.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../src/project-root.js';
import { DEFAULT_SPEC_PATH } from '../src/openapi/openapi-spec.js';
import { apiTypes } from './generate/api-types.js';
import { clientApi } from './generate/client-api.js';
import type { GeneratedFile } from './generate/generated-file.js';
import { specMetaValidator } from './generate/spec-meta-validator.js';

const spec = pathToFileURL(DEFAULT_SPEC_PATH);
const generated = pathToFileURL(join(PROJECT_ROOT, 'generated/'));

// A spec that does not parse is the commonest failure here (npm run dev runs this on every save):
// its message names the file, line and column; the stack below it would only bury that.
const files: GeneratedFile[] = [
  ...(await Promise.all([apiTypes(spec), clientApi(spec)]).catch((error: Error) => {
    console.error(`generate: openapi.yaml: ${error.message}`);
    process.exit(1);
  })),
  ...specMetaValidator(),
];

if (process.argv.includes('--check')) {
  const stale: string[] = [];
  for (const file of files) {
    const current = await readFile(new URL(file.name, generated), 'utf8').catch(() => '');
    if (current !== file.text) stale.push(`generated/${file.name}`);
  }
  if (stale.length > 0) {
    console.error(`stale: ${stale.join(', ')}: run \`npm run generate\` and commit the result.`);
    process.exit(1);
  }
  console.log(`generated/ is current (${files.map((file) => file.name).join(', ')}).`);
} else {
  for (const file of files) await writeFile(new URL(file.name, generated), file.text);
  console.log(`wrote ${files.map((file) => `generated/${file.name}`).join(', ')}`);
}
