// Writes every file in generated/; with --check, fails instead when any of them is stale.
import { readFile, writeFile } from 'node:fs/promises';
import { apiTypes } from './generate/api-types.js';
import type { GeneratedFile } from './generate/generated-file.js';
import { specMetaValidator } from './generate/spec-meta-validator.js';

const spec = new URL('../openapi.yaml', import.meta.url);
const generated = new URL('../generated/', import.meta.url);

const files: GeneratedFile[] = [await apiTypes(spec), ...specMetaValidator()];

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
