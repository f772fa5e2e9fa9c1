import { PetNotFound } from '../errors/api-errors.js';
import type { PetStore } from '../store/pet-store.js';
import type { OperationHandler } from '../types/api.js';

export function getPet(store: PetStore) {
  return (async (request) => {
    const { petId } = request.params;
    const pet = await store.get(petId);
    if (pet === null) throw new PetNotFound(String(petId));
    return pet;
  }) satisfies OperationHandler<'getPet'>;
}
