// Writes every file in generated/, and the client package's version; with --check, fails instead
// when any of them is stale.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../src/project-root.js';
import { DEFAULT_SPEC_PATH } from '../src/openapi/openapi-spec.js';
import { apiTypes } from './generate/api-types.js';
import { clientApi } from './generate/client-api.js';
import { CLIENT_MANIFEST, clientManifest } from './generate/client-manifest.js';
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
// Each output: where it is written, and what the messages call it.
const outputs = [
  ...files.map((file) => ({ label: `generated/${file.name}`, url: new URL(file.name, generated), text: file.text })),
  {
    label: CLIENT_MANIFEST,
    url: pathToFileURL(join(PROJECT_ROOT, CLIENT_MANIFEST)),
    text: clientManifest(DEFAULT_SPEC_PATH),
  },
];

if (process.argv.includes('--check')) {
  const stale: string[] = [];
  for (const output of outputs) {
    const current = await readFile(output.url, 'utf8').catch(() => '');
    if (current !== output.text) stale.push(output.label);
  }
  if (stale.length > 0) {
    console.error(`stale: ${stale.join(', ')}: run \`npm run generate\` and commit the result.`);
    process.exit(1);
  }
  console.log(
    `generated/ is current (${files.map((file) => file.name).join(', ')}), and ${CLIENT_MANIFEST}'s version.`,
  );
} else {
  // Only what changed is written: npm run dev watches src/, where the client's manifest is.
  for (const output of outputs)
    if ((await readFile(output.url, 'utf8').catch(() => '')) !== output.text) await writeFile(output.url, output.text);
  console.log(`wrote ${outputs.map((output) => output.label).join(', ')}`);
}
