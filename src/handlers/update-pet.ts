import { preconditionOf } from '../preconditions/entity-tag.js';
import type { PetStore } from '../store/pet-store.js';
import type { OperationHandler } from '../types/api.js';
import { changeKeyOf, replyWithChange } from './change-outcome.js';
import { replyWrittenAt } from './store-position.js';

export function updatePet(store: PetStore, onReplay?: () => void) {
  return (async (request, reply) => {
    const { petId } = request.params;
    const ifMatch = request.headers['if-match'];
    const precondition = preconditionOf(ifMatch, store.epoch(), petId);
    const outcome = await store.update(
      petId,
      request.body,
      precondition,
      changeKeyOf(request, 'updatePet', petId, request.body),
    );
    // An update leaves a pet: only a removal returns none.
    const changed = replyWithChange(outcome, reply, {
      epoch: store.epoch(),
      operationId: 'updatePet',
      petId,
      ifMatch: ifMatch!,
      onReplay,
    })!;
    replyWrittenAt(reply, store);
    return changed.pet;
  }) satisfies OperationHandler<'updatePet'>;
}
