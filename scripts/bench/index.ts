// The benchmark's measuring parts that tests use too: a process's CPU from /proc, callgrind's
// per-function counts, and a flood of requests. Tests import them as `#tools/bench` (package.json
// "imports").
export { COMPILER, rangesOf, selfInstructions } from './callgrind-functions.js';
export { flood } from './flood.js';
export { processCpu, threadsCpuSeconds } from './process-cpu.js';
