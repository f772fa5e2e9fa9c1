// x-stability (src/openapi/stability.ts): what a release promises about an operation, and the one
// direction a later release may move that promise.
import t from 'tap';
import { isLowered, stabilityOf, STABILITIES } from '../src/openapi/stability.js';

const operation = (marker?: unknown) => ({ operationId: 'listPets', object: { operationId: 'listPets', responses: {}, ...(marker === undefined ? {} : { 'x-stability': marker }) } });

t.test('an operation is stable unless its x-stability says experimental or beta', async (t) => {
  t.equal(stabilityOf(operation()), 'stable');
  for (const stability of STABILITIES) t.equal(stabilityOf(operation(stability)), stability);
  t.throws(() => stabilityOf(operation('alpha')), /listPets has x-stability "alpha"; it must be one of experimental, beta, stable/);
});

t.test('a promise may grow from experimental to beta to stable, never shrink', async (t) => {
  t.notOk(isLowered('experimental', 'beta'));
  t.notOk(isLowered('beta', 'stable'));
  t.notOk(isLowered('stable', 'stable'));
  t.ok(isLowered('stable', 'beta'));
  t.ok(isLowered('beta', 'experimental'));
  t.ok(isLowered('stable', 'experimental'));
});
