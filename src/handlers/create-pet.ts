import { IdempotencyKeyReused } from '../errors/api-errors.js';
import { isSameRequest, keyOf } from '../idempotency/idempotency-key.js';
import { entityTagOf } from '../preconditions/entity-tag.js';
import type { PetStore } from '../store/pet-store.js';
import type { OperationHandler } from '../types/api.js';
import { replyWrittenAt } from './store-position.js';

/** `petPath` is where a pet is read (`/v1/pets/{petId}`): the new pet's Location. */
export function createPet(store: PetStore, petPath: string, onReplay?: () => void) {
  const [before, after] = petPath.split('{petId}') as [string, string];
  return (async (request, reply) => {
    // Validated against openapi.yaml before the handler runs; one header, so a string.
    const header = request.headers['idempotency-key'] as string | undefined;
    let pet;
    if (header === undefined) {
      pet = await store.create(request.body);
    } else {
      const created = await store.createOnce(request.body, { scope: request.apiKeyScope, key: keyOf(header) });
      pet = created.pet;
      if (created.replayed) {
        if (!isSameRequest(pet, request.body)) throw new IdempotencyKeyReused(String(pet.id));
        reply.header('idempotent-replayed', 'true');
        onReplay?.();
      }
    }
    reply.header('location', `${before}${pet.id}${after}`);
    // A new pet is at its first version; a replay responds as the create did.
    reply.header('etag', entityTagOf(store.epoch(), pet.id, 1));
    replyWrittenAt(reply, store);
    return pet;
  }) satisfies OperationHandler<'createPet'>;
}
