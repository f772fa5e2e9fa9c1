// Store-Position (openapi.yaml, "Reading your own writes"; docs/replicas.md): the request's, read
// as where a read must be made at least, and the answer's, where it stands. A position is a feed
// position in an event id's form; one of another epoch (a store since restored or failed over)
// says nothing about this store, so it is read as none.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ValidationFailed } from '../errors/api-errors.js';
import { eventIdOf, positionOfEventId } from '../events/event-id.js';
import type { PetStore } from '../store/pet-store.js';
import type { ReadAt } from '../store/read-at.js';

/** Where the request's read must be made (its pattern was checked against openapi.yaml). */
export function readAtOf(request: FastifyRequest, epoch: string): ReadAt {
  const header = request.headers['store-position'] as string | undefined;
  if (header === undefined) return {};
  const position = positionOfEventId(header);
  if (position === undefined) throw new ValidationFailed('header Store-Position is not a position this service issued');
  return position.epoch === epoch ? { atLeast: position.seq } : {};
}

/** Says where the answer of a read stands. */
export function replyReadAt(reply: FastifyReply, epoch: string, { position }: ReadAt): void {
  reply.header('store-position', eventIdOf(epoch, position!));
}

/** Says where the answer of a write stands: at or after its commit. */
export function replyWrittenAt(reply: FastifyReply, store: PetStore): void {
  reply.header('store-position', eventIdOf(store.epoch(), store.writePosition()));
}
