import { PetNotFound } from '../errors/api-errors.js';
import { entityTagOf } from '../preconditions/entity-tag.js';
import type { PetStore } from '../store/pet-store.js';
import type { OperationHandler } from '../types/api.js';
import { readAtOf, replyReadAt } from './store-position.js';

export function getPet(store: PetStore) {
  return (async (request, reply) => {
    const { petId } = request.params;
    const epoch = store.epoch();
    const at = readAtOf(request, epoch);
    const found = await store.get(petId, at);
    if (found === null) throw new PetNotFound(String(petId));
    reply.header('etag', entityTagOf(epoch, found.pet.id, found.version));
    replyReadAt(reply, epoch, at);
    return found.pet;
  }) satisfies OperationHandler<'getPet'>;
}
