// What updatePet and deletePet return for what the store did: the pet afterwards (with its ETag),
// or the error that says why nothing changed.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ChangeKeyReused, PetNotFound, PreconditionFailed } from '../errors/api-errors.js';
import { changeRequestOf, keyOf } from '../idempotency/idempotency-key.js';
import { entityTagOf } from '../preconditions/entity-tag.js';
import type { ChangeKey, ChangeOutcome, VersionedPet } from '../store/pet-store.js';
import type { PetId } from '../types/api.js';

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

/** What a change request was: what its rejection and headers name. */
export interface ChangeRequest {
  epoch: string;
  operationId: string;
  petId: unknown;
  ifMatch: string;
  onReplay?: (() => void) | undefined;
}

/**
 * Sets the reply's headers for what the change did and returns the pet it left (null after a
 * removal); or throws the change's rejection, the pet's current ETag set for a 412.
 */
export function replyWithChange(
  outcome: ChangeOutcome,
  reply: FastifyReply,
  { epoch, operationId, petId, ifMatch, onReplay }: ChangeRequest,
): VersionedPet | null {
  switch (outcome.kind) {
    case 'missing':
      throw new PetNotFound(String(petId));
    case 'failed': {
      const current = entityTagOf(epoch, petId as PetId, outcome.version);
      reply.header('etag', current);
      throw new PreconditionFailed(String(petId), ifMatch, current);
    }
    case 'reused':
      throw new ChangeKeyReused(operationId, String(outcome.petId));
    case 'replayed':
      reply.header('idempotent-replayed', 'true');
      onReplay?.();
  }
  const after = outcome.pet;
  if (after !== null) reply.header('etag', entityTagOf(epoch, after.pet.id, after.version));
  return after;
}
