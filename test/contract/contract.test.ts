// Every status openapi.yaml documents for every operation, produced and checked against the spec
// (test/helpers/contract-statuses.ts says how each is made): on the in-memory store; and that every
// documented status has a way to be made.
import { checkEveryStatus } from '../helpers/contract-statuses.js';

await checkEveryStatus('in-memory store');
