// A long property-based campaign against the service: the properties of test/properties.test.ts
// with any seed and as many cases as asked, split evenly over the properties.
//   npm run campaign -- --seed 42 --cases 100000
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { apiProperties, createSubject } from '../test/properties/api-properties.js';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: String(Date.now() % 2 ** 31) },
    cases: { type: 'string', default: '100000' },
  },
});
const seed = Number(values.seed);
const cases = Number(values.cases);
if (!Number.isSafeInteger(seed) || !Number.isSafeInteger(cases) || cases < 1) {
  console.error('usage: npm run campaign -- [--seed <integer>] [--cases <positive integer>]');
  process.exit(2);
}

const subject = await createSubject();
const properties = apiProperties(subject);
const started = performance.now();
let failures = 0;
console.log(`property campaign: seed ${seed}, ${cases} cases over ${properties.length} properties`);
for (const [index, { name, property }] of properties.entries()) {
  const numRuns = Math.floor(cases / properties.length) + (index < cases % properties.length ? 1 : 0);
  const sentBefore = subject.requestsSent();
  const propertyStarted = performance.now();
  const result = await fc.check(property, { seed, numRuns });
  const seconds = ((performance.now() - propertyStarted) / 1000).toFixed(1);
  const requests = subject.requestsSent() - sentBefore;
  if (result.failed) {
    failures += 1;
    console.log(`FAIL ${name}: after ${result.numRuns} cases, ${requests} requests, ${seconds} s`);
    console.log(await fc.asyncDefaultReportMessage(result));
    console.log(String(result.errorInstance));
  } else {
    console.log(`ok   ${name}: ${result.numRuns} cases, ${requests} requests, ${seconds} s`);
  }
}
await subject.close();
const total = ((performance.now() - started) / 1000).toFixed(1);
console.log(`summary: seed ${seed}, ${cases} cases, ${subject.requestsSent()} requests, ${total} s, ${failures} failing properties`);
process.exitCode = failures === 0 ? 0 : 1;
