// npm run contract with the service on PostgreSQL: every broken server of test/contract/contract-runner.test.ts
// is caught in front of this store too, and two instances on one database, in turn, keep every check
// (a pet created through one reads back through the other).
import t from 'tap';
import { contract, faultTests, OPTIONS, service } from '../helpers/contract-faults.js';
import { startTestDatabase, whyNoPostgres } from '../helpers/postgres.js';

// Each run is a few hundred requests; the hang fixture waits out its time limit on every shrink.
t.setTimeout(120_000);
const database = await startTestDatabase(t);
const skip = database === undefined ? (whyNoPostgres() ?? true) : false;

t.test('every broken server is caught in front of the PostgreSQL store', { skip }, async (t) => faultTests(t, (t) => database!.createStore(t)));

t.test('two instances on one PostgreSQL database, in turn: every check holds, reading back across instances', { skip }, async (t) => {
  const url = await database!.freshSchema();
  const ports = [await service(t, await database!.openStore(t, url)), await service(t, await database!.openStore(t, url))];
  const { status, output } = await contract([...ports.flatMap((port) => ['--url', `http://127.0.0.1:${port}/v1`]), ...OPTIONS]);
  t.equal(status, 0, output);
  t.match(output, /^ok {3}what a create answered reads back equal/m);
});
