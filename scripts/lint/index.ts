// The spec's lifecycle rule as a library: what `npm run lint -- spec` runs beside Spectral, for the
// tests that hold it to its word. Tests import it as `#tools/lint` (package.json "imports").
export { lintLifecycle } from './lifecycle.js';
