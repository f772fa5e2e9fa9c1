// x-stability, as the lifecycle record reads it (src/openapi/lifecycle.ts): what a release promises
// about an operation, and the one direction a later release may move that promise.
import t from 'tap';
import { isLowered, lifecycleOf, STABILITIES } from '../../src/openapi/lifecycle.js';
import type { Operation } from '../../src/openapi/openapi-spec.js';

const operation = (marker?: unknown) =>
  ({
    operationId: 'listPets',
    method: 'get',
    path: '/pets',
    object: { operationId: 'listPets', responses: {}, ...(marker === undefined ? {} : { 'x-stability': marker }) },
  }) as unknown as Operation;
const stabilityOf = (marker?: unknown) => lifecycleOf(operation(marker), []).stability;

t.test('an operation is stable unless its x-stability says experimental or beta', async (t) => {
  t.equal(stabilityOf(), 'stable');
  for (const stability of STABILITIES) t.equal(stabilityOf(stability), stability);
  t.throws(
    () => stabilityOf('alpha'),
    /openapi.yaml: operation listPets: x-stability must be one of experimental, beta, stable, not "alpha"/,
  );
});

t.test('a promise may grow from experimental to beta to stable, never shrink', async (t) => {
  t.notOk(isLowered('experimental', 'beta'));
  t.notOk(isLowered('beta', 'stable'));
  t.notOk(isLowered('stable', 'stable'));
  t.ok(isLowered('stable', 'beta'));
  t.ok(isLowered('beta', 'experimental'));
  t.ok(isLowered('stable', 'experimental'));
});
