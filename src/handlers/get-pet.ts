import { PetNotFound } from '../errors/api-errors.js';
import { entityTagOf } from '../preconditions/entity-tag.js';
import type { PetStore } from '../store/pet-store.js';
import type { OperationHandler } from '../types/api.js';

export function getPet(store: PetStore) {
  return (async (request, reply) => {
    const { petId } = request.params;
    const found = await store.get(petId);
    if (found === null) throw new PetNotFound(String(petId));
    reply.header('etag', entityTagOf(store.epoch(), found.pet.id, found.version));
    return found.pet;
  }) satisfies OperationHandler<'getPet'>;
}
