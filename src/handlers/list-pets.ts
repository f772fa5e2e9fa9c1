import { eventIdOf } from '../events/event-id.js';
import { positionOf } from '../pagination/cursor.js';
import { nextPageLink } from '../pagination/next-link.js';
import { entityTagsOf } from '../preconditions/entity-tag.js';
import type { PetStore } from '../store/pet-store.js';
import type { OperationHandler } from '../types/api.js';
import { readAtOf } from './store-position.js';

/** `path` is where listPets is served (`/v1/pets`), for the next-page links. */
export function listPets(store: PetStore, path: string) {
  return (async (request, reply) => {
    const { limit, status, cursor } = request.query;
    const after = cursor === undefined ? undefined : positionOf(cursor, status);
    const epoch = store.epoch();
    // The validator has applied the spec's default, so limit is always present here.
    const page = await store.list({ limit: limit!, status, after, at: readAtOf(request, epoch) });
    if (page.versions.length > 0) reply.header('pet-etags', entityTagsOf(epoch, page.pets, page.versions));
    const position = eventIdOf(epoch, page.position);
    reply.header('pet-events-position', position);
    reply.header('store-position', position);
    if (page.more)
      reply.header('link', nextPageLink(path, { limit: limit!, status, lastId: page.pets[page.pets.length - 1]!.id }));
    return page.pets;
  }) satisfies OperationHandler<'listPets'>;
}
