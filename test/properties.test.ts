// Property-based tests generated from openapi.yaml, with a fixed seed so that npm test is
// repeatable. scripts/property-campaign.ts runs the same properties with any seed and many cases.
import fc from 'fast-check';
import t from 'tap';
import { apiProperties, createSubject } from './properties/api-properties.js';

const SEED = 20261122;
const RUNS: Record<string, number> = {
  'sequences of valid and broken requests behave like a model of the store': 300,
  'a request that breaks one rule gets the documented 4xx naming what to fix': 5000,
  'a request without a valid key gets 401, whatever else is wrong with it': 2000,
};

// 7,300 generated cases, CPU-bound: ~11 s on an idle machine, several times that on a busy one.
t.setTimeout(180_000);

const subject = await createSubject();
t.teardown(() => subject.close());

for (const { name, property } of apiProperties(subject)) {
  t.test(name, async (t) => {
    const numRuns = RUNS[name];
    if (numRuns === undefined) throw new Error(`no case count for "${name}"`);
    const result = await fc.check(property, { seed: SEED, numRuns });
    const report = result.failed ? `${await fc.asyncDefaultReportMessage(result)}\n${String(result.errorInstance)}` : `${numRuns} cases passed`;
    t.notOk(result.failed, report);
    t.equal(result.numRuns, numRuns, `ran all ${numRuns} cases`);
  });
}
t.test('case count', async (t) => {
  t.ok(subject.requestsSent() > 0, `sent ${subject.requestsSent()} generated requests`);
});
