// Writes openapi.yaml as JSON beside the compiled code (`npm run build`: dist/openapi.json), which the
// built service reads at start-up instead of parsing the YAML (src/openapi/openapi-spec.ts, BUILT_SPEC_PATH).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { stringify } from 'lossless-json';
import { DEFAULT_SPEC_PATH, loadSpec } from '../src/openapi/openapi-spec.js';
import { parseJson } from '../src/validation/strict-json.js';

// build-spec.ts <out dir> [spec]: the spec is openapi.yaml unless a test names another.
const [outDir = 'dist', specPath = DEFAULT_SPEC_PATH] = process.argv.slice(2);
const spec = loadSpec(specPath);
// Integers beyond a double's exact range are written as they are (lossless-json), and read back so.
const json = stringify(spec) as string;
// YAML can say what JSON cannot (.inf, .nan): refuse rather than serve a different document.
if (!isDeepStrictEqual(parseJson(json), spec)) {
  console.error('openapi.yaml holds a value JSON cannot represent (such as .inf or .nan)');
  process.exit(1);
}
writeFileSync(join(outDir, 'openapi.json'), `${json}\n`);
