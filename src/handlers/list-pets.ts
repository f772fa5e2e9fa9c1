import type { PetStore } from '../store/pet-store.js';
import type { OperationHandler } from '../types/api.js';

export function listPets(store: PetStore): OperationHandler<'listPets'> {
  return async (request) => {
    const { limit, status } = request.query;
    // The validator has applied the spec's default, so limit is always present here.
    return store.list({ limit: limit!, status });
  };
}
