// The contract runner as a library: what `npm run contract` (scripts/contract.ts) runs, for the tests
// that hold it to its word. Tests import it as `#tools/contract` (package.json "imports").
export { exitStatusOf } from './run-checks.js';
export { runContract, type ContractOptions } from './run-contract.js';
