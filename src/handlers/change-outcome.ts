// What updatePet and deletePet answer for what the store did: the pet afterwards (with its ETag),
// or the error that says why nothing changed.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ChangeKeyReused, PetNotFound, PreconditionFailed } from '../errors/api-errors.js';
import { changeRequestOf, keyOf } from '../idempotency/idempotency-key.js';
import { entityTagOf } from '../preconditions/entity-tag.js';
import type { ChangeKey, ChangeOutcome, VersionedPet } from '../store/pet-store.js';

/** The change's Idempotency-Key, when the request sent one (validated against openapi.yaml already). */
export function changeKeyOf(
  request: FastifyRequest,
  operationId: string,
  petId: unknown,
  body?: Record<string, unknown>,
): ChangeKey | undefined {
  const header = request.headers['idempotency-key'] as string | undefined;
  if (header === undefined) return undefined;
  return {
    scope: request.apiKeyScope,
    key: keyOf(header),
    operation: operationId,
    request: changeRequestOf(operationId, petId, body),
  };
}

/** The pet the change left (null after a removal), its ETag set; or throws the change's refusal. */
export function changedPet(
  outcome: ChangeOutcome,
  reply: FastifyReply,
  operationId: string,
  petId: unknown,
  ifMatch: string,
  onReplay?: () => void,
): VersionedPet | null {
  switch (outcome.outcome) {
    case 'missing':
      throw new PetNotFound(String(petId));
    case 'failed':
      reply.header('etag', entityTagOf(outcome.version));
      throw new PreconditionFailed(String(petId), ifMatch, entityTagOf(outcome.version));
    case 'reused':
      throw new ChangeKeyReused(operationId, String(outcome.petId));
    case 'replayed':
      reply.header('idempotent-replayed', 'true');
      onReplay?.();
  }
  if (outcome.pet !== null) reply.header('etag', entityTagOf(outcome.pet.version));
  return outcome.pet;
}
