import type { PetStore } from '../store/pet-store.js';
import type { OperationHandler } from '../types/api.js';

export function createPet(store: PetStore): OperationHandler<'createPet'> {
  return async (request) => store.create(request.body);
}
