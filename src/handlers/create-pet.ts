import type { PetStore } from '../store/pet-store.js';
import type { OperationHandler } from '../types/api.js';

/** `petPath` is where a pet is read (`/v1/pets/{petId}`): the new pet's Location. */
export function createPet(store: PetStore, petPath: string): OperationHandler<'createPet'> {
  const [before, after] = petPath.split('{petId}') as [string, string];
  return async (request, reply) => {
    const pet = await store.create(request.body);
    reply.header('location', `${before}${pet.id}${after}`);
    return pet;
  };
}
