// The property tests generated from openapi.yaml (test/helpers/property-runs.ts: the properties,
// their case counts and the seed), on PostgreSQL, in a database of its own on the run's throwaway
// cluster, with half the cases. CI's npm test runs it (NPM_TEST_COVERAGE), a maintainer's leaves
// it out.
import { checkProperties } from '../helpers/property-runs.js';

await checkProperties('PostgreSQL store');
