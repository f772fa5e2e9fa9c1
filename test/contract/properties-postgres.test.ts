// The property tests generated from openapi.yaml (test/helpers/property-runs.ts: the properties,
// their case counts and the seed), on PostgreSQL, in a database of its own on the run's throwaway
// cluster, with half the cases. test:all runs it (CI, after npm test, which leaves it out).
import { checkProperties } from '../helpers/property-runs.js';

await checkProperties('PostgreSQL store');
