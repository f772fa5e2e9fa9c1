// The soak's judgement as a library: what `npm run bench -- soak --check` calls a leak, for the test
// that holds it to its word (test/tooling/soak-check.test.ts). Tests import it as `#tools/soak`,
// never by a path into scripts/.
export { PET_BYTES_BOUND, POOL_MAX, summarize, TOLERANCE, type Sample } from './summary.js';
