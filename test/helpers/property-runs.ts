// Property-based tests generated from openapi.yaml, with a fixed seed so that npm test is
// repeatable, run against one store a test file: test/contract/properties.test.ts (the in-memory
// store) and properties-postgres.test.ts (PostgreSQL, a throwaway cluster, see
// test/helpers/postgres.ts; CI's npm test runs it, a maintainer's leaves it out).
// test/model/campaign.ts runs the same properties with any seed and many cases.
import fc from 'fast-check';
import t from 'tap';
import {
  apiProperties,
  createSubject,
  memoryStoreUnderTest,
  postgresStoreUnderTest,
  type StoreUnderTest,
} from '../model/in-process.js';
import { startTestDatabase, whyNoPostgres } from './postgres.js';

const SEED = 20261122;
// The cases CI runs (PROPERTY_CASES=full, .ci/run), and a quarter of them, with the same seed, in
// npm test: the sequences against a model were a fifth of the whole suite's CPU time.
const FULL_RUNS: Record<string, number> = {
  'sequences of valid and broken requests behave like a model of the store': 300,
  'a request that breaks one rule gets the documented 4xx naming what to fix': 5000,
  'a request without a valid key gets 401, whatever else is wrong with it': 2000,
  'a valid request to any operation is answered 2xx (or 404 for an id no link gave) and keeps the contract': 400,
  'every operation answers a valid request with a 2xx': 4,
  "another client's key reads, moves and lists none of the run's owned objects": 4,
};
const SCALE = process.env['PROPERTY_CASES'] === 'full' ? 1 : 0.25;
// PostgreSQL responds to each query in a fraction of a millisecond rather than microseconds, and the
// model's walks over pages make hundreds of queries a case: the same properties and seed, with
// half the cases. `npx tsx --conditions=source test/model/campaign.ts --store postgres` runs more.
const POSTGRES_SHARE = 0.5;
// Generated cases are CPU-bound: ~11 s per store on an idle machine, several times that on a busy one.
t.setTimeout(300_000);

/** The properties on one store, each with its case count. */
export async function checkProperties(storeName: 'in-memory store' | 'PostgreSQL store'): Promise<void> {
  let storeUnderTest = async (): Promise<StoreUnderTest> => memoryStoreUnderTest();
  let skip: string | false = false;
  let share = 1;
  if (storeName === 'PostgreSQL store') {
    const database = await startTestDatabase(t);
    // Commits here need not wait for the WAL to reach the disk: these properties are about responds;
    // durability has its own test (test/system/postgres-service.test.ts), with the server's defaults.
    storeUnderTest = async () => postgresStoreUnderTest(await database!.createStore(t, { synchronous_commit: 'off' }));
    skip = database === undefined ? (whyNoPostgres() ?? 'no database') : false;
    share = POSTGRES_SHARE;
  }
  t.test(storeName, { skip }, async (t) => {
    const subject = await createSubject(await storeUnderTest());
    t.teardown(() => subject.close());
    for (const { name, property } of apiProperties(subject)) {
      t.test(name, async (t) => {
        if (FULL_RUNS[name] === undefined) throw new Error(`no case count for "${name}"`);
        const numRuns = Math.round(FULL_RUNS[name] * SCALE * share);
        const result = await fc.check(property, { seed: SEED, numRuns });
        const report = result.failed
          ? `${await fc.asyncDefaultReportMessage(result)}\n${String(result.errorInstance)}`
          : `${numRuns} cases passed`;
        t.notOk(result.failed, report);
        t.equal(result.numRuns, numRuns, `ran all ${numRuns} cases`);
      });
    }
    t.test('case count', async (t) => {
      t.ok(subject.requestsSent() > 0, `sent ${subject.requestsSent()} generated requests`);
    });
  });
}
