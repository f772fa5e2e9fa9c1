// The guard of src/metrics/resolved-histogram.ts (docs/decisions.md): for the same observations it
// exposes what prom-client's own Histogram exposes, line for line, and reads the same as JSON.
import { Histogram, Registry } from 'prom-client';
import t from 'tap';
import { createResolvedHistogram } from '../../src/metrics/resolved-histogram.js';

const OPTIONS = {
  name: 'request_seconds',
  help: 'Requests, "quoted" and \\ escaped.',
  labelNames: ['method', 'route', 'status'],
  buckets: [0.001, 0.01, 0.1, 1],
};
const SETS = [
  { method: 'GET', route: '/v1/pets/{petId}', status: 200 },
  { method: 'POST', route: 'a "quoted" \\ route\n', status: 201 },
  { method: 'GET', route: '', status: 404 },
];
// On a bound, between bounds, beyond the last, zero, and enough of them for sums to round.
const VALUES = [0, 0.001, 0.0011, 0.01, 0.05, 0.1, 0.999, 1, 1.5, 30, 0.0003, 0.07];

function bothWith(observations: [number, number][]) {
  const theirs = new Registry();
  const ours = new Registry();
  const histogram = new Histogram({ ...OPTIONS, registers: [theirs] });
  const resolved = createResolvedHistogram({ ...OPTIONS, registers: [ours] });
  const cells = new Map<number, (value: number) => void>();
  for (const [set, value] of observations) {
    histogram.labels(SETS[set]!).observe(value);
    if (!cells.has(set)) cells.set(set, resolved.cell(SETS[set]!));
    cells.get(set)!(value);
  }
  return { theirs, ours };
}

t.test("the exposition is prom-client's, line for line", async (t) => {
  const observations = VALUES.flatMap((value, index) => [
    [index % 3, value] as [number, number],
    [(index + 1) % 3, value * 3] as [number, number],
  ]);
  const { theirs, ours } = bothWith(observations);
  const expected = await theirs.metrics();
  t.match(expected, 'request_seconds_bucket{le="0.01",method="GET",route="/v1/pets/{petId}",status="200"}');
  t.equal(await ours.metrics(), expected);
  // As JSON (getMetricsAsJSON, what the tests read), the same values under the same names and labels.
  const valuesOf = async (registry: Registry) =>
    (await registry.getMetricsAsJSON()).flatMap(({ values }) =>
      values.map(({ labels, value, metricName }: { labels: object; value: number; metricName?: string }) => ({
        labels,
        value,
        metricName,
      })),
    );
  t.strictSame(await valuesOf(ours), await valuesOf(theirs));
});

t.test('a label set with no observation yet exposes nothing; a reset zeroes every count', async (t) => {
  const { theirs, ours } = bothWith([]);
  t.equal(await ours.metrics(), await theirs.metrics());
  const registry = new Registry();
  const resolved = createResolvedHistogram({ ...OPTIONS, registers: [registry] });
  const observe = resolved.cell(SETS[0]!);
  observe(0.5);
  registry.resetMetrics();
  t.match(await registry.metrics(), 'request_seconds_count{method="GET",route="/v1/pets/{petId}",status="200"} 0');
  observe(0.05);
  t.match(
    await registry.metrics(),
    'request_seconds_bucket{le="0.1",method="GET",route="/v1/pets/{petId}",status="200"} 1',
  );
});

t.test('a label set must name every label and no other', async (t) => {
  const resolved = createResolvedHistogram({ ...OPTIONS, registers: [] });
  t.throws(() => resolved.cell({ method: 'GET', route: '/' }), /labels method, route; expected method, route, status/);
  t.throws(() => resolved.cell({ ...SETS[0]!, extra: 'x' }), /expected method, route, status/);
});
