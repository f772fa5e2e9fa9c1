// A long property-based campaign against the service: the in-process properties
// (test/model/in-process.ts) with any seed and as many cases as asked, split evenly over the
// properties.
//   npx tsx --conditions=source test/model/campaign.ts --seed 42 --cases 100000
//   DATABASE_URL=postgres://… npx tsx --conditions=source test/model/campaign.ts --store postgres   (in a schema of its own, dropped afterwards)
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import pg from 'pg';
import { migrate } from '../../src/store/postgres/migrate.js';
import { createPostgresPetStore } from '../../src/store/postgres/postgres-pet-store.js';
import { inSchema } from 'throwaway-postgres';
import { apiProperties, createSubject, memoryStoreUnderTest, postgresStoreUnderTest } from './in-process.js';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: String(Date.now() % 2 ** 31) },
    cases: { type: 'string', default: '100000' },
    store: { type: 'string', default: 'memory' },
  },
});
const seed = Number(values.seed);
const cases = Number(values.cases);
if (
  !Number.isSafeInteger(seed) ||
  !Number.isSafeInteger(cases) ||
  cases < 1 ||
  !['memory', 'postgres'].includes(values.store)
) {
  console.error(
    'usage: npx tsx --conditions=source test/model/campaign.ts [--seed <integer>] [--cases <positive integer>] [--store memory|postgres (with DATABASE_URL)]',
  );
  process.exit(2);
}

const database = values.store === 'postgres' ? await campaignSchema() : undefined;
const subject = await createSubject(
  database === undefined ? memoryStoreUnderTest() : postgresStoreUnderTest(database.store),
);
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
await database?.drop();
const total = ((performance.now() - started) / 1000).toFixed(1);
console.log(
  `summary: seed ${seed}, ${cases} cases, ${subject.requestsSent()} requests, ${total} s, ${failures} failing properties`,
);
process.exitCode = failures === 0 ? 0 : 1;

/** A store in a new schema of DATABASE_URL's database, so that the campaign never touches existing pets. */
async function campaignSchema() {
  const url = process.env['DATABASE_URL'];
  if (url === undefined || url === '') {
    console.error('campaign: --store postgres needs DATABASE_URL');
    process.exit(2);
  }
  const schema = `campaign_${process.pid}_${Date.now()}`;
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  await admin.query(`CREATE SCHEMA ${schema}`);
  const store = createPostgresPetStore({ connectionString: inSchema(url, schema) });
  await migrate(store.pool);
  await store.readEpoch();
  return {
    store,
    async drop() {
      await store.close();
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}
