// The tests' stand-in stores, in one place: a store that fails, or answers as a test needs, and a
// store that passes every call on to one that can be replaced. A method added to PetStore is added
// here once (TypeScript says so), not in every test that needs an odd store.
import type { PetStore } from '../../src/store/pet-store.js';

/** Every method rejects with what `fail` makes, unless `methods` gives it. */
export function standInStore(methods: Partial<PetStore> = {}, fail: () => Error = () => new Error('this test does not expect the store to be used')): PetStore {
  const failing = () => Promise.reject(fail());
  return { create: failing, createOnce: failing, get: failing, list: failing, ...methods };
}

/** Every call goes to `current()`'s store at the time of the call, whatever its methods. */
export function delegatingStore(current: () => PetStore): PetStore {
  return new Proxy({} as PetStore, {
    get(_target, name) {
      const store = current();
      const value: unknown = Reflect.get(store, name);
      return typeof value === 'function' ? value.bind(store) : value;
    },
    has: (_target, name) => Reflect.has(current(), name),
  });
}
