// The compatibility gate: the service built from openapi.yaml, held to every released version of
// the interface (docs/releases/). Run it before releasing an edit of the spec.
//   npm run compat
//   npm run compat -- --at 2030-12-05 --cases 2000
// Exit status: 0 when every released version is kept, 1 on a breaking change, 2 when it could not run.
import { runCompat } from './compat/run-compat.js';

process.exitCode = await runCompat(process.argv.slice(2));
