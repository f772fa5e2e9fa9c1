// Every status openapi.yaml documents for every operation, produced and checked against the spec
// (test/helpers/contract-statuses.ts says how each is made): on the PostgreSQL store, in a database
// of its own on the run's throwaway cluster. CI's npm test runs it (NPM_TEST_COVERAGE), a
// maintainer's leaves it out: `npm test -- dist-test/test/contract/contract-postgres.test.js`.
import t from 'tap';
import { checkEveryStatus } from '../helpers/contract-statuses.js';

// A database of its own per status, about 260 of them: longer than .taprc's two minutes on two busy cores.
t.setTimeout(300_000);
await checkEveryStatus('PostgreSQL store');
