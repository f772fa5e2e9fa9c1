import type { PetStore } from '../store/pet-store.js';
import type { OperationHandlers } from '../types/api.js';
import { createPet } from './create-pet.js';
import { getPet } from './get-pet.js';
import { listPets } from './list-pets.js';

/** The handler of every operation in openapi.yaml, keyed by operationId. */
export function createHandlers(store: PetStore): OperationHandlers {
  return {
    listPets: listPets(store),
    createPet: createPet(store),
    getPet: getPet(store),
  };
}
