// How the rounds of a measurement become one figure, and how figures are written.
import type { Sample } from './load.js';

export const median = (numbers: number[]) => {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
export const ratio = (service: number, baseline: number) => (service / baseline).toFixed(2);
/** The rounds of one server on one workload: req/s and p99 as medians, CPU per request as the lowest. */
export const summary = (list: Sample[]): Sample => ({
  rps: median(list.map((sample) => sample.rps)),
  p99: median(list.map((sample) => sample.p99)),
  // The lowest, not the median: noise and the nextTick mode (countInstructions) only ever add CPU time.
  cpuPerRequest: Math.min(...list.map((sample) => sample.cpuPerRequest)),
});
export const round = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
