// The property tests generated from openapi.yaml (test/helpers/property-runs.ts: the properties,
// their case counts and the seed), on the in-memory store.
import { checkProperties } from '../helpers/property-runs.js';

await checkProperties('in-memory store');
