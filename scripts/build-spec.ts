// Writes openapi.yaml as JSON beside the compiled code (`npm run build`: dist/openapi.json), which the
// built service reads at start-up instead of parsing the YAML (src/openapi/openapi-spec.ts, BUILT_SPEC_PATH).
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_SPEC_PATH, loadSpec, specAsJson } from '../src/openapi/openapi-spec.js';

// build-spec.ts <out dir> [spec]: the spec is openapi.yaml unless a test names another.
const [outDir = 'dist', specPath = DEFAULT_SPEC_PATH] = process.argv.slice(2);
const json = specAsJson(loadSpec(specPath));
// Refused rather than serve a different document.
if (json === undefined) {
  console.error('openapi.yaml holds a value JSON cannot represent (such as .inf or .nan)');
  process.exit(1);
}
const out = join(outDir, 'openapi.json');
const text = `${json}\n`;
// Rewritten only when it changed, and then whole (a rename): test:all's lanes build beside services
// that are starting from it, and a reader between a truncate and a write would read nothing.
if (!existsSync(out) || readFileSync(out, 'utf8') !== text) {
  writeFileSync(`${out}.${process.pid}`, text);
  renameSync(`${out}.${process.pid}`, out);
}
