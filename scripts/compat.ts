// The compatibility gate: the service built from openapi.yaml, held to every released version of
// the interface (docs/releases/). Run it before releasing an edit of the spec; record the spec as a
// released version when a new info.version ships.
//   npm run compat
//   npm run compat -- --at 2030-12-05 --cases 2000
//   npm run compat -- record            (openapi.yaml as the release of its info.version)
// Exit status: 0 when every released version is kept, 1 on a breaking change, 2 when it could not run.
import { recordRelease } from './compat/record-release.js';
import { runCompat } from './compat/run-compat.js';

const [command, ...rest] = process.argv.slice(2);
process.exitCode = command === 'record' ? recordRelease(rest) : await runCompat(process.argv.slice(2));
