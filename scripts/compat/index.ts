// The compatibility gate as a library: what `npm run compat` (scripts/compat.ts) runs, for the tests
// that hold it to its word. Tests import it as `#tools/compat` (package.json "imports"), never by a
// path into scripts/.
export { recordRelease } from './record-release.js';
export { compareVersions, isReleaseVersion, loadReleases, RELEASES_DIR } from './releases.js';
export { runCompat, type CompatOptions } from './run-compat.js';
