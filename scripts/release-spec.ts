// Records openapi.yaml as a released version of the interface (docs/releases/), which npm run
// compat then holds every later spec to. Run it when a new info.version ships.
import { recordRelease } from './compat/record-release.js';

process.exitCode = recordRelease(process.argv.slice(2));
