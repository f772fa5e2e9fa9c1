// A Prometheus histogram whose label sets are resolved once: each set's buckets are a Float64Array
// its recorder counts into, and the registry reads them at a scrape in the shape prom-client's own
// Histogram gives (the same exposition, line for line). prom-client's Histogram validates and
// hashes the label set on every observe, a child's included: some 6,000 instructions per request
// (docs/performance/hand-written.md, "What each part costs"; the guard is test/modules/resolved-histogram.test.ts).
import type { Metric, Registry } from 'prom-client';

type Labels = Readonly<Record<string, string | number>>;

interface Series {
  labels: Labels;
  counts: Float64Array;
  sum: number;
  count: number;
}

export interface HistogramOptions {
  name: string;
  help: string;
  labelNames: readonly string[];
  buckets: readonly number[];
  registers: Registry[];
}

export interface ResolvedHistogram {
  /** The observer of one label set (every label name given a value); made once, then called per observation. */
  cell(labels: Labels): (value: number) => void;
}

export function createResolvedHistogram({ name, help, labelNames, buckets, registers }: HistogramOptions) {
  const series: Series[] = [];
  const values = () =>
    series.flatMap(({ labels, counts, sum, count }) => {
      let cumulative = 0;
      return [
        ...buckets.map((le, index) => {
          cumulative += counts[index]!;
          return { labels: { le, ...labels }, value: cumulative, metricName: `${name}_bucket` };
        }),
        { labels: { le: '+Inf', ...labels }, value: count, metricName: `${name}_bucket` },
        { labels: { ...labels }, value: sum, metricName: `${name}_sum` },
        { labels: { ...labels }, value: count, metricName: `${name}_count` },
      ];
    });
  // What a registry asks of a metric: its name, help and type, its values now, and a reset.
  const metric = {
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    get: async () => ({ name, help, type: 'histogram', aggregator: 'sum', values: values() }),
    reset() {
      for (const each of series) {
        each.counts.fill(0);
        each.sum = 0;
        each.count = 0;
      }
    },
  };
  for (const registry of registers) registry.registerMetric(metric as unknown as Metric);

  return {
    cell(labels: Labels) {
      const missing = labelNames.filter((label) => !(label in labels));
      if (missing.length > 0 || Object.keys(labels).length !== labelNames.length)
        throw new Error(`${name}: labels ${Object.keys(labels).join(', ')}; expected ${labelNames.join(', ')}`);
      const each: Series = { labels, counts: new Float64Array(buckets.length), sum: 0, count: 0 };
      series.push(each);
      return (value: number) => {
        // The first bucket that holds it; above the last, only +Inf (the count) does.
        let index = 0;
        while (index < buckets.length && value > buckets[index]!) index++;
        if (index < buckets.length) each.counts[index]!++;
        each.sum += value;
        each.count++;
      };
    },
  } satisfies ResolvedHistogram;
}
