import { preconditionOf } from '../preconditions/entity-tag.js';
import type { PetStore } from '../store/pet-store.js';
import type { OperationHandler } from '../types/api.js';
import { changeKeyOf, replyWithChange } from './change-outcome.js';
import { replyWrittenAt } from './store-position.js';

export function deletePet(store: PetStore, onReplay?: () => void) {
  return (async (request, reply) => {
    const { petId } = request.params;
    const ifMatch = request.headers['if-match'];
    const precondition = preconditionOf(ifMatch, store.epoch(), petId);
    const outcome = await store.remove(petId, precondition, changeKeyOf(request, 'deletePet', petId));
    replyWithChange(outcome, reply, {
      epoch: store.epoch(),
      operationId: 'deletePet',
      petId,
      ifMatch: ifMatch!,
      onReplay,
    });
    replyWrittenAt(reply, store);
    return undefined;
  }) satisfies OperationHandler<'deletePet'>;
}
