// npm run contract with the service on PostgreSQL: two instances on one database, in turn, keep every
// check (a pet created through one reads back through the other). The broken servers of
// test/tooling/contract-runner.test.ts are proxies in front of the service: what they break, and
// the runner's report of it, is the same whichever store is behind, so they run in memory only.
import t from 'tap';
import { contract, OPTIONS, service } from '../helpers/contract-faults.js';
import { startTestDatabase, whyNoPostgres } from '../helpers/postgres.js';

// A run is a few hundred requests.
t.setTimeout(120_000);
const database = await startTestDatabase(t);
const skip = database === undefined ? (whyNoPostgres() ?? true) : false;

t.test(
  'two instances on one PostgreSQL database, in turn: every check holds, reading back across instances',
  { skip },
  async (t) => {
    const url = await database!.freshSchema();
    const ports = [
      await service(t, await database!.openStore(t, url)),
      await service(t, await database!.openStore(t, url)),
    ];
    const { status, output } = await contract([
      ...ports.flatMap((port) => ['--url', `http://127.0.0.1:${port}/v1`]),
      ...OPTIONS,
    ]);
    t.equal(status, 0, output);
    t.match(output, /^ok {3}what a create answered reads back equal/m);
  },
);
