// The tests' stand-in store, in one place: a store that fails, or responds as a test needs. A method
// added to PetStore is added here once (TypeScript says so), not in every test that needs an odd store.
import type { PetStore } from '../../src/store/pet-store.js';

/** Every method rejects with what `fail` makes, unless `methods` gives it. */
export function standInStore(
  methods: Partial<PetStore> = {},
  fail: () => Error = () => new Error('this test does not expect the store to be used'),
): PetStore {
  const failing = () => Promise.reject(fail());
  return {
    create: failing,
    createOnce: failing,
    get: failing,
    list: failing,
    update: failing,
    remove: failing,
    listEvents: failing,
    purgeEvents: failing,
    deliveries: {
      claim: failing,
      record: failing,
      release: failing,
      read: failing,
      setPosition: failing,
      logAttempt: failing,
      attempts: failing,
      resend: failing,
      nextResend: failing,
      resent: failing,
    },
    webhookEndpoints: { add: failing, get: failing, list: failing, replace: failing, remove: failing },
    orders: { place: failing, cancel: failing, complete: failing, get: failing, list: failing, expire: failing },
    epoch: () => 'standin',
    writePosition: () => 0,
    ...methods,
  };
}
